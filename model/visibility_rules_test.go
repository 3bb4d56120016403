package model

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/model/heap"
)

// Visibility rules checked on the heap's state after a run
// (docs/model.md).

// abortScenario: one transaction inserts rows into an empty table and
// rolls back; a CHECKPOINT cleans the pages; one seqscan reads them.
func abortScenario(rows int64, commit bool) Scenario {
	sc := rtIdleScenario(1024, 10)
	tc := rtTable("t", 0)
	tc.Index = false
	sc.Tables.Relations = []TableConfig{tc}
	end := Step{Abort: true}
	if commit {
		end = Step{Commit: true}
	}
	sc.Workload.Phases = []Phase{
		{Name: "load", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{
			{Begin: true}, {Insert: &InsertStep{Table: "t", Pick: "client", Rows: rows}}, end, {Checkpoint: true}}}},
		{Name: "scan", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{
			{Seqscan: &TableStep{Table: "t", Pick: "client"}}}}},
	}
	return sc
}

// visibleNow counts the tuples of t visible to a new snapshot, page by
// page, as HeapTupleSatisfiesMVCC judges them.
func visibleNow(t *testing.T, e *engine, tbl *table) int {
	t.Helper()
	b := &backend{e: e}
	b.takeSnapshot()
	n := 0
	for blk := int32(0); blk < tbl.heap.NBlocks(); blk++ {
		gid := e.cat.GID(tbl.rel, blk)
		slot := e.pool.Lookup(gid)
		if slot < 0 {
			t.Fatalf("block %d not cached", blk)
		}
		var buf [1]heap.Group
		n += b.checkPage(tbl, blk, slot, gid, tbl.heap.Groups(blk, &buf))
	}
	return n
}

// docs/model.md (HeapTupleSatisfiesMVCC): a tuple whose inserting
// transaction aborted is invisible, and the first reader sets
// HEAP_XMIN_INVALID (SetHintBits with InvalidTransactionId: always allowed)
// so later readers need no clog lookup. The committed control is visible
// with XMIN_COMMITTED. 600 rows: nine full pages and one of 51 rows.
func TestAbortedInsertIsInvisibleAndGetsXminInvalid(t *testing.T) {
	for _, commit := range []bool{false, true} {
		e, r := rtRun(t, abortScenario(600, commit))
		tbl := e.db.lookup("t")[0]
		last := tbl.heap.NBlocks() - 1
		var buf [1]heap.Group
		for _, g := range tbl.heap.Groups(last, &buf) {
			want := heap.XminInvalid
			if commit {
				want = heap.XminCommitted
			}
			if g.Hints&(heap.XminCommitted|heap.XminInvalid) != want {
				t.Errorf("commit=%v: last page group (xmin %d, %d tuples) has hints %#x, want %#x", commit, g.Xmin, g.N(), g.Hints, want)
			}
		}
		want := 0
		if commit {
			want = 600
		}
		if got := visibleNow(t, e, tbl); got != want {
			t.Errorf("commit=%v: %d tuples visible, want %d", commit, got, want)
		}
		if v := r.Phases[1].Visibility; v.HintBitsSet == 0 {
			t.Errorf("commit=%v: the scan set no hint bits", commit)
		}
	}
}

// heap_insert does not mark the page prunable (heapam.c: "XXX Should we
// set PageSetPrunable on this page? ... if no other tuple in this page is
// UPDATEd/DELETEd, the aborted tuple will never be pruned until next
// vacuum is triggered"), and heap_page_prune_opt returns at once when
// !PageIsPrunable. So up to PostgreSQL 18 a scan of full pages holding
// only aborted inserts does not prune them: it checks all 610 tuples and
// sets XMIN_INVALID on each.
func TestAbortedInsertNotPrunedOnAccess(t *testing.T) {
	_, r := rtRun(t, abortScenario(610, false))
	v := r.Phases[1].Visibility
	if v.PrunedTuples != 0 || v.TuplesChecked != 610 || v.HintBitsSet != 610 {
		t.Fatalf("scan of 10 full pages of aborted inserts: pruned %d, checked %d, hinted %d; want 0, 610, 610", v.PrunedTuples, v.TuplesChecked, v.HintBitsSet)
	}
}

