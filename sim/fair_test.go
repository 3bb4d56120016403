package sim

import (
	"fmt"
	"slices"
	"testing"
)

const (
	ms = int64(1_000_000)
	us = int64(1_000)
)

// fairProc is a test process: it asks for its bursts one after another,
// sleeping gap ns between them, and logs when each ends.
type fairProc struct {
	r      *Resource
	owner  int32
	bursts []int64
	gap    int64
	n      int
	ends   []int64
}

func (p *fairProc) start() { p.r.RequestAs(p.bursts[0], p.owner, 0, 0, p, 0) }

func (p *fairProc) OnEvent(arg int64) {
	if arg == 1 { // woke from its sleep
		p.r.RequestAs(p.bursts[p.n], p.owner, 0, 0, p, 0)
		return
	}
	p.ends = append(p.ends, p.r.k.Now())
	p.n++
	if p.n < len(p.bursts) {
		if p.gap == 0 {
			p.r.RequestAs(p.bursts[p.n], p.owner, 0, 0, p, 0)
			return
		}
		p.r.k.After(p.gap, p, 1)
	}
}

func fairResource(servers int) (*Kernel, *Resource) {
	k := NewKernel()
	r := NewResource(k, "cpu", servers)
	r.SetFair(1500*us, 500*us, 4*ms)
	return k, r
}

// Three processes that never sleep share one core in equal parts, a tick
// at a time (each runs until its slice is used up and the others'
// deadlines are earlier), where arrival order would finish them at 30,
// 60 and 90 ms.
func TestFairSharesACoreEqually(t *testing.T) {
	k, r := fairResource(1)
	var ps []*fairProc
	for i := range 3 {
		p := &fairProc{r: r, owner: int32(i), bursts: []int64{30 * ms}}
		ps = append(ps, p)
		p.start()
	}
	k.Run()
	for _, p := range ps {
		if end := p.ends[0]; end < 90*ms-8*ms || end > 90*ms {
			t.Errorf("owner %d ended at %.1f ms, want within two ticks of 90 ms (a third of the core each)", p.owner, float64(end)/1e6)
		}
	}
	if st := r.Stats(); st.BusyNs != float64(90*ms) || st.Served != 3 {
		t.Errorf("busy %v ns, served %d; want 90 ms and 3", st.BusyNs, st.Served)
	}
	pre, _, _ := r.FairStats()
	if pre < 15 {
		t.Errorf("%d preemptions, want one at about every tick (>= 15 in 90 ms)", pre)
	}
}

// Groups share the core first: a group's lone process gets half of it
// against two processes of another group (CONFIG_FAIR_GROUP_SCHED), a
// third without groups.
func TestFairGroupsShareFirst(t *testing.T) {
	for _, grouped := range []bool{true, false} {
		k, r := fairResource(1)
		if grouped {
			r.SetFairGroups(func(owner int32) int32 {
				if owner == 2 {
					return 2
				}
				return 1
			})
		}
		var ps []*fairProc
		for i := range 3 {
			p := &fairProc{r: r, owner: int32(i), bursts: []int64{40 * ms}}
			ps = append(ps, p)
			p.start()
		}
		k.Run()
		lone := ps[2].ends[0]
		if grouped && (lone < 80*ms-8*ms || lone > 80*ms+8*ms) {
			t.Errorf("grouped: the lone process ended at %.1f ms, want about 80 (half the core)", float64(lone)/1e6)
		}
		if !grouped && lone < 120*ms-12*ms {
			t.Errorf("flat: the third process ended at %.1f ms, want about 120 (a third of the core)", float64(lone)/1e6)
		}
		for _, p := range ps[:2] {
			if p.ends[0] < 112*ms || p.ends[0] > 120*ms {
				t.Errorf("grouped=%v: owner %d ended at %.1f ms, want within two ticks of 120", grouped, p.owner, float64(p.ends[0])/1e6)
			}
		}
	}
}

