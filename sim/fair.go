package sim

import (
	"fmt"
	"math"
)

// The fair mode (SetFair) serves RequestAs bursts as Linux's fair
// scheduler does since 6.6, EEVDF (kernel/sched/fair.c, as of 6.18): a
// run queue per server; each process (owner) a scheduling entity whose
// virtual runtime advances with the CPU time it gets (weights all nice
// 0's, so one for one), that keeps its lag while it sleeps, and whose
// virtual deadline lies a slice after its virtual runtime. A server runs
// the eligible entity with the earliest deadline (pick_eevdf); a woken
// entity takes the server from the running one at once when that one is
// past lag parity and the woken one would be picked
// (check_preempt_wakeup_fair under RUN_TO_PARITY); a sleeper ahead of
// its share stays queued until the others catch up (DELAY_DEQUEUE). A
// woken process goes to the core select_task_rq_fair would choose; a
// waiting one moves to an idle core only when the balancer may move it
// (can_migrate_task). Processes may belong to groups (SetFairGroups: an
// autogroup per session, or a cgroup): a group is one entity on each
// core's queue, with its processes queued under it (CONFIG_FAIR_GROUP_SCHED),
// so the cores are shared between the groups first. Without the fair
// mode the Resource serves bursts to their end in arrival order from one
// queue.

// Entity states.
const (
	entAsleep  = iota // off every run queue
	entQueued         // runnable (a group: with runnable members), waiting
	entRunning        // its run queue's curr
	entDelayed        // asleep but still queued: not eligible when it slept (DELAY_DEQUEUE)
)

// fairEnt is a scheduling entity (struct sched_entity): a process
// (owner), or a group's entity on one core, whose own run queue is child.
type fairEnt struct {
	owner       int32
	state       int8
	cpu         int32   // the core it is queued on, or last ran on; -1: never ran
	rq          *fairRQ // the run queue it is on (its parent)
	child       *fairRQ // a group entity's queue of its members on this core
	v, deadline int64   // virtual runtime and virtual deadline (ns)
	vprot       int64   // protected from wake-up preemption while v < vprot (set_protect_slice)
	vlag        int64   // lag kept while off the queue (update_entity_lag)
	lastRan     int64   // when it last stopped running (task_hot's exec_start)
	group       int32   // a process's group (SetFairGroups); 0: none

	// A process's burst it waits to run (or runs).
	left       int64 // service left
	fresh      bool  // not begun: wake and cold costs are due at its start
	wakeCost   int64
	switchCost int64
	done       Handler
	arg        int64
	since      int64 // when it was last queued
	// pending are bursts the owner asked for while it had one under
	// way (a pseudo-process standing for several, such as I/O
	// workers): served after it, in order, as its own continuation.
	pending []fairBurst
	exited  bool // Exit was called: forgotten once it sleeps
}

type fairBurst struct {
	service, switchCost, wakeCost int64
	done                          Handler
	arg                           int64
}

// fairRQ is a run queue (struct cfs_rq): a core's, or a group's on a core.
type fairRQ struct {
	curr      *fairEnt   // the entity running at this level
	tree      []*fairEnt // the others queued, in the order they came
	base, sum int64      // sum of (v - base) over tree (avg_vruntime's numerator)
	zeroV     int64      // the average virtual runtime when it last emptied
	owner     *fairEnt   // the group entity whose queue this is; nil: a core's
}

// fairCPU is one server: its run queue and the process on it.
type fairCPU struct {
	root      fairRQ
	task      *fairEnt // the process running (or finishing its burst)
	finishing bool     // task's burst completed and its requester's handler runs
	runStart  int64    // when the running entities' virtual runtimes were last brought up to date
	endAt     int64    // when task's burst completes
	gen       int64    // generation of task's completion event; stale ones are ignored
	nrRunning int      // processes queued or running here, the delayed ones not counted
	groups    map[int32]*fairEnt
}

