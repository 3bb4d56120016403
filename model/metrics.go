package model

import (
	"slices"
	"sort"
	"strconv"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/sim"
)

// Counter indices: every cumulative counter of a run lives in one array, so
// that phase, interval and total metrics are plain differences and sums.
const (
	cHits = iota
	cReads
	cAlloc
	cEvictions
	cSweepSteps
	cFreePops
	cRingReuses
	cDirtied
	cClean
	cMaxwritten
	cBackend
	cExtends
	cCheckpoint
	cOSHits
	cOSMisses
	cWriteback
	cThrottled
	cDiskReads
	cDiskReadPages
	cOSReadahead
	cOSInflightWaits
	cOSReadCalls
	cOSAdviceCalls
	cDiskWrites
	cWALWrites
	cWALRecords
	cWALFlushes
	cFPI
	cFPIHint
	cWALBuffersFull
	cWALWriteCalls
	cWALBytes
	cTuplesChecked
	cAllVisibleSkips
	cHintBitHits
	cClogLookups
	cTransamCacheHits
	cClogSLRUHits
	cClogSLRUMisses
	cProcarrayScans
	cHintBitsSet
	cHintDirtiedPages
	cHintCacheHits
	cHintCacheMisses
	cVMLookups
	cClogWrites
	cAllVisibleSet
	cPruned
	cPasses
	cFailed
	cRowLockWaits
	cEPQRechecks
	cDeadlocks
	cExtLockWaits
	cExtraBlocks
	cNotFound
	cCkptTimed
	cCkptRequested
	cCtxSwitches
	cCPUWakeups
	cCPUStalls
	cPreemptions
	cWakerPreemptions
	cMigrations
	nCounters
)

// Time integrals (ns x servers busy, ns x queue length).
const (
	fCPUBusy = iota
	fDiskBusy
	fDiskQueue
	fWALBusy
	fCPUCold
	nIntegrals
)

// counters is a snapshot of every cumulative counter of a run; metrics of a
// phase or an interval are differences of two snapshots.
type counters struct {
	n     [nCounters]int64
	f     [nIntegrals]float64
	io    [nBackendTypes][nContexts]ioCounters
	usage [nBackendTypes]usageCounters
}

