package model

import (
	"fmt"
	"slices"

	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/clog"
	"github.com/pgbufsim/pgbufsim/model/heap"
	"github.com/pgbufsim/pgbufsim/policies"
)

// Transactions and tuple visibility, as PostgreSQL runs them:
//
//   - xids are assigned at a transaction's first write (lazy xid
//     assignment, 8.3+) from a counter that starts after the loads;
//   - the proc array lists running xids; a snapshot (GetSnapshotData,
//     O(backends)) records xmin, xmax and the running xids (xip);
//   - HeapTupleSatisfiesMVCC (heapam_visibility.c, tqual.c before 12)
//     checks a tuple's xmin and then its xmax: hint bits first; then the
//     current transaction; then "still running?" (XidInMVCCSnapshot from
//     PostgreSQL 10; TransactionIdIsInProgress, a proc-array scan, before
//     it); then TransactionIdDidCommit through transam.c's one-entry cache
//     and the clog SLRU (docs/model.md);
//   - SetHintBits sets a COMMITTED bit only when the commit record is
//     flushed; MarkBufferDirtyHint dirties a clean page and, with data
//     checksums or wal_log_hints, writes one full-page image per page per
//     checkpoint cycle (§1.6, §1.7).

// firstLoadXid is the xid that loaded the declared tables (committed
// before the run starts); FirstNormalTransactionId is 3.
const firstLoadXid = 3

// frozenXid marks frozen tuples (FrozenTransactionId).
const frozenXid = 2

// snapshot is an MVCC snapshot. Its running xids (xip) are the proc
// array's at the time less the backend's own xid: set holds them all,
// shared by every snapshot taken while the array did not change, and own
// is the one left out (0: none); n is len(xip).
type snapshot struct {
	xmin, xmax uint32
	set        *xidSet
	own        uint32
	n          int
}

// inXip reports whether xid is among the snapshot's running xids.
func (sn *snapshot) inXip(xid uint32) bool {
	return xid != sn.own && sn.set != nil && sn.set.has(xid)
}

// xacts is the engine's transaction state.
type xacts struct {
	next    uint32
	clog    *clog.Log
	clogRel catalog.RelID
	running []uint32 // in-progress xids, ascending (assigned in order)
	// live is running as a bitset, kept as xids start and end (xidset.go).
	live liveXids
	// runningSet is running's set for snapshots (nil: to be rebuilt).
	runningSet *xidSet
	// horizon caches oldestXmin while horizonOK: it can only rise, and
	// only when the xid or snapshot xmin it equals goes away.
	horizon   uint32
	horizonOK bool
	// compacted is the first clog page not yet compacted (compactClog).
	compacted int32
}

func (e *engine) initXacts() {
	nb := e.sc.Server.SharedBuffers / 8192
	e.x.clog = clog.New(clog.Buffers(e.ver, nb, e.sc.Server.TransactionBuffers/8192), e.ver >= 1700)
	e.x.clogRel = e.cat.Add("pg_xact", catalog.Heap, 1)
	e.x.next = firstLoadXid
	// The loads committed before the run.
	e.x.clog.Extend(0)
	e.x.clog.Set(firstLoadXid, clog.Committed, 0)
	e.x.next = firstLoadXid + 1
}

// oldestXmin is the horizon below which committed deletions are dead to
// everyone (GetOldestNonRemovableTransactionId): the oldest running xid or
// snapshot xmin.
func (e *engine) oldestXmin() uint32 {
	if e.x.horizonOK {
		if verifyHorizon && e.x.horizon != e.computeOldestXmin() {
			e.fail(fmt.Errorf("internal error: cached xmin horizon %d, a proc-array scan gives %d", e.x.horizon, e.computeOldestXmin()))
		}
		return e.x.horizon
	}
	h := e.computeOldestXmin()
	e.x.horizon, e.x.horizonOK = h, true
	return h
}

