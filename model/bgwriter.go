package model

import (
	"slices"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/policies"
)

// The background writer, as PostgreSQL runs it (src/backend/postmaster/
// bgwriter.c BackgroundWriterMain, src/backend/storage/buffer/bufmgr.c
// BgBufferSync; docs/model.md): every bgwriter_delay it estimates
// how many buffers backends will allocate before the next round (a smoothed
// allocation rate with fast attack and slow decline over 16 samples, times
// bgwriter_lru_multiplier, at least enough to scan the whole pool in two
// minutes), and scans ahead of the clock hand writing dirty buffers that
// are unpinned with usage_count 0 (SyncOneBuffer with skip_recently_used),
// at most bgwriter_lru_maxpages per round. It never moves the hand and never
// changes usage counts. After two idle rounds it hibernates for 50 delays
// until an allocation wakes it.
//
// It needs the policy's clock hand and usage counts; with a policy that has
// neither (LRU, 2Q, ARC, SIEVE) it has nothing to scan and stays idle, as it
// would with bgwriter_lru_maxpages = 0.

const (
	bgSmoothingSamples   = 16
	bgScanWholePoolMs    = 120000
	bgHibernateFactor    = 50
	bgInitialDensity     = 10.0
	bgEvRound            = 0
	bgEvWritten          = 1
	bgEvWALFlushed       = 2
	bgEvGenerationOffset = 4
)

type bgwriter struct {
	e     *engine
	hand  policies.ClockHand
	usage policies.UsageCounter
	// writeFrom is when the current write began (noteIOTime).
	writeFrom int64

	// BgBufferSync's static state. The moving averages are C floats
	// (single precision) and the estimates ints, as PostgreSQL declares
	// them: the estimates are truncated to whole buffers.
	savedValid                     bool
	prevStrategyBufID              int32
	prevStrategyPasses             int64
	nextToClean                    int32
	nextPasses                     int64
	smoothedAlloc, smoothedDensity float32
	lastAlloc                      int64

	// the round in progress
	numToScan     int32
	numWritten    int
	reusable      int32
	reusableEst   int32
	upcoming      int32
	bufsToLap     int32
	recentAlloc   int64
	active        bool
	canHibernate  bool
	prevHibernate bool
	hibernating   bool
	notify        bool // hibernating and registered for a wake-up by the next allocation
	gen           int64
	writing       int32 // slot being written, -1 if none
	pendingHints  []int32
	flushAfter    int
	// the last standby snapshot's time and end (BackgroundWriterMain's
	// last_snapshot_ts, last_snapshot_lsn)
	lastSnapshotAt, lastSnapshotLSN int64
}

func newBgwriter(e *engine) *bgwriter {
	b := &bgwriter{e: e, smoothedDensity: bgInitialDensity, writing: -1}
	b.hand, _ = e.pool.Policy.(policies.ClockHand)
	b.usage = e.pool.UsageCounter()
	b.flushAfter = int(e.sc.Server.BgwriterFlushAfter / 8192)
	return b
}

func (b *bgwriter) start() {
	b.lastSnapshotAt = b.e.k.Now()
	b.e.k.After(b.e.sc.Server.BgwriterDelay, b, bgEvRound+b.gen*bgEvGenerationOffset)
	b.e.pool.OnAlloc = b.wake
}

// restart is a new background writer after a server restart
// (BackgroundWriterMain's start): BgBufferSync's static state unset
// (saved_info_valid false, the smoothed allocation and density at their
// initial values), the allocation count since its last round at 0 (a new
// StrategyControl's numBufferAllocs), awake, and the standby snapshot
// timer started now with no snapshot logged (last_snapshot_ts now,
// last_snapshot_lsn invalid: the first comes 15 s later, the shutdown
// checkpoint's record being important WAL). A round in progress (a write
// under way) runs to its end, and its finish arms the next.
func (b *bgwriter) restart() {
	e := b.e
	b.savedValid = false
	b.smoothedAlloc, b.smoothedDensity = 0, bgInitialDensity
	b.lastAlloc = int64(e.pool.Stats.Alloc)
	b.hibernating, b.prevHibernate, b.notify = false, false, false
	b.lastSnapshotAt, b.lastSnapshotLSN = e.k.Now(), 0
	if !b.active {
		b.gen++
		e.k.After(e.sc.Server.BgwriterDelay, b, bgEvRound+b.gen*bgEvGenerationOffset)
	}
}

// wake is StrategyGetBuffer setting the hibernating bgwriter's latch.
func (b *bgwriter) wake() {
	if b.hibernating && b.notify {
		b.hibernating, b.notify = false, false
		b.gen++
		b.e.k.After(0, b, bgEvRound+b.gen*bgEvGenerationOffset)
	}
}