func (e *engine) snapshot() counters {
	ps := e.pool.Stats
	os := e.os.Stats
	var c counters
	c.n = [nCounters]int64{
		cHits:            int64(ps.Hits),
		cReads:           int64(ps.Reads),
		cAlloc:           int64(ps.Alloc),
		cEvictions:       int64(ps.Evictions),
		cSweepSteps:      int64(ps.SweepSteps),
		cFreePops:        int64(ps.FreeListPops),
		cRingReuses:      int64(ps.RingReuses),
		cDirtied:         int64(ps.Dirtied),
		cClean:           int64(e.bufWrites.clean),
		cMaxwritten:      int64(e.bufWrites.maxwritten),
		cBackend:         int64(e.bufWrites.backend),
		cExtends:         int64(e.bufWrites.extends),
		cCheckpoint:      int64(e.bufWrites.checkpoint),
		cOSHits:          int64(os.Hits),
		cOSMisses:        int64(os.Misses),
		cWriteback:       int64(os.WritebackPages),
		cThrottled:       int64(os.ThrottledWrites),
		cDiskReads:       int64(e.dataDev.Stats.Reads),
		cDiskReadPages:   int64(e.dataDev.Stats.PagesRead),
		cOSReadahead:     int64(os.ReadaheadPages),
		cOSInflightWaits: int64(os.InflightWaits),
		cOSReadCalls:     int64(os.ReadCalls),
		cOSAdviceCalls:   int64(os.AdviceCalls),
		cDiskWrites:      int64(e.dataDev.Stats.Writes),
		cWALRecords:      int64(e.wal.Stats.Records),
		cWALFlushes:      int64(e.wal.Stats.Flushes),
		cFPI:             int64(e.wal.Stats.FPI),
		cFPIHint:         int64(e.wal.Stats.FPIHint),
		cWALBuffersFull:  int64(e.wal.Stats.BuffersFull),
		cWALWriteCalls:   int64(e.wal.Stats.Writes),
		cWALBytes:        e.wal.Stats.Bytes,

		cTuplesChecked:    e.vis.tuplesChecked,
		cAllVisibleSkips:  e.vis.allVisibleSkips,
		cHintBitHits:      e.vis.hintBitHits,
		cClogLookups:      e.vis.clogLookups,
		cTransamCacheHits: e.vis.transamCacheHits,
		cClogSLRUHits:     e.vis.clogSLRUHits,
		cClogSLRUMisses:   e.vis.clogSLRUMisses,
		cProcarrayScans:   e.vis.procarrayScans,
		cHintBitsSet:      e.vis.hintBitsSet,
		cHintDirtiedPages: e.vis.hintDirtiedPages,
		cHintCacheHits:    e.vis.hintCacheHits,
		cHintCacheMisses:  e.vis.hintCacheMisses,
		cVMLookups:        e.vis.vmLookups,
		cClogWrites:       e.vis.clogWrites,
		cAllVisibleSet:    e.vis.allVisiblePagesSet,
		cPruned:           e.vis.pruned,
		cFailed:           e.failedTxns,
		cRowLockWaits:     e.rowLockWaits,
		cEPQRechecks:      e.epqRechecks,
		cDeadlocks:        e.deadlocks,
		cExtLockWaits:     e.extLockWaits,
		cExtraBlocks:      e.extraBlocks,
		cNotFound:         e.notFound,
		cCkptTimed:        e.ckptTimed,
		cCkptRequested:    e.ckptRequested,
	}
	c.io = e.stats.io
	c.usage = e.stats.usage
	if ss, ok := e.pool.Policy.(policies.SweepStats); ok {
		_, c.n[cPasses] = ss.SweepCounters()
	}
	cs := e.cpuRes.Stats()
	// A core waking from idle holds it but runs nothing: not busy time.
	c.f[fCPUBusy], c.n[cCtxSwitches], c.n[cCPUWakeups] = cs.BusyNs-cs.WakeNs, int64(cs.Switches), int64(cs.Wakeups)
	c.f[fCPUCold] = cs.ColdNs
	c.n[cCPUStalls] = e.stallCount
	p, wp, mg := e.cpuRes.FairStats()
	c.n[cPreemptions], c.n[cWakerPreemptions], c.n[cMigrations] = int64(p), int64(wp), int64(mg)
	c.f[fDiskBusy], c.f[fDiskQueue] = e.dataDev.Resource().Stats().BusyNs, e.dataDev.QueueNs()
	if e.walDev != e.dataDev {
		c.n[cWALWrites] = int64(e.walDev.Stats.Writes)
		c.f[fWALBusy] = e.walDev.Resource().Stats().BusyNs
	}
	return c
}

func (a counters) minus(b counters) counters { return a.combine(b, -1) }

func (a counters) plus(b counters) counters { return a.combine(b, 1) }

// combine returns a + sign*b, counter by counter.
func (a counters) combine(b counters, sign int64) counters {
	for i := range a.n {
		a.n[i] += sign * b.n[i]
	}
	for i := range a.f {
		a.f[i] += float64(sign) * b.f[i]
	}
	u := uint64(sign) // wraps for -1: unsigned differences of counters that only grow
	for t := range a.io {
		for c := range a.io[t] {
			x, y := &a.io[t][c], b.io[t][c]
			x.hits += u * y.hits
			x.reads += u * y.reads
			x.extends += u * y.extends
			x.writes += u * y.writes
			x.evictions += u * y.evictions
			x.reuses += u * y.reuses
			x.readOps += u * y.readOps
			x.extendOps += u * y.extendOps
			x.fsyncs += u * y.fsyncs
			x.writebacks += u * y.writebacks
			x.readNs += sign * y.readNs
			x.writeNs += sign * y.writeNs
			x.extendNs += sign * y.extendNs
			x.fsyncNs += sign * y.fsyncNs
		}
		x, y := &a.usage[t], b.usage[t]
		x.hit += u * y.hit
		x.read += u * y.read
		x.dirtied += u * y.dirtied
		x.written += u * y.written
		x.walRecords += u * y.walRecords
		x.walFPI += u * y.walFPI
		x.walBytes += sign * y.walBytes
		x.readNs += sign * y.readNs
		x.writeNs += sign * y.writeNs
		x.readUs += sign * y.readUs
		x.writeUs += sign * y.writeUs
	}
	return a
}

