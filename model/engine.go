package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/oscache"
	"github.com/pgbufsim/pgbufsim/model/storage"
	"github.com/pgbufsim/pgbufsim/model/wal"
	"github.com/pgbufsim/pgbufsim/sim"
)

// Options tune a run without changing its results.
type Options struct {
	// Progress, if set, is called about every ProgressEvery of simulated
	// time with the simulated time since the phases began (after any
	// prewarm) and the events fired. It only watches: a run with progress
	// gives the same result as one without.
	Progress      func(simNow int64, events uint64)
	ProgressEvery int64
	// Interrupted, if set, is polled every few thousand events; when it
	// returns true the run stops with ErrInterrupted (a CLI sets it from
	// SIGINT/SIGTERM). It cannot change a run that it does not stop.
	Interrupted func() bool
	// AtEnd, if set, is called once after the last phase, while the run's
	// whole state is still live (a heap profile taken there shows what the
	// model holds).
	AtEnd func()
	// PageRef, if set, receives every shared-buffer access of the run
	// (simulated nanoseconds since the run began, relation name, block number,
	// whether the access modifies the page) in simulation order: the
	// page-reference trace that `simulate -write-trace` writes for trace
	// replay. Accesses during a prewarm are not reported.
	PageRef func(at int64, relation string, block int32, write bool)
	// ProgressLine, if set, receives pgbench's progress lines (-P,
	// output.progress; progress.go) and the prewarm's, in simulation
	// order. They only watch the run.
	ProgressLine func(line string)
	// Stage, if set, is called as the run passes its stages: "built" (the
	// tables and caches exist), "prewarmed" (the prewarm is done and the
	// phases start) and "done" (the last phase ended). A caller times them
	// (the model never reads the wall clock) for the runtime block.
	Stage func(stage string)
	// Prewarms, if set, shares workload.prewarm among the runs that use
	// it (prewarmshare.go): a run whose prewarm another run has already
	// made copies that run's pool and page cache instead, with the same
	// result. A sweep sets it for all its runs.
	Prewarms *PrewarmShare
	// MemoryLimit, if positive, stops the run with a *MemoryError when
	// the process's live heap exceeds it. The model's state grows with
	// the row versions that UPDATEs and INSERTs leave until VACUUM
	// removes them, which no estimate made before the run can bound for
	// every workload; the check only reads the heap's size between
	// events, so a run that stays below the limit is unchanged.
	MemoryLimit int64
	// HeapWatch, if set, is shown the process's live heap every 65536
	// events (simulate paces the garbage collector with it: internal/gcpace).
	// It must not touch the simulation.
	HeapWatch func(live int64)
}

// MemoryError is the error of a run stopped by Options.MemoryLimit.
type MemoryError struct {
	Live, Limit int64
	At          int64 // simulated nanoseconds since the run began
	Phase       string
}

func (m *MemoryError) Error() string {
	return fmt.Sprintf("the run's state outgrew the memory allowed: %s simulated into phase %q it held %s of live state, over its limit of %s. "+
		"The state grows with every row version UPDATEs and INSERTs leave until VACUUM removes it (60 to 150 bytes a tpcb-like transaction on a large table that autovacuum does not reach): "+
		"shorten the phases (workload.phases[].duration), raise -max-memory, or make autovacuum keep up",
		formatSeconds(m.At), m.Phase, SizeText(m.Live), SizeText(m.Limit))
}

// formatSeconds writes simulated nanoseconds as hours, minutes or seconds.
func formatSeconds(ns int64) string {
	switch s := float64(ns) / 1e9; {
	case s >= 3600:
		return fmt.Sprintf("%.1f h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.1f min", s/60)
	default:
		return fmt.Sprintf("%.1f s", s)
	}
}

// liveHeapBytes is the Go heap's live bytes after the last collection
// (runtime/metrics), or 0 where the runtime does not report it.
func liveHeapBytes() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

// Run simulates the scenario and returns its result. The same scenario
// (seed and replicate included) always gives the same result.
func Run(sc Scenario) (*Result, error) { return RunWith(sc, Options{}) }

// RunWith is Run with options.
func RunWith(sc Scenario, opt Options) (*Result, error) {
	e, err := build(sc)
	if err != nil {
		return nil, err
	}
	e.pageRef = opt.PageRef
	if opt.Stage != nil {
		opt.Stage("built")
	}
	return e.run(opt)
}

