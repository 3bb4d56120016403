package sim

import (
	"math"
	"slices"
	"testing"
)

func TestAcquireRelease(t *testing.T) {
	k := NewKernel()
	lock := NewResource(k, "lock", 1)
	r := &recorder{k: k}
	if lock.Name() != "lock" || lock.Servers() != 1 {
		t.Fatalf("Name/Servers = %q/%d", lock.Name(), lock.Servers())
	}
	// Immediate grant: true, no callback, server busy.
	if !lock.Acquire(r, 1) {
		t.Fatal("Acquire on an idle resource was not granted immediately")
	}
	if lock.Busy() != 1 || lock.QueueLen() != 0 {
		t.Fatalf("Busy/QueueLen = %d/%d, want 1/0", lock.Busy(), lock.QueueLen())
	}
	// Two more wait in FIFO order; a Request queues between them.
	k.RunUntil(10)
	if lock.Acquire(r, 2) {
		t.Fatal("Acquire on a held lock was granted")
	}
	k.RunUntil(20)
	lock.Request(5, r, 3)
	k.RunUntil(30)
	if lock.Acquire(r, 4) {
		t.Fatal("Acquire on a held lock was granted")
	}
	if lock.QueueLen() != 3 || len(r.log) != 0 {
		t.Fatalf("QueueLen=%d callbacks=%v, want 3 and none", lock.QueueLen(), r.log)
	}

	// Release at 100 hands the lock to waiter 2 (granted as an event at 100).
	k.RunUntil(100)
	lock.Release()
	if lock.Busy() != 1 || lock.QueueLen() != 2 {
		t.Fatalf("after hand-over Busy/QueueLen = %d/%d, want 1/2", lock.Busy(), lock.QueueLen())
	}
	// Nobody can barge in at the hand-over instant: a new Acquire queues.
	if lock.Acquire(r, 5) {
		t.Fatal("Acquire barged past the FIFO at the hand-over instant")
	}
	k.RunUntil(100)
	if !slices.Equal(r.log, []firing{{100, 2}}) {
		t.Fatalf("callbacks %v, want waiter 2 granted at 100", r.log)
	}
	// Waiter 2 releases at 150: the Request (3) starts and completes at 155,
	// handing the lock to 4. The completion callback runs inside the
	// completion event while the grant is a new event at the same instant,
	// so 3 is logged before 4.
	k.RunUntil(150)
	lock.Release()
	k.RunUntil(155)
	want := []firing{{100, 2}, {155, 3}, {155, 4}}
	if !slices.Equal(r.log, want) {
		t.Fatalf("callbacks %v, want %v", r.log, want)
	}
	lock.Release() // 4 releases; 5 is granted
	k.RunUntil(160)
	lock.Release() // 5 releases; idle
	if lock.Busy() != 0 || lock.QueueLen() != 0 {
		t.Fatalf("Busy/QueueLen = %d/%d at the end, want 0/0", lock.Busy(), lock.QueueLen())
	}
	mustPanic(t, "Release with no server held", lock.Release)

	st := lock.Stats()
	// Served: 1, 2, 3, 4, 5. Waits: 0, 100-10, 150-20, 155-30, 155-100.
	// Longest queue: 2, 3, 4 before the first release (5 joins after 2 left).
	if st.Served != 5 || st.MeanWaitNs != (0+90+130+125+55)/5.0 || st.MaxQueueLen != 3 {
		t.Fatalf("Served=%d MeanWaitNs=%v MaxQueueLen=%d, want 5 80 3", st.Served, st.MeanWaitNs, st.MaxQueueLen)
	}
	// Busy from 0 to 160 without a gap.
	if st.BusyNs != 160 || st.Utilisation != 1 {
		t.Fatalf("BusyNs=%v Utilisation=%v, want 160 1", st.BusyNs, st.Utilisation)
	}
}

func TestReleaseWithOnlyRequestsPanics(t *testing.T) {
	k := NewKernel()
	res := NewResource(k, "disk", 2)
	res.Request(10, nil, 0) // a Request's server is freed by its completion, not by Release
	mustPanic(t, "disk: Release with no server held", res.Release)
}

// acquireOnDone tries to Acquire the resource from a Request's completion
// callback.
type acquireOnDone struct {
	res     *Resource
	granted bool
}

func (a *acquireOnDone) OnEvent(int64) { a.granted = a.res.Acquire(a, 1) }