// SetHintBits is per tuple (heapam_visibility.c): a scan that judges every
// tuple of a page sets the hint of every tuple, however many distinct xids
// the page holds. 6100 rows inserted one transaction each (61 xids per
// page): the first scan hints all 6100, the second needs no clog lookup.
func TestEveryTupleOfAPageGetsItsHint(t *testing.T) {
	sc := rtIdleScenario(1024, 10)
	sc.Server.SynchronousCommit = false
	sc.Server.WALWriterDelay = 1 * ms
	tc := rtTable("t", 0)
	tc.Index = false
	sc.Tables.Relations = []TableConfig{tc}
	sc.Workload.Phases = []Phase{
		{Name: "load", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{
			{Insert: &InsertStep{Table: "t", Pick: "client", Rows: 6100, CommitEvery: 1}}, {Sleep: sec}}}},
		{Name: "scan1", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}}},
		{Name: "scan2", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}}},
	}
	_, r := rtRun(t, sc)
	if v := r.Phases[1].Visibility; v.HintBitsSet != 6100 {
		t.Errorf("first scan set %d hint bits on 6100 tuples with 61 xids per page", v.HintBitsSet)
	}
	if v := r.Phases[2].Visibility; v.HintBitHits != 6100 || v.ClogLookups != 0 {
		t.Errorf("second scan: %d hint-bit hits, %d clog lookups; want 6100, 0", v.HintBitHits, v.ClogLookups)
	}
}

// docs/model.md (SetHintBits): a COMMITTED hint is set only once the commit
// record is flushed; before that the reader treats the xid as committed
// but leaves the tuple unhinted. With asynchronous commit and a WAL writer
// that sleeps 10 s, a scan right after the load sets no hint; once the
// WAL is flushed the next scan does. The writer's first round flushes the
// load's whole WAL pages, the second the commit record's partial page
// (XLogBackgroundFlush falls back to asyncXactLSN only when the whole
// pages are flushed), so the scan comes after two rounds.
func TestCommitHintWaitsForCommitRecordFlush(t *testing.T) {
	sc := rtIdleScenario(1024, 10)
	sc.Server.SynchronousCommit = false
	sc.Server.WALWriterDelay = 10 * sec
	tc := rtTable("t", 0)
	tc.Index = false
	sc.Tables.Relations = []TableConfig{tc}
	scan := Script{Steps: []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}}
	sc.Workload.Phases = []Phase{
		{Name: "load", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Insert: &InsertStep{Table: "t", Pick: "client", Rows: 610}}}}},
		{Name: "early", Clients: 1, Threads: 1, Transactions: 1, Script: scan},
		{Name: "wait", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Sleep: 21 * sec}}}},
		{Name: "late", Clients: 1, Threads: 1, Transactions: 1, Script: scan},
	}
	_, r := rtRun(t, sc)
	if v := r.Phases[1].Visibility; v.HintBitsSet != 0 || v.TuplesChecked != 610 {
		t.Errorf("scan before the commit record is flushed: %d hints set on %d tuples, want 0 on 610", v.HintBitsSet, v.TuplesChecked)
	}
	if v := r.Phases[3].Visibility; v.HintBitsSet != 610 {
		t.Errorf("scan after the WAL writer flushed: %d hints set, want 610", v.HintBitsSet)
	}
}

