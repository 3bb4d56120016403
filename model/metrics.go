package model

import (
	"strconv"

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
	cDiskWrites
	cWALWrites
	cWALRecords
	cWALFlushes
	cFPI
	cFPIHint
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
	cDeadlocks
	cNotFound
	nCounters
)

// Time integrals (ns x servers busy, ns x queue length).
const (
	fCPUBusy = iota
	fDiskBusy
	fDiskQueue
	fWALBusy
	nIntegrals
)

// counters is a snapshot of every cumulative counter of a run; metrics of a
// phase or an interval are differences of two snapshots.
type counters struct {
	n [nCounters]int64
	f [nIntegrals]float64
}

func (e *engine) snapshot() counters {
	ps := e.pool.Stats
	os := e.os.Stats
	var c counters
	c.n = [nCounters]int64{
		cHits:       int64(ps.Hits),
		cReads:      int64(ps.Reads),
		cAlloc:      int64(ps.Alloc),
		cEvictions:  int64(ps.Evictions),
		cSweepSteps: int64(ps.SweepSteps),
		cFreePops:   int64(ps.FreeListPops),
		cRingReuses: int64(ps.RingReuses),
		cDirtied:    int64(ps.Dirtied),
		cClean:      int64(e.bufWrites.clean),
		cMaxwritten: int64(e.bufWrites.maxwritten),
		cBackend:    int64(e.bufWrites.backend),
		cExtends:    int64(e.bufWrites.extends),
		cCheckpoint: int64(e.bufWrites.checkpoint),
		cOSHits:     int64(os.Hits),
		cOSMisses:   int64(os.Misses),
		cWriteback:  int64(os.WritebackPages),
		cThrottled:  int64(os.ThrottledWrites),
		cDiskReads:  int64(e.dataDev.Stats.Reads),
		cDiskWrites: int64(e.dataDev.Stats.Writes),
		cWALRecords: int64(e.wal.Stats.Records),
		cWALFlushes: int64(e.wal.Stats.Flushes),
		cFPI:        int64(e.wal.Stats.FPI),
		cFPIHint:    int64(e.wal.Stats.FPIHint),
		cWALBytes:   e.wal.Stats.Bytes,

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
		cDeadlocks:        e.deadlocks,
		cNotFound:         e.notFound,
	}
	if ss, ok := e.pool.Policy.(policies.SweepStats); ok {
		_, c.n[cPasses] = ss.SweepCounters()
	}
	c.f[fCPUBusy] = e.cpuRes.Stats().BusyNs
	c.f[fDiskBusy], c.f[fDiskQueue] = e.dataDev.Resource().Stats().BusyNs, e.dataDev.QueueNs()
	if e.walDev != e.dataDev {
		c.n[cWALWrites] = int64(e.walDev.Stats.Writes)
		c.f[fWALBusy] = e.walDev.Resource().Stats().BusyNs
	}
	return c
}

func (a counters) minus(b counters) counters {
	for i := range a.n {
		a.n[i] -= b.n[i]
	}
	for i := range a.f {
		a.f[i] -= b.f[i]
	}
	return a
}

func (a counters) plus(b counters) counters {
	for i := range a.n {
		a.n[i] += b.n[i]
	}
	for i := range a.f {
		a.f[i] += b.f[i]
	}
	return a
}

// accum sums the non-warmup phases into the run's totals.
type accum struct {
	c                   counters
	dur                 int64
	txns, skipped, late int64
	lat, lag, read      *sim.Histogram
}

func (t *accum) add(c counters, dur int64, ph *phase) {
	if t.lat == nil {
		t.lat, t.lag, t.read = sim.NewHistogram(), sim.NewHistogram(), sim.NewHistogram()
	}
	t.c = t.c.plus(c)
	t.dur += dur
	t.txns += ph.txns
	t.skipped += ph.skipped
	t.late += ph.late
	t.lat.Merge(ph.lat)
	t.lag.Merge(ph.lag)
}

// metrics turns a counter difference over dur into the reported metrics.
func (e *engine) metrics(c counters, dur int64, txns, skipped, late int64, lat, lag, read *sim.Histogram) Metrics {
	secs := float64(dur) / 1e9
	m := Metrics{
		Transactions: txns,
		Failed:       c.n[cFailed],
		RowLockWaits: c.n[cRowLockWaits],
		Deadlocks:    c.n[cDeadlocks],
		KeysNotFound: c.n[cNotFound],
		Skipped:      skipped,
		Late:         late,
		LatencyMS:    distOf(lat),
		LagMS:        distOf(lag),
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
		PeakDirtyMB:     round6(float64(e.os.Stats.PeakDirtyPages) * 8192 / (1 << 20)),
	}
	m.Disk = Disk{
		Reads:     c.n[cDiskReads],
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
	m.WAL = WALM{Records: c.n[cWALRecords], Bytes: c.n[cWALBytes], Flushes: c.n[cWALFlushes], FPI: c.n[cFPI], FPIHint: c.n[cFPIHint]}
	return m
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
	r.Totals = e.metrics(t.c, t.dur, t.txns, t.skipped, t.late, t.lat, t.lag, t.read)
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
	if e.pglog != nil {
		r.PGBenchLog = []byte(e.pglog.String())
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
	h := []string{
		"transaction type: " + ph.script.name,
		"scaling factor: " + strconv.Itoa(e.sc.Tables.PGBench.Scale),
		"query mode: simple",
		"number of clients: " + strconv.Itoa(ph.cfg.Clients),
		"number of threads: " + strconv.Itoa(ph.cfg.Threads),
	}
	for _, v := range ph.script.vars {
		if lines := v.gen.HeaderLines(); lines != nil {
			h = append(h, lines...)
		}
	}
	return h
}