// foldSettled folds blk's settled inserted tuples into one frozen group
// (heap.FoldSettled) when it has two or more: a change of the model's
// bookkeeping, not of the page, made where hint bits were just set or
// VACUUM or ANALYZE visited. The horizon is the oldest xmin every snapshot
// holds (oldestXmin), and no later than the horizon of any VACUUM running
// now (a lazy VACUUM's snapshot and the OldestXmin it judges all-visible
// pages by are left out of oldestXmin), so no visibility check and no
// VACUUM decision can tell a folded tuple from what it was.
func (e *engine) foldSettled(t *table, blk int32) {
	h := t.heap
	if foldSettledOff || !h.MayFold(blk) {
		return
	}
	horizon := e.oldestXmin()
	for _, p := range e.activeBackends() {
		if p.inLazyVacuum() {
			if p.horizon != 0 {
				horizon = min(horizon, p.horizon)
			}
			if p.snapValid {
				horizon = min(horizon, p.snap.xmin)
			}
		}
	}
	e.foldedGroups += int64(h.FoldSettled(blk, horizon))
}

// foldSettledOff turns foldSettled off (tests only: it must change no
// result).
var foldSettledOff = false

// verifyHorizon makes every cached oldestXmin be checked against a scan
// (tests only: it costs the scan the cache saves).
var verifyHorizon = false

// horizonMayRise forgets the cached horizon when a value equal to it (a
// running xid or a snapshot's xmin) is removed. New xids and snapshots
// never lie below it: a new xid is x.next, a new snapshot's xmin the
// oldest running xid or x.next.
func (e *engine) horizonMayRise(v uint32) {
	if e.x.horizonOK && v == e.x.horizon {
		e.x.horizonOK = false
	}
}

// releaseSnapshot drops b's snapshot (a statement or transaction ended).
func (b *backend) releaseSnapshot() {
	if b.snapValid {
		b.e.horizonMayRise(b.snap.xmin)
	}
	b.snapValid = false
}

// computeOldestXmin is GetOldestNonRemovableTransactionId's scan.
func (e *engine) computeOldestXmin() uint32 {
	h := e.x.next
	for _, x := range e.x.running {
		h = min(h, x)
	}
	for _, b := range e.activeBackends() {
		if b.snapValid && b.snap.xmin < h && !b.inLazyVacuum() {
			h = b.snap.xmin
		}
	}
	return h
}

// inLazyVacuum reports whether b runs a (lazy) VACUUM now: an autovacuum
// worker, or a client's VACUUM statement. Its snapshot then holds back no
// horizon: VACUUM sets PROC_IN_VACUUM, which ComputeXidHorizons and
// GetSnapshotData skip (procarray.c; since 8.3), so a long VACUUM of a
// large table does not keep other backends from pruning.
func (b *backend) inLazyVacuum() bool {
	if b.inAnalyze {
		return false // ANALYZE's snapshot counts (analyze.go)
	}
	return b.worker || (b.pc < len(b.ops) && b.ops[b.pc].kind == opVacuum && b.sub > 0)
}

// activeBackends lists the backends of the current phase and the vacuum
// workers (the proc array's members).
func (e *engine) activeBackends() []*backend {
	return e.procs
}

// numProcs is the proc array's size for cost purposes.
func (e *engine) numProcs() int64 { return int64(len(e.procs)) + 4 } // + background processes

// assignXid gives b an xid (GetNewTransactionId), extending the clog when
// the xid starts a new page (ExtendCLOG zeroes it in the SLRU, possibly
// writing a dirty victim).
func (b *backend) assignXid() {
	e := b.e
	if b.xid != 0 {
		return
	}
	xid := e.x.next
	e.x.next++
	if xid%clog.XactsPerPage == 0 {
		if v := e.x.clog.Extend(clog.Page(xid)); v >= 0 {
			e.writeClogPage(v)
			b.cpu += e.costs.OSWrite
		}
		e.clogGrow(clog.Page(xid))
		e.compactClog()
	}
	b.xid = xid
	e.x.running = append(e.x.running, xid)
	e.x.live.add(xid, e.x.running)
	e.x.runningSet = nil
}

