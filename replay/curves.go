package replay

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/pgbufsim/pgbufsim/trace"
)

// CurveOptions tune Curves.
type CurveOptions struct {
	// ShardsRate, when above 0, estimates LRU's curve by SHARDS sampling
	// at this rate (0 < rate <= 1) instead of the exact one-pass
	// stack-distance computation.
	ShardsRate float64
	// LRUReplay replays LRU at each size like any other policy instead of
	// computing its curve in one pass (for cross-checks).
	LRUReplay bool
	// Workers is the number of goroutines (0: GOMAXPROCS).
	Workers int
}

// Curve is one policy's results, one per size, in the order of the sizes.
type Curve struct {
	// Policy is the policy's label.
	Policy string
	Points []Result
}

// Curves replays t through every policy at every size (in slots) and
// returns one Curve per policy, in order. Runs proceed in parallel; the
// results do not depend on the number of workers.
func Curves(t *trace.Trace, pols []Policy, sizes []int, opt CurveOptions) ([]Curve, error) {
	curves, _, err := curves(t, pols, sizes, opt, nil)
	return curves, err
}

// job is one unit of work: one policy at one size, or a one-pass curve.
type job struct {
	policy int
	size   int // index into sizes; -1 for a whole curve
}

// curves is Curves with an optional clock (nanoseconds) for the CLI's
// timing; it returns each point's elapsed time (a one-pass curve's time is
// given to each of its points).
func curves(t *trace.Trace, pols []Policy, sizes []int, opt CurveOptions, clock func() int64) ([]Curve, [][]int64, error) {
	if opt.ShardsRate != 0 {
		if err := checkRate(opt.ShardsRate); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range sizes {
		if c < 1 || c > maxSlots {
			return nil, nil, fmt.Errorf("cache of %d slots: must be 1..%d", c, maxSlots)
		}
	}
	out := make([]Curve, len(pols))
	elapsed := make([][]int64, len(pols))
	var jobs []job
	for i, p := range pols {
		out[i] = Curve{Policy: p.Name, Points: make([]Result, len(sizes))}
		elapsed[i] = make([]int64, len(sizes))
		if onePass(p, opt) {
			jobs = append(jobs, job{policy: i, size: -1})
			continue
		}
		for j := range sizes {
			jobs = append(jobs, job{policy: i, size: j})
		}
	}
	if offline(pols) {
		t.NextUse() // compute once, before the workers share it
	}
	errs := make([]error, len(jobs))
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				errs[k] = runJob(t, pols, sizes, opt, jobs[k], out, elapsed, clock)
			}
		}()
	}
	for k := range jobs {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return out, elapsed, nil
}

// onePass reports whether p's curve is computed in one pass.
func onePass(p Policy, opt CurveOptions) bool {
	return p.Spec.Name == "lru" && !opt.LRUReplay
}

func offline(pols []Policy) bool {
	for _, p := range pols {
		if p.Spec.Offline {
			return true
		}
	}
	return false
}

// runJob runs one job and stores its results; each job writes only its own
// entries of out and elapsed.
func runJob(t *trace.Trace, pols []Policy, sizes []int, opt CurveOptions, jb job, out []Curve, elapsed [][]int64, clock func() int64) error {
	var start int64
	if clock != nil {
		start = clock()
	}
	p := pols[jb.policy]
	if jb.size < 0 {
		var res []Result
		if opt.ShardsRate > 0 {
			var err error
			if res, err = shardsCurve(t, sizes, opt.ShardsRate); err != nil {
				return err
			}
		} else {
			res = lruCurve(t, sizes)
		}
		for j := range res {
			res[j].Policy = p.Name
		}
		copy(out[jb.policy].Points, res)
		if clock != nil {
			d := clock() - start
			for j := range sizes {
				elapsed[jb.policy][j] = d
			}
		}
		return nil
	}
	res, err := replayLoaded(t, p, sizes[jb.size])
	if err != nil {
		return fmt.Errorf("%s at %d slots: %w", p.Name, sizes[jb.size], err)
	}
	out[jb.policy].Points[jb.size] = res
	if clock != nil {
		elapsed[jb.policy][jb.size] = clock() - start
	}
	return nil
}

// replayLoaded replays an in-memory trace. A cache larger than the trace's
// distinct pages behaves exactly like one of that many pages (no policy
// ever evicts while an empty slot remains), so only that many slots are
// allocated; the result reports the size asked for.
func replayLoaded(t *trace.Trace, p Policy, slots int) (Result, error) {
	pol, err := p.New()
	if err != nil {
		return Result{}, err
	}
	alloc := max(1, min(slots, t.Distinct()))
	r := newReplayer(pol, alloc, t.Distinct())
	if err := r.drain(t.Reader(p.Spec.Offline)); err != nil {
		return Result{}, err
	}
	res := r.result()
	res.Slots = slots
	return res, nil
}