// accum sums the non-warmup phases into the run's totals.
type accum struct {
	c                   counters
	rel                 []relCounters
	dur                 int64
	txns, skipped, late int64
	lat, lag, read      *sim.Histogram
	// a weighted mix's per-script figures, merged while every measured
	// phase runs the same mix (mixOff once they differ)
	mix       *phase
	mixTxns   []int64
	mixFailed []int64
	mixSkip   []int64
	// pgbench -r's per-command figures, merged likewise
	cmdPhase *phase
	cmd      [][]cmdStat
	cmdOff   bool
	mixLat   []*sim.Histogram
	mixOff   bool
}

// addStatements merges ph's per-command latencies (pgbench -r) into the
// totals while every measured phase runs the same scripts.
func (t *accum) addStatements(ph *phase) {
	if ph.cmdStats == nil || t.cmdOff {
		return
	}
	if t.cmdPhase != nil && !sameMix(t.cmdPhase.cfg, ph.cfg) {
		t.cmdOff, t.cmd = true, nil
		return
	}
	if t.cmdPhase == nil {
		t.cmdPhase = ph
		for _, cs := range ph.cmdStats {
			t.cmd = append(t.cmd, make([]cmdStat, len(cs)))
		}
	}
	for i, cs := range ph.cmdStats {
		for j, c := range cs {
			m := &t.cmd[i][j]
			m.count, m.failures, m.sum = m.count+c.count, m.failures+c.failures, m.sum+c.sum
		}
	}
}

// addScripts merges ph's per-script figures into the totals.
func (t *accum) addScripts(ph *phase) {
	if t.mixOff {
		return
	}
	if ph.scriptTxns == nil || (t.mix != nil && !sameMix(t.mix.cfg, ph.cfg)) {
		t.mixOff = true
		t.mix, t.mixTxns, t.mixFailed, t.mixSkip, t.mixLat = nil, nil, nil, nil, nil
		return
	}
	if t.mix == nil {
		t.mix = ph
		t.mixTxns, t.mixFailed, t.mixSkip = make([]int64, len(ph.scriptTxns)), make([]int64, len(ph.scriptTxns)), make([]int64, len(ph.scriptTxns))
		for range ph.scriptTxns {
			t.mixLat = append(t.mixLat, sim.NewHistogram())
		}
	}
	for i := range ph.scriptTxns {
		t.mixTxns[i] += ph.scriptTxns[i]
		t.mixFailed[i] += ph.scriptFailed[i]
		t.mixSkip[i] += ph.scriptSkipped[i]
		t.mixLat[i].Merge(ph.scriptLat[i])
	}
}

// sameMix reports whether two phases run the same weighted mix.
func sameMix(a, b Phase) bool {
	la, lb := a.ScriptList(), b.ScriptList()
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		if la[i].Builtin != lb[i].Builtin || la[i].Name != lb[i].Name || la[i].Weight != lb[i].Weight || len(la[i].Steps) != len(lb[i].Steps) || la[i].File != lb[i].File || la[i].Text != lb[i].Text {
			return false
		}
	}
	return true
}

