package model

import (
	"github.com/pgbufsim/pgbufsim/model/clog"
	"github.com/pgbufsim/pgbufsim/model/heap"
)

// Statements that find one row by its key — SELECT, UPDATE, DELETE ...
// WHERE key = k — as PostgreSQL 14-17 executes them, access by access:
//
//   - the plan: an index scan of the primary key, or a sequential scan when
//     the planner prices it cheaper (planner.go: pgbench's tellers and
//     branches at small scales);
//   - the index scan: _bt_search from the root (nbtree.go), then
//     index_fetch_heap for each entry of the key (heapam_index_fetch_tuple:
//     ReleaseAndReadBuffer, so consecutive entries on one page cost one
//     read, and heap_page_prune_opt whenever the page changes), walking the
//     HOT chain on each page (heap_hot_search_buffer) with a visibility
//     check per version;
//   - UPDATE: the old row is fetched again to build the new one
//     (ExecModifyTable -> table_tuple_fetch_row_version, 14+), heap_update
//     reads the page once more and, if it is all-visible, pins the
//     visibility-map page (visibilitymap_pin) to clear its bit; the new
//     version stays on the page when it fits (HOT) or goes wherever
//     RelationGetBufferForTuple finds room (hio.go), followed by an index
//     insertion (_bt_doinsert) with its uniqueness check;
//   - DELETE: heap_delete reads the page again (and the visibility map the
//     same way); no refetch;
//   - all pins are the statement's until it ends, so the re-reads are hits
//     that do not raise usage_count (bufmgr.go).

// keyedState is the progress of one keyed statement.
type keyedState struct {
	seq bool // the plan is a sequential scan
	// A range's or IN list's UPDATE or DELETE current row (changeKey): its step
	// (rowStepLock, rowStepFetch, rowStepRest), whether its change runs now
	// (changing: b.sub is modifyRow's), the range's sub-step to go back
	// to, and how many pins b held when the change began. (They fill
	// seq's padding: a backend stays in its allocation size class.)
	rowStep   uint8
	changing  bool
	scanSub   int8
	pinMark   int32
	textBytes int64   // op.textBytes: text walked per row returned (costs.text_char)
	filterPs  int64   // an index path's Filter (the conditions besides its index quals) per row returned, in ps (residualFilterPrice)
	entries   []int32 // heap blocks of the key's index entries, TID order
	ei        int     // next entry to fetch
	curBlk    int32   // the scan's current heap page (ReleaseAndReadBuffer), -1 none
	curSlot   int32
	foundBlk  int32
	foundSlot int32
	kills     []int32 // entries found dead to all (kill_prior_tuple)
	newBlk    int32   // where a non-HOT update put the new version
	newSlot   int32
	vmBlk     int32 // heap block whose VM bit heap_update/heap_delete clears, -1 none
	// (the three flags together, in the padding after vmBlk: a backend
	// stays in its allocation size class)
	found     bool // the visible version was found
	leafDirty bool // the statement inserted into the key's leaf (its LSN moved)
	epqMove   bool // EvalPlanQual goes on with the newest version, on another page
	epq       int  // EvalPlanQual's re-reads of the row's page still to do
	chain     []heap.Group
	// A range scan's current key and leaf, and its dead entries
	// (rangescan.go).
	rangeKey  int64
	rangeLeaf int32
	// returned: the rows a range scan has returned, for its LIMIT (an
	// int32 in rangeLeaf's padding: a backend's state stays in its
	// allocation size class).
	returned   int32
	rangeKills []rangeKill
	// An index-only scan (indexonly.go), and the visibility-map page it
	// keeps pinned (vmPinned: vmPinBlk in vmPinSlot).
	indexOnly, vmPinned bool
	// reread: a backward step read the leaf again already (btReadPrevPage)
	reread              bool
	vmPinBlk, vmPinSlot int32
}

// reset starts the state afresh for a keyed, range or list statement o,
// keeping its slices' storage: no page held, no leaf yet.
func (k *keyedState) reset(o *op) {
	*k = keyedState{entries: k.entries[:0], kills: k.kills[:0], chain: k.chain[:0], rangeKills: k.rangeKills[:0],
		curBlk: -1, curSlot: -1, foundBlk: -1, newBlk: -1, vmBlk: -1, rangeLeaf: -1, textBytes: int64(o.textBytes)}
}

