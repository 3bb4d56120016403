package sim

import "fmt"

// Resource is a FIFO queue in front of a fixed number of identical servers:
// CPU cores, the channels of a device, or a lock when there is one server.
// Work arrives either as a Request (hold a server for a known service time)
// or as an Acquire (hold a server until Release). Both wait in one FIFO, and
// a freed server goes straight to the head of the queue, so a request can
// never overtake an earlier one — not even one issued by the completion
// callback of the request that freed the server.
//
// SetFair replaces the FIFO with a model of Linux's fair scheduler for
// RequestAs's processes (fair.go).
//
// The statistics are the usual time-weighted ones of queueing theory
// (Kleinrock, "Queueing Systems", vol. 1): busy-server and queue-length
// integrals updated at every state change, and per-request waits.
type Resource struct {
	k       *Kernel
	name    string
	servers int
	busy    int // servers in use, by Requests and Acquire holds
	held    int // servers held by Acquire, awaiting Release
	queue   waiterRing

	// Requests in service, indexed by the arg of their completion event.
	// At most `servers` requests are in service at once, so the table never
	// grows.
	slots []slot
	free  []int32 // stack of unused slot indices
	// For RequestAs: who last ran on each server (slot index), and on
	// which server each owner last ran; switches counts the services that
	// began on a server another owner had used last.
	lastOwner []int32
	freedAt   []int64 // when each server last finished a service
	lastOn    map[int32]int32
	switches  uint64
	// wakeups counts RequestAs services that paid their wake cost (they
	// found their server idle) and wakeNs sums the time it held servers.
	wakeups uint64
	wakeNs  float64
	// coldSpan (SetWakeColdSpan) is how much of its owner's service after
	// a wake-up runs at half speed; coldLeft is what remains of it per
	// owner, coldNs the service time it added.
	coldSpan int64
	coldLeft map[int32]int64
	coldNs   float64
	// haltAfter and balanceTick (SetHalting): a server idle for longer
	// than haltAfter has halted, and a wake-up handed over by a process
	// that is about to block goes to the server it frees instead, unless
	// another server is still awake or was kicked at a balancer tick
	// (every balanceTick) that found a server busy: kickAt is the last
	// such tick. startedAt is when each server's current service began.
	haltAfter, balanceTick int64
	kickAt                 int64
	startedAt              []int64
	// ownerEnd is when each owner's last service ended (SetHalting): a
	// wake-up of one that slept for haltAfter or more starts a cold span
	// of haltCold (of SetWakeColdSpan's span when 0) wherever it runs.
	ownerEnd map[int32]int64
	haltCold int64
	// fair is the fair mode's state (SetFair); nil: FIFO run to completion.
	fair *fairSched

	// Statistics since creation or the last ResetStats.
	statsFrom int64   // start of the statistics window
	last      int64   // time the integrals were last brought up to date
	busyNs    float64 // integral of busy servers over time
	queueNs   float64 // integral of queue length over time
	waitNs    float64 // sum of queue waits of requests that started service
	served    uint64  // requests (and acquisitions) that started service
	maxQueue  int
}

// slot remembers whom to tell when a Request finishes.
type slot struct {
	done Handler
	arg  int64
}

// ResourceStats summarises a Resource since its creation or last ResetStats.
type ResourceStats struct {
	// Served counts requests and acquisitions that started service
	// (immediately or after waiting) in the window.
	Served uint64
	// Utilisation is BusyNs / (servers * ElapsedNs): the mean fraction of
	// servers in use.
	Utilisation float64
	// MeanQueueLen is QueueNs / ElapsedNs: the time-average number waiting.
	MeanQueueLen float64
	// MeanWaitNs is the mean time spent queued by the Served requests
	// (0 for those granted immediately).
	MeanWaitNs float64
	// MaxQueueLen is the longest queue seen in the window.
	MaxQueueLen int
	// BusyNs and QueueNs are the integrals over time of busy servers and of
	// queue length (server-ns and waiter-ns).
	BusyNs, QueueNs float64
	// ElapsedNs is the length of the window.
	ElapsedNs int64
	// Switches counts RequestAs services that began on a server another
	// owner had used last (context switches), in the window.
	Switches uint64
	// Wakeups counts RequestAs services that paid their wake cost (they
	// began on a server that had sat idle), and WakeNs the server time
	// they took to wake, which BusyNs includes.
	Wakeups uint64
	WakeNs  float64
	// ColdNs is the service time the work after wake-ups took more
	// (SetWakeColdSpan), which BusyNs includes.
	ColdNs float64
}