// TestCompletionFreesServerFirst: by the time a completion callback runs,
// the server is free, so the requester can take it again at once.
func TestCompletionFreesServerFirst(t *testing.T) {
	k := NewKernel()
	res := NewResource(k, "lock", 1)
	a := &acquireOnDone{res: res}
	res.Request(10, a, 0)
	k.Run()
	if !a.granted || res.Busy() != 1 || res.QueueLen() != 0 {
		t.Fatalf("Acquire from the completion callback: granted=%v Busy=%d QueueLen=%d, want true 1 0",
			a.granted, res.Busy(), res.QueueLen())
	}
	if st := res.Stats(); st.MaxQueueLen != 0 || st.Served != 2 {
		t.Fatalf("MaxQueueLen=%d Served=%d, want 0 2", st.MaxQueueLen, st.Served)
	}
}

func TestNewResourcePanics(t *testing.T) {
	k := NewKernel()
	mustPanic(t, `NewResource("cpu") needs at least 1 server, got 0`, func() { NewResource(k, "cpu", 0) })
	mustPanic(t, "nil Kernel", func() { NewResource(nil, "cpu", 1) })
	res := NewResource(k, "cpu", 1)
	mustPanic(t, "negative service time", func() { res.Request(-1, nil, 0) })
	mustPanic(t, "Acquire with a nil Handler", func() { res.Acquire(nil, 0) })
}

// closedLoop re-requests service the moment its previous request completes,
// until it has issued limit requests in all: the hand-over rule says each
// re-request must queue behind everyone already waiting.
type closedLoop struct {
	k       *Kernel
	res     *Resource
	service int64
	done    []firing
	issued  int
	limit   int
}

func (c *closedLoop) start(id int64) {
	c.issued++
	c.res.Request(c.service, c, id)
}

func (c *closedLoop) OnEvent(arg int64) {
	c.done = append(c.done, firing{c.k.Now(), arg})
	if c.issued < c.limit {
		c.start(arg)
	}
}

// TestRequestFIFOAndServers checks the timing of a 2-server FIFO with
// deterministic service: three greedy clients share two servers round-robin.
func TestRequestFIFOAndServers(t *testing.T) {
	k := NewKernel()
	res := NewResource(k, "chan", 2)
	c := &closedLoop{k: k, res: res, service: 10, limit: 9}
	for id := range int64(3) {
		c.start(id)
	}
	k.Run()
	// 0 and 1 start at 0; 2 waits. At 10: 0 and 1 finish, 2 and 0 start,
	// 1 queues; at 20: 2 and 0 finish, 1 and 2 start; and so on.
	want := []firing{{10, 0}, {10, 1}, {20, 2}, {20, 0}, {30, 1}, {30, 2}, {40, 0}, {40, 1}, {50, 2}}
	if !slices.Equal(c.done, want) {
		t.Fatalf("completions %v, want %v", c.done, want)
	}
	st := res.Stats()
	// Both servers busy over [0,40) = 80 server-ns; only the 9th request
	// (client 2's third) runs over [40,50) = 10.
	if st.BusyNs != 90 || st.ElapsedNs != 50 || math.Abs(st.Utilisation-0.9) > 1e-15 {
		t.Fatalf("BusyNs=%v ElapsedNs=%d Utilisation=%v, want 90 50 0.9", st.BusyNs, st.ElapsedNs, st.Utilisation)
	}
	// One waiter over [0,40): each requester waits exactly 10 once per round.
	if st.QueueNs != 40 || st.MeanQueueLen != 0.8 {
		t.Fatalf("QueueNs=%v MeanQueueLen=%v, want 40 0.8", st.QueueNs, st.MeanQueueLen)
	}
}

func TestResetStats(t *testing.T) {
	k := NewKernel()
	res := NewResource(k, "cpu", 1)
	res.Request(100, nil, 0)
	res.Request(100, nil, 0)
	k.RunUntil(50)
	res.ResetStats()
	k.RunUntil(250)
	st := res.Stats()
	// Window [50,250): busy until 200; the queued request waited 100 (0->100),
	// counted whole when it started at 100.
	if st.ElapsedNs != 200 || st.BusyNs != 150 || st.Served != 1 || st.MeanWaitNs != 100 ||
		st.QueueNs != 50 || st.MaxQueueLen != 1 {
		t.Fatalf("stats after reset %+v", st)
	}
	empty := NewResource(k, "idle", 3).Stats()
	if empty.Utilisation != 0 || empty.MeanWaitNs != 0 || empty.MeanQueueLen != 0 {
		t.Fatalf("empty window stats %+v, want zeros", empty)
	}
}