// chargeIndexRow charges, for one row an index or bitmap heap scan
// returns, its SELECT list's calls that walk a column's text
// (costs.text_char per byte of keyedState.textBytes) and the Filter it
// passed (keyedState.filterPs). A sequential scan's rows pay theirs by
// the page (chargeReturned).
func (b *backend) chargeIndexRow() {
	b.cpu += perByte(b.e.costs.TextChar, b.k.textBytes) + b.k.filterPs/1000
}

// execKeyed runs a keyed statement from its current sub-step; false means
// blocked (or aborted, then b.pc is past the script).
func (b *backend) execKeyed(o *op) bool {
	e := b.e
	t := o.t
	k := &b.k
	if b.sub == 1 {
		k.reset(o)
		k.filterPs = b.residualFilterPrice(o)
		k.indexOnly = o.kind == opFetch && o.indexOnly
		k.seq = !e.useIndexScan(t, k.indexOnly)
		switch {
		case k.seq:
			b.planFirstRun(o.kind, pathSeq)
		case k.indexOnly:
			b.planFirstRun(o.kind, pathIndexOnly)
		default:
			b.planFirstRun(o.kind, pathIndex)
		}
		b.touched = 0
		b.sub = 2
	}
	if k.seq {
		return b.execKeyedSeq(o)
	}
	if b.sub == 2 { // _bt_search
		if !b.btDescend(t.pkey, o.key) {
			return false
		}
		e.countIndexScan(t)
		b.sub = 3
	}
	if b.sub == 3 {
		if !t.hasRow(o.key) {
			// The leaf has no entry for the key (a key outside the
			// table): nothing to fetch, nothing changed (UPDATE 0).
			e.notFound++
			return true
		}
		if o.kind != opFetch && !b.holdsRow(t, o.key) && !b.lockRow(t, o.key) {
			return false // waiting for the row's updater, or aborted as a deadlock victim
		}
		if b.rowWaited {
			b.afterRowLockWait(o.kind)
		}
		k.entries = t.indexEntries(o.key, k.entries[:0])
		e.countIndexTuples(t, len(k.entries))
		b.sub = 4
	}
	if b.sub == 4 { // index_fetch_heap until the visible version
		for k.ei < len(k.entries) && !k.found {
			if !b.nextEntry(t, o.key) {
				return false
			}
		}
		switch {
		case !k.found || o.kind == opFetch:
			b.sub = 20
		case !b.checkUpdated(t, o):
			b.sub = 20 // the row is deleted: nothing to change
		default:
			b.sub = 5
		}
	}
	if b.sub == 5 && k.epqMove && !b.epqFetchNewest(t, o.key) {
		return false
	}
	if b.sub >= 5 && b.sub < 20 {
		if !b.modifyRow(o, t, k.foundBlk, k.foundSlot) {
			return false
		}
		b.sub = 20
	}
	return b.endIndexScan(t, o.key)
}

// epqFetchNewest is heapam_tuple_lock's heap_fetch of the row's newer
// version on another page, which the change then goes on with
// (checkUpdated's epqMove): false if b blocked (call again).
func (b *backend) epqFetchNewest(t *table, row int64) bool {
	e, k := b.e, &b.k
	blk := t.heap.BlockOf(row)
	slot, ok := b.readBuffer(e.cat.GID(t.rel, blk), nil, false, false)
	if !ok {
		return false
	}
	b.cpu += e.costs.TupleFetch
	k.foundBlk, k.foundSlot, k.epqMove = blk, slot, false
	k.epq--
	return true
}