// The rules worked by hand (slice 1.5 ms, tick 4 ms). A asks for 10 ms
// and runs first; B, queued at the same instant with no lag, cannot
// preempt it (A is eligible and within its protected slice), so B waits
// for the tick at 4 ms, where A (v 4 ms) has used up its first deadline
// (0.75 ms, half a slice for a new process) and is past the average
// (2 ms). B runs 0.1 ms and sleeps with a lag of 1.95 ms (the average
// 2.05 ms less its 0.1). Woken at 5.1 ms it is placed 3.9 ms before A
// (its lag doubled: PLACE_LAG with one entity queued), which puts A past
// the average: B preempts at once and ends at 5.2 ms; A ends at 10.2 ms.
// Served in arrival order, B's second burst would end at 10.2 ms.
func TestFairWakeupPreemption(t *testing.T) {
	k, r := fairResource(1)
	a := &fairProc{r: r, owner: 1, bursts: []int64{10 * ms}}
	b := &fairProc{r: r, owner: 2, bursts: []int64{100 * us, 100 * us}, gap: 1 * ms}
	a.start()
	b.start()
	k.Run()
	if want := []int64{4100 * us, 5200 * us}; !slices.Equal(b.ends, want) {
		t.Errorf("B's bursts ended at %v, want %v", b.ends, want)
	}
	if want := []int64{10200 * us}; !slices.Equal(a.ends, want) {
		t.Errorf("A ended at %v, want %v", a.ends, want)
	}
	pre, _, _ := r.FairStats()
	if pre != 2 {
		t.Errorf("%d preemptions, want 2 (the tick at 4 ms, B's wake-up at 5.1 ms)", pre)
	}
}

// A process that slept behind its share stays queued as delayed and wakes
// where it is: B runs 3 ms while A waits, sleeps ahead of the average
// (DELAY_DEQUEUE) and, woken at 3.5 ms, keeps its virtual runtime (3 ms)
// instead of being placed anew: it runs only when A has caught up, at
// the tick at 8 ms (A's v 5 ms, the average 4 ms).
func TestFairDelayedDequeue(t *testing.T) {
	k, r := fairResource(1)
	b := &fairProc{r: r, owner: 2, bursts: []int64{3 * ms, 100 * us}, gap: 500 * us}
	a := &fairProc{r: r, owner: 1, bursts: []int64{20 * ms}}
	b.start()
	a.start()
	k.Run()
	if want := []int64{3 * ms, 8*ms + 100*us}; !slices.Equal(b.ends, want) {
		t.Errorf("B's bursts ended at %v, want %v", b.ends, want)
	}
}

// New processes are placed on the least loaded core, so two of them run
// side by side on two; a process's later bursts stay on its core.
func TestFairPlacement(t *testing.T) {
	k, r := fairResource(2)
	a := &fairProc{r: r, owner: 1, bursts: []int64{5 * ms, 5 * ms}, gap: 1 * ms}
	b := &fairProc{r: r, owner: 2, bursts: []int64{5 * ms, 5 * ms}, gap: 1 * ms}
	a.start()
	b.start()
	k.Run()
	want := []int64{5 * ms, 11 * ms}
	if !slices.Equal(a.ends, want) || !slices.Equal(b.ends, want) {
		t.Errorf("ends %v and %v, want %v each (two cores, no waiting)", a.ends, b.ends, want)
	}
	if _, _, mig := r.FairStats(); mig != 0 {
		t.Errorf("%d migrations, want none", mig)
	}
}

// An owner that asks again before its burst ended (a pseudo-process
// standing for several workers) has the bursts served one after another.
func TestFairPendingBursts(t *testing.T) {
	k, r := fairResource(1)
	rec := &recorder{k: k}
	r.RequestAs(2*ms, 7, 0, 0, rec, 1)
	r.RequestAs(3*ms, 7, 0, 0, rec, 2)
	k.Run()
	if want := []firing{{2 * ms, 1}, {5 * ms, 2}}; !slices.Equal(rec.log, want) {
		t.Errorf("completions %v, want %v", rec.log, want)
	}
}

// The same requests give the same schedule, event for event.
func TestFairDeterministic(t *testing.T) {
	run := func() string {
		k, r := fairResource(2)
		r.SetFairGroups(func(o int32) int32 { return o%2 + 1 })
		var ps []*fairProc
		for i := range 7 {
			p := &fairProc{r: r, owner: int32(i), gap: int64(i+1) * 37 * us}
			for j := range 40 {
				p.bursts = append(p.bursts, int64((i*13+j*7)%50+5)*us)
			}
			ps = append(ps, p)
			p.start()
		}
		k.Run()
		s := ""
		for _, p := range ps {
			s += fmt.Sprint(p.ends)
		}
		pre, wp, mig := r.FairStats()
		return s + fmt.Sprint(pre, wp, mig, k.Fired())
	}
	if a, b := run(), run(); a != b {
		t.Fatal("two runs of the same requests differ")
	}
}

// wakeOnDone asks for another owner's burst from its completion handler:
// a process waking another by a message as it finishes (a synchronous
// wake-up from its core).
type wakeOnDone struct {
	r     *Resource
	owner int32
	burst int64
	done  Handler
}

func (w *wakeOnDone) OnEvent(int64) { w.r.RequestAs(w.burst, w.owner, 0, 0, w.done, 0) }