type fairSched struct {
	slice   int64 // sysctl_sched_base_slice, as scaled for the CPU count
	migCost int64 // sysctl_sched_migration_cost
	tick    int64 // 1/HZ
	cpus    []fairCPU
	ents    map[int32]*fairEnt
	groupOf func(owner int32) int32
	// wakeAffine lets a synchronous wake-up move the wakee to its
	// waker's core (SetFairWakeAffine).
	wakeAffine bool
	queued     int  // processes waiting on all cores
	ticking    bool // a tick event is pending
	failed     int  // consecutive ticks whose balancing found only cache-hot processes

	// util is the cores' busy count averaged as PELT does (a 32 ms
	// half-life), as of utilAt: SIS_UTIL's measure of how busy the
	// cache domain is.
	util   float64
	utilAt int64

	preemptions, wakerPreempts, migrations uint64
}

// fairHalfLife is PELT's: a contribution halves in 32 ms.
const fairHalfLife = 32_000_000

// SetFair turns on the fair mode: per-server run queues served by
// EEVDF's rules with a base slice of slice ns (sysctl_sched_base_slice
// after its scaling by the CPU count); a waiting process that ran less
// than migCost ago (sysctl_sched_migration_cost) is cache hot and moves
// to an idle server only once balancing at two ticks (tick ns apart, 1/HZ)
// found nothing else to move. Only RequestAs may be used on the Resource
// then.
func (r *Resource) SetFair(slice, migCost, tick int64) {
	if slice <= 0 || migCost < 0 || tick <= 0 {
		panic(fmt.Sprintf("sim: %s: SetFair(%d, %d, %d): want slice > 0, migCost >= 0, tick > 0", r.name, slice, migCost, tick))
	}
	f := &fairSched{slice: slice, migCost: migCost, tick: tick, cpus: make([]fairCPU, r.servers), ents: map[int32]*fairEnt{}, utilAt: r.k.now}
	for i := range f.cpus {
		f.cpus[i].groups = map[int32]*fairEnt{}
	}
	r.fair = f
	if r.lastOn == nil {
		r.lastOn = map[int32]int32{}
	}
}

// Exit tells the fair mode that owner has exited (a backend whose client
// disconnected): it no longer counts in the load that places new
// processes, and leaves its queue if it is still queued there as
// delayed. Without the fair mode it does nothing.
func (r *Resource) Exit(owner int32) {
	f := r.fair
	if f == nil {
		return
	}
	p := f.ents[owner]
	if p == nil {
		return
	}
	p.exited = true
	switch p.state {
	case entAsleep:
		f.bury(owner)
	case entDelayed:
		c := &f.cpus[p.cpu]
		r.fairUpdate(c)
		r.fairDequeue(c, p, false)
		f.bury(owner)
	}
}

// SetFairWakeAffine makes a process woken by a message from a process on
// another core consider that core (wake_affine; select_task_rq_fair does
// unless wake_wide): the waker's when the waker is alone there, or when
// the wakee's previous core is the busier. Off by default: a woken
// process goes back to its previous core, or an idle one.
func (r *Resource) SetFairWakeAffine(on bool) {
	if r.fair == nil {
		panic(fmt.Sprintf("sim: %s: SetFairWakeAffine without SetFair", r.name))
	}
	r.fair.wakeAffine = on
}

// SetFairGroups puts each owner in the scheduling group groupOf returns
// (0: none, queued beside the groups' entities). Groups weigh alike on
// every core (each a nice-0 autogroup or cgroup whose load is spread
// evenly over the cores). Call it after SetFair, before any request.
func (r *Resource) SetFairGroups(groupOf func(owner int32) int32) {
	if r.fair == nil {
		panic(fmt.Sprintf("sim: %s: SetFairGroups without SetFair", r.name))
	}
	r.fair.groupOf = groupOf
}

// FairStats are the fair mode's counters. Preemptions counts the times a
// process lost its core while it still had work (a woken one's
// preemption, or a used-up slice at a tick); wakerPreempts the times a
// woken process would have preempted its waker, which had finished its
// burst and was about to sleep (Linux switches it out before it does:
// involuntary context switches that cost no waiting). Migrations counts
// the times a process was queued on another core than the one it last
// ran on.
func (r *Resource) FairStats() (preemptions, wakerPreempts, migrations uint64) {
	if r.fair == nil {
		return 0, 0, 0
	}
	return r.fair.preemptions, r.fair.wakerPreempts, r.fair.migrations
}