// endXact records the outcome (TransactionIdCommitTree / AbortTree) in the
// clog and removes the xid from the proc array.
func (b *backend) endXact(committed bool, lsn int64) {
	e := b.e
	b.dropsFiles = false // every end, a deadlock's abort included
	b.invals = 0
	if b.xid == 0 {
		return
	}
	page := clog.Page(b.xid)
	hit, victim := e.x.clog.Access(page)
	if victim >= 0 {
		e.writeClogPage(victim)
		b.cpu += e.costs.OSWrite
	}
	if hit {
		b.cpu += e.costs.ClogSLRUHit
	} else {
		b.cpu += e.costs.ClogSLRUMiss
		e.vis.clogSLRUMisses++
	}
	st := clog.Aborted
	if committed {
		st = clog.Committed
	}
	e.x.clog.Set(b.xid, st, lsn)
	for i, x := range e.x.running {
		if x == b.xid {
			e.x.running = slices.Delete(e.x.running, i, i+1) // keeps it sorted
			e.x.live.remove(x, e.x.running)
			e.x.runningSet = nil
			e.horizonMayRise(x)
			break
		}
	}
	e.tableStats(b, committed)
	if !committed {
		for i := len(b.undo) - 1; i >= 0; i-- {
			u := b.undo[i]
			if u.newBlk >= 0 {
				u.t.heap.AbortVersion(u.row, u.oldBlk, u.newBlk, b.xid)
			}
		}
	}
	b.undo = b.undo[:0]
	b.releaseRowLocks()
	b.xid = 0
	b.cmdID = 0
}

// compactClog compacts the clog pages whose transactions have all ended
// (below the oldest running xid) and whose commits are flushed: the model's
// memory then does not grow with the number of transactions run.
func (e *engine) compactClog() {
	oldest := e.x.next
	for _, x := range e.x.running {
		oldest = min(oldest, x)
	}
	for e.x.compacted < clog.Page(oldest) && e.x.clog.Compact(e.x.compacted, e.wal.FlushedLSN()) {
		e.x.compacted++
	}
}

// clogGrow makes sure the pg_xact relation covers page.
func (e *engine) clogGrow(page int32) {
	for e.cat.Rel(e.x.clogRel).NBlocks <= page {
		if _, _, ok := e.extend(e.x.clogRel); !ok {
			return
		}
	}
}

// writeClogPage writes a clog page to pg_xact (SlruInternalWritePage): a
// pwrite into the OS cache by the process that needs the slot.
func (e *engine) writeClogPage(page int32) {
	e.clogGrow(page)
	gid := e.cat.GID(e.x.clogRel, page)
	e.os.Write(gid, nil, 0)
	e.noteWrite(gid)
	e.vis.clogWrites++
}

// takeSnapshot is GetSnapshotData for the statement starting now.
func (b *backend) takeSnapshot() {
	e := b.e
	b.releaseSnapshot()
	set := e.x.runningSet
	if set == nil {
		// Rebuilt only when the proc array changed since the last
		// snapshot; snapshots in use keep the set they were taken with.
		set = e.x.live.set(e.x.running)
		e.x.runningSet = set
	}
	b.snap.xmin, b.snap.xmax = e.x.next, e.x.next
	if set.n > 0 {
		// The backend's own xid is running, so the oldest running xid
		// bounds xmin whether or not it is the own one.
		b.snap.xmin = min(b.snap.xmin, set.lo)
	}
	b.snap.set, b.snap.own, b.snap.n = set, 0, set.n
	if b.xid != 0 && set.has(b.xid) {
		b.snap.own, b.snap.n = b.xid, set.n-1
	}
	b.snapValid = true
	b.cpu += e.costs.ProcArrayPerProc * e.numProcs()
}

// inSnapshot is XidInMVCCSnapshot: is xid still running for b's snapshot?
func (b *backend) inSnapshot(xid uint32) bool {
	if xid < b.snap.xmin {
		return false
	}
	if xid >= b.snap.xmax {
		return true
	}
	b.cpu += b.e.costs.XipPerXact * int64(b.snap.n)
	return b.snap.inXip(xid)
}

// inProgress is TransactionIdIsInProgress, the pre-PostgreSQL-10 test: a
// scan of the proc array unless xid is older than RecentXmin.
func (b *backend) inProgress(xid uint32) bool {
	e := b.e
	if xid < b.snap.xmin {
		return false
	}
	e.vis.procarrayScans++
	b.cpu += e.costs.ProcArrayPerProc * e.numProcs()
	for _, x := range e.x.running {
		if x == xid {
			return true
		}
	}
	return false
}