// noOwner marks a Request (no owner) and a server nobody has used.
const noOwner = -1 << 31

// NewResource returns an idle resource with the given number of servers,
// attached to k. servers < 1 is a bug in the caller (configuration must be
// validated before a run is built), so it panics.
func NewResource(k *Kernel, name string, servers int) *Resource {
	if k == nil {
		panic(fmt.Sprintf("sim: NewResource(%q) with a nil Kernel", name))
	}
	if servers < 1 {
		panic(fmt.Sprintf("sim: NewResource(%q) needs at least 1 server, got %d", name, servers))
	}
	r := &Resource{
		k:         k,
		name:      name,
		servers:   servers,
		slots:     make([]slot, servers),
		free:      make([]int32, servers),
		lastOwner: make([]int32, servers),
		freedAt:   make([]int64, servers),
		statsFrom: k.now,
		last:      k.now,
	}
	for i := range r.free {
		// Hand out slot 0 first: purely cosmetic, but it keeps traces tidy.
		r.free[i] = int32(servers - 1 - i)
		r.lastOwner[i] = noOwner
	}
	return r
}

// Name is the name given to NewResource.
func (r *Resource) Name() string { return r.name }

// Servers is the number of servers.
func (r *Resource) Servers() int { return r.servers }

// Busy is the number of servers in use now.
func (r *Resource) Busy() int { return r.busy }

// QueueLen is the number of requests waiting for a server now.
func (r *Resource) QueueLen() int { return r.queueLen() }

// Request takes one server for service nanoseconds, queueing FIFO behind
// earlier requests if all servers are busy; done.OnEvent(arg) fires when the
// service completes. done may be nil when nobody waits for the completion
// (a write-back the issuer does not wait for). A negative service time is a
// bug in the caller and panics.
func (r *Resource) Request(service int64, done Handler, arg int64) {
	if service < 0 {
		panic(fmt.Sprintf("sim: %s: Request with negative service time %d ns", r.name, service))
	}
	if r.fair != nil {
		panic(fmt.Sprintf("sim: %s: Request in the fair mode, which serves processes: use RequestAs", r.name))
	}
	if r.busy < r.servers {
		r.account()
		r.busy++
		r.served++
		r.startService(service, noOwner, 0, 0, done, arg)
		return
	}
	r.enqueue(waiter{h: done, arg: arg, service: service, since: r.k.now, owner: noOwner})
}

// RequestAs is Request by a process (owner, any value but the smallest
// int32) that leaves its state on the server it ran on, as a process does
// in a core's caches: it is served on the server it last ran on when that
// one is free, else on the free server idle the longest (as a scheduler
// wakes a task on its previous CPU if idle, else on an idle one); a
// service that begins on a server another owner used last takes
// switchCost more (the context switch and the cold caches). Owners keep
// their servers while there are enough of them, so a switch costs only
// when owners outnumber servers.
//
// wakeCost is what the service takes more when it finds its server idle:
// a process that slept (waiting for a message) wakes a CPU that left its
// idle state (in a virtual machine, the hypervisor waking a halted vCPU).
// A server handed over from the queue never idled, nor did one requested
// again at the instant it was freed: only services that find a core idle
// pay it, so one client alternating with its backend pays it on every
// burst, more processes than cores almost never.
func (r *Resource) RequestAs(service int64, owner int32, switchCost, wakeCost int64, done Handler, arg int64) {
	if service < 0 || switchCost < 0 || wakeCost < 0 {
		panic(fmt.Sprintf("sim: %s: RequestAs with negative time %d / %d / %d ns", r.name, service, switchCost, wakeCost))
	}
	if r.fair != nil {
		r.fairRequest(service, owner, switchCost, wakeCost, done, arg)
		return
	}
	if r.busy < r.servers {
		r.account()
		r.busy++
		r.served++
		r.startService(service, owner, switchCost, wakeCost, done, arg)
		return
	}
	r.enqueue(waiter{h: done, arg: arg, service: service, since: r.k.now, owner: owner, switchCost: switchCost})
}