// engine is one run's whole state.
type engine struct {
	sc    Scenario
	costs Costs
	// stallRNG draws the CPU's stalls (workload.go stalls); untilStall
	// is the CPU time left until the next one.
	stallRNG   *rand.Rand
	anRNG      *rand.Rand // ANALYZE's block sampler (analyze.go)
	untilStall int64
	stallCount int64
	ver        int       // e.g. 904 for 9.4, 1700 for 17
	walFmt     walFormat // the release's WAL record format (walformat.go)

	k    *sim.Kernel
	cat  *catalog.Catalog
	db   *database
	pool *bufpool.Pool
	// usedSlots: the buffer slots used since the server started, a bit
	// each (firstUse; nil while costs.buffer_first_use is 0).
	usedSlots slotBits
	policy    string
	os        *oscache.Cache
	dataDev   *storage.Device
	walDev    *storage.Device
	wal       *wal.WAL
	cpuRes    *sim.Resource
	stratLock *sim.Resource // BufFreelistLock, <= 9.4 only

	fullPageWrites bool
	fpiCycle       []uint32 // per gid: checkpoint cycle of the last WAL-logged change
	cycle          uint32

	x       xacts
	vis     visCounters
	procs   []*backend // the proc array: client backends and autovacuum workers
	hintWAL bool       // data_checksums or wal_log_hints
	av      *autovacuum
	bgw     *bgwriter
	ckpt    *checkpointer
	marks   []Mark

	backends    []*backend
	idleWorkers []*backend // retired autovacuum workers, reused by startWorker
	ioWaitHead  []int32

	// bufWrites: backend and extends are pg_stat_bgwriter's
	// buffers_backend and what of it came from relation extensions (one
	// per page up to 15, one per mdzeroextend call in 16); zeroed counts
	// the extension pages whose zeros went through the OS page cache
	// (every one up to 15; from 16 those of calls of at most 8 pages,
	// larger ones use posix_fallocate).
	aioPool                  *ioWorkers // io_method worker's processes (readstream.go)
	pinLimitN                int32      // pinLimit, once computed
	bufWrites                struct{ backend, extends, zeroed, clean, maxwritten, checkpoint uint64 }
	accesses                 uint64 // ReadBuffer calls (hits + reads + extensions)
	stats                    pgStats
	ckptTimed, ckptRequested int64

	phases  []*phase
	cur     *phase
	totals  accum
	series  *Series
	sampler *sampler
	logs    []*threadLog // pgbench logs, in phase and thread order
	opt     Options      // the run's watchers

	pageRef func(int64, string, int32, bool)

	rowLocks                map[rowKey]*rowLock
	freeLocks               []*rowLock
	rowLockWaits, deadlocks int64
	// rowRace: a row lock's waiters all wake at its holder's end and
	// race for the row (with costs.cpu_slice: releaseRowLocks).
	rowRace                   bool
	epqRechecks               int64 // statements that went on with a newer version (EvalPlanQual)
	extLockWaits, extraBlocks int64 // hio.go: extension lock waits, RelationAddExtraBlocks pages
	// forkExtended holds the pages a fork's ExtendBufferedRelTo added (16+:
	// the free space map's fsm_extend and the visibility map's vm_extend)
	// until their buffers are allocated, by the next access of each
	// (extendedForkPage); first marks the first page of each call.
	forkExtended []forkPage
	failedTxns   int64
	notFound     int64 // keyed statements whose key matched no row
	// initFileStale: the relation cache's init files are gone (removed at
	// the server's start, RelationCacheInitFileRemove), so a connection
	// rebuilds them (syscatalog.go).
	initFileStale bool
	// apwBlocks are autoprewarm's dump of the last shutdown, in load
	// order (pgprewarm.go).
	apwBlocks []int32
	// threads counts the pgbench threads started, for their CPU owner ids.
	threads int32

	lastProgress int64 // when a backend last finished an op (stall detection)
	// foldedGroups counts the tuple groups foldSettled folded away
	// (bookkeeping, in no result).
	foldedGroups int64

	t0 int64 // when the phases began (after the prewarm): reported times count from here

	err error
}