// fetchStatus is TransactionLogFetch: the one-entry cache, then the clog
// SLRU (a miss reads the pg_xact page through the OS cache).
func (b *backend) fetchStatus(xid uint32) clog.Status {
	e := b.e
	e.vis.clogLookups++
	if xid == b.cachedXid {
		e.vis.transamCacheHits++
		b.cpu += e.costs.TransamCacheHit
		return b.cachedStatus
	}
	hit, victim := e.x.clog.Access(clog.Page(xid))
	if victim >= 0 {
		e.writeClogPage(victim)
		b.cpu += e.costs.OSWrite
	}
	if hit {
		e.vis.clogSLRUHits++
		b.cpu += e.costs.ClogSLRUHit
	} else {
		e.vis.clogSLRUMisses++
		b.cpu += e.costs.ClogSLRUMiss
		e.clogGrow(clog.Page(xid))
		gid := e.cat.GID(e.x.clogRel, clog.Page(xid))
		if !e.os.Contains(gid) {
			// pg_xact pages normally come from the OS cache; a cold
			// page costs a device read, charged as its mean latency
			// (the read happens inside the visibility check).
			e.vis.clogDiskReads++
			b.cpu += e.dataDev.Params().ReadTime
		}
		e.os.Read(gid, nil, nil, 0)
	}
	st := e.x.clog.Get(xid)
	if st != clog.InProgress {
		b.cachedXid, b.cachedStatus = xid, st
	}
	return st
}

// xidState is what a visibility check learned about an xid.
type xidState uint8

const (
	xsRunning xidState = iota // in progress for this snapshot
	xsCommitted
	xsAborted
	xsMine // the current transaction
)

// judge decides an unhinted xid's state for b's snapshot, in
// HeapTupleSatisfiesMVCC's order for the server version.
func (b *backend) judge(xid uint32) xidState {
	e := b.e
	if xid == b.xid && xid != 0 {
		return xsMine
	}
	if e.ver < 1000 {
		if b.inProgress(xid) {
			return xsRunning
		}
	} else if b.inSnapshot(xid) {
		return xsRunning
	}
	switch b.fetchStatus(xid) {
	case clog.Committed:
		return xsCommitted
	case clog.Aborted:
		return xsAborted
	}
	return xsAborted // crashed: neither committed nor running
}

// canSetCommitHint is SetHintBits' rule (heapam_visibility.c) for a tuple
// on the page in slot: a COMMITTED hint once the commit record (its clog
// LSN group's latest, TransactionIdGetCommitLSN) is flushed, or before
// that when the page's own LSN is at or past it (BufferGetLSNAtomic: the
// page cannot be written before the WAL up to its LSN is flushed, so the
// hint cannot reach disk before the commit record). With
// synchronous_commit off a page that later transactions changed again
// has every earlier commit behind its LSN: only the versions of its last
// changes wait for the WAL writer.
func (e *engine) canSetCommitHint(xid uint32, slot int32) bool {
	lsn := e.x.clog.CommitLSN(xid)
	return !e.wal.NeedsFlush(lsn) || slot >= 0 && e.pool.LSN[slot] >= lsn
}

// visCounters are the visibility metrics (docs/metrics.md).
type visCounters struct {
	tuplesChecked, allVisibleSkips, hintBitHits, clogLookups         int64
	transamCacheHits, clogSLRUHits, clogSLRUMisses, procarrayScans   int64
	hintBitsSet, hintDirtiedPages, hintCacheHits, hintCacheMisses    int64
	vmLookups, clogWrites, clogDiskReads, allVisiblePagesSet, pruned int64
}

// chargeColdTuples charges costs.tuple_cold for n tuples of t on the page
// the backend last accessed, when that access was a buffer hit: the page
// is in memory the CPU's caches no longer hold, where a page a pread() has
// just copied in is in them. A scan touches each tuple it returns
// (HeapTupleSatisfiesVisibility reads its header where the page is not
// all-visible; measured on PostgreSQL 15, a warm count(*) of all-visible
// pages costs more per row for wider tuples too), and the CPU fetches
// memory in 128-byte pairs of cache lines, so narrower tuples share one:
// a tuple pays its share min(1, its bytes on the page / 128)
// (docs/model.md "A backend").
func (b *backend) chargeColdTuples(t *table, n int64) {
	c := b.e.costs.TupleCold
	if c == 0 || b.lastMiss || n == 0 {
		return
	}
	b.cpu += c * n * t.coldShare() / coldLineBytes
}