// docs/model.md (SetHintBits): before its commit record is flushed a
// COMMITTED hint is still set on a page whose own LSN is at or past the
// commit's (BufferGetLSNAtomic: the page cannot reach disk before the WAL
// up to its LSN, the commit record with it). The commit's LSN is its clog
// LSN group's, the latest async commit of its 32 xids
// (TransactionIdGetCommitLSN). With asynchronous commit and a WAL writer
// asleep, a first transaction loads 600 rows into t (nine full pages and
// 51 rows on the tenth), 40 transactions insert a row each into u, so
// that the next xid is in another LSN group, and a last one inserts a
// row into t's tenth page: the scan after them hints the first's 51 rows
// there, whose group's commits the page's LSN has passed, and neither the
// first's other 549 rows nor the last's, whose commit came after its
// page's last change. Without the last insert, none: the 40 commits of
// u share the first's LSN group, and the page its own insert.
func TestCommitHintOnAPageChangedAfterTheCommit(t *testing.T) {
	for _, last := range []bool{true, false} {
		sc := rtIdleScenario(1024, 10)
		sc.Server.SynchronousCommit = false
		sc.Server.WALWriterDelay = 10 * sec
		tc, uc := rtTable("t", 0), rtTable("u", 0)
		tc.Index, uc.Index = false, false
		sc.Tables.Relations = []TableConfig{tc, uc}
		insert := func(table string, rows int64) Script {
			return Script{Steps: []Step{{Insert: &InsertStep{Table: table, Pick: "client", Rows: rows}}}}
		}
		sc.Workload.Phases = []Phase{
			{Name: "load", Clients: 1, Threads: 1, Transactions: 1, Script: insert("t", 600)},
			{Name: "others", Clients: 1, Threads: 1, Transactions: 40, Script: insert("u", 1)},
		}
		rows, hints := int64(600), int64(0)
		if last {
			sc.Workload.Phases = append(sc.Workload.Phases, Phase{Name: "last", Clients: 1, Threads: 1, Transactions: 1, Script: insert("t", 1)})
			rows, hints = 601, 51
		}
		sc.Workload.Phases = append(sc.Workload.Phases, Phase{Name: "scan", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}}})
		e, r := rtRun(t, sc)
		if pages := e.db.lookup("t")[0].heap.NBlocks(); pages != 10 {
			t.Fatalf("%d pages, want 10 (61 rows a page)", pages)
		}
		if v := r.Phases[len(r.Phases)-1].Visibility; v.TuplesChecked != rows || v.HintBitsSet != hints {
			t.Errorf("last insert %v: the scan before any WAL flush set %d hints on %d tuples, want %d on %d", last, v.HintBitsSet, v.TuplesChecked, hints, rows)
		}
	}
}

// docs/model.md steps 4-5 and summary rule 5 (HeapTupleSatisfiesMVCC,
// XidInMVCCSnapshot): a tuple whose inserter is still running for the
// reader's snapshot is invisible and gets no hint bit (the page is not
// dirtied); after the inserter commits, a snapshot taken earlier still
// sees it as running, and only a new snapshot sees the tuples, sets
// XMIN_COMMITTED and dirties the page.
func TestNoHintWhileInserterInProgressForSnapshot(t *testing.T) {
	e := rtBuild(t, rtIdleScenario(128, 256))
	tbl := e.db.lookup("t")[0]
	rtFillPool(t, e, tbl)
	const blk = 5 // 61 frozen rows from the load
	gid := e.cat.GID(tbl.rel, blk)
	slot := e.pool.Lookup(gid)
	ins := &backend{e: e}
	ins.assignXid()
	xid := ins.xid
	tbl.heap.Insert(blk, xid, 10)
	reader := &backend{e: e}
	reader.takeSnapshot()
	check := func(what string, wantVisible int, wantHint bool) {
		t.Helper()
		var buf [1]heap.Group
		if v := reader.checkPage(tbl, blk, slot, gid, tbl.heap.Groups(blk, &buf)); v != wantVisible {
			t.Errorf("%s: %d tuples visible, want %d", what, v, wantVisible)
		}
		for _, g := range tbl.heap.Groups(blk, &buf) {
			if g.Xmin == xid && (g.Hints&heap.XminCommitted != 0) != wantHint {
				t.Errorf("%s: inserted tuples have hints %#x, want XMIN_COMMITTED %v", what, g.Hints, wantHint)
			}
		}
		if rtDirty(e.pool, slot) != wantHint {
			t.Errorf("%s: page dirty %v, want %v", what, rtDirty(e.pool, slot), wantHint)
		}
	}
	check("inserter running", 61, false)
	// COMMIT with its record flushed (synchronous commit).
	lsn := e.wal.Insert(walCommit)
	e.wal.Flush(lsn, nil, 0)
	e.k.RunUntil(sec)
	ins.endXact(true, lsn)
	check("committed after the snapshot", 61, false)
	reader.takeSnapshot()
	check("new snapshot", 71, true)
}
