package sim_test

import (
	"fmt"

	"github.com/pgbufsim/pgbufsim/sim"
)

// backend is a model process written as a state machine: each event's arg
// says which step of its cycle just finished.
type backend struct {
	id   int
	k    *sim.Kernel
	cpu  *sim.Resource
	disk *sim.Resource
}

const (
	wantCPU int64 = iota
	cpuDone
	ioDone
)

func (b *backend) OnEvent(arg int64) {
	switch arg {
	case wantCPU:
		b.cpu.Request(50*sim.Microsecond, b, cpuDone)
	case cpuDone:
		b.disk.Request(200*sim.Microsecond, b, ioDone)
	case ioDone:
		fmt.Printf("t=%4dus backend %d done\n", b.k.Now()/sim.Microsecond, b.id)
	}
}

// Three backends share one CPU core and a two-channel disk. The CPU
// serialises them 50 us apart; the disk overlaps two reads at a time, so the
// third waits for a channel.
func Example() {
	k := sim.NewKernel()
	cpu := sim.NewResource(k, "cpu", 1)
	disk := sim.NewResource(k, "disk", 2)
	for id := range 3 {
		k.Schedule(0, &backend{id: id, k: k, cpu: cpu, disk: disk}, wantCPU)
	}
	k.RunUntil(sim.Second)
	st := disk.Stats()
	fmt.Printf("disk: served %d, mean wait %.0fus, utilisation %.5f\n",
		st.Served, st.MeanWaitNs/float64(sim.Microsecond), st.Utilisation)
	// Output:
	// t= 250us backend 0 done
	// t= 300us backend 1 done
	// t= 450us backend 2 done
	// disk: served 3, mean wait 33us, utilisation 0.00030
}

// Quantiles come from log-linear buckets: the exact 99th percentile here is
// 990us, and the histogram answers within 1/256 of it.
func ExampleHistogram() {
	h := sim.NewHistogram()
	for v := int64(1); v <= 1000; v++ {
		h.Record(v * sim.Microsecond)
	}
	fmt.Printf("n=%d mean=%.1fus p50=%dus p99=%dus max=%dus\n", h.Count(), h.Mean()/1e3,
		h.Quantile(0.5)/1e3, h.Quantile(0.99)/1e3, h.Max()/1e3)
	// Output:
	// n=1000 mean=500.5us p50=500us p99=989us max=1000us
}