// wake_affine, worked by hand on three cores: P runs 50 us on core 0 and
// sleeps; Q and W are placed on cores 1 and 2, R (from 60 us) on core 0.
// At 100 us W, alone on core 2, ends its burst and wakes P, whose core
// (0) is busy. With the rule P moves to W's core and runs as W leaves it,
// ending at 150 us. Without it P queues behind R, which is eligible and
// within its first slice, until the tick at 4 ms ends that slice: P ends
// at 4.05 ms.
func TestFairWakeAffine(t *testing.T) {
	for _, affine := range []bool{true, false} {
		k := NewKernel()
		r := NewResource(k, "cpu", 3)
		r.SetFair(1500*us, 500*us, 4*ms)
		r.SetFairWakeAffine(affine)
		p := &recorder{k: k}
		r.RequestAs(50*us, 1, 0, 0, p, 0)                              // P: core 0
		r.RequestAs(10*ms, 2, 0, 0, p, 2)                              // Q: core 1
		r.RequestAs(100*us, 3, 0, 0, &wakeOnDone{r, 1, 50 * us, p}, 0) // W: core 2
		k.RunUntil(60 * us)
		r.RequestAs(10*ms, 4, 0, 0, p, 4) // R: core 0, idle since P slept
		k.Run()
		var pEnds []int64
		for _, f := range p.log {
			if f.arg == 0 {
				pEnds = append(pEnds, f.at)
			}
		}
		want := []int64{50 * us, 150 * us}
		if !affine {
			want = []int64{50 * us, 4050 * us}
		}
		if !slices.Equal(pEnds, want) {
			t.Errorf("affine=%v: P's bursts ended at %v, want %v", affine, pEnds, want)
		}
		_, _, mig := r.FairStats()
		if wantMig := map[bool]uint64{true: 1, false: 0}[affine]; mig != wantMig {
			t.Errorf("affine=%v: %d migrations, want %d", affine, mig, wantMig)
		}
	}
}

// A waiting process that has not run for the migration cost moves to a
// core that goes idle (sched_balance_newidle, task_hot): on one core A
// runs 3 ms while B, asleep since its first burst, queues for it at 1 ms;
// when C's core (the other) goes idle at 2 ms, B has been off a core for
// 1.9 ms and is taken there.
func TestFairNewidlePull(t *testing.T) {
	k := NewKernel()
	r := NewResource(k, "cpu", 2)
	r.SetFair(1500*us, 500*us, 4*ms)
	rec := &recorder{k: k}
	r.RequestAs(100*us, 2, 0, 0, rec, 20) // B: core 0, ends at 0.1 ms
	r.RequestAs(2*ms, 3, 0, 0, rec, 3)    // C: core 1 until 2 ms
	k.RunUntil(200 * us)
	r.RequestAs(3*ms, 1, 0, 0, rec, 1) // A: core 0 (B's load has not decayed: the least loaded is a tie)
	k.RunUntil(1 * ms)
	r.RequestAs(100*us, 2, 0, 0, rec, 21) // B again: back to core 0, behind A
	k.Run()
	want := []firing{{100 * us, 20}, {2 * ms, 3}, {2*ms + 100*us, 21}, {3*ms + 200*us, 1}}
	if !slices.Equal(rec.log, want) {
		t.Errorf("completions %v, want %v", rec.log, want)
	}
	if _, _, mig := r.FairStats(); mig != 1 {
		t.Errorf("%d migrations, want 1 (B pulled to the idle core)", mig)
	}
}

// A new process goes to the core with the fewest processes that ran
// there lately, unless they exited: A runs 100 us on core 0 and sleeps;
// B, new at 200 us, goes to core 1 (ending at 300 us), but after A's Exit
// to core 0, where it pays the switch from A (ending at 310 us).
func TestFairExit(t *testing.T) {
	for _, exit := range []bool{false, true} {
		k := NewKernel()
		r := NewResource(k, "cpu", 2)
		r.SetFair(1500*us, 500*us, 4*ms)
		rec := &recorder{k: k}
		r.RequestAs(100*us, 1, 10*us, 0, rec, 1)
		k.RunUntil(200 * us)
		if exit {
			r.Exit(1)
		}
		r.RequestAs(100*us, 2, 10*us, 0, rec, 2)
		k.Run()
		want := []firing{{100 * us, 1}, {300 * us, 2}}
		if exit {
			want[1].at = 310 * us
		}
		if !slices.Equal(rec.log, want) {
			t.Errorf("exit=%v: completions %v, want %v", exit, rec.log, want)
		}
	}
}