func (b *bgwriter) OnEvent(arg int64) {
	switch arg % bgEvGenerationOffset {
	case bgEvRound:
		if arg/bgEvGenerationOffset != b.gen || b.active {
			return // a timer superseded by a wake-up
		}
		if b.hibernating && !b.notify {
			// The normal delay timed out on an idle system: ask to be
			// woken by the next allocation (StrategyNotifyBgWriter) and
			// sleep 50 delays more.
			b.notify = true
			b.e.k.After(b.e.sc.Server.BgwriterDelay*bgHibernateFactor, b, bgEvRound+b.gen*bgEvGenerationOffset)
			return
		}
		b.hibernating, b.notify = false, false
		b.round()
	case bgEvWritten:
		b.written()
	case bgEvWALFlushed:
		b.write()
	}
}

// logSnapshotInterval is bgwriter.c's LOG_SNAPSHOT_INTERVAL_MS.
const logSnapshotInterval = 15 * 1000 * 1000 * 1000

// logSnapshot is BackgroundWriterMain's standby snapshot after each round
// (wal_level replica, the default from 10): every 15 s, if an important
// WAL record was inserted since the last one (GetLastImportantRecPtr; the
// snapshots themselves are unimportant), LogStandbySnapshot, which also
// wakes a hibernating WAL writer.
func (b *bgwriter) logSnapshot() {
	e := b.e
	if !e.standbySnapshots() {
		return
	}
	now := e.k.Now()
	if now >= b.lastSnapshotAt+logSnapshotInterval && b.lastSnapshotLSN <= e.wal.LastImportant() {
		b.lastSnapshotLSN = e.logStandbySnapshot()
		b.lastSnapshotAt = now
	}
}

// round starts one BgBufferSync call.
func (b *bgwriter) round() {
	e := b.e
	p := e.pool
	n := p.N
	alloc := int64(p.Stats.Alloc)
	b.recentAlloc = alloc - b.lastAlloc
	b.lastAlloc = alloc
	if e.sc.Server.BgwriterLRUMaxpages <= 0 || b.hand == nil || b.usage == nil {
		b.savedValid = false
		b.finish(true)
		return
	}
	strategyBufID, strategyPasses := b.hand.Hand()
	var strategyDelta int64
	if b.savedValid {
		strategyDelta = int64(strategyBufID-b.prevStrategyBufID) + (strategyPasses-b.prevStrategyPasses)*int64(n)
		switch {
		case b.nextPasses > strategyPasses:
			b.bufsToLap = strategyBufID - b.nextToClean
		case b.nextPasses == strategyPasses && b.nextToClean >= strategyBufID:
			b.bufsToLap = n - (b.nextToClean - strategyBufID)
		default:
			b.nextToClean, b.nextPasses, b.bufsToLap = strategyBufID, strategyPasses, n
		}
	} else {
		b.nextToClean, b.nextPasses, b.bufsToLap = strategyBufID, strategyPasses, n
	}
	b.prevStrategyBufID, b.prevStrategyPasses, b.savedValid = strategyBufID, strategyPasses, true

	if strategyDelta > 0 && b.recentAlloc > 0 {
		scansPerAlloc := float32(strategyDelta) / float32(b.recentAlloc)
		b.smoothedDensity += (scansPerAlloc - b.smoothedDensity) / bgSmoothingSamples
	}
	bufsAhead := n - b.bufsToLap
	b.reusableEst = int32(float32(bufsAhead) / b.smoothedDensity)
	if b.smoothedAlloc <= float32(b.recentAlloc) {
		b.smoothedAlloc = float32(b.recentAlloc)
	} else {
		b.smoothedAlloc += (float32(b.recentAlloc) - b.smoothedAlloc) / bgSmoothingSamples
	}
	// bgwriter_lru_multiplier is a double: the product is, then truncated.
	upcoming := int32(float64(b.smoothedAlloc) * e.sc.Server.BgwriterLRUMultiplier)
	if upcoming == 0 {
		b.smoothedAlloc = 0
	}
	// BgWriterDelay is an int of milliseconds, the divisor a float.
	minScan := int32(float32(n) / (bgScanWholePoolMs / float32(e.sc.Server.BgwriterDelay/1e6)))
	if upcoming < minScan+b.reusableEst {
		upcoming = minScan + b.reusableEst
	}
	b.upcoming = upcoming
	b.numToScan = b.bufsToLap
	b.numWritten = 0
	b.reusable = b.reusableEst
	b.active = true
	b.scan()
}

