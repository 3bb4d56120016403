package sim

import "fmt"

// Handler receives events. Model processes are pointers implementing it; arg
// tells the process which of its events fired (a state, a slot index, ...),
// so one process needs no per-event closure or allocation.
type Handler interface {
	OnEvent(arg int64)
}

// Kernel owns simulated time and the pending-event queue. The zero value is
// not usable; call NewKernel. A Kernel is not safe for concurrent use: one
// simulation runs on one goroutine.
type Kernel struct {
	now   int64
	seq   uint64
	fired uint64
	q     eventQueue
	// firing is true while a handler runs. The event being fired stays at
	// the root of the heap until the handler returns: if the handler
	// schedules something (a process rescheduling itself, the common case)
	// the new event simply replaces the root, saving a sift. rootDone says
	// the root is still that fired event and must not count as pending.
	firing   bool
	rootDone bool
	stop     bool // set by Stop, read by RunUntil/Run
	stopped  bool // the last RunUntil/Run returned because of Stop
}

// initialQueue is the starting capacity of the event heap: a few hundred
// pending events is typical (one or two per backend and device), so most runs
// never grow it.
const initialQueue = 256

// NewKernel returns a kernel at time 0 with no pending events.
func NewKernel() *Kernel {
	return &Kernel{q: eventQueue{a: make([]event, 0, initialQueue)}}
}

// Now is the current simulated time in nanoseconds.
func (k *Kernel) Now() int64 { return k.now }

// Pending is the number of events queued and not yet fired.
func (k *Kernel) Pending() int {
	if k.rootDone {
		return k.q.len() - 1
	}
	return k.q.len()
}

// Fired is the number of events fired since the kernel was created.
func (k *Kernel) Fired() uint64 { return k.fired }

// NextAt returns the time of the earliest pending event, and false if there
// is none. It lets a driver (a progress reporter, a run loop that samples
// metrics on interval boundaries) look ahead without firing anything.
func (k *Kernel) NextAt() (int64, bool) {
	i := 0
	if k.rootDone {
		i = k.q.minChild()
	}
	if i < 0 || k.q.len() == 0 {
		return 0, false
	}
	return k.q.a[i].at, true
}

// Schedule queues h.OnEvent(arg) to fire at time at. Events due at the same
// time fire in the order they were scheduled. Scheduling in the past (at <
// Now()) or with a nil handler is a bug in the calling model, so it panics
// rather than silently reordering time.
func (k *Kernel) Schedule(at int64, h Handler, arg int64) {
	if at < k.now || h == nil {
		k.badSchedule(at, h)
	}
	e := event{at: at, seq: k.seq, arg: arg, h: h}
	k.seq++
	if k.rootDone {
		k.rootDone = false
		k.q.replaceRoot(e)
		return
	}
	k.q.push(e)
}

// badSchedule keeps the message formatting out of Schedule's hot path.
func (k *Kernel) badSchedule(at int64, h Handler) {
	if h == nil {
		panic("sim: Schedule with a nil Handler")
	}
	panic(fmt.Sprintf("sim: Schedule at t=%d ns, which is before Now()=%d ns (events cannot be scheduled in the past)", at, k.now))
}

// After queues h.OnEvent(arg) to fire d nanoseconds from now. A negative
// delay, or one that overflows simulated time, panics.
func (k *Kernel) After(d int64, h Handler, arg int64) {
	at := k.now + d
	if d < 0 || at < k.now {
		panic(fmt.Sprintf("sim: After(%d ns) at Now()=%d ns: delay must be >= 0 and Now()+delay must not overflow", d, k.now))
	}
	k.Schedule(at, h, arg)
}

// Step fires the earliest pending event (ties in insertion order), advancing
// Now() to its time. It returns false, and does nothing, if no event is
// pending. Like RunUntil and Run, it must not be called from inside a
// handler.
func (k *Kernel) Step() bool {
	if k.firing {
		panic("sim: Step called from inside an event handler")
	}
	if k.q.len() == 0 {
		return false
	}
	k.fire()
	return true
}

// fire runs the handler of the earliest event, advancing time. The event
// is logically removed before the handler runs, so the handler may schedule
// freely, including at the current instant; physically it is removed
// afterwards, unless the handler's first Schedule already overwrote it.
// A handler that panics leaves the kernel unusable.
func (k *Kernel) fire() {
	e := &k.q.a[0]
	k.now = e.at
	k.fired++
	k.firing, k.rootDone = true, true
	e.h.OnEvent(e.arg)
	k.firing = false
	if k.rootDone {
		k.rootDone = false
		k.q.removeRoot()
	}
}

// RunUntil fires every event due at or before t, including events scheduled
// by handlers while it runs, and then sets Now() to t. If a handler calls
// Stop, RunUntil returns right after that handler, leaving Now() at the
// stopping event's time and the remaining events queued; Stopped() then
// reports true. A t earlier than Now() is a bug in the caller and panics.
func (k *Kernel) RunUntil(t int64) {
	if k.firing {
		panic("sim: RunUntil called from inside an event handler")
	}
	if t < k.now {
		panic(fmt.Sprintf("sim: RunUntil(%d ns) is before Now()=%d ns", t, k.now))
	}
	k.stop, k.stopped = false, false
	for k.q.len() > 0 && k.q.a[0].at <= t {
		k.fire()
		if k.stop {
			k.stop, k.stopped = false, true
			return
		}
	}
	k.now = t
}

// Run fires events until none is pending or a handler calls Stop. Now() is
// left at the last fired event.
func (k *Kernel) Run() {
	if k.firing {
		panic("sim: Run called from inside an event handler")
	}
	k.stop, k.stopped = false, false
	for k.q.len() > 0 {
		k.fire()
		if k.stop {
			k.stop, k.stopped = false, true
			return
		}
	}
}

// Stop asks the RunUntil or Run in progress to return after the current
// handler. It is meant to be called from a handler (a run that detects an
// invariant violation, a scenario that ends on a condition rather than a
// time); outside a run it has no effect, because the next run clears it.
func (k *Kernel) Stop() { k.stop = true }

// Stopped reports whether the most recent RunUntil or Run returned early
// because a handler called Stop.
func (k *Kernel) Stopped() bool { return k.stopped }