// SetWakeColdSpan makes a RequestAs service that pays its wake cost leave
// its owner running on cold caches: the owner's next span nanoseconds of
// service (this service's first) take twice as long, whichever of its
// services they fall in, until a later wake-up starts the span again. A
// process that slept long enough for its core to idle finds little of its
// working set in the core's caches and refetches it as it runs; its work
// after that runs at full speed, so the slowdown is bounded. 0 (the
// default) turns it off.
func (r *Resource) SetWakeColdSpan(span int64) {
	if span < 0 {
		panic(fmt.Sprintf("sim: %s: SetWakeColdSpan(%d ns): must be >= 0", r.name, span))
	}
	r.coldSpan = span
}

// SetHalting makes RequestAs place a process that slept as the Linux
// scheduler does on a virtual machine whose idle vCPUs halt
// (kernel/sched/fair.c select_task_rq_fair): a wake-up by a message from
// a process that blocks at once (a synchronous wake-up, as a Unix or TCP
// socket's is) goes to the wakee's previous CPU or another idle one only
// while that CPU still counts as idle (select_idle_sibling's
// available_idle_cpu), which a vCPU the hypervisor has descheduled after
// halting does not (vcpu_is_preempted): a server idle for longer than
// haltAfter. Otherwise it goes to the waker's CPU (wake_affine_idle's
// synchronous case), which it frees: no wake-up, a context switch. At
// each balancer tick (every balanceTick of time) that finds a server
// busy, the halted servers are kicked (nohz_balancer_kick, and the other
// wake-ups that stir an idle vCPU now and then): each counts as idle for
// haltAfter again, and a wake-up in that time goes to it. So two
// processes that hand over to each other flat out run apart, each finding
// the other's server idle for only a moment, and two that idle for
// milliseconds between exchanges share a server. haltAfter 0 (the
// default) turns it off.
//
// A process that slept for haltAfter or more runs the first haltCold of
// its work at half speed, on whichever server it takes (its working set
// went cold while it slept; SetWakeColdSpan's span when haltCold is 0).
func (r *Resource) SetHalting(haltAfter, balanceTick, haltCold int64) {
	if haltAfter < 0 || balanceTick <= 0 || haltCold < 0 {
		panic(fmt.Sprintf("sim: %s: SetHalting(%d, %d, %d ns): want haltAfter >= 0, balanceTick > 0, haltCold >= 0", r.name, haltAfter, balanceTick, haltCold))
	}
	r.haltAfter, r.balanceTick, r.haltCold = haltAfter, balanceTick, haltCold
	if r.startedAt == nil {
		r.startedAt = make([]int64, r.servers)
		r.ownerEnd = map[int32]int64{}
	}
}

// haltingPick is takeServer's choice for a wake-up under SetHalting: the
// index in r.free of the server to take, or -1 to choose as without it
// (no server was freed at this instant: the waker did not hand over).
func (r *Resource) haltingPick(owner int32) int {
	now := r.k.now
	waker := -1
	for i, s := range r.free {
		if r.freedAt[s] == now {
			waker = i
			break
		}
	}
	if waker < 0 {
		return -1
	}
	awake := func(i int) bool {
		s := r.free[i]
		idle := r.freedAt[s]
		if idle >= now {
			return false
		}
		return now-idle < r.haltAfter || (r.kickAt > idle && now-r.kickAt < r.haltAfter)
	}
	if want, ok := r.lastOn[owner]; ok {
		for i, s := range r.free {
			if s == want && i != waker && awake(i) {
				return i
			}
		}
	}
	// Another idle server still awake: the latest freed.
	best := -1
	for i, s := range r.free {
		if i != waker && awake(i) && (best < 0 || r.freedAt[s] > r.freedAt[r.free[best]]) {
			best = i
		}
	}
	if best >= 0 {
		return best
	}
	return waker
}

// takeServer removes a free server from the stack for owner (see
// RequestAs) and returns it; waking says the owner slept (SetHalting).
func (r *Resource) takeServer(owner int32, waking bool) int32 {
	n := len(r.free) - 1
	pick := -1
	if owner != noOwner && waking && r.haltAfter > 0 {
		pick = r.haltingPick(owner) // -1: no hand-over, as without it
	}
	if owner != noOwner && pick < 0 {
		want, ok := r.lastOn[owner]
		for i, s := range r.free {
			if ok && s == want {
				pick = i
				break
			}
		}
		if pick < 0 {
			pick = n
			for i := n - 1; i >= 0; i-- {
				if r.freedAt[r.free[i]] < r.freedAt[r.free[pick]] {
					pick = i
				}
			}
		}
	}
	if pick < 0 {
		pick = n // a Request: the top of the stack
	}
	s := r.free[pick]
	r.free = append(r.free[:pick], r.free[pick+1:]...)
	return s
}