// scriptResults is pgbench's per-script breakdown of a mix (printResults:
// "SQL script N: NAME", weight, transactions, tps, failures, latency).
func scriptResults(mix phaseMix, txns, failed, skipped []int64, lat []*sim.Histogram, dur int64) []ScriptResult {
	if txns == nil {
		return nil
	}
	var all int64
	for _, n := range txns {
		all += n
	}
	out := make([]ScriptResult, len(txns))
	for i := range txns {
		r := ScriptResult{Name: mix.scripts[i].name, Weight: mix.weights[i], Transactions: txns[i], Failed: failed[i], Skipped: skipped[i], LatencyMS: distOf(lat[i])}
		r.TargetShare = round6(float64(mix.weights[i]) / float64(mix.total))
		if all > 0 {
			r.Share = round6(float64(txns[i]) / float64(all))
		}
		if dur > 0 {
			r.TPS = round6(float64(txns[i]) / (float64(dur) / 1e9))
		}
		out[i] = r
	}
	return out
}

func (t *accum) add(c counters, rel []relCounters, dur int64, ph *phase) {
	if t.lat == nil {
		t.lat, t.lag, t.read = sim.NewHistogram(), sim.NewHistogram(), sim.NewHistogram()
	}
	t.c = t.c.plus(c)
	for len(t.rel) < len(rel) {
		t.rel = append(t.rel, relCounters{})
	}
	for i, r := range rel {
		t.rel[i] = t.rel[i].plus(r)
	}
	t.dur += dur
	t.txns += ph.txns
	t.skipped += ph.skipped
	t.late += ph.late
	t.lat.Merge(ph.lat)
	t.lag.Merge(ph.lag)
}

// metrics turns a counter difference over dur into the reported metrics;
// rel is the per-relation counter difference.
func (e *engine) metrics(c counters, rel []relCounters, dur int64, txns, skipped, late int64, lat, lag, read *sim.Histogram) Metrics {
	secs := float64(dur) / 1e9
	m := Metrics{
		Transactions:       txns,
		Failed:             c.n[cFailed],
		RowLockWaits:       c.n[cRowLockWaits],
		EPQRechecks:        c.n[cEPQRechecks],
		Deadlocks:          c.n[cDeadlocks],
		ExtensionLockWaits: c.n[cExtLockWaits],
		ExtraBlocks:        c.n[cExtraBlocks],
		KeysNotFound:       c.n[cNotFound],
		Skipped:            skipped,
		Late:               late,
		LatencyMS:          distOf(lat),
		LagMS:              distOf(lag),
	}
	if secs > 0 {
		m.TPS = round6(float64(txns) / secs)
	}
	m.Buffers = Buffers{
		Hits:            c.n[cHits],
		Reads:           c.n[cReads],
		HitRatio:        ratio(float64(c.n[cHits]), float64(c.n[cHits]+c.n[cReads])),
		Alloc:           c.n[cAlloc],
		Clean:           c.n[cClean],
		MaxwrittenClean: c.n[cMaxwritten],
		Backend:         c.n[cBackend],
		BackendExtend:   c.n[cExtends],
		Checkpoint:      c.n[cCheckpoint],
		Evictions:       c.n[cEvictions],
		SweepSteps:      c.n[cSweepSteps],
		CompletePasses:  c.n[cPasses],
		StepsPerAlloc:   ratio(float64(c.n[cSweepSteps]), float64(c.n[cAlloc]-c.n[cFreePops])),
		FreeListPops:    c.n[cFreePops],
		RingReuses:      c.n[cRingReuses],
		Dirtied:         c.n[cDirtied],
		UsageHistogram:  e.pool.UsageHistogram(),
	}
	m.OSCache = OSCache{
		Hits:            c.n[cOSHits],
		Misses:          c.n[cOSMisses],
		HitRatio:        ratio(float64(c.n[cOSHits]), float64(c.n[cOSHits]+c.n[cOSMisses])),
		WritebackPages:  c.n[cWriteback],
		ThrottledWrites: c.n[cThrottled],
		ReadaheadPages:  c.n[cOSReadahead],
		InflightWaits:   c.n[cOSInflightWaits],
		ReadCalls:       c.n[cOSReadCalls],
		AdviceCalls:     c.n[cOSAdviceCalls],
		PeakDirtyMB:     round6(float64(e.os.Stats.PeakDirtyPages) * 8192 / (1 << 20)),
	}
	m.Disk = Disk{
		Reads:     c.n[cDiskReads],
		ReadPages: c.n[cDiskReadPages],
		Writes:    c.n[cDiskWrites],
		ReadMS:    distOf(read),
		WALWrites: c.n[cWALWrites],
	}
	if dur > 0 {
		m.Disk.Utilisation = round6(c.f[fDiskBusy] / float64(dur) / float64(e.dataDev.Params().Channels))
		m.Disk.MeanQueue = round6(c.f[fDiskQueue] / float64(dur))
		if e.walDev != e.dataDev {
			m.Disk.WALUtilisation = round6(c.f[fWALBusy] / float64(dur) / float64(e.walDev.Params().Channels))
		}
		m.CPU.Utilisation = round6(c.f[fCPUBusy] / float64(dur) / float64(e.sc.Server.CPUs))
	}
	m.CPU.BusySeconds = round6(c.f[fCPUBusy] / 1e9)
	m.CPU.ContextSwitches = c.n[cCtxSwitches]
	m.CPU.Wakeups = c.n[cCPUWakeups]
	m.CPU.WakeColdSeconds = round6(c.f[fCPUCold] / 1e9)
	m.CPU.Stalls = c.n[cCPUStalls]
	m.CPU.Preemptions = c.n[cPreemptions]
	m.CPU.WakerPreemptions = c.n[cWakerPreemptions]
	m.CPU.Migrations = c.n[cMigrations]
	m.Visibility = Visibility{
		TuplesChecked:      c.n[cTuplesChecked],
		AllVisibleSkips:    c.n[cAllVisibleSkips],
		HintBitHits:        c.n[cHintBitHits],
		ClogLookups:        c.n[cClogLookups],
		TransamCacheHits:   c.n[cTransamCacheHits],
		ClogSLRUHits:       c.n[cClogSLRUHits],
		ClogSLRUMisses:     c.n[cClogSLRUMisses],
		ProcarrayScans:     c.n[cProcarrayScans],
		HintBitsSet:        c.n[cHintBitsSet],
		HintDirtiedPages:   c.n[cHintDirtiedPages],
		HintCacheHits:      c.n[cHintCacheHits],
		HintCacheMisses:    c.n[cHintCacheMisses],
		VMLookups:          c.n[cVMLookups],
		ClogWrites:         c.n[cClogWrites],
		AllVisiblePagesSet: c.n[cAllVisibleSet],
		PrunedTuples:       c.n[cPruned],
	}
	m.WAL = WALM{Records: c.n[cWALRecords], Bytes: c.n[cWALBytes], Flushes: c.n[cWALFlushes], FPI: c.n[cFPI], FPIHint: c.n[cFPIHint],
		BuffersFull: c.n[cWALBuffersFull], Writes: c.n[cWALWriteCalls]}
	e.pgViews(&m, c, rel)
	return m
}