// checkUpdated is what heap_update or heap_delete finds under READ
// COMMITTED (nodeModifyTable.c ExecUpdate / ExecDelete) when the version the
// statement's snapshot sees is no longer the row's live newest version. It
// returns false when the row is gone: its newest version was deleted by a
// committed transaction (TM_Deleted: "tuple already deleted; nothing to
// do") or by this one (TM_SelfModified / TM_Invisible), so the statement
// changes nothing. When the newest version is one the snapshot does not see
// (TM_Updated: updated by a transaction that committed after the snapshot
// was taken), the statement locks it (table_tuple_lock with
// TUPLE_LOCK_FLAG_FIND_LAST_VERSION), rechecks it (EvalPlanQual) and
// changes that one, making EvalPlanQual's re-reads. The row's lock is held
// here, so every updater has ended; a wait for one was already handled
// (with a new snapshot).
func (b *backend) checkUpdated(t *table, o *op) bool {
	k := &b.k
	newest := t.heap.BlockOf(o.key)
	// A version found on the newest page (and nothing changed it since)
	// is a chain there: walk it again only when the row was found on
	// another page.
	if !(k.found && k.foundBlk == newest) && len(b.chain(t, o.key, newest)) == 0 {
		return false // pruned away: deleted and dead to everyone
	}
	// The row's current version (its live one, if any): the chain on the
	// page may also hold old versions whose successors went to another
	// page before the row came back, which no link orders.
	cur := t.heap.RowGroup(o.key, newest)
	if cur.Xmax != 0 && (cur.Xmax == b.xid || b.xmaxCommitted(cur)) {
		return false
	}
	if k.epq > 0 || b.judgedVisible(cur) {
		return true
	}
	k.epq = epqReads(o.kind, b.e.ver)
	k.epqMove = newest != k.foundBlk
	b.e.epqRechecks++
	return true
}

// xmaxCommitted reports whether the version's deleter committed, by its hint
// bit or the clog (HeapTupleSatisfiesUpdate's TransactionIdDidCommit).
func (b *backend) xmaxCommitted(g heap.Group) bool {
	switch {
	case g.Hints&heap.XmaxCommitted != 0:
		return true
	case g.Hints&heap.XmaxInvalid != 0:
		return false
	}
	return b.e.x.clog.Get(g.Xmax) == clog.Committed
}

// fetchEntry is one index_fetch_heap: the entry's heap page (read unless it
// is the scan's current page, pruned when the scan moves to it) and a walk
// of the key's HOT chain there.
func (b *backend) fetchEntry(t *table, row int64) bool {
	e := b.e
	k := &b.k
	blk := k.entries[k.ei]
	if blk != k.curBlk {
		slot, ok := b.readBuffer(e.cat.GID(t.rel, blk), nil, false, false)
		if !ok {
			return false
		}
		if k.curSlot >= 0 && k.curSlot != k.foundSlot {
			b.releaseBuffer(k.curSlot) // ReleaseAndReadBuffer
		}
		k.curBlk, k.curSlot = blk, slot
		b.maybePrune(t, blk, slot, e.cat.GID(t.rel, blk))
	}
	k.chain = b.chain(t, row, blk)
	b.cpu += e.costs.TupleFetch
	visible := len(k.chain) > 0 && b.checkPage(t, blk, k.curSlot, e.cat.GID(t.rel, blk), k.chain) > 0
	if visible {
		e.countIndexFetch(t)
	}
	switch {
	case visible && !k.found:
		k.found, k.foundBlk, k.foundSlot = true, blk, k.curSlot
		b.chargeIndexRow()
	case !visible && b.surelyDead(k.chain):
		k.kills = append(k.kills, blk)
	}
	k.ei++
	return true
}

// chain returns row's HOT chain on blk (heap.RowChain) in b's scratch.
func (b *backend) chain(t *table, row int64, blk int32) []heap.Group {
	b.chainBuf = t.heap.RowChain(row, blk, b.chainBuf[:0])
	return b.chainBuf
}

// surelyDead is HeapTupleIsSurelyDead over a HOT chain: every version's
// inserter aborted, or its deleter is hinted committed and older than every
// snapshot (hint bits only: no clog lookup). A chain pruned away (no version
// left on the page: an LP_DEAD line pointer) is dead too.
func (b *backend) surelyDead(chain []heap.Group) bool {
	horizon := b.e.oldestXmin()
	for _, g := range chain {
		switch {
		case g.Hints&heap.XminInvalid != 0 && g.Hints&heap.XminCommitted == 0:
		case g.Xmax != 0 && g.Hints&heap.XmaxCommitted != 0 && g.Xmax < horizon:
		default:
			return false
		}
	}
	return true
}