// Acquire takes one server for an open-ended hold. If a server is free and
// nobody is queued it returns true: the caller holds the server now and no
// callback follows. Otherwise it returns false and the caller waits in the
// FIFO; when a server is handed over, granted.OnEvent(arg) fires as an event
// at the hand-over time, and the caller holds the server from then on.
// Either way the holder must call Release.
func (r *Resource) Acquire(granted Handler, arg int64) bool {
	if granted == nil {
		panic(fmt.Sprintf("sim: %s: Acquire with a nil Handler", r.name))
	}
	if r.busy < r.servers {
		r.account()
		r.busy++
		r.held++
		r.served++
		return true
	}
	r.enqueue(waiter{h: granted, arg: arg, service: acquireHold, since: r.k.now})
	return false
}

// Release frees a server taken by Acquire and hands it to the next waiter,
// if any. Releasing when no server is held by Acquire panics: it means the
// model released twice or released what it never held.
func (r *Resource) Release() {
	if r.held == 0 {
		panic(fmt.Sprintf("sim: %s: Release with no server held by Acquire", r.name))
	}
	r.held--
	r.freeServer()
}

// enqueue puts w at the tail of the FIFO. Only called with all servers busy:
// a free server is always handed to the queue head at once, so a non-empty
// queue implies busy == servers.
func (r *Resource) enqueue(w waiter) {
	r.account()
	r.queue.push(w)
	if n := r.queue.len(); n > r.maxQueue {
		r.maxQueue = n
	}
}

// startService books a slot for a Request and schedules its completion;
// wakeCost is added when the server it takes has been idle since before
// now (a hand-over from the queue passes 0).
func (r *Resource) startService(service int64, owner int32, switchCost, wakeCost int64, done Handler, arg int64) {
	s := r.takeServer(owner, wakeCost > 0)
	if r.startedAt != nil {
		r.startedAt[s] = r.k.now
	}
	woke := wakeCost > 0 && r.freedAt[s] < r.k.now
	sleptLong := false
	if r.haltAfter > 0 && wakeCost > 0 {
		end, ok := r.ownerEnd[owner]
		sleptLong = ok && r.k.now-end >= r.haltAfter
	}
	service += r.wakeCosts(owner, service, wakeCost, woke, sleptLong)
	if owner != noOwner {
		service += r.switchTo(s, owner, switchCost)
	} else {
		// Whatever ran here left the server as no owner's.
		r.lastOwner[s] = noOwner
	}
	r.slots[s] = slot{done: done, arg: arg}
	r.k.After(service, (*completion)(r), int64(s))
}

// wakeCosts is what a service of owner takes more as it begins: wakeCost
// when its server sat idle (woke), and the cold span's extra work
// (SetWakeColdSpan) that a wake-up starts, or under SetHalting a sleep of
// haltAfter or longer (sleptLong) starts, at haltCold, on whichever server
// it runs, the waker's too.
func (r *Resource) wakeCosts(owner int32, service, wakeCost int64, woke, sleptLong bool) int64 {
	var add int64
	if woke {
		r.wakeups++
		r.wakeNs += float64(wakeCost)
	}
	if (r.coldSpan > 0 || r.haltCold > 0) && owner != noOwner {
		span := int64(0)
		if woke {
			span = r.coldSpan
		}
		if sleptLong {
			span = r.coldSpan
			if r.haltCold > 0 {
				span = r.haltCold
			}
		}
		add += r.coldWork(owner, service, span)
	}
	if woke {
		add += wakeCost
	}
	return add
}

// switchTo gives server s to owner: switchCost when another owner ran
// there last (a context switch), 0 otherwise.
func (r *Resource) switchTo(s, owner int32, switchCost int64) int64 {
	var add int64
	if prev := r.lastOwner[s]; prev != owner && prev != noOwner {
		add = switchCost
		r.switches++
	}
	r.lastOwner[s] = owner
	if r.lastOn == nil {
		r.lastOn = map[int32]int32{}
	}
	r.lastOn[owner] = s
	return add
}