// pgViews fills the metrics that mirror PostgreSQL's statistics views.
func (e *engine) pgViews(m *Metrics, c counters, rel []relCounters) {
	m.StatioTables, m.StatioIndexes = e.relationStats(rel, nil)
	m.StatUserTables = e.userTableStats(rel)
	m.StatUserIndexes = e.userIndexStats(rel)
	m.RelationSize = e.relationSizes()
	for _, r := range m.StatioTables {
		m.PGStatDatabase.BlksHit += r.HeapBlksHit + r.IdxBlksHit
		m.PGStatDatabase.BlksRead += r.HeapBlksRead + r.IdxBlksRead
	}
	// The system catalogs are the database's relations too
	// (pg_statio_sys_tables); pg_xact is not a relation pgstat counts
	// (SLRU reads bypass the buffer pool).
	if e.sc.Server.SystemCatalogs && int(e.db.sysGlobal) < len(rel) {
		h, rd := e.fetched(rel[e.db.sysCatalog])
		m.PGStatDatabase.BlksHit += h
		m.PGStatDatabase.BlksRead += rd
		// The shared catalogs count in pg_stat_database's row for shared
		// objects (pgstat_count_buffer_hit/read go to the relation's
		// pgstat entry, whose database is InvalidOid for a shared
		// relation), and in pg_statio_sys_tables like any catalog.
		gh, grd := e.fetched(rel[e.db.sysGlobal])
		m.PGStatDatabaseShared = &PGStatDatabase{BlksHit: gh, BlksRead: grd}
		m.StatioSys = &StatioSys{BlksHit: h + gh, BlksRead: rd + grd}
	}
	m.Buffers.HitRatio = ratio(float64(m.PGStatDatabase.BlksHit), float64(m.PGStatDatabase.BlksHit+m.PGStatDatabase.BlksRead))
	u := c.usage[btClient]
	m.BufferUsage = BufferUsage{SharedBlksHit: int64(u.hit), SharedBlksRead: int64(u.read), SharedBlksDirtied: int64(u.dirtied), SharedBlksWritten: int64(u.written)}
	if e.ver >= 902 { // track_io_timing
		ms := func(ns int64) *float64 { v := round6(float64(ns) / 1e6); return &v }
		m.BufferUsage.BlkReadTime, m.BufferUsage.BlkWriteTime = ms(u.readNs), ms(u.writeNs)
		// Only processes connected to the database report it
		// (pgstat_update_dbstats); nothing counts in the shared row.
		av := c.usage[btAutovacuum]
		m.PGStatDatabase.BlkReadTime = ms((u.readUs + av.readUs) * 1000)
		m.PGStatDatabase.BlkWriteTime = ms((u.writeUs + av.writeUs) * 1000)
		if m.PGStatDatabaseShared != nil {
			m.PGStatDatabaseShared.BlkReadTime, m.PGStatDatabaseShared.BlkWriteTime = ms(0), ms(0)
		}
	}
	m.WALUsage = WALUsage{Records: int64(u.walRecords), FPI: int64(u.walFPI), Bytes: u.walBytes}
	bg := &m.PGStatBgwriter
	bg.BuffersClean, bg.MaxwrittenClean, bg.BuffersAlloc = c.n[cClean], c.n[cMaxwritten], c.n[cAlloc]
	if e.ver < 1700 {
		timed, req, ck, be, fs := c.n[cCkptTimed], c.n[cCkptRequested], c.n[cCheckpoint], c.n[cBackend], int64(0)
		bg.CheckpointsTimed, bg.CheckpointsReq, bg.BuffersCheckpoint, bg.BuffersBackend, bg.BuffersBackendFsync = &timed, &req, &ck, &be, &fs
	} else {
		m.PGStatCheckpointer = &PGStatCheckpointer{NumTimed: c.n[cCkptTimed], NumRequested: c.n[cCkptRequested], BuffersWritten: c.n[cCheckpoint]}
	}
	if e.ver >= 1600 {
		io := c.io
		io[btBgwriter][ctxNormal].writes = uint64(c.n[cClean])
		io[btCheckpointer][ctxNormal].writes = uint64(c.n[cCheckpoint])
		for t := range io {
			for ctx := range io[t] {
				x := io[t][ctx]
				if t >= btBgwriter && ctx != ctxNormal {
					continue // those processes use no strategy
				}
				if t == btBgworker && x == (ioCounters{}) {
					continue // autoprewarm's, when it ran
				}
				if t == btIOWorker && (e.ver < 1800 || e.aioMethod() != "worker") {
					continue // io_method worker's processes (18+)
				}
				if x == (ioCounters{}) && ctx != ctxNormal {
					continue
				}
				row := IORow{BackendType: backendTypeNames[t], Context: contextNames[ctx],
					Reads: int64(x.reads), Writes: int64(x.writes), Extends: int64(x.extends), Hits: int64(x.hits),
					Evictions: int64(x.evictions), Reuses: int64(x.reuses), Fsyncs: int64(x.fsyncs), Writebacks: int64(x.writebacks),
					ReadTime: round6(float64(x.readNs) / 1e6), WriteTime: round6(float64(x.writeNs) / 1e6),
					ExtendTime: round6(float64(x.extendNs) / 1e6), FsyncTime: round6(float64(x.fsyncNs) / 1e6)}
				if e.ver >= 1800 {
					rb, wb, xb := int64(x.reads)*8192, int64(x.writes)*8192, int64(x.extends)*8192
					row.Reads, row.Extends = int64(x.readOps), int64(x.extendOps)
					row.ReadBytes, row.WriteBytes, row.ExtendBytes = &rb, &wb, &xb
				}
				m.PGStatIO = append(m.PGStatIO, row)
			}
		}
	}
	m.PGBuffercache = e.bufferCache()
}