// load is the number of entities on q (nr_queued; weights all alike):
// the tree's and curr.
func (q *fairRQ) load() int64 {
	n := int64(len(q.tree))
	if q.curr != nil {
		n++
	}
	return n
}

// total is the sum of (v - base) over q's entities, curr's as last
// brought up to date, and how many they are.
func (q *fairRQ) total() (sum, n int64) {
	sum = q.sum
	if q.curr != nil {
		sum += q.curr.v - q.base
	}
	return sum, q.load()
}

// avgV is avg_vruntime: the mean virtual runtime of q's entities; the
// last value when q is empty.
func (q *fairRQ) avgV() int64 {
	sum, n := q.total()
	if n == 0 {
		return q.zeroV
	}
	return q.base + floorDiv(sum, n)
}

// eligible is vruntime_eligible: v is at most q's average, compared
// without a division.
func (q *fairRQ) eligible(v int64) bool {
	sum, n := q.total()
	return n == 0 || sum >= (v-q.base)*n
}

func floorDiv(a, b int64) int64 {
	d := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		d--
	}
	return d
}

// insert puts e in q's tree (__enqueue_entity).
func (q *fairRQ) insert(e *fairEnt) {
	if len(q.tree) == 0 {
		q.base, q.sum = e.v, 0
	}
	q.tree = append(q.tree, e)
	q.sum += e.v - q.base
	e.rq = q
}

// remove takes e out of q's tree (__dequeue_entity).
func (q *fairRQ) remove(e *fairEnt) {
	for i, o := range q.tree {
		if o == e {
			q.tree = append(q.tree[:i], q.tree[i+1:]...)
			q.sum -= e.v - q.base
			return
		}
	}
	panic("sim: fair: removing an entity that is not queued")
}

// fairUpdate is update_curr on every level of core c: the running
// entities' virtual runtimes advance by the time run since the last
// update.
func (r *Resource) fairUpdate(c *fairCPU) {
	now := r.k.now
	if d := now - c.runStart; d > 0 && c.task != nil && !c.finishing {
		for e := c.root.curr; e != nil; {
			e.v += d
			if e.child == nil {
				break
			}
			e = e.child.curr
		}
	}
	c.runStart = now
}

// pickEEVDF is __pick_eevdf: curr while it is eligible and (protect)
// within its protected slice; else the eligible entity with the earliest
// deadline, curr if its deadline is earlier still.
func (q *fairRQ) pickEEVDF(protect bool) *fairEnt {
	curr := q.curr
	if q.load() == 1 {
		if curr != nil {
			return curr
		}
		return q.tree[0]
	}
	if curr != nil && !q.eligible(curr.v) {
		curr = nil
	}
	if curr != nil && protect && curr.v < curr.vprot {
		return curr
	}
	var best *fairEnt
	for _, e := range q.tree {
		if (best == nil || e.deadline < best.deadline) && q.eligible(e.v) {
			best = e
		}
	}
	if best == nil && curr == nil {
		// The entity with the least virtual runtime is always eligible:
		// this is reached only by rounding.
		for _, e := range q.tree {
			if best == nil || e.v < best.v {
				best = e
			}
		}
	}
	if curr != nil && (best == nil || curr.deadline < best.deadline) {
		best = curr
	}
	return best
}

// fairClampLag is entity_lag's limit: max(2 slices, a tick).
func (r *Resource) fairClampLag(lag int64) int64 {
	lim := max(2*r.fair.slice, r.fair.tick)
	return min(max(lag, -lim), lim)
}

