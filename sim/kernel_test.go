package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// firing is one fired event as seen by a recorder.
type firing struct {
	at  int64
	arg int64
}

// recorder is a Handler that logs (Now, arg) of every event it receives and
// can run a hook to schedule more work from inside a handler.
type recorder struct {
	k    *Kernel
	log  []firing
	hook func(arg int64)
}

func (r *recorder) OnEvent(arg int64) {
	r.log = append(r.log, firing{r.k.Now(), arg})
	if r.hook != nil {
		r.hook(arg)
	}
}

func TestTimeUnits(t *testing.T) {
	if Microsecond != 1e3 || Millisecond != 1e6 || Second != 1e9 || Minute != 60e9 || Hour != 3600e9 {
		t.Fatalf("time units wrong: us=%d ms=%d s=%d min=%d h=%d", Microsecond, Millisecond, Second, Minute, Hour)
	}
}

func TestStepFiresInTimeOrder(t *testing.T) {
	k := NewKernel()
	r := &recorder{k: k}
	for i, at := range []int64{50, 10, 40, 20, 30} {
		k.Schedule(at, r, int64(i))
	}
	if k.Pending() != 5 {
		t.Fatalf("Pending = %d, want 5", k.Pending())
	}
	for k.Step() {
	}
	want := []firing{{10, 1}, {20, 3}, {30, 4}, {40, 2}, {50, 0}}
	if !slices.Equal(r.log, want) {
		t.Fatalf("fired %v, want %v", r.log, want)
	}
	if k.Fired() != 5 || k.Pending() != 0 || k.Now() != 50 {
		t.Fatalf("Fired=%d Pending=%d Now=%d, want 5 0 50", k.Fired(), k.Pending(), k.Now())
	}
	if k.Step() {
		t.Fatal("Step on an empty queue returned true")
	}
}

// TestTiesFireInInsertionOrder checks the determinism rule: equal times pop
// in Schedule order, and an event a handler schedules for the current
// instant fires after the ones already queued for that instant.
func TestTiesFireInInsertionOrder(t *testing.T) {
	k := NewKernel()
	r := &recorder{k: k}
	r.hook = func(arg int64) {
		if arg == 1 { // schedule two more at the same instant from inside a handler
			k.Schedule(k.Now(), r, 100)
			k.After(0, r, 101)
		}
	}
	for i := range int64(6) {
		k.Schedule(7, r, i)
	}
	k.Schedule(8, r, 50)
	k.RunUntil(7)
	want := []firing{{7, 0}, {7, 1}, {7, 2}, {7, 3}, {7, 4}, {7, 5}, {7, 100}, {7, 101}}
	if !slices.Equal(r.log, want) {
		t.Fatalf("fired %v, want %v", r.log, want)
	}
	if k.Pending() != 1 {
		t.Fatalf("event at t=8 should still be pending, Pending=%d", k.Pending())
	}
}

// xorshift is a tiny test-local generator so the heap test does not depend
// on the stream code it is not testing.
type xorshift uint64

func (x *xorshift) next() uint64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return uint64(*x)
}

// TestQueueMatchesReference drives the kernel with random interleavings of
// schedules from outside and from inside handlers (the latter take the
// kernel's replace-the-fired-root path), with many duplicate times, and
// checks every fired event against a reference: the earliest pending event,
// ties broken by Schedule order — the (time, seq) contract stated
// independently of the heap.
func TestQueueMatchesReference(t *testing.T) {
	type sched struct {
		at, arg int64
		seq     int
	}
	for trial := range 20 {
		k := NewKernel()
		r := &recorder{k: k}
		rng := xorshift(0x9e3779b97f4a7c15 + uint64(trial))
		var pending []sched // reference model
		seq := 0
		arg := int64(0)
		schedule := func() {
			at := k.Now() + int64(rng.next()%16) // few distinct times: many ties
			k.Schedule(at, r, arg)
			pending = append(pending, sched{at, arg, seq})
			arg++
			seq++
		}
		draining := false
		r.hook = func(int64) {
			for range rng.next() % 3 { // 0, 1 or 2 new events from the handler
				if !draining {
					schedule()
				}
			}
			if got, want := k.Pending(), len(pending); got != want {
				t.Fatalf("trial %d: Pending() = %d inside a handler, want %d", trial, got, want)
			}
		}
		step := func() {
			ref := slices.MinFunc(pending, func(a, b sched) int {
				if a.at != b.at {
					return cmp.Compare(a.at, b.at)
				}
				return cmp.Compare(a.seq, b.seq)
			})
			pending = slices.DeleteFunc(pending, func(s sched) bool { return s.seq == ref.seq })
			if at, ok := k.NextAt(); !ok || at != ref.at {
				t.Fatalf("trial %d: NextAt = %d,%v, reference %d", trial, at, ok, ref.at)
			}
			if !k.Step() {
				t.Fatalf("trial %d: Step returned false with events pending", trial)
			}
			if got := r.log[len(r.log)-1]; got != (firing{ref.at, ref.arg}) {
				t.Fatalf("trial %d: event %d fired %v, reference %v", trial, len(r.log)-1, got, firing{ref.at, ref.arg})
			}
		}
		for op := range 5000 {
			if op < 50 || rng.next()%3 == 0 {
				schedule()
			} else if len(pending) > 0 {
				step()
			}
		}
		draining = true
		for len(pending) > 0 {
			step()
		}
		if k.Step() || k.Pending() != 0 {
			t.Fatalf("trial %d: kernel has events the reference does not", trial)
		}
		if k.Fired() != uint64(len(r.log)) || len(r.log) < 2000 {
			t.Fatalf("trial %d: Fired = %d, logged %d", trial, k.Fired(), len(r.log))
		}
	}
}

