package policies_test

import (
	"fmt"

	"github.com/pgbufsim/pgbufsim/policies"
)

// Building a policy from the registry with non-default parameters, as the
// configuration loader does, and driving it by hand.
func Example() {
	spec, err := policies.Lookup("Clock-Sweep")
	if err != nil {
		panic(err)
	}
	p := spec.Params().(*policies.ClockSweepParams)
	p.MaxUsageCount = 3
	p.CorrelatedReferencePeriod = 3e9 // 3 s of simulated time
	pol, err := spec.New(p)
	if err != nil {
		panic(err)
	}
	fmt.Println(pol.Name())

	frames := &policies.Frames{Pins: make([]int32, 2)}
	pol.Init(frames)
	pol.Loaded(0, 1000, 0, false)
	pol.Loaded(1, 1001, 0, false)
	pol.Accessed(1, 1e9, false) // within 3 s of the load: no bump
	pol.Accessed(1, 4e9, false) // bump to 2
	frames.Pins[0] = 1          // a backend holds slot 0: skipped, never decremented
	slot, steps := pol.Victim(5e9)
	u := pol.(policies.UsageCounter)
	fmt.Printf("victim %d after %d steps; usage now %d, %d\n", slot, steps, u.Usage(0), u.Usage(1))

	_, err = policies.Lookup("clok-sweep")
	fmt.Println(err)
	// Output:
	// clock-sweep(max_usage_count=3,correlated_reference_period=3s)
	// victim 1 after 6 steps; usage now 1, 0
	// unknown replacement policy "clok-sweep" (valid: 2q, arc, clock, clock-sweep, fifo, lfu, lru, opt, s3-fifo, sieve); did you mean "clock-sweep"?
}