// fairDequeue takes entity e off its run queue q (dequeue_entity), as
// curr or from the tree. A sleeper (sleep) that is not eligible stays
// queued as delayed (DELAY_DEQUEUE); any other leaves with its lag, a
// delayed one's forgiven if positive (DELAY_ZERO). A group's queue left
// empty takes the group's entity off its own queue likewise.
func (r *Resource) fairDequeue(c *fairCPU, e *fairEnt, sleep bool) {
	q := e.rq
	if sleep && e.state != entDelayed && !q.eligible(e.v) {
		if q.curr == e {
			q.curr = nil
			q.insert(e)
		}
		e.state = entDelayed
		return
	}
	V := q.avgV()
	if q.curr == e {
		q.curr = nil
	} else {
		q.remove(e)
	}
	lag := r.fairClampLag(V - e.v)
	if e.state == entDelayed && lag > 0 {
		lag = 0
	}
	e.vlag = lag
	e.state = entAsleep
	e.rq = nil
	if q.load() == 0 {
		q.zeroV = V
		if g := q.owner; g != nil && g.state != entAsleep {
			r.fairDequeue(c, g, true) // a parent's dequeue is a sleep's
		}
	}
}

// fairPlace is place_entity: e's virtual runtime from its lag, inflated
// so that q's average stays where it was (PLACE_LAG), and a deadline a
// slice later (half a slice for a new process: PLACE_DEADLINE_INITIAL).
func (r *Resource) fairPlace(q *fairRQ, e *fairEnt, initial bool) {
	V, n := q.avgV(), q.load()
	lag := int64(0)
	if n > 0 && e.vlag != 0 {
		lag = e.vlag * (n + 1) / n
	}
	e.v = V - lag
	if initial {
		e.deadline = e.v + r.fair.slice/2
	} else {
		e.deadline = e.v + r.fair.slice
	}
}

// fairEnqueue queues process p on core c (enqueue_task_fair): placed on
// its group's queue there, and the group's entity on the core's queue if
// it was not (or was delayed there).
func (r *Resource) fairEnqueue(c *fairCPU, p *fairEnt, initial bool) {
	f := r.fair
	q := &c.root
	var g *fairEnt
	if p.group != 0 {
		g = c.groups[p.group]
		if g == nil {
			g = &fairEnt{owner: -1, cpu: p.cpu, child: &fairRQ{}}
			g.child.owner = g
			c.groups[p.group] = g
		}
		q = g.child
	}
	r.fairPlace(q, p, initial)
	p.state = entQueued
	r.account()
	q.insert(p)
	p.since = r.k.now
	f.queued++
	c.nrRunning++
	r.maxQueue = max(r.maxQueue, f.queued)
	if g != nil {
		switch g.state {
		case entAsleep:
			r.fairPlace(&c.root, g, false)
			g.state = entQueued
			c.root.insert(g)
		case entDelayed:
			r.fairRequeue(g)
		}
	}
}

// fairRequeue wakes a delayed entity where it is queued
// (requeue_delayed_entity): with DELAY_ZERO one that has caught up is
// placed afresh at the average.
func (r *Resource) fairRequeue(e *fairEnt) {
	q := e.rq
	if V := q.avgV(); V > e.v {
		q.remove(e)
		e.vlag = 0
		r.fairPlace(q, e, false)
		q.insert(e)
	}
	e.state = entQueued
}

// fairRequest is RequestAs in the fair mode.
func (r *Resource) fairRequest(service int64, owner int32, switchCost, wakeCost int64, done Handler, arg int64) {
	f := r.fair
	now := r.k.now
	p := f.ents[owner]
	if p == nil {
		p = &fairEnt{owner: owner, cpu: -1}
		if f.groupOf != nil {
			p.group = f.groupOf(owner)
		}
		f.ents[owner] = p
	}
	if p.state == entRunning && f.cpus[p.cpu].finishing && f.cpus[p.cpu].task == p {
		// It asks for more at the instant its burst ended: it never
		// left the core (a used-up slice ends at the next tick).
		c := &f.cpus[p.cpu]
		p.done, p.arg = done, arg
		if r.coldSpan > 0 || r.haltCold > 0 {
			service += r.coldWork(owner, service, 0)
		}
		p.left = service
		c.finishing = false
		c.runStart = now
		r.fairSchedule(c, p)
		return
	}
	if p.state == entRunning || p.state == entQueued {
		p.pending = append(p.pending, fairBurst{service, switchCost, wakeCost, done, arg})
		return
	}
	p.left, p.fresh, p.wakeCost, p.switchCost, p.done, p.arg = service, true, wakeCost, switchCost, done, arg
	var c *fairCPU
	if p.state == entDelayed {
		// Still queued as delayed: it wakes where it is, with no
		// choice of core (ttwu_runnable).
		c = &f.cpus[p.cpu]
		r.fairUpdate(c)
		r.account()
		r.fairRequeue(p)
		p.since = now
		f.queued++
		c.nrRunning++
		r.maxQueue = max(r.maxQueue, f.queued)
		// Its group's entity is still queued: a group's entity leaves
		// (or is delayed) only once its queue is empty.
	} else {
		s := r.fairSelect(p)
		c = &f.cpus[s]
		if p.cpu >= 0 && p.cpu != s {
			f.migrations++
		}
		initial := p.cpu < 0
		p.cpu = s
		r.fairUpdate(c)
		r.fairEnqueue(c, p, initial)
	}
	r.fairWakeupPreempt(c, p)
}