// endIndexScan follows the entries left after the visible one (the scan
// asks for more tuples until the index has none), applies the kills
// (_bt_killitems: the leaf read again and hinted, unless the statement
// changed it) and ends the statement.
func (b *backend) endIndexScan(t *table, row int64) bool {
	e := b.e
	k := &b.k
	if b.sub == 20 {
		for k.ei < len(k.entries) {
			if !b.nextEntry(t, row) {
				return false
			}
		}
		b.sub = 21
	}
	if b.sub == 21 {
		if len(k.kills) > 0 && !k.leafDirty {
			gid := e.cat.GID(t.pkey.rel, t.pkey.bt.Leaf(row))
			slot, ok := b.readBuffer(gid, nil, false, true)
			if !ok {
				return false
			}
			b.cpu += e.costs.IndexLevel
			for _, blk := range k.kills {
				t.killEntry(row, blk)
			}
			b.markDirtyHint(slot, gid)
			b.releaseBuffer(slot)
		}
		b.sub = 22
	}
	b.releaseAll()
	return true
}

// afterRowLockWait is what a statement of kind does once the row's updater
// it waited for has ended: under READ COMMITTED it goes on with the row's
// newest version (EvalPlanQual), as if with a new snapshot, making
// epqReads' re-reads, and pays the wait's own work (costs.row_lock_wait:
// the locks' sleep and release, heap_lock_tuple, EvalPlanQual's state).
func (b *backend) afterRowLockWait(kind opKind) {
	b.rowWaited = false
	b.takeSnapshot()
	b.k.epq = epqReads(kind, b.e.ver)
	b.cpu += b.e.costs.RowLockWait
}

// epqReads is how many more times a statement of kind reads the row's page
// when it had to wait for the row's updater (ExecUpdate / ExecDelete on
// TM_Updated, PostgreSQL's nodeModifyTable.c): the first heap_update or
// heap_delete, which waited and found the row updated; table_tuple_lock
// (heapam_tuple_lock: heap_lock_tuple on the old version, heap_fetch of
// the newer one, heap_lock_tuple on it); for an UPDATE from 14 on,
// table_tuple_fetch_row_version of the locked version; then the retried
// heap_update or heap_delete, which the normal path makes anyway. The row's
// page is pinned by the scan throughout, so these are hits that bump no
// usage_count. The model waits before the scan rather than in heap_update,
// so it reads the newest version's page for all of them (the same page
// after a HOT update).
func epqReads(kind opKind, ver int) int {
	switch {
	case kind == opUpdate && ver >= 1400:
		return 5
	case kind == opUpdate || kind == opDeleteKey:
		return 4
	}
	return 0
}