// Version parses a server.version string into major*100+minor for 9.x and
// major*100 from 10 on.
func Version(v string) (int, error) {
	major, minor, dot := strings.Cut(v, ".")
	m, err := strconv.Atoi(major)
	if err != nil {
		return 0, fmt.Errorf("server.version %q: not a PostgreSQL version", v)
	}
	n := 0
	if dot {
		if n, err = strconv.Atoi(minor); err != nil {
			return 0, fmt.Errorf("server.version %q: not a PostgreSQL version", v)
		}
	}
	return m*100 + n, nil
}

func device(k *sim.Kernel, name string, cfg DeviceConfig, rng *rand.Rand) (*storage.Device, error) {
	p, ok := storage.Presets[cfg.Preset]
	if !ok && cfg.Preset != "custom" {
		return nil, fmt.Errorf("storage.%s: unknown preset %q", name, cfg.Preset)
	}
	if cfg.Channels > 0 {
		p.Channels = cfg.Channels
	}
	if cfg.ReadTime > 0 {
		p.ReadTime = cfg.ReadTime
	}
	if cfg.WriteTime > 0 {
		p.WriteTime = cfg.WriteTime
	}
	if cfg.SeqTime > 0 {
		p.SeqTime = cfg.SeqTime
	}
	if cfg.FlushTime > 0 {
		p.FlushTime = cfg.FlushTime
	}
	if cfg.Jitter > 0 {
		p.Jitter = cfg.Jitter
	}
	if cfg.SeekSpan > 0 {
		p.SeekSpan = cfg.SeekSpan
	}
	if cfg.TransferTime > 0 {
		p.TransferTime = cfg.TransferTime
	}
	if cfg.IOPS > 0 {
		p.IOPS = cfg.IOPS
	}
	if cfg.Throughput > 0 {
		p.Throughput = cfg.Throughput
	}
	if cfg.IOUnit > 0 {
		p.IOUnit = cfg.IOUnit
	}
	p.Scheduler = cfg.Scheduler
	p.QueueDepth = cfg.QueueDepth
	return storage.New(k, name, p, rng)
}

// schedTick is the kernel's scheduler tick: 4 ms at CONFIG_HZ=250.
const schedTick = 4_000_000