// fairSelect chooses the core of a waking process (select_task_rq_fair):
// a new one goes to the idlest core; otherwise the waker's core may be
// chosen over its previous one (wake_affine), and then an idle core near
// them (select_idle_sibling).
func (r *Resource) fairSelect(p *fairEnt) int32 {
	f := r.fair
	n := int32(len(f.cpus))
	if p.cpu < 0 {
		// sched_balance_find_dst_cpu: the core with the least load,
		// the sleeping processes' that last ran there counted (their
		// blocked load), as a process is placed when it is forked.
		// A process's blocked load decays with PELT's half-life: one
		// that slept for several of them no longer counts.
		load := make([]int, n)
		for _, e := range f.ents {
			if e.cpu >= 0 && e != p && (e.state != entAsleep || r.k.now-e.lastRan < 4*fairHalfLife) {
				load[e.cpu]++
			}
		}
		best := int32(0)
		for i := int32(1); i < n; i++ {
			if load[i] < load[best] {
				best = i
			}
		}
		return best
	}
	prev, target := p.cpu, p.cpu
	// The waker: a process whose burst just ended and whose requester's
	// handler sends the message (a synchronous wake-up, as a socket's
	// is).
	waker := int32(-1)
	for i := int32(0); i < n; i++ {
		if f.cpus[i].finishing && f.cpus[i].runStart == r.k.now {
			waker = i
			break
		}
	}
	if waker >= 0 && waker != prev && f.wakeAffine {
		target = r.fairWakeAffine(prev, waker)
	}
	// select_idle_sibling.
	if r.fairIdle(target) {
		return target
	}
	if prev != target && r.fairIdle(prev) {
		return prev
	}
	if scan := r.fairIdleScan(); scan > 0 {
		for k := int32(1); k <= n && scan > 0; k++ {
			i := (target + k) % n
			scan--
			if r.fairIdle(i) {
				return i
			}
		}
	}
	return target
}

// fairWakeAffine is wake_affine for a synchronous wake-up from the
// waker's core w: w when the waker is alone there (wake_affine_idle),
// prev when idle; else w only when prev is the busier by the balancer's
// margin (wake_affine_weight, imbalance_pct 117; loads counted in
// processes).
func (r *Resource) fairWakeAffine(prev, w int32) int32 {
	f := r.fair
	this := int64(f.cpus[w].nrRunning - 1) // the waker leaves
	if this == 0 {
		return w
	}
	if r.fairIdle(prev) {
		return prev
	}
	if (this+1)*100 < int64(f.cpus[prev].nrRunning)*108+1 {
		return w
	}
	return prev
}

// fairIdle is available_idle_cpu: nothing queued nor running, and (with
// SetHalting) not a halted vCPU the hypervisor has descheduled.
func (r *Resource) fairIdle(s int32) bool {
	if r.fair.cpus[s].root.load() > 0 {
		return false
	}
	if r.haltAfter > 0 {
		now, idle := r.k.now, r.freedAt[s]
		return now-idle < r.haltAfter || (r.kickAt > idle && now-r.kickAt < r.haltAfter)
	}
	return true
}