// modifyRow runs an UPDATE's or DELETE's changes on the row's visible
// version found on blk (pinned in slot by the scan), from sub-step 5.
func (b *backend) modifyRow(o *op, t *table, blk, slot int32) bool {
	e := b.e
	k := &b.k
	gid := e.cat.GID(t.rel, blk)
	for b.sub == 5 && k.epq > 0 { // after a row-lock wait: EvalPlanQual's re-reads
		if _, ok := b.readBuffer(gid, nil, false, false); !ok {
			return false
		}
		b.cpu += e.costs.TupleFetch
		k.epq--
	}
	if b.sub == 5 { // table_tuple_fetch_row_version (14+)
		if o.kind == opUpdate && e.ver >= 1400 {
			if _, ok := b.readBuffer(gid, nil, false, false); !ok {
				return false
			}
			b.cpu += e.costs.TupleFetch
		}
		b.sub = 6
	}
	if b.sub == 6 { // heap_update / heap_delete: ReadBuffer(otid's block)
		if _, ok := b.readBuffer(gid, nil, false, true); !ok {
			return false
		}
		b.sub = 7
	}
	if b.sub == 7 { // visibilitymap_pin if the page is all-visible
		// b.reading(): a pin that blocked is finished even if the page
		// stopped being all-visible meanwhile (PostgreSQL keeps the pin).
		if b.reading() || t.heap.AllVisible(blk) {
			s, ok := b.readBuffer(e.vmGID(t, blk), nil, false, true)
			if !ok {
				return false
			}
			b.vmPins = append(b.vmPins, s)
			k.vmBlk = blk
		}
		b.sub = 8
	}
	if b.sub == 8 {
		b.assignXid()
		if o.kind != opDeleteKey {
			// The new version's place, for an abort to undo (a delete
			// leaves nothing to undo: its xmax aborts with it).
			b.undo = append(b.undo, rowUndo{t: t, row: o.key, oldBlk: blk, newBlk: -1})
		}
		if o.kind == opDeleteKey {
			b.cpu += e.costs.TupleDelete // heap_delete
		} else {
			b.cpu += e.costs.TupleUpdate + e.costs.TupleUpdateOld + perByte(e.costs.TupleByte, t.tupleData) // heap_update: the new version and the old
		}
		t.heap.DeleteRow(o.key, blk, b.xid)
		b.noteDead(t, 1)
		b.clearVMBit(t, k.vmBlk)
		switch {
		case o.kind == opDeleteKey:
			e.countTuples(t, 0, 0, 0, 1)
			b.modify(slot, gid, b.e.walDeleteRecord())
			b.releaseVM()
			return true
		case t.heap.Free(blk) > 0:
			// HOT: the new version stays on the page, no index entry.
			t.heap.InsertVersionCmd(blk, b.xid, b.cmdID, o.key)
			b.undo[len(b.undo)-1].newBlk = blk
			t.heap.Stats.HOTUpdates++
			e.countTuples(t, 0, 1, 1, 0)
			b.modify(slot, gid, e.walUpdateSamePage(t))
			b.releaseVM()
			return true
		}
		// The new version goes to another page: heap_update marks the
		// old tuple locked (XLOG_HEAP_LOCK) before it lets go of the old
		// page's lock to look for one.
		b.modify(slot, gid, b.e.walLockRecord())
		b.sub = 9
	}
	if b.sub == 9 { // non-HOT: RelationGetBufferForTuple(otherBuffer = the old page)
		s, nb, ok := b.getBufferForTuple(t, blk, slot, false, false)
		if !ok {
			return false
		}
		k.newBlk, k.newSlot = nb, s
		ngid := e.cat.GID(t.rel, nb)
		wasVisible := t.heap.AllVisible(nb)
		t.heap.InsertVersionCmd(nb, b.xid, b.cmdID, o.key)
		b.undo[len(b.undo)-1].newBlk = nb
		t.heap.Stats.Updates++
		e.countTuples(t, 0, 1, 0, 0)
		t.addOldEntry(o.key, blk)
		b.cpu += e.costs.TupleUpdate
		b.modify(s, ngid, e.walUpdateOtherPage(t)) // log_heap_update: one record for both pages
		if wasVisible {
			b.clearVMBit(t, nb) // the VM page getBufferForTuple pinned
		}
		b.releaseVM() // heap_update's vmbuffer and vmbuffer_new
		b.bt = btState{entries: b.bt.entries[:0]}
		b.touched = 0
		b.sub = 10
	}
	if b.sub == 10 { // ExecInsertIndexTuples -> _bt_doinsert
		if !b.btInsert(t.pkey, o.key) {
			return false
		}
		k.leafDirty = true
		b.sub = 11
	}
	if b.sub == 11 {
		if !b.btCheckUnique(t, o.key, k.newBlk) {
			return false
		}
	}
	return true
}

// clearVMBit is visibilitymap_clear for heap block blk (-1: nothing): the
// page loses PD_ALL_VISIBLE and the VM page, pinned by the caller, its bit
// and is dirtied.
func (b *backend) clearVMBit(t *table, blk int32) {
	if blk < 0 {
		return
	}
	e := b.e
	t.heap.ClearAllVisible(blk)
	if slot := e.pool.Lookup(e.vmGID(t, blk)); slot >= 0 && b.holds(slot) {
		if e.pool.MarkDirty(slot, e.pool.LSN[slot]) {
			e.noteDirtied(b)
		}
	}
}