func TestInsideHandler(t *testing.T) {
	k := NewKernel()
	r := &recorder{k: k}
	r.hook = func(arg int64) {
		if arg != 0 {
			return
		}
		// The firing event no longer counts; the next is the one at 20.
		if at, ok := k.NextAt(); k.Pending() != 2 || !ok || at != 20 {
			t.Errorf("inside handler: Pending %d NextAt %d,%v; want 2, 20", k.Pending(), at, ok)
		}
		k.Schedule(15, r, 3)
		if at, _ := k.NextAt(); k.Pending() != 3 || at != 15 {
			t.Errorf("after scheduling: Pending %d NextAt %d; want 3, 15", k.Pending(), at)
		}
		mustPanic(t, "Step called from inside an event handler", func() { k.Step() })
		mustPanic(t, "RunUntil called from inside", func() { k.RunUntil(100) })
		mustPanic(t, "Run called from inside", k.Run)
	}
	k.Schedule(10, r, 0)
	k.Schedule(20, r, 1)
	k.Schedule(30, r, 2)
	k.Run()
	want := []firing{{10, 0}, {15, 3}, {20, 1}, {30, 2}}
	if !slices.Equal(r.log, want) {
		t.Fatalf("fired %v, want %v", r.log, want)
	}
	// A lone event whose handler schedules nothing: NextAt sees no next.
	k2 := NewKernel()
	r2 := &recorder{k: k2}
	r2.hook = func(int64) {
		if _, ok := k2.NextAt(); ok || k2.Pending() != 0 {
			t.Errorf("inside the last event: NextAt ok=%v Pending=%d, want false 0", ok, k2.Pending())
		}
	}
	k2.Schedule(1, r2, 0)
	k2.Run()
}

func TestRunUntil(t *testing.T) {
	k := NewKernel()
	r := &recorder{k: k}
	// A self-rescheduling process every 10 ns: RunUntil must fire the events
	// it schedules while running, up to and including t.
	r.hook = func(arg int64) { k.After(10, r, arg+1) }
	k.Schedule(0, r, 0)
	k.RunUntil(35)
	if len(r.log) != 4 || r.log[3] != (firing{30, 3}) {
		t.Fatalf("fired %v, want events at 0,10,20,30", r.log)
	}
	if k.Now() != 35 {
		t.Fatalf("Now = %d after RunUntil(35), want 35", k.Now())
	}
	if at, ok := k.NextAt(); !ok || at != 40 {
		t.Fatalf("NextAt = %d,%v, want 40,true", at, ok)
	}
	k.RunUntil(40) // an event exactly at t fires
	if last := r.log[len(r.log)-1]; last != (firing{40, 4}) || k.Now() != 40 {
		t.Fatalf("last fired %v, Now %d; want {40 4}, 40", last, k.Now())
	}
	k.RunUntil(40) // idempotent at the same instant
	if len(r.log) != 5 {
		t.Fatalf("RunUntil(Now) fired again: %v", r.log)
	}
	if k.Stopped() {
		t.Fatal("Stopped() true without Stop")
	}
	// Empty queue: time still advances to t.
	k2 := NewKernel()
	k2.RunUntil(Hour)
	if k2.Now() != Hour {
		t.Fatalf("Now = %d after RunUntil(Hour) on empty kernel", k2.Now())
	}
	if _, ok := k2.NextAt(); ok {
		t.Fatal("NextAt reported an event on an empty kernel")
	}
}