// fairIdleScan is SIS_UTIL's nr_idle_scan: how many cores a wake-up may
// look at for an idle one, falling with the square of the cores' average
// use, to none at 85 % (update_idle_cpu_scan).
func (r *Resource) fairIdleScan() int {
	f := r.fair
	r.fairUtil()
	n := float64(len(f.cpus))
	x := f.util / n * 1.17
	y := 1 - x*x
	if y <= 0 {
		return 0
	}
	return int(n * y)
}

// fairUtil brings the cores' decayed busy count up to now.
func (r *Resource) fairUtil() {
	f := r.fair
	now := r.k.now
	if dt := now - f.utilAt; dt > 0 {
		d := math.Exp2(-float64(dt) / fairHalfLife)
		f.util = f.util*d + float64(r.busy)*(1-d)
		f.utilAt = now
	}
}

// fairWakeupPreempt is check_preempt_wakeup_fair for process p, just
// queued on core c: at the level where p and the running process meet
// (find_matching_se), p's entity there takes the core if it is what
// pick_eevdf would run now.
func (r *Resource) fairWakeupPreempt(c *fairCPU, p *fairEnt) {
	f := r.fair
	if c.task == nil {
		r.fairUtil()
		r.account()
		r.busy++
		r.fairResched(c, true)
		return
	}
	se, pse := c.task, p
	for se.rq != pse.rq {
		if se.rq.owner != nil {
			se = se.rq.owner
		}
		if pse.rq.owner != nil {
			pse = pse.rq.owner
		}
		if se.rq.owner == nil && pse.rq.owner == nil {
			break
		}
	}
	q := se.rq
	if c.finishing {
		// The waker has finished its burst and is about to sleep: the
		// pick follows its requester's handler. Linux switches it out
		// at once if the woken one would be picked before it.
		if q.pickEEVDF(true) == pse {
			f.wakerPreempts++
		}
		return
	}
	r.fairUpdate(c)
	if q.pickEEVDF(true) == pse {
		f.preemptions++
		r.fairStop(c)
		r.fairResched(c, false)
		return
	}
	r.fairTicking()
}

// fairStop stops core c's running process, what is left of its burst
// kept; it stays curr on its queues until the next pick puts it back.
func (r *Resource) fairStop(c *fairCPU) {
	now := r.k.now
	p := c.task
	r.fairUpdate(c)
	if !c.finishing {
		p.left = c.endAt - now
	}
	c.finishing = false
	c.task = nil
	c.gen++
}

// putBack returns q's curr, and the currs of the queues below it, to
// their trees (put_prev_entity).
func (r *Resource) putBack(q *fairRQ) {
	e := q.curr
	if e == nil {
		return
	}
	if e.child != nil {
		r.putBack(e.child)
	} else {
		r.account()
		r.fair.queued++
		e.since, e.lastRan = r.k.now, r.k.now
	}
	q.curr = nil
	e.state = entQueued
	q.insert(e)
}

// fairResched picks the process to run on core c (pick_next_task_fair:
// from the core's queue down through the groups, curr at each level
// considered, dequeuing the delayed entities it meets) and runs it; idle
// says the core sat idle. An entity picked again at its level stays
// curr and keeps its protected slice; one newly set gets it up to its
// deadline (set_next_entity, set_protect_slice: RUN_TO_PARITY with equal
// slices), the one it replaces going back to the tree.
func (r *Resource) fairResched(c *fairCPU, idle bool) {
	f := r.fair
	now := r.k.now
	for {
		var e *fairEnt
		for q := &c.root; ; {
			if q.load() == 0 {
				e = nil
				break
			}
			e = q.pickEEVDF(true)
			if e.state == entDelayed || e.child == nil {
				break
			}
			q = e.child
		}
		if e == nil {
			// Nothing to run: whatever was curr goes back (a group's
			// entity left with delayed members only is gone by now).
			r.putBack(&c.root)
			r.fairUtil()
			r.account()
			r.busy--
			if f.queued > 0 {
				r.fairTicking()
			}
			return
		}
		if e.state == entDelayed {
			r.fairDequeue(c, e, false)
			continue
		}
		var buf [4]*fairEnt // a process and its groups' entities: no allocation
		chain := append(buf[:0], e)
		for g := e.rq.owner; g != nil; g = g.rq.owner {
			chain = append(chain, g)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			x := chain[i]
			q := x.rq
			if q.curr == x {
				continue
			}
			r.putBack(q)
			q.remove(x)
			if x.child == nil {
				r.account()
				f.queued--
				r.waitNs += float64(now - x.since)
			}
			q.curr = x
			x.state = entRunning
			x.vprot = x.deadline
		}
		r.fairStart(c, e, idle && e.fresh)
		return
	}
}