// execKeyedSeq is a keyed statement planned as a sequential scan (a table
// of a few pages): every page is read and every tuple checked; the row's
// visible version is then updated or deleted as by index.
func (b *backend) execKeyedSeq(o *op) bool {
	e := b.e
	t := o.t
	k := &b.k
	if b.sub == 2 {
		b.blk, b.scanEnd = 0, t.heap.NBlocks()
		if o.kind != opFetch && t.hasRow(o.key) && !b.holdsRow(t, o.key) && !b.lockRow(t, o.key) {
			return false
		}
		if b.rowWaited {
			b.afterRowLockWait(o.kind)
		}
		e.countSeqScan(t)
		b.sub = 3
	}
	if b.sub == 3 {
		var buf [1]heap.Group
		for b.blk < b.scanEnd {
			blk := b.blk
			gid := e.cat.GID(t.rel, blk)
			slot, ok := b.readBuffer(gid, nil, false, false)
			if !ok {
				return false
			}
			b.cpu += e.costs.ScanPage
			b.maybePrune(t, blk, slot, gid)
			groups := t.heap.Groups(blk, &buf)
			visible := b.checkPage(t, blk, slot, gid, groups)
			b.cpu += int64(visible) * e.costs.TupleDeform // the tuples the scan returns (chargeReturned)
			e.countSeqTuples(t, visible)
			passed := 0
			if !k.found && t.hasRow(o.key) && t.heap.BlockOf(o.key) == blk {
				// The page's check above judged every tuple; this one is
				// the row's newest version.
				// An UPDATE or DELETE whose snapshot sees an older
				// version goes on with this one (checkUpdated below).
				if ch := b.chain(t, o.key, blk); len(ch) > 0 && (o.kind != opFetch || b.judgedVisible(ch[len(ch)-1])) {
					k.found, k.foundBlk, k.foundSlot = true, blk, slot
					b.cpu += perByte(e.costs.TextChar, k.textBytes) // its filter: chargeKeyFilter
					passed = 1
				}
			}
			b.chargeKeyFilter(o, int64(visible), int64(passed))
			if !(k.found && k.foundSlot == slot) {
				b.releaseBuffer(slot)
			}
			b.blk++
		}
		if !k.found {
			if !t.hasRow(o.key) {
				e.notFound++
			}
			b.releaseAll()
			return true
		}
		if o.kind == opFetch {
			b.releaseAll()
			return true
		}
		// The newest version is on the found page: no move.
		if !b.checkUpdated(t, o) {
			b.releaseAll()
			return true
		}
		b.sub = 5
	}
	if !b.modifyRow(o, t, k.foundBlk, k.foundSlot) {
		return false
	}
	b.releaseAll()
	return true
}

// judgedVisible reports whether a version the statement's snapshot has
// just judged (its page checked, hint bits set where they could be) is
// visible, without charging or counting a second check.
func (b *backend) judgedVisible(g heap.Group) bool {
	e := b.e
	visible := func(xid uint32, hintCommitted, hintInvalid bool) bool { // "committed and not running"
		switch {
		case xid == b.xid && xid != 0:
			return true
		case hintInvalid:
			return false
		case !hintCommitted && e.x.clog.Get(xid) != clog.Committed:
			return false
		}
		return !b.inSnapshotQuiet(xid)
	}
	if g.Hints&heap.Frozen != heap.Frozen && !visible(g.Xmin, g.Hints&heap.XminCommitted != 0, g.Hints&heap.XminInvalid != 0) {
		return false
	}
	return g.Xmax == 0 || !visible(g.Xmax, g.Hints&heap.XmaxCommitted != 0, g.Hints&heap.XmaxInvalid != 0)
}

// inSnapshotQuiet is inSnapshot without its CPU charge.
func (b *backend) inSnapshotQuiet(xid uint32) bool {
	if xid < b.snap.xmin || xid == frozenXid {
		return false
	}
	if xid >= b.snap.xmax {
		return true
	}
	return b.snap.inXip(xid)
}