func TestResourceSteadyStateAllocatesNothing(t *testing.T) {
	k := NewKernel()
	res := NewResource(k, "cpu", 4)
	c := &closedLoop{k: k, res: res, service: 7, limit: math.MaxInt}
	c.done = make([]firing, 0, 1<<16)
	for id := range int64(16) {
		c.start(id)
	}
	for range 1000 { // let the ring grow to its working size
		k.Step()
	}
	allocs := testing.AllocsPerRun(1000, func() { k.Step() })
	if allocs != 0 {
		t.Fatalf("Resource Request/complete allocates %.1f times per event, want 0", allocs)
	}
}

// RequestAs keeps each owner on the server it ran on while it is free (two
// owners taking turns on two servers never switch), otherwise serves it on
// the server idle longest, and a service that begins where another owner
// ran last takes the switch cost more: three owners taking turns on one
// server switch every time.
func TestRequestAsAffinityAndSwitchCost(t *testing.T) {
	k := NewKernel()
	cpu := NewResource(k, "cpu", 2)
	r := &recorder{k: k}
	// A ping-pong: owner 1, then owner 2 once 1 is done, and so on.
	at := int64(0)
	for i := range 10 {
		cpu.RequestAs(100, int32(1+i%2), 50, 0, r, int64(i))
		k.RunUntil(at + 1000)
		at += 1000
	}
	if st := cpu.Stats(); st.Switches != 0 || st.BusyNs != 10*100 {
		t.Fatalf("two owners on two servers: %d switches, busy %.0f ns; want 0 and 1000", st.Switches, st.BusyNs)
	}
	one := NewResource(k, "one", 1)
	for i := range 9 {
		one.RequestAs(100, int32(1+i%3), 50, 0, r, int64(100+i))
	}
	k.RunUntil(at + 10000)
	// The first service finds the server unused: no switch; each later one
	// follows another owner.
	if st := one.Stats(); st.Switches != 8 || st.BusyNs != 9*100+8*50 {
		t.Fatalf("three owners on one server: %d switches, busy %.0f ns; want 8 and 1300", st.Switches, st.BusyNs)
	}
	// A Request (no owner) neither pays nor counts.
	one.Request(100, r, 200)
	k.RunUntil(at + 20000)
	if st := one.Stats(); st.Switches != 8 {
		t.Fatalf("a Request counted a switch: %d", st.Switches)
	}
}

// RequestAs's wake cost: a service that finds its server idle waits it
// (holding the server, not busy); one handed over from the queue, or
// requested again at the instant its server was freed, does not; a
// Request (no owner) never does.
func TestWakeCostOnlyOnIdleServers(t *testing.T) {
	k := NewKernel()
	cpu := NewResource(k, "cpu", 1)
	r := &recorder{k: k}
	k.RunUntil(1000)
	// Idle since 0: the first service wakes it (done at 1000 + 30 + 100);
	// the two queued behind it are handed over without a wake.
	for i := range 3 {
		cpu.RequestAs(100, int32(1+i), 0, 30, r, int64(i))
	}
	k.RunUntil(5000)
	want := []int64{1130, 1230, 1330}
	for i, f := range r.log {
		if f.at != want[i] {
			t.Fatalf("completion %d at %d, want %d (log %v)", i, f.at, want[i], r.log)
		}
	}
	if st := cpu.Stats(); st.Wakeups != 1 || st.WakeNs != 30 || st.BusyNs != 330 {
		t.Fatalf("%d wakeups, wake %.0f ns, busy %.0f ns; want 1, 30 and 330", st.Wakeups, st.WakeNs, st.BusyNs)
	}
	// Requested again in the completion callback, at the instant the
	// server was freed: it never idled.
	r.log = nil
	n := 0
	r.hook = func(arg int64) {
		if n++; n < 3 {
			cpu.RequestAs(100, 1, 0, 30, r, arg+1)
		}
	}
	cpu.RequestAs(100, 1, 0, 30, r, 10)
	k.RunUntil(10000)
	if len(r.log) != 3 || r.log[0].at != 5130 || r.log[2].at != 5330 {
		t.Fatalf("back-to-back bursts: %v, want completions at 5130, 5230, 5330", r.log)
	}
	r.hook = nil
	// A Request never pays it.
	cpu.Request(100, r, 20)
	k.RunUntil(20000)
	if st := cpu.Stats(); st.Wakeups != 2 || r.log[len(r.log)-1].at != 10100 {
		t.Fatalf("a Request: %d wakeups (want 2), done at %d (want 10100)", st.Wakeups, r.log[len(r.log)-1].at)
	}
}