// coldWork is what an owner's service of work ns takes more on cold
// caches (SetWakeColdSpan): the part of it that falls in the span left
// since the owner's last wake-up; span > 0 starts a new one that long.
func (r *Resource) coldWork(owner int32, work int64, span int64) int64 {
	if r.coldLeft == nil {
		r.coldLeft = map[int32]int64{}
	}
	left := r.coldLeft[owner]
	if span > 0 {
		left = span // a new cold span starts
	}
	if left == 0 {
		return 0
	}
	x := min(work, left)
	r.coldLeft[owner] = left - x
	r.coldNs += float64(x)
	return x
}

// freeServer gives a server that just became free to the queue head, or
// marks it idle. The busy count does not change on a hand-over, so no
// instant exists at which the server is idle while someone waits.
func (r *Resource) freeServer() {
	r.account()
	if r.queue.len() == 0 {
		r.busy--
		return
	}
	w := r.queue.pop()
	r.served++
	r.waitNs += float64(r.k.now - w.since)
	if w.service == acquireHold {
		r.held++
		r.k.Schedule(r.k.now, w.h, w.arg)
		return
	}
	r.startService(w.service, w.owner, w.switchCost, 0, w.h, w.arg)
}

// completion is the Handler of a Request's completion event; its arg is the
// slot index. Converting *Resource to *completion costs nothing and keeps
// OnEvent out of Resource's exported method set.
type completion Resource

func (c *completion) OnEvent(arg int64) {
	r := (*Resource)(c)
	s := r.slots[arg]
	r.slots[arg] = slot{}
	r.free = append(r.free, int32(arg))
	r.freedAt[arg] = r.k.now
	if r.haltAfter > 0 {
		if o := r.lastOwner[arg]; o != noOwner {
			r.ownerEnd[o] = r.k.now
		}
		// A balancer tick fell in this service: it found the server busy
		// and kicked the halted ones.
		if t := r.k.now / r.balanceTick * r.balanceTick; t > r.startedAt[arg] {
			r.kickAt = max(r.kickAt, t)
		}
	}
	// Free the server (handing it to the queue head, if any) before telling
	// the requester, so the requester sees the resource as it now is: an
	// Acquire or Request it issues at once gets the server if nobody was
	// waiting, and queues behind the earlier waiters otherwise.
	r.freeServer()
	if s.done != nil {
		s.done.OnEvent(s.arg)
	}
}

// account brings the time-weighted integrals up to Now(). It must run
// before every change of busy or queue length.
func (r *Resource) account() {
	now := r.k.now
	if dt := now - r.last; dt > 0 {
		r.busyNs += float64(r.busy) * float64(dt)
		r.queueNs += float64(r.queueLen()) * float64(dt)
		r.last = now
	}
}

// Stats returns the statistics of the window from creation (or the last
// ResetStats) to Now(). Ratios over an empty window are 0.
func (r *Resource) Stats() ResourceStats {
	dt := float64(r.k.now - r.last)
	st := ResourceStats{
		Served:      r.served,
		MaxQueueLen: r.maxQueue,
		BusyNs:      r.busyNs + float64(r.busy)*dt,
		QueueNs:     r.queueNs + float64(r.queueLen())*dt,
		ElapsedNs:   r.k.now - r.statsFrom,
		Switches:    r.switches,
		Wakeups:     r.wakeups,
		WakeNs:      r.wakeNs,
		ColdNs:      r.coldNs,
	}
	if st.ElapsedNs > 0 {
		el := float64(st.ElapsedNs)
		st.Utilisation = st.BusyNs / (float64(r.servers) * el)
		st.MeanQueueLen = st.QueueNs / el
	}
	if r.served > 0 {
		st.MeanWaitNs = r.waitNs / float64(r.served)
	}
	return st
}

// ResetStats starts a new statistics window at Now(), e.g. after a warm-up.
// The state (busy servers, queue) is kept; MaxQueueLen restarts from the
// current queue length. Requests already queued count their whole wait when
// they start service.
func (r *Resource) ResetStats() {
	now := r.k.now
	r.statsFrom, r.last = now, now
	r.busyNs, r.queueNs, r.waitNs = 0, 0, 0
	r.served, r.switches = 0, 0
	r.wakeups, r.wakeNs, r.coldNs = 0, 0, 0
	r.maxQueue = r.queueLen()
}

// queueLen is the number of requests waiting: in the FIFO, or on the fair
// mode's run queues.
func (r *Resource) queueLen() int {
	if r.fair != nil {
		return r.fair.queued
	}
	return r.queue.len()
}