// fairStart runs process p on core c, paying its wake and switch costs
// when its burst begins.
func (r *Resource) fairStart(c *fairCPU, p *fairEnt, idle bool) {
	now := r.k.now
	s := p.cpu
	service := p.left
	if p.fresh {
		r.served++
		woke := p.wakeCost > 0 && idle && r.freedAt[s] < now
		sleptLong := r.haltAfter > 0 && p.wakeCost > 0 && p.lastRan > 0 && now-p.lastRan >= r.haltAfter
		service += r.wakeCosts(p.owner, service, p.wakeCost, woke, sleptLong)
		p.fresh = false
	}
	service += r.switchTo(s, p.owner, p.switchCost)
	c.task = p
	c.finishing = false
	c.runStart = now
	p.left = service
	r.fairSchedule(c, p)
	if c.nrRunning > 1 {
		r.fairTicking()
	}
}

// fairSchedule books the completion of the running process's burst.
func (r *Resource) fairSchedule(c *fairCPU, p *fairEnt) {
	c.endAt = r.k.now + p.left
	c.gen++
	r.k.Schedule(c.endAt, (*fairDone)(r), c.gen*int64(r.servers)+int64(p.cpu))
	if r.startedAt != nil {
		r.startedAt[p.cpu] = r.k.now
	}
}

type fairDone Resource

// OnEvent ends a burst: the requester's handler runs with the process
// still on its core; if it asked for no more, the process sleeps
// (dequeue_task_fair) and the core picks the next.
func (d *fairDone) OnEvent(arg int64) {
	r := (*Resource)(d)
	f := r.fair
	s := int32(arg % int64(r.servers))
	c := &f.cpus[s]
	if arg/int64(r.servers) != c.gen || c.task == nil || c.finishing {
		return // preempted meanwhile: a stale completion
	}
	now := r.k.now
	p := c.task
	r.fairUpdate(c)
	c.finishing = true
	p.left = 0
	if r.haltAfter > 0 {
		// A balancer tick fell in this service: it found the server
		// busy and kicked the halted ones.
		if t := now / r.balanceTick * r.balanceTick; t > r.startedAt[s] {
			r.kickAt = max(r.kickAt, t)
		}
	}
	done, darg := p.done, p.arg
	p.done = nil
	if done != nil {
		done.OnEvent(darg)
	}
	if c.task != p || !c.finishing {
		return // it asked for more: it runs on
	}
	if len(p.pending) > 0 {
		b := p.pending[0]
		p.pending = p.pending[1:]
		r.fairRequest(b.service, p.owner, b.switchCost, b.wakeCost, b.done, b.arg)
		return
	}
	// It sleeps.
	c.finishing = false
	p.lastRan = now
	c.nrRunning--
	r.fairDequeue(c, p, true)
	c.task = nil
	if p.exited && p.state == entAsleep {
		f.bury(p.owner)
	}
	r.freedAt[s] = now
	r.fairNext(c, s)
}

// fairNext runs the next process on core c, whose process left, else
// pulls one from another core (sched_balance_newidle) or leaves it idle.
func (r *Resource) fairNext(c *fairCPU, s int32) {
	f := r.fair
	if c.nrRunning == 0 && f.queued > 0 {
		// Only delayed entities can be left here: the pick drops them.
		r.fairPurge(c)
		if r.fairPull(s, false) {
			return
		}
	}
	r.fairResched(c, false)
}

// fairPurge dequeues every delayed entity of an idle core, as its picks
// would (each one picked is dequeued).
func (r *Resource) fairPurge(c *fairCPU) {
	for c.root.load() > 0 {
		e := c.root.pickEEVDF(true)
		for e.child != nil && e.state != entDelayed {
			e = e.child.pickEEVDF(true)
		}
		r.fairDequeue(c, e, false)
	}
}