// coldLineBytes is the memory the CPU fetches at once (two 64-byte cache
// lines: the adjacent-line prefetch of x86 processors).
const coldLineBytes = 128

// coldShare is a tuple's bytes on the page (its 24-byte header and its
// MAXALIGNed data), at most coldLineBytes.
func (t *table) coldShare() int64 {
	return min(coldLineBytes, 24+(t.tupleData+7)&^7)
}

// checkPage runs the visibility checks of one page visit over groups (the
// whole page for a scan, one tuple for an index fetch) and returns how many
// tuples are visible. It charges CPU, sets hint bits and dirties the page
// as PostgreSQL would; with the hint cache it first tries to answer every
// unhinted xid from the cache.
func (b *backend) checkPage(t *table, blk int32, slot, gid int32, groups []heap.Group) int {
	e := b.e
	c := &e.costs
	var cacheAll bool
	if b.hcache != nil {
		cacheAll = b.cacheAnswersAll(groups)
	}
	visible := 0
	dirtied := false
	if c.TupleCold > 0 && !b.lastMiss {
		n := int64(0)
		for _, g := range groups {
			n += int64(g.N())
		}
		b.chargeColdTuples(t, n)
	}
	// xids whose hints to set, per kind (page-local sets, reused buffers)
	hs := &b.hintSets
	for i := range 2 {
		hs.Committed[i], hs.Invalid[i] = hs.Committed[i][:0], hs.Invalid[i][:0]
	}
	for _, g := range groups {
		n := int64(g.N())
		e.vis.tuplesChecked += n
		vis := false
		// xmin side
		switch {
		case g.Hints&heap.XminCommitted != 0:
			e.vis.hintBitHits += n
			b.cpu += c.HintedCheck * n
			vis = g.Hints&heap.Frozen == heap.Frozen || !b.inSnapshotN(g.Xmin, n)
		case g.Hints&heap.XminInvalid != 0:
			e.vis.hintBitHits += n
			b.cpu += c.HintedCheck * n
		case cacheAll && b.hcacheKnows(g.Xmin):
			e.vis.hintCacheHits += n
			b.cpu += c.HintCacheProbe * n
			vis = true
		default:
			st := b.judgeGroup(g.Xmin, g, n)
			switch st {
			case xsMine:
				vis = true
			case xsCommitted:
				vis = true
				if e.canSetCommitHint(g.Xmin, slot) {
					hs.Committed[0] = append(hs.Committed[0], g.Xmin)
				}
				if b.hcache != nil {
					b.hcache.Add(g.Xmin)
				}
			case xsAborted:
				hs.Invalid[0] = append(hs.Invalid[0], g.Xmin)
			}
		}
		if vis && g.Xmax != 0 {
			switch {
			case g.Hints&heap.XmaxInvalid != 0:
			case g.Hints&heap.XmaxCommitted != 0:
				vis = b.inSnapshotN(g.Xmax, n)
			case cacheAll && b.hcacheKnows(g.Xmax):
				e.vis.hintCacheHits += n
				b.cpu += c.HintCacheProbe * n
				vis = false
			default:
				st := b.judgeGroup(g.Xmax, g, n)
				switch st {
				case xsMine, xsCommitted:
					vis = false
					if st == xsCommitted {
						if e.canSetCommitHint(g.Xmax, slot) {
							hs.Committed[1] = append(hs.Committed[1], g.Xmax)
						}
						if b.hcache != nil {
							b.hcache.Add(g.Xmax)
						}
					}
				case xsAborted:
					hs.Invalid[1] = append(hs.Invalid[1], g.Xmax)
				}
			}
		}
		if vis {
			visible += int(g.N())
		}
	}
	// SetHintBits on the tuples judged above, then MarkBufferDirtyHint.
	if len(hs.Committed[0])+len(hs.Committed[1])+len(hs.Invalid[0])+len(hs.Invalid[1]) > 0 {
		hinted := 0
		if len(groups) == 1 {
			// One tuple (an index fetch): hint the tuples with its header.
			if bits := hs.Bits(groups[0]); bits != 0 {
				hinted = int(groups[0].N())
				t.heap.HintGroup(blk, groups[0], bits)
			}
		} else {
			hinted = t.heap.SetHintSets(blk, hs)
		}
		e.vis.hintBitsSet += int64(hinted)
		b.cpu += c.SetHintBits * int64(hinted)
		dirtied = true
		if hinted > 0 && len(hs.Committed[0]) > 0 {
			e.foldSettled(t, blk)
		}
	}
	if dirtied {
		b.markDirtyHint(slot, gid)
	}
	return visible
}