// SetWakeColdSpan: the service that pays its wake cost, and the same
// owner's services after it, take twice as long for the first span of
// their work; another owner's services, services after the span is used
// up, and Requests take their own time; a new wake-up starts the span
// again.
func TestWakeColdSpanSlowsTheWorkAfterAWakeUp(t *testing.T) {
	k := NewKernel()
	cpu := NewResource(k, "cpu", 1)
	cpu.SetWakeColdSpan(50)
	r := &recorder{k: k}
	k.RunUntil(1000)
	// Owner 1 wakes the idle server: 30 + 20 + 20 cold, done at 1070.
	// Owner 2's 100, queued at 1001, is handed the server then: no wake,
	// no cold work (1170). Owner 1's next 100 (requested at 1070, behind
	// it) has 30 of its span left (1300), the one after none (1400).
	want := []firing{{1070, 0}, {1170, 100}, {1300, 1}, {1400, 2}}
	steps := []int64{20, 100, 100}
	r.hook = func(arg int64) {
		if arg < int64(len(steps))-1 {
			cpu.RequestAs(steps[arg+1], 1, 0, 30, r, arg+1)
		}
	}
	cpu.RequestAs(steps[0], 1, 0, 30, r, 0)
	k.RunUntil(1001)
	cpu.RequestAs(100, 2, 0, 30, r, 100)
	k.RunUntil(5000)
	r.hook = nil
	if len(r.log) != len(want) {
		t.Fatalf("%d completions, want %d: %v", len(r.log), len(want), r.log)
	}
	if st := cpu.Stats(); st.ColdNs != 50 || st.Wakeups != 1 {
		t.Fatalf("cold %.0f ns over %d wakeups, want 50 and 1 (log %v)", st.ColdNs, st.Wakeups, r.log)
	}
	for i, f := range r.log {
		if f != want[i] {
			t.Fatalf("completion %d: %v, want %v (log %v)", i, f, want[i], r.log)
		}
	}
	// Idle again: a new wake-up starts a new span, cut short by a service
	// smaller than it; a Request pays nothing.
	r.log = nil
	cpu.RequestAs(40, 1, 0, 30, r, 10)
	k.RunUntil(6000)
	cpu.Request(100, r, 11)
	k.RunUntil(7000)
	if r.log[0].at != 5000+30+40+40 || r.log[1].at != 6100 {
		t.Fatalf("after a new wake-up: %v, want completions at 5110 and 6100", r.log)
	}
	if st := cpu.Stats(); st.ColdNs != 90 {
		t.Fatalf("cold %.0f ns, want 90", st.ColdNs)
	}
}

// SetHalting: a process woken by a message from one that blocks at once
// goes to the waker's server when every other server has halted (idle
// longer than haltAfter): no wake-up, a context switch. Two processes
// handing over to each other thus share one server while they idle long
// between exchanges (a paced client and its backend); run flat out, the
// shared server is busy at a balancer tick (every 4000), which kicks the
// halted one, the next wake-up goes there, and from then on each finds
// the other's server idle for less than haltAfter: apart, a wake-up
// every hand-over.
func TestHaltedServersLeaveTheWakeeOnTheWakersServer(t *testing.T) {
	k := NewKernel()
	cpu := NewResource(k, "cpu", 2)
	cpu.SetHalting(200, 4000, 0)
	r := &recorder{k: k}
	k.RunUntil(10000)
	// Paced: owner 1 wakes a halted server (no one handed it over: 30),
	// owner 2 takes the server owner 1 frees (5 for the switch), and so
	// does owner 1 after it.
	n := 0
	r.hook = func(arg int64) {
		if n++; n < 3 {
			cpu.RequestAs(10, int32(1+n%2), 5, 30, r, arg+1)
		}
	}
	cpu.RequestAs(10, 1, 5, 30, r, 0)
	k.RunUntil(20000)
	want := []int64{10040, 10055, 10070}
	if len(r.log) != 3 {
		t.Fatalf("paced: %v, want 3 completions", r.log)
	}
	for i, f := range r.log {
		if f.at != want[i] {
			t.Fatalf("paced: completion %d at %d, want %d (log %v)", i, f.at, want[i], r.log)
		}
	}
	if st := cpu.Stats(); st.Wakeups != 1 || st.Switches != 2 {
		t.Fatalf("paced: %d wake-ups, %d switches; want 1 and 2", st.Wakeups, st.Switches)
	}
	// Flat out from 20000: together (15 a hand-over) until the tick at
	// 24000 finds the server busy, then apart (40 a hand-over: the
	// wake-up).
	r.log, n = nil, 0
	r.hook = func(arg int64) {
		if n++; n < 400 {
			cpu.RequestAs(10, int32(1+n%2), 5, 30, r, arg+1)
		}
	}
	cpu.RequestAs(10, 1, 5, 30, r, 0)
	k.RunUntil(100000)
	r.hook = nil
	if len(r.log) != 400 {
		t.Fatalf("flat out: %d completions, want 400", len(r.log))
	}
	var gaps []int64
	for i := 1; i < len(r.log); i++ {
		gaps = append(gaps, r.log[i].at-r.log[i-1].at)
	}
	split := slices.Index(gaps, 40)
	if split < 0 {
		t.Fatalf("flat out: never apart: gaps %v", gaps)
	}
	if r.log[split].at-20000 < 4000 || r.log[split].at-20000 > 4100 {
		t.Errorf("flat out: apart from %d, want just after the tick at 24000", r.log[split].at-20000)
	}
	for i, g := range gaps {
		if (i < split && g != 15) || (i >= split && g != 40) {
			t.Fatalf("flat out: hand-over %d took %d (apart from %d): %v", i, g, split, gaps)
		}
	}
	// Without SetHalting every hand-over to the other's server wakes it.
	k2 := NewKernel()
	plain := NewResource(k2, "cpu", 2)
	r2 := &recorder{k: k2}
	k2.RunUntil(10000)
	m := 0
	r2.hook = func(arg int64) {
		if m++; m < 3 {
			plain.RequestAs(10, int32(1+m%2), 5, 30, r2, arg+1)
		}
	}
	plain.RequestAs(10, 1, 5, 30, r2, 0)
	k2.RunUntil(20000)
	if st := plain.Stats(); st.Wakeups != 3 {
		t.Errorf("without halting: %d wake-ups, want 3 (%v)", st.Wakeups, r2.log)
	}
}