// bufferCache is pg_buffercache_summary() and pg_buffercache_usage_counts()
// now.
func (e *engine) bufferCache() PGBuffercache {
	p := e.pool
	var bc PGBuffercache
	max := 5
	if uc := p.UsageCounter(); uc != nil {
		max = uc.MaxUsage()
	}
	rows := make([]UsageCountRow, max+1)
	for i := range rows {
		rows[i].UsageCount = i
	}
	var sum int64
	for s := int32(0); s < p.N; s++ {
		if p.Tag[s] < 0 {
			bc.BuffersUnused++
			continue
		}
		bc.BuffersUsed++
		u := min(p.Usage(s), max)
		sum += int64(u)
		rows[u].Buffers++
		if p.Flags[s]&bufpool.Dirty != 0 {
			bc.BuffersDirty++
			rows[u].Dirty++
		}
		if p.Frames.Pins[s] > 0 {
			bc.BuffersPinned++
			rows[u].Pinned++
		}
	}
	if bc.BuffersUsed > 0 {
		bc.UsagecountAvg = round6(float64(sum) / float64(bc.BuffersUsed))
	}
	bc.UsageCounts = rows
	bc.Relations = e.relationUsage(max)
	return bc
}

// relationUsage counts resident buffers by usage count per table and
// index (forks folded), for the 20 relations with the most buffers.
func (e *engine) relationUsage(maxUsage int) []RelationUsage {
	p := e.pool
	owner := map[catalog.RelID]string{}
	for _, t := range e.db.tables {
		owner[t.rel], owner[t.vm], owner[t.fsm.rel] = t.name, t.name, t.name
		if t.pkey != nil {
			owner[t.pkey.rel] = t.pkey.name
		}
	}
	if e.sc.Server.SystemCatalogs {
		owner[e.db.sysCatalog] = sysCatalogName
		owner[e.db.sysGlobal] = sysGlobalName
	}
	by := map[string]*RelationUsage{}
	var names []string
	for s := int32(0); s < p.N; s++ {
		if p.Tag[s] < 0 {
			continue
		}
		rel, _ := e.cat.Locate(p.Tag[s])
		name, ok := owner[rel]
		if !ok {
			continue
		}
		r := by[name]
		if r == nil {
			r = &RelationUsage{Relname: name, UsageCounts: make([]int64, maxUsage+1)}
			by[name] = r
			names = append(names, name)
		}
		r.Buffers++
		r.UsageCounts[min(p.Usage(s), maxUsage)]++
	}
	out := make([]RelationUsage, 0, len(names))
	for _, n := range names {
		out = append(out, *by[n])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Buffers != out[j].Buffers {
			return out[i].Buffers > out[j].Buffers
		}
		return out[i].Relname < out[j].Relname
	})
	if len(out) > 20 {
		// The catalogs stay listed: they are what the user's relations
		// share the pool with.
		if i := slices.IndexFunc(out, func(r RelationUsage) bool { return r.Relname == sysCatalogName }); i >= 20 {
			out[19] = out[i]
		}
		out = out[:20]
	}
	return out
}