// scan continues the LRU scan until it must wait for a write or is done.
func (b *bgwriter) scan() {
	e := b.e
	p := e.pool
	for b.numToScan > 0 && b.reusable < b.upcoming {
		s := b.nextToClean
		if b.nextToClean++; b.nextToClean >= p.N {
			b.nextToClean = 0
			b.nextPasses++
		}
		b.numToScan--
		// SyncOneBuffer(skip_recently_used = true).
		if p.Frames.Pins[s] != 0 || b.usage.Usage(s) != 0 {
			continue
		}
		b.reusable++
		f := p.Flags[s]
		if f&bufpool.Valid == 0 || f&bufpool.Dirty == 0 || f&bufpool.Evicting != 0 {
			continue
		}
		b.writing = s
		p.Frames.Pins[s]++ // SyncOneBuffer pins the buffer while it writes
		b.write()
		return
	}
	b.endScan()
}

// write flushes WAL up to the page LSN if needed, then hands the page to
// the OS (FlushBuffer).
func (b *bgwriter) write() {
	e := b.e
	s := b.writing
	if e.pool.Flags[s]&bufpool.Dirty == 0 {
		// Cleaned by someone else while we waited (StartBufferIO).
		e.pool.Frames.Pins[s]--
		b.writing = -1
		b.scan()
		return
	}
	if lsn := e.pool.LSN[s]; e.wal.NeedsFlush(lsn) {
		if !e.wal.Flush(lsn, b, bgEvWALFlushed) {
			return
		}
	}
	gid := e.pool.Tag[s]
	e.pool.MarkClean(s)
	e.bufWrites.clean++
	e.noteWrite(gid)
	b.writeFrom = e.k.Now()
	if !e.os.Write(gid, b, bgEvWritten) {
		return // throttled by the dirty limit
	}
	b.written()
}

// issueHints is IssuePendingWritebacks: sync_file_range over the pending
// pages, sorted so that runs merge; pg_stat_io counts them as writebacks
// (pgstat_count_io_op_time(..., IOOP_WRITEBACK, ..., nr_pending), 16+).
func (b *bgwriter) issueHints() {
	slices.Sort(b.pendingHints)
	b.e.os.StartWriteback(b.pendingHints)
	b.e.stats.io[btBgwriter][ctxNormal].writebacks += uint64(len(b.pendingHints))
	b.pendingHints = b.pendingHints[:0]
}

// written continues the scan after a write completed.
func (b *bgwriter) written() {
	e := b.e
	// FlushBuffer's smgrwrite: the pwrite (its price, though the
	// background writer's CPU is not modelled) and any wait for the
	// kernel's dirty limit.
	e.noteIOTime(btBgwriter, ctxNormal, ioWrite, e.costs.OSWrite+e.k.Now()-b.writeFrom, false)
	// SyncOneBuffer -> ScheduleBufferTagForWriteback, after FlushBuffer's
	// write: the page is dirty in the page cache when its writeback is
	// asked for.
	if b.flushAfter > 0 {
		b.pendingHints = append(b.pendingHints, e.pool.Tag[b.writing])
		if len(b.pendingHints) >= b.flushAfter {
			b.issueHints()
		}
	}
	e.pool.Frames.Pins[b.writing]--
	b.writing = -1
	b.numWritten++
	if b.numWritten >= e.sc.Server.BgwriterLRUMaxpages {
		e.bufWrites.maxwritten++
		b.endScan()
		return
	}
	b.scan()
}

func (b *bgwriter) endScan() {
	newStrategyDelta := b.bufsToLap - b.numToScan
	newRecentAlloc := b.reusable - b.reusableEst
	if newStrategyDelta > 0 && newRecentAlloc > 0 {
		scansPerAlloc := float32(newStrategyDelta) / float32(newRecentAlloc)
		b.smoothedDensity += (scansPerAlloc - b.smoothedDensity) / bgSmoothingSamples
	}
	b.finish(b.bufsToLap == 0 && b.recentAlloc == 0)
}

// finish ends a round and sleeps: bgwriter_delay, or 50 times that when
// this and the previous round could hibernate (BackgroundWriterMain).
func (b *bgwriter) finish(canHibernate bool) {
	b.logSnapshot()
	b.active = false
	b.hibernating = canHibernate && b.prevHibernate
	b.notify = false
	b.prevHibernate = canHibernate
	b.gen++
	b.e.k.After(b.e.sc.Server.BgwriterDelay, b, bgEvRound+b.gen*bgEvGenerationOffset)
}
