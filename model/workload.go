package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgbufsim/pgbufsim/sim"
)

// phase runs one workload phase: a group of pgbench clients.
type phase struct {
	e   *engine
	idx int
	cfg Phase
	mix phaseMix
	// per script of the mix: transactions, failed ones, latencies
	scriptTxns, scriptFailed, scriptSkipped []int64
	scriptLat                               []*sim.Histogram

	start, end int64
	paused     bool // its pause (Phase.Pause) is over or under way
	active     int
	clients    []*client
	threads    []*thread

	lat, lag            *sim.Histogram
	txns, skipped, late int64
	snap                counters
	relBase             []relCounters // per-relation counters at the phase's start
	result              PhaseResult
	prog                *progressStats // since the last progress report (-P), or nil
	streams             phaseStreams
	// cmdStats are the per-command latencies of each script of the mix
	// (pgbench -r, output.report_per_command), or nil.
	cmdStats [][]cmdStat
	// execNS is the executor time of the phase's statements (ExecutionMS).
	execNS int64
}

// cmdStat is one script command's latency total (pgbench's Command stats
// and failures).
type cmdStat struct {
	count, failures, sum int64
}

// client is one pgbench connection: its key stream, its thread and its
// server backend.
type client struct {
	id     int
	phase  *phase
	thread *thread
	keys   *rand.Rand
	// extra draws what is the simulator's own, not pgbench's
	// (abort_fraction, pick: random): keys itself, unless the phase
	// replays pgbench's sequence (random_seed), whose keys stream must
	// hold only what pgbench draws.
	extra  *rand.Rand
	script *script // the current transaction's script
	// scriptNo is its index in the phase's mix (pgbench's script_no)
	scriptNo int
	vals     []int64
	// own holds the values of scripts with carried variables
	// (script.carried), per script.
	own map[*script][]int64
	b   *backend
	// lists holds the keys of the transaction's IN lists (opList: an
	// op's key is its list's offset here, n its length), rebuilt with
	// its ops (listKeys).
	lists []int64
}

// thread is a pgbench worker thread: under --rate each thread runs its own
// Poisson schedule with mean gap threads/rate (pgbench.c main: throttle_delay
// is multiplied by nthreads).
type thread struct {
	trigger int64
	meanUs  float64
	// rng draws the --rate schedule (pgbench's per-thread ts_throttle_rs).
	rng uniform
	// choose draws each transaction's script from a weighted mix
	// (pgbench's per-thread ts_choose_rs); nil with one script.
	choose uniform
	// The thread runs one client's client-side work at a time (pgbench.c
	// threadRun's loop): busy while one does, the others queue.
	busy    bool
	waiting []*backend
	// log is the thread's pgbench log file (pgbenchlog.go), or nil.
	log *threadLog
	// owner is the thread's process on the CPU (engine.cpuRequest): a
	// negative number, apart from the backends' ids.
	owner int32
}

// acquire runs b's client-side CPU for its next statement on the thread,
// or queues b until the thread is free.
func (th *thread) acquire(b *backend) {
	if th.busy {
		th.waiting = append(th.waiting, b)
		return
	}
	th.busy = true
	th.run(b)
}

// run spends the client's CPU: on the server's cores when the client runs
// there, otherwise as a delay of its own.
func (th *thread) run(b *backend) {
	e := b.e
	if e.sc.Workload.ClientHost == "remote" {
		e.k.After(e.costs.Client, b, evClientDone)
		return
	}
	// pgbench slept until the last result came: its burst may wake a
	// core. After a sleep until a scheduled start (-R) the wake-up is
	// in costs.client_wakeup: pgbench's schedule lag ends once its thread
	// runs again (pgbench.c: txn_begin is taken when it does).
	woke := !b.paced
	b.paced = false
	e.cpuRequest(e.costs.Client, th.owner, woke, b, evClientDone)
}

// cpuRequest takes a CPU burst of c on the server's cores for owner (a
// backend's id, or a pgbench thread's negative one), paying
// costs.context_switch when the core last ran another process and, for a
// burst of a process that slept on a message or a lock (woke says so),
// costs.cpu_wakeup when the core sat idle.
func (e *engine) cpuRequest(c int64, owner int32, woke bool, h sim.Handler, arg int64) {
	if e.costs.StallInterval > 0 && e.costs.Stall > 0 {
		c += e.stalls(c)
	}
	wake := int64(0)
	if woke {
		wake = e.costs.CPUWakeup
	}
	// Bursts are placed by owner where a price or the halting cores'
	// placement (costs.cpu_halt_after) depends on who ran where.
	if cs := e.costs.ContextSwitch; cs > 0 || wake > 0 || e.costs.CPUHaltAfter > 0 || e.costs.CPUSlice > 0 {
		e.cpuRes.RequestAs(c, owner, cs, wake, h, arg)
		return
	}
	e.cpuRes.Request(c, h, arg)
}