// result assembles the run's Result after the last phase.
func (e *engine) result() *Result {
	r := &Result{
		Scenario:  e.sc.Name,
		Seed:      e.sc.Seed,
		Replicate: e.sc.Replicate,
		Policy:    e.policy,
		Series:    e.series,
	}
	for _, ph := range e.phases {
		r.Phases = append(r.Phases, ph.result)
	}
	t := &e.totals
	if t.lat == nil {
		t.lat, t.lag, t.read = sim.NewHistogram(), sim.NewHistogram(), sim.NewHistogram()
	}
	r.Totals = e.metrics(t.c, t.rel, t.dur, t.txns, t.skipped, t.late, t.lat, t.lag, t.read)
	if t.mix != nil {
		r.Totals.Scripts = scriptResults(t.mix.mix, t.mixTxns, t.mixFailed, t.mixSkip, t.mixLat, t.dur)
	}
	if t.cmdPhase != nil {
		r.Totals.Statements = statementResults(t.cmdPhase.mix, t.cmd)
	}
	vals, fr := t.lat.CDF(200)
	r.LatencyCDF.Fractions = fr
	for _, v := range vals {
		r.LatencyCDF.ValuesMS = append(r.LatencyCDF.ValuesMS, float64(v)/1e6)
	}
	r.UsageFinal = e.pool.UsageHistogram()
	r.Checkpoints = e.ckpt.checkpoints()
	r.Marks = e.marks
	r.Header = e.header()
	r.Runtime = Runtime{
		Events:           int64(e.k.Fired()),
		SimulatedSeconds: e.at(e.k.Now()),
		Pages:            int64(e.cat.GIDSpace()),
	}
	for _, ph := range r.Phases {
		r.Runtime.Transactions += ph.Transactions
	}
	if n := r.Runtime.Transactions; n > 0 {
		r.Runtime.EventsPerTransaction = float64(r.Runtime.Events) / float64(n)
	}
	for _, l := range e.logs {
		r.PGBenchLogs = append(r.PGBenchLogs, LogFile{Name: l.name, Data: []byte(l.buf.String())})
	}
	return r
}