// judgeGroup judges xid for a group of n tuples: the first tuple pays the
// full path, the others hit transam.c's one-entry cache — unless both
// xmin and xmax need lookups, when the cache ping-pongs between them and
// every tuple goes to the clog SLRU (docs/model.md).
func (b *backend) judgeGroup(xid uint32, g heap.Group, n int64) xidState {
	e := b.e
	st := b.judge(xid)
	if n <= 1 || st == xsMine {
		return st
	}
	rest := n - 1
	if e.ver < 1000 && xid >= b.snap.xmin {
		e.vis.procarrayScans += rest
		b.cpu += e.costs.ProcArrayPerProc * e.numProcs() * rest
	}
	if st == xsRunning {
		return st
	}
	pingPong := g.Xmax != 0 && g.Hints&(heap.XminCommitted|heap.XminInvalid) == 0 && g.Hints&(heap.XmaxCommitted|heap.XmaxInvalid) == 0
	e.vis.clogLookups += rest
	if pingPong {
		e.vis.clogSLRUHits += rest
		b.cpu += e.costs.ClogSLRUHit * rest
	} else {
		e.vis.transamCacheHits += rest
		b.cpu += e.costs.TransamCacheHit * rest
	}
	return st
}

// inSnapshotN is inSnapshot for a group of n tuples with the same xid.
func (b *backend) inSnapshotN(xid uint32, n int64) bool {
	if xid < b.snap.xmin || xid == frozenXid {
		return false
	}
	r := b.inSnapshot(xid)
	if n > 1 && xid < b.snap.xmax {
		b.cpu += b.e.costs.XipPerXact * int64(b.snap.n) * (n - 1)
	}
	return r
}

// cacheAnswersAll reports whether the hint cache knows every unhinted xid
// of the groups committed, counting one probe per group and a miss when it
// does not (then the page falls back to PostgreSQL's path).
func (b *backend) cacheAnswersAll(groups []heap.Group) bool {
	e := b.e
	for _, g := range groups {
		if g.Hints&(heap.XminCommitted|heap.XminInvalid) == 0 && !b.hcache.Peek(g.Xmin) {
			e.vis.hintCacheMisses++
			b.cpu += e.costs.HintCacheProbe
			return false
		}
		if g.Xmax != 0 && g.Hints&(heap.XmaxCommitted|heap.XmaxInvalid) == 0 && !b.hcache.Peek(g.Xmax) {
			e.vis.hintCacheMisses++
			b.cpu += e.costs.HintCacheProbe
			return false
		}
	}
	return true
}

func (b *backend) hcacheKnows(xid uint32) bool { return b.hcache.Peek(xid) }

// markDirtyHint is MarkBufferDirtyHint: a clean page becomes dirty without
// WAL, unless data checksums or wal_log_hints require an XLOG_FPI_FOR_HINT
// image on the page's first change since the checkpoint's redo point.
func (b *backend) markDirtyHint(slot, gid int32) {
	e := b.e
	p := e.pool
	lsn := p.LSN[slot]
	if e.hintWAL && e.fullPageWrites && e.fpiCycle[gid] != e.cycle {
		e.fpiCycle[gid] = e.cycle
		lsn = b.walInsert(1, e.fpiBytes(gid), 1)
		e.wal.Stats.FPIHint++
		b.cpu += e.costs.HintFPI
	}
	if p.MarkDirty(slot, lsn) {
		e.vis.hintDirtiedPages++
		e.noteDirtied(b)
	}
}

// newHintCache gives a backend its cache when the policy is on.
func (e *engine) newHintCache() *policies.HintCache {
	if !e.sc.Policies.HintCache.Enabled {
		return nil
	}
	return policies.NewHintCache(e.sc.Policies.HintCache)
}