// fairPull moves a waiting process from the busiest other core to idle
// core s (detach_tasks, can_migrate_task): not one that ran less than
// migCost ago (task_hot) unless force; the one that waited since longest.
// It keeps its lag relative to the queues' averages, and its deadline
// relative to its virtual runtime (PLACE_REL_DEADLINE).
func (r *Resource) fairPull(s int32, force bool) bool {
	f := r.fair

	now := r.k.now
	var from *fairCPU
	for i := range f.cpus {
		o := &f.cpus[i]
		if int32(i) == s || o.nrRunning < 2 {
			continue
		}
		if from == nil || o.nrRunning > from.nrRunning {
			from = o
		}
	}
	if from == nil {
		return false
	}
	var p *fairEnt
	for _, o := range f.waiting(from) {
		if !force && now-o.lastRan < f.migCost {
			continue
		}
		if p == nil || o.lastRan < p.lastRan {
			p = o
		}
	}
	if p == nil {
		return false
	}
	r.fairUpdate(from)
	rel := p.deadline - p.v
	r.account()
	r.fairDequeue(from, p, false)
	f.queued--
	from.nrRunning--
	f.migrations++
	c := &f.cpus[s]
	p.cpu = s
	r.fairEnqueue(c, p, false)
	p.deadline = p.v + rel
	r.fairResched(c, false)
	return true
}

// waiting lists core c's queued processes, in a fixed order.
func (f *fairSched) waiting(c *fairCPU) []*fairEnt {
	var out []*fairEnt
	var walk func(q *fairRQ)
	walk = func(q *fairRQ) {
		for _, e := range q.tree {
			if e.child != nil {
				walk(e.child)
			} else if e.state == entQueued {
				out = append(out, e)
			}
		}
		if q.curr != nil && q.curr.child != nil {
			walk(q.curr.child)
		}
	}
	walk(&c.root)
	return out
}

// fairTicking makes sure a tick comes while a core has processes
// waiting: it ends used-up slices and balances idle cores.
func (r *Resource) fairTicking() {
	f := r.fair
	if f.ticking {
		return
	}
	f.ticking = true
	r.k.Schedule((r.k.now/f.tick+1)*f.tick, (*fairTick)(r), 0)
}

type fairTick Resource

// OnEvent is a scheduler tick (sched_tick, task_tick_fair): on each core
// where an entity ran past its deadline with others waiting, a new
// deadline, and the earliest eligible runs; then each idle core pulls a
// waiting process (nohz_balancer_kick), a cache-hot one too once
// balancing has failed at two ticks in a row (nr_balance_failed >
// cache_nice_tries).
func (d *fairTick) OnEvent(int64) {
	r := (*Resource)(d)
	f := r.fair
	f.ticking = false
	for i := range f.cpus {
		c := &f.cpus[i]
		if c.task == nil || c.finishing || c.nrRunning < 2 {
			continue
		}
		r.fairUpdate(c)
		resched := false
		for e := c.root.curr; e != nil; {
			if e.v >= e.deadline {
				e.deadline = e.v + f.slice
				resched = true
			}
			if e.rq.load() > 1 && e.v >= e.vprot {
				resched = true
			}
			if e.child == nil {
				break
			}
			e = e.child.curr
		}
		if resched {
			old := c.task
			r.fairStop(c)
			r.fairResched(c, false)
			if c.task != old {
				f.preemptions++
			}
		}
	}
	if f.queued > 0 {
		pulled, idle := false, false
		for i := range f.cpus {
			if f.cpus[i].root.load() == 0 {
				idle = true
				r.fairUtil()
				r.account()
				r.busy++
				if r.fairPull(int32(i), f.failed >= 2) {
					pulled = true
				} else {
					r.busy--
				}
			}
		}
		if pulled {
			f.failed = 0
		} else if idle {
			f.failed++
		}
	}
	for i := range f.cpus {
		if f.cpus[i].nrRunning > 1 || f.queued > 0 {
			r.fairTicking()
			return
		}
	}
}

// bury forgets an exited owner.
func (f *fairSched) bury(owner int32) { delete(f.ents, owner) }