func build(sc Scenario) (*engine, error) {
	ResolveVersionDefaults(&sc)
	if ps := Check(sc); len(ps) > 0 {
		return nil, ps[0]
	}
	ver, _ := Version(sc.Server.Version)
	var err error
	seed := uint64(sc.Seed)
	e := &engine{sc: sc, costs: sc.Costs, ver: ver, walFmt: walFormatOf(ver), k: sim.NewKernel(), cat: catalog.New(), cycle: 1}

	// Devices (Check has rejected impossible combinations).
	if e.dataDev, err = device(e.k, "data", sc.Storage.Data, sim.NewStream(seed, sc.Replicate, "device/data")); err != nil {
		return nil, err
	}
	if sc.Storage.WAL.Preset == "data" {
		e.walDev = e.dataDev
	} else {
		if e.walDev, err = device(e.k, "wal", sc.Storage.WAL, sim.NewStream(seed, sc.Replicate, "device/wal")); err != nil {
			return nil, err
		}
	}

	// Database.
	if e.db, err = buildDatabase(e.cat, sc, ver); err != nil {
		return nil, err
	}

	// Buffer pool and policy.
	repl, _, err := sc.Policies.Replacement.Build()
	if err != nil {
		return nil, fmt.Errorf("policies.replacement: %v", err)
	}
	nbuf := sc.Server.SharedBuffers / 8192
	e.pool = bufpool.New(int32(nbuf), repl, ver <= 1800)
	e.policy = repl.Name()
	e.initXacts() // adds pg_xact to the catalog
	for _, t := range e.db.tables {
		e.newFSM(t, t.loadedVacuumed)
	}
	e.ioWaitHead = make([]int32, nbuf)
	for i := range e.ioWaitHead {
		e.ioWaitHead[i] = -1
	}
	// Per-page state for every page of the database, with an eighth more
	// for the relations to grow into without reallocating.
	space := e.cat.GIDSpace()
	e.growPages(space + max(space/8, 64*1024) - 1)

	// OS page cache and WAL.
	e.os = oscache.New(e.k, e.dataDev, osConfig(sc.OS))
	e.os.Reserve(int32(len(e.fpiCycle)))
	e.os.SameFile = func(a, b int32) bool {
		ra, _ := e.cat.Locate(a)
		rb, _ := e.cat.Locate(b)
		return ra == rb
	}
	e.os.Files = segmentFiles{e.cat}
	e.wal = wal.New(e.k, e.walDev)
	e.wal.SetBuffers(wal.ChooseBuffers(sc.Server.WALBuffers, sc.Server.SharedBuffers))
	e.fullPageWrites = sc.Server.FullPageWrites
	e.hintWAL = sc.Server.WALLogHints || sc.Server.DataChecksums != nil && *sc.Server.DataChecksums
	e.av = &autovacuum{e: e}
	e.rowLocks = map[rowKey]*rowLock{}
	e.bgw = newBgwriter(e)
	e.ckpt = newCheckpointer(e)

	// CPU and locks.
	e.cpuRes = sim.NewResource(e.k, "cpu", sc.Server.CPUs)
	e.cpuRes.SetWakeColdSpan(e.costs.CPUWakeupCold)
	if e.costs.CPUHaltAfter > 0 {
		tick := e.costs.CPUBalanceTick
		if tick == 0 {
			tick = schedTick
		}
		e.cpuRes.SetHalting(e.costs.CPUHaltAfter, tick, e.costs.CPUHaltCold)
	}
	if e.costs.CPUSlice > 0 {
		mig := e.costs.CPUMigrationCost
		if mig == 0 {
			mig = 500_000
		}
		e.cpuRes.SetFair(e.costs.CPUSlice, mig, schedTick)
		e.cpuRes.SetFairWakeAffine(e.costs.CPUWakeAffine)
		e.rowRace = true
		if e.costs.CPUClientGroup {
			// pgbench's threads are owners -1, -2, ...; backends >= 0
			// and io workers from -1e6 down are the server's;
			// io_uring's kernel threads are in no group.
			e.cpuRes.SetFairGroups(func(owner int32) int32 {
				switch {
				case owner == ioWQOwner:
					return 0
				case owner < 0 && owner > ioWorkerOwner0:
					return 2
				}
				return 1
			})
		}
	}
	if ver <= 904 {
		e.stratLock = sim.NewResource(e.k, "BufFreelistLock", 1)
	}

	// Phases.
	for i := range sc.Workload.Phases {
		ph, err := newPhase(e, i, sc.Workload.Phases[i])
		if err != nil {
			return nil, err
		}
		e.phases = append(e.phases, ph)
	}
	e.series = newSeries()
	e.sampler = &sampler{e: e, every: sc.Output.Interval}
	return e, nil
}

// osConfig turns the vm.* settings into page counts (mm/page-writeback.c:
// the *_bytes settings win over the ratios when non-zero).
func osConfig(o OS) oscache.Config {
	pages := o.PageCache / 8192
	bg := int64(float64(pages) * o.DirtyBackgroundRatio / 100)
	if o.DirtyBackgroundBytes > 0 {
		bg = o.DirtyBackgroundBytes / 8192
	}
	lim := int64(float64(pages) * o.DirtyRatio / 100)
	if o.DirtyBytes > 0 {
		lim = o.DirtyBytes / 8192
	}
	// The kernel keeps the background threshold below the limit
	// (domain_dirty_limits: bg_thresh >= thresh -> thresh / 2).
	if bg >= lim {
		bg = lim / 2
	}
	return oscache.Config{
		CapacityPages:   pages,
		BackgroundPages: bg,
		LimitPages:      lim,
		Expire:          int64(o.DirtyExpireCentisecs) * 10 * sim.Millisecond,
		WakeInterval:    int64(o.DirtyWritebackCentisecs) * 10 * sim.Millisecond,
		MaxInFlight:     o.NrRequests,
		MaxBatch:        int(max(o.MaxWritebackBatch/8192, 1)),
		ReadAheadKPages: o.ReadAhead / 4096,
	}
}

// extend adds a block to rel (smgrextend) and sizes the per-page state for
// it. Past the page-id space it fails the run (exit 2) and returns ok
// false; the loader refuses databases that start too large, so only a
// relation that grows for very long gets there.
func (e *engine) extend(rel catalog.RelID) (block, gid int32, ok bool) {
	block, gid = e.cat.Extend(rel)
	if gid < 0 {
		e.fail(fmt.Errorf("relation %s cannot grow past block %d: the run's %d page ids (16 TB) are used up", e.cat.Rel(rel).Name, block, MaxPages))
		return block, gid, false
	}
	e.growPages(gid)
	return block, gid, true
}