func TestStop(t *testing.T) {
	k := NewKernel()
	r := &recorder{k: k}
	r.hook = func(arg int64) {
		if arg == 2 {
			k.Stop()
		}
	}
	for i := range int64(5) {
		k.Schedule(10*(i+1), r, i)
	}
	k.RunUntil(100)
	if !k.Stopped() || k.Now() != 30 || len(r.log) != 3 || k.Pending() != 2 {
		t.Fatalf("after Stop: Stopped=%v Now=%d fired=%d pending=%d; want true 30 3 2",
			k.Stopped(), k.Now(), len(r.log), k.Pending())
	}
	// The next run resumes where the stopped one left off.
	k.RunUntil(100)
	if k.Stopped() || k.Now() != 100 || len(r.log) != 5 {
		t.Fatalf("resumed run: Stopped=%v Now=%d fired=%d; want false 100 5", k.Stopped(), k.Now(), len(r.log))
	}
	// Run stops the same way.
	k.Schedule(200, r, 2)
	k.Schedule(300, r, 9)
	k.Run()
	if !k.Stopped() || k.Now() != 200 || k.Pending() != 1 {
		t.Fatalf("Run after Stop: Stopped=%v Now=%d Pending=%d; want true 200 1", k.Stopped(), k.Now(), k.Pending())
	}
}

// mustPanic runs f and fails unless it panics with a message containing want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		p := recover()
		if p == nil {
			t.Fatalf("no panic, want one mentioning %q", want)
		}
		if msg := fmt.Sprint(p); !strings.Contains(msg, want) {
			t.Fatalf("panic %q, want it to mention %q", msg, want)
		}
	}()
	f()
}

func TestProgrammingErrorsPanic(t *testing.T) {
	k := NewKernel()
	r := &recorder{k: k}
	k.RunUntil(100)
	mustPanic(t, "before Now()=100", func() { k.Schedule(99, r, 0) })
	mustPanic(t, "nil Handler", func() { k.Schedule(200, nil, 0) })
	mustPanic(t, "delay must be >= 0", func() { k.After(-1, r, 0) })
	mustPanic(t, "must not overflow", func() { k.After(1<<63-1, r, 0) })
	mustPanic(t, "RunUntil(50 ns) is before Now()=100", func() { k.RunUntil(50) })
	if k.Pending() != 0 {
		t.Fatalf("a rejected Schedule left %d events queued", k.Pending())
	}
	k.Schedule(100, r, 0) // exactly Now is allowed
	k.After(0, r, 1)
	if k.Pending() != 2 {
		t.Fatalf("Pending = %d, want 2", k.Pending())
	}
}

// TestSteadyStateAllocatesNothing pins the no-allocation-per-event property
// that the benchmark reports.
func TestSteadyStateAllocatesNothing(t *testing.T) {
	k := NewKernel()
	p := &pinger{k: k}
	for i := range int64(100) {
		k.Schedule(i, p, i)
	}
	allocs := testing.AllocsPerRun(1000, func() { k.Step() })
	if allocs != 0 {
		t.Fatalf("Step+Schedule allocates %.1f times per event, want 0", allocs)
	}
}

// pinger reschedules itself a pseudo-random delay ahead on every event,
// keeping the queue length constant.
type pinger struct {
	k *Kernel
	x xorshift
}

func (p *pinger) OnEvent(arg int64) {
	if p.x == 0 {
		p.x = 88172645463325252
	}
	p.k.After(int64(p.x.next()%1000), p, arg)
}

// TestEventOrder checks the branch-free (time, seq) comparison against the
// obvious definition, including extreme times and sequence numbers.
func TestEventOrder(t *testing.T) {
	times := []int64{math.MinInt64, -1, 0, 1, 1 << 32, math.MaxInt64 - 1, math.MaxInt64}
	seqs := []uint64{0, 1, 1 << 63, math.MaxUint64}
	for _, at1 := range times {
		for _, s1 := range seqs {
			for _, at2 := range times {
				for _, s2 := range seqs {
					a, b := event{at: at1, seq: s1}, event{at: at2, seq: s2}
					want := at1 < at2 || (at1 == at2 && s1 < s2)
					if got := a.before(&b); got != want {
						t.Fatalf("(%d,%d).before(%d,%d) = %v, want %v", at1, s1, at2, s2, got, want)
					}
				}
			}
		}
	}
}