// stalls returns the stall time a CPU burst of c ns suffers
// (costs.stall_interval, costs.stall): the stalls of a Poisson process in
// CPU time, counted over every burst in the order they are requested,
// that fall within this burst, each of exponentially distributed length.
// The draws come from a stream of their own, so stalls change no other
// random choice of the run.
func (e *engine) stalls(c int64) int64 {
	draw := func(mean int64) int64 { return int64(e.stallRNG.ExpFloat64() * float64(mean)) }
	if e.stallRNG == nil {
		e.stallRNG = sim.NewStream(uint64(e.sc.Seed), e.sc.Replicate, "cpu/stalls")
		e.untilStall = draw(e.costs.StallInterval)
	}
	var add int64
	for e.untilStall <= c {
		c -= e.untilStall
		add += draw(e.costs.Stall)
		e.stallCount++
		e.untilStall = draw(e.costs.StallInterval)
	}
	e.untilStall -= c
	return add
}

// release frees the thread for the next queued client.
func (th *thread) release() {
	if len(th.waiting) == 0 {
		th.busy = false
		return
	}
	next := th.waiting[0]
	th.waiting = th.waiting[1:]
	th.run(next)
}

func newPhase(e *engine, idx int, cfg Phase) (*phase, error) {
	mix, err := phaseScripts(cfg, e.sc, e.db)
	if err != nil {
		return nil, fmt.Errorf("workload.phases[%d].%v", idx, err)
	}
	if cfg.Clients < 1 {
		return nil, fmt.Errorf("workload.phases[%d].clients: must be >= 1", idx)
	}
	if (cfg.Duration > 0) == (cfg.Transactions > 0) {
		return nil, fmt.Errorf("workload.phases[%d]: set exactly one of duration and transactions", idx)
	}
	ph := &phase{e: e, idx: idx, cfg: cfg, mix: mix, lat: sim.NewHistogram(), lag: sim.NewHistogram()}
	if e.sc.Output.ReportPerCommand {
		for _, s := range mix.scripts {
			ph.cmdStats = append(ph.cmdStats, make([]cmdStat, len(s.commands)))
		}
	}
	if n := len(mix.scripts); n > 1 {
		ph.scriptTxns, ph.scriptFailed, ph.scriptSkipped = make([]int64, n), make([]int64, n), make([]int64, n)
		for range n {
			ph.scriptLat = append(ph.scriptLat, sim.NewHistogram())
		}
	}
	return ph, nil
}

// startPhase starts phase i now, or ends the run after the last phase.
func (e *engine) startPhase(i int) {
	if i >= len(e.phases) {
		e.cur = nil
		return
	}
	ph := e.phases[i]
	e.cur = ph
	if ph.cfg.Pause > 0 && !ph.paused {
		// Phase.Pause: the server idles; the phase starts after it.
		ph.paused = true
		ph.start = e.k.Now()
		e.k.After(ph.cfg.Pause, (*pauseEnd)(e), int64(i))
		return
	}
	if ph.cfg.Restart {
		e.restartServer()
		defer e.startAutoprewarm() // with the phase's clients, after the page cache's drop
	}
	if ph.cfg.DropOSCache {
		e.os.DropClean()
	}
	now := e.k.Now()
	ph.start = now
	if ph.cfg.Duration > 0 {
		ph.end = now + ph.cfg.Duration
	}
	ph.snap = e.snapshot()
	ph.relBase = append(ph.relBase[:0], e.stats.rel...)
	e.dataDev.ReadLatencyPhase.Reset()
	nthreads := min(ph.cfg.Threads, ph.cfg.Clients)
	ph.streams = newPhaseStreams(&e.sc, i, ph.cfg, nthreads)
	for t := 0; t < nthreads; t++ {
		e.threads++
		th := &thread{trigger: now, rng: ph.streams.throttle[t], owner: -e.threads}
		if len(ph.mix.scripts) > 1 {
			th.choose = ph.streams.choose[t]
		}
		if ph.cfg.Rate > 0 {
			th.meanUs = 1e6 / ph.cfg.Rate * float64(nthreads)
		}
		ph.threads = append(ph.threads, th)
	}
	e.startProgress(ph)
	for t, l := range e.newThreadLogs(i, ph) {
		ph.threads[t].log = l
		e.logs = append(e.logs, l)
	}
	ph.active = ph.cfg.Clients
	for c := 0; c < ph.cfg.Clients; c++ {
		cl := &client{
			id:     c,
			phase:  ph,
			thread: ph.threads[c*nthreads/ph.cfg.Clients],
			keys:   ph.streams.keys[c],
			extra:  ph.streams.extra[c],
			script: ph.mix.scripts[0],
			vals:   make([]int64, ph.mix.maxVars),
		}
		b := &backend{e: e, id: int32(len(e.backends)), client: cl, nextWait: -1, vmSlot: -1, vmHeld: -1, hcache: e.newHintCache()}
		cl.b = b
		e.backends = append(e.backends, b)
		e.procs = append(e.procs, b)
		e.x.horizonOK = false
		ph.clients = append(ph.clients, cl)
	}
	for _, cl := range ph.clients {
		cl.b.advance()
		if e.failed() {
			return
		}
	}
}