// Under SetHalting a process that slept for haltAfter or more starts its
// cold span (SetWakeColdSpan) on whichever server it takes, the waker's
// included, though it wakes none; one that slept less does not.
func TestHaltingColdAfterALongSleep(t *testing.T) {
	// Owner 1 wakes a halted server (30, and 6 of cold work: 10046);
	// owner 2, never run, takes the server it frees (switch 5: 10061);
	// owner 1 again after 15 ns: no cold work (10076). Owner 2 after a
	// long sleep wakes its server, where owner 1 ran last (30 + 6 + a
	// switch: 20051); owner 1, asleep since 10076, takes the server it
	// frees: no wake-up, but a switch and its cold span (20072).
	st := checkTwoSleeps(t, 0, []int64{10046, 10061, 10076, 20051, 20072})
	if st.Wakeups != 2 || st.ColdNs != 18 {
		t.Errorf("%d wake-ups and %.0f ns of cold work; want 2 and 18", st.Wakeups, st.ColdNs)
	}
	// With a span of its own for a long sleep (8), the wake-ups after a
	// long sleep take 8 of cold work, the short ones' 6 as before.
	checkTwoSleeps(t, 8, []int64{10046, 10061, 10076, 20053, 20076})
}

// checkTwoSleeps runs TestHaltingColdAfterALongSleep's exchanges (from
// 10000 three hand-overs between owners 1 and 2, from 20000 owner 2 then
// owner 1) on two servers halting after 200 with a cold span of 6 and
// haltCold, checks the completions against want and returns the stats.
func checkTwoSleeps(t *testing.T, haltCold int64, want []int64) ResourceStats {
	t.Helper()
	k := NewKernel()
	cpu := NewResource(k, "cpu", 2)
	cpu.SetHalting(200, 1_000_000, haltCold)
	cpu.SetWakeColdSpan(6)
	r := &recorder{k: k}
	k.RunUntil(10000)
	n := 0
	r.hook = func(arg int64) {
		if n++; n < 3 {
			cpu.RequestAs(10, int32(1+n%2), 5, 30, r, arg+1)
		}
	}
	cpu.RequestAs(10, 1, 5, 30, r, 0)
	k.RunUntil(20000)
	m := 0
	r.hook = func(arg int64) {
		if m++; m < 2 {
			cpu.RequestAs(10, 1, 5, 30, r, arg+1)
		}
	}
	cpu.RequestAs(10, 2, 5, 30, r, 10)
	k.RunUntil(30000)
	if len(r.log) != len(want) {
		t.Fatalf("haltCold %d: %d completions, want %d: %v", haltCold, len(r.log), len(want), r.log)
	}
	for i, f := range r.log {
		if f.at != want[i] {
			t.Fatalf("haltCold %d: completion %d at %d, want %d (log %v)", haltCold, i, f.at, want[i], r.log)
		}
	}
	return cpu.Stats()
}