// growPages sizes per-page slices for gids up to gid.
func (e *engine) growPages(gid int32) {
	if int(gid) < len(e.fpiCycle) {
		return
	}
	// Grow by a quarter (relations extend by a few chunks at a time); the
	// initial size already has headroom (build).
	n := max(int(gid)+1, len(e.fpiCycle)+len(e.fpiCycle)/4)
	f := make([]uint32, n)
	copy(f, e.fpiCycle)
	e.fpiCycle = f
	e.pool.Reserve(int32(n))
}

func (e *engine) fail(err error) {
	if e.err == nil {
		e.err = err
		e.k.Stop()
	}
}

func (e *engine) failed() bool { return e.err != nil }

func (e *engine) run(opt Options) (*Result, error) {
	e.opt = opt
	if opt.ProgressLine != nil && e.sc.Output.Progress > 0 {
		// The table build is done when the run starts: say what it built.
		var pages int64
		for r := range e.cat.NumRelations() {
			pages += int64(e.cat.Rel(catalog.RelID(r)).NBlocks)
		}
		opt.ProgressLine(fmt.Sprintf("tables: %d relations built, %d pages (%s)", e.cat.NumRelations(), pages, SizeText(pages*8192)))
	}
	if share := opt.Prewarms; share != nil && e.sc.Workload.Prewarm > 0 && len(e.phases) > 0 {
		ok, err := e.sharedPrewarm(share, e.sc.Workload.Prewarm)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrInterrupted
		}
	} else {
		if e.sc.OS.Start == "loaded" {
			e.loadPageCache()
		}
		if !e.prewarm(e.sc.Workload.Prewarm) {
			return nil, ErrInterrupted
		}
	}
	if opt.Stage != nil {
		opt.Stage("prewarmed")
	}
	e.t0 = e.k.Now()
	e.startUsedSlots()
	e.sampler.start()
	e.bgw.start()
	e.ckpt.start()
	e.av.start()
	e.wal.StartWriter(wal.WriterConfig{Delay: e.sc.Server.WALWriterDelay, FlushAfter: e.sc.Server.WALWriterFlushAfter, Version: e.ver})
	e.startPhase(0)
	if opt.Progress != nil && opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 10 * sim.Second
	}
	// The same event loop with or without watchers: progress and interrupt
	// checks only look at the kernel between events, so they cannot move
	// the run's clock or reorder its events.
	next := e.k.Now() + opt.ProgressEvery
	for n := uint(0); e.err == nil && e.cur != nil; n++ {
		if !e.k.Step() {
			break
		}
		if opt.Progress != nil && e.k.Now() >= next {
			opt.Progress(e.k.Now()-e.t0, e.k.Fired())
			next = e.k.Now() + opt.ProgressEvery
		}
		if opt.Interrupted != nil && n%4096 == 0 && opt.Interrupted() {
			return nil, ErrInterrupted
		}
		if (opt.MemoryLimit > 0 || opt.HeapWatch != nil) && n%(1<<16) == 0 {
			live := liveHeapBytes()
			if opt.HeapWatch != nil {
				opt.HeapWatch(live)
			}
			if opt.MemoryLimit > 0 && live > opt.MemoryLimit {
				phase := ""
				if e.cur != nil {
					phase = e.cur.cfg.Name
				}
				return nil, &MemoryError{Live: live, Limit: opt.MemoryLimit, At: e.k.Now() - e.t0, Phase: phase}
			}
		}
	}
	if e.err != nil {
		return nil, e.err
	}
	if e.cur != nil {
		return nil, fmt.Errorf("simulation stalled in phase %q at %.3f s: no pending event while clients are still active (a model bug)", e.cur.cfg.Name, float64(e.k.Now())/1e9)
	}
	if opt.Stage != nil {
		opt.Stage("done")
	}
	r := e.result()
	if err := e.checkInvariants(r); err != nil {
		return nil, err
	}
	if opt.AtEnd != nil {
		opt.AtEnd()
		runtime.KeepAlive(e) // the state AtEnd looks at must still be live
	}
	return r, nil
}

// ErrInterrupted is returned by a run that Options.Interrupted stopped.
var ErrInterrupted = errors.New("interrupted")