// pauseEnd starts phase arg when its pause is over.
type pauseEnd engine

func (p *pauseEnd) OnEvent(arg int64) { (*engine)(p).startPhase(int(arg)) }

// complete records a finished transaction (pgbench processXactStats).
func (ph *phase) complete(b *backend, now int64) {
	no := b.client.scriptNo
	if b.failed {
		// pgbench counts failed transactions apart, not in the latencies.
		b.failed = false
		ph.e.failedTxns++
		if ph.scriptFailed != nil {
			ph.scriptFailed[no]++
		}
		if l := b.client.thread.log; l != nil {
			l.record(now, b.client.id, b.txNo+1, logFailed, 0, 0, no)
		}
		if ph.prog != nil {
			ph.prog.failed++
		}
		return
	}
	latency := now - b.scheduled
	lag := b.started - b.scheduled
	ph.txns++
	ph.lat.Record(latency)
	if ph.scriptTxns != nil {
		ph.scriptTxns[no]++
		ph.scriptLat[no].Record(latency)
	}
	ph.lag.Record(lag)
	ph.e.sampler.lat.Record(latency)
	ph.e.sampler.txns++
	if lim := ph.cfg.LatencyLimit; lim > 0 && latency > lim {
		ph.late++
	}
	if l, p := b.client.thread.log, ph.prog; l != nil || p != nil {
		// pgbench measures in whole microseconds (pg_time_now).
		nowUs, schedUs := epochUs(now), epochUs(b.scheduled)
		latUs, lagUs := nowUs-schedUs, epochUs(b.started)-schedUs
		if l != nil {
			l.record(now, b.client.id, b.txNo+1, logOK, latUs, lagUs, no)
		}
		if p != nil {
			p.cnt++
			p.sum += float64(latUs)
			p.sum2 += float64(latUs) * float64(latUs)
			p.lagSum += float64(lagUs)
		}
	}
}

// skip records a transaction skipped under --latency-limit.
func (ph *phase) skip(b *backend, sched int64) {
	ph.skipped++
	if ph.prog != nil {
		ph.prog.skipped++
	}
	if ph.scriptSkipped != nil {
		ph.scriptSkipped[b.client.scriptNo]++
	}
	if l := b.client.thread.log; l != nil {
		l.record(ph.e.k.Now(), b.client.id, b.txNo+1, logSkipped, 0, 0, b.client.scriptNo)
	}
}

func (ph *phase) clientDone() {
	ph.active--
	if ph.active == 0 {
		ph.e.endPhase(ph)
	}
}

func (e *engine) endPhase(ph *phase) {
	now := e.k.Now()
	for _, th := range ph.threads {
		if th.log != nil {
			th.log.finish(now)
		}
	}
	// The phase's backends exit with their clients, and pgbench's threads.
	for _, cl := range ph.clients {
		e.cpuRes.Exit(cl.b.id)
	}
	for _, th := range ph.threads {
		e.cpuRes.Exit(th.owner)
	}
	cur := e.snapshot()
	dur := now - ph.start
	rel := make([]relCounters, len(e.stats.rel))
	for i, c := range e.stats.rel {
		var b relCounters
		if i < len(ph.relBase) {
			b = ph.relBase[i]
		}
		rel[i] = c.minus(b)
	}
	ph.result = PhaseResult{
		Name:        ph.cfg.Name,
		Warmup:      ph.cfg.Warmup,
		StartS:      ph.e.at(ph.start),
		ElapsedS:    round6(float64(dur) / 1e9),
		ExecutionMS: round6(float64(ph.execNS) / 1e6),
		Clients:     ph.cfg.Clients,
		Metrics:     e.metrics(cur.minus(ph.snap), rel, dur, ph.txns, ph.skipped, ph.late, ph.lat, ph.lag, e.dataDev.ReadLatencyPhase),
	}
	ph.result.Scripts = scriptResults(ph.mix, ph.scriptTxns, ph.scriptFailed, ph.scriptSkipped, ph.scriptLat, dur)
	ph.result.Statements = statementResults(ph.mix, ph.cmdStats)
	if !ph.cfg.Warmup {
		e.totals.add(cur.minus(ph.snap), rel, dur, ph)
		e.totals.addScripts(ph)
		e.totals.addStatements(ph)
		e.totals.read.Merge(e.dataDev.ReadLatencyPhase)
	}
	if ph.idx == len(e.phases)-1 {
		e.sampler.flush()
	}
	e.startPhase(ph.idx + 1)
}