// header is the pgbench-style run header.
func (e *engine) header() []string {
	ph := e.phases[len(e.phases)-1]
	for _, p := range e.phases {
		if !p.cfg.Warmup {
			ph = p
		}
	}
	kind := ph.mix.scripts[0].name
	if len(ph.mix.scripts) > 1 {
		kind = "multiple scripts"
	}
	// Without a built-in script pgbench does not read the scale from
	// pgbench_branches: it reports :scale (-s, -D scale, else 1).
	scale := int64(e.sc.Tables.PGBench.Scale)
	if !ph.mix.builtin && ph.mix.scripts[0].fileScale > 0 {
		scale = ph.mix.scripts[0].fileScale
	}
	h := []string{
		"transaction type: " + kind,
		"scaling factor: " + strconv.FormatInt(scale, 10),
		"query mode: simple",
		"number of clients: " + strconv.Itoa(ph.cfg.Clients),
		"number of threads: " + strconv.Itoa(ph.cfg.Threads),
	}
	v, err := Version(e.sc.Server.Version)
	if err == nil && v >= 1500 {
		// pgbench 15 added retries of serialization and deadlock
		// failures (--max-tries, 1 by default: the model never retries).
		h = append(h, "maximum number of tries: 1")
	}
	// The access-probability lines are those of the 2014 gaussian pgbench
	// patch (against 9.4devel, the seed-002 thread's); the feature as
	// committed in 9.5 prints none.
	if err != nil || v >= 905 {
		return h
	}
	seen := map[string]bool{}
	for _, s := range ph.mix.scripts {
		for _, v := range s.vars {
			if v.gen == nil {
				continue
			}
			for _, l := range v.gen.HeaderLines() {
				if !seen[l] { // scripts of a mix may share a distribution
					seen[l] = true
					h = append(h, l)
				}
			}
		}
	}
	return h
}

// statementResults are pgbench -r's lines for each script of a mix.
func statementResults(mix phaseMix, stats [][]cmdStat) [][]StatementResult {
	if stats == nil {
		return nil
	}
	out := make([][]StatementResult, len(stats))
	for i, cs := range stats {
		for j, c := range cs {
			r := StatementResult{Command: mix.scripts[i].commands[j], Count: c.count, Failures: c.failures}
			if c.count > 0 {
				r.LatencyMS = round6(float64(c.sum) / float64(c.count) / 1e6)
			}
			out[i] = append(out[i], r)
		}
	}
	return out
}
