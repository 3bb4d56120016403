package model

import (
	"fmt"
	"strings"
	"testing"
)

// vacuumAccesses are the VACUUM phase's accesses to the table's main fork
// and to its index (pg_statio counts the table's forks with its heap).
type vacuumAccesses struct{ heap, index int64 }

// rtVacuumAfterDeletes deletes the given keys of a vacuumed 100-page table
// of 61 rows a page (one statement each), then VACUUMs it; it returns the
// VACUUM phase's result, its accesses and the engine.
func rtVacuumAfterDeletes(t *testing.T, version string, index bool, keys []int64) (*engine, PhaseResult, vacuumAccesses) {
	t.Helper()
	sc := rtIdleScenario(16384, 100)
	sc.Server.Version = version
	sc.Server.FullPageWrites = false // the records' own sizes
	sc.Tables.Relations[0].Index = index
	var script strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&script, "DELETE FROM t WHERE id = %d;\n", k)
	}
	vac := TableStep{Table: "t", Pick: "client"}
	sc.Workload.Phases = []Phase{
		{Name: "delete", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Text: script.String()}},
		// A statement after the deletes prunes nothing (their pages are
		// not full): the dead tuples are VACUUM's to prune.
		{Name: "vacuum", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Vacuum: &vac}}}},
	}
	if !index {
		// Deletes by key need an index; without one, delete by scanning.
		sc.Workload.Phases[0].Script = Script{Text: "DELETE FROM t;\n"}
	}
	e := rtBuild(t, sc)
	type ref struct {
		at  int64
		rel string
	}
	var refs []ref
	e.pageRef = func(at int64, rel string, _ int32, _ bool) { refs = append(refs, ref{at, rel}) }
	r, err := e.run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	var n vacuumAccesses
	from := int64(r.Phases[1].StartS * 1e9)
	for _, x := range refs {
		switch {
		case x.at < from:
		case x.rel == "t":
			n.heap++
		case x.rel == "t_pkey":
			n.index++
		}
	}
	return e, r.Phases[1], n
}

// VACUUM in two heap passes (vacuumlazy.c, PostgreSQL 15): the first
// pass prunes a deleted row's tuple to an LP_DEAD line pointer (XLOG_HEAP2_PRUNE,
// 56 bytes for one), which keeps the page from being all-visible;
// lazy_vacuum_all_indexes then reads every index page, deleting the dead
// entries from their leaves (XLOG_BTREE_VACUUM, 52 bytes for one entry);
// lazy_vacuum_heap_rel reads each page with LP_DEAD items again, marks
// them unused (XLOG_HEAP2_VACUUM, 50 bytes for one) and sets the page
// all-visible (XLOG_HEAP2_VISIBLE). One row deleted on each of pages 0-9
// (10 % of the pages): the first pass reads pages 0-9 and skips the 90
// all-visible ones after them, the second reads pages 0-9 again.
func TestVacuumSecondHeapPass(t *testing.T) {
	var keys []int64
	for i := range int64(10) {
		keys = append(keys, 1+61*i)
	}
	for _, version := range []string{"15", "18"} {
		t.Run(version, func(t *testing.T) { testVacuumSecondHeapPass(t, version, keys) })
	}
}

// testVacuumSecondHeapPass is TestVacuumSecondHeapPass at one version; 18
// reads both heap passes through read streams (vacuumlazy.c
// lazy_scan_heap, lazy_vacuum_heap_rel), with the same accesses.
func testVacuumSecondHeapPass(t *testing.T, version string, keys []int64) {
	e, ph, n := rtVacuumAfterDeletes(t, version, true, keys)
	tbl := e.db.lookup("t")[0]
	if n.heap != 20 {
		t.Errorf("VACUUM's heap accesses: %d, want 10 in the first pass and 10 in the second", n.heap)
	}
	if idx := int64(tbl.pkey.bt.NBlocks()); n.index != idx {
		t.Errorf("VACUUM's index accesses: %d, want every one of its %d pages once", n.index, idx)
	}
	// Keys 1 to 550 lie on the first two leaves (LeafItems 367 a leaf).
	leaves := int64(tbl.pkey.bt.Leaf(550) - tbl.pkey.bt.Leaf(1) + 1)
	if leaves != 2 {
		t.Fatalf("keys 1-550 on %d leaves, the test expects 2", leaves)
	}
	// PRUNE, BTREE_VACUUM, HEAP2_VACUUM, VISIBLE, then the command's end
	// (vac_update_relstats): 3 INPLACE (table, TOAST, index) and 2
	// INVALIDATIONS.
	wantRecords := 10 + leaves + 10 + 10 + 5
	if ph.WAL.Records != wantRecords {
		t.Errorf("VACUUM wrote %d WAL records, want %d (10 prunes, %d leaves cleaned, 10 pages vacuumed, 10 set all-visible, 5 at the end)", ph.WAL.Records, wantRecords, leaves)
	}
	// Leaf 1 holds keys 1-367 (entries of pages 0-6), leaf 2 the rest.
	// An INPLACE record is 188 bytes, 258 from 18 with its invalidation
	// messages (pg_waldump on 15 and 18.3).
	inplace := int64(188)
	if version == "18" {
		inplace = 258
	}
	wantBytes := int64(10*56+(50+2*7)+(50+2*3)+10*50+10*59+2*90) + 3*inplace
	if ph.WAL.Bytes != wantBytes {
		t.Errorf("VACUUM's WAL: %d bytes, want %d", ph.WAL.Bytes, wantBytes)
	}
	for b := range int32(100) {
		if tbl.heap.DeadItems(b) != 0 || !tbl.heap.AllVisible(b) {
			t.Fatalf("block %d after VACUUM: %d dead items, all-visible %v", b, tbl.heap.DeadItems(b), tbl.heap.AllVisible(b))
		}
	}
}

// From 14, lazy_vacuum bypasses index vacuuming, and the second heap pass
// with it, when LP_DEAD items are on fewer than 2 % of the pages
// (BYPASS_THRESHOLD_PAGES): one row of 100 pages leaves its page with an
// LP_DEAD item and not all-visible, and the index unread; 13 vacuums it.
func TestVacuumBypassesIndexesBelowTwoPercent(t *testing.T) {
	for _, tc := range []struct {
		version       string
		heap, index   int64
		allVisible    bool
		deadAfterward int
	}{
		{"15", 1, 0, false, 1},
		{"13", 2, -1, true, 0},
	} {
		e, _, n := rtVacuumAfterDeletes(t, tc.version, true, []int64{1})
		tbl := e.db.lookup("t")[0]
		index := tc.index
		if index < 0 {
			index = int64(tbl.pkey.bt.NBlocks())
		}
		if n.heap != tc.heap || n.index != index {
			t.Errorf("%s: VACUUM read %d heap and %d index pages, want %d and %d", tc.version, n.heap, n.index, tc.heap, index)
		}
		if av, d := tbl.heap.AllVisible(0), tbl.heap.DeadItems(0); av != tc.allVisible || d != tc.deadAfterward {
			t.Errorf("%s: block 0 all-visible %v with %d dead items, want %v and %d", tc.version, av, d, tc.allVisible, tc.deadAfterward)
		}
	}
}

// A table without an index is vacuumed in one pass (lazy_scan_heap's
// nindexes == 0 case): each page's LP_DEAD items are marked unused while
// the page is in hand, no second read; before 17 with an
// XLOG_HEAP2_VACUUM of its own after the prune's record.
func TestVacuumOnePassWithoutIndexes(t *testing.T) {
	for _, tc := range []struct {
		version string
		records int64 // per page
	}{{"15", 3}, {"17", 2}} {
		e, ph, n := rtVacuumAfterDeletes(t, tc.version, false, nil)
		tbl := e.db.lookup("t")[0]
		if n.heap != 100 {
			t.Errorf("%s: VACUUM's heap accesses %d, want 100 (one pass)", tc.version, n.heap)
		}
		// PRUNE, (HEAP2_VACUUM,) VISIBLE for each of the 100 emptied
		// pages; 2 INPLACE and 2 INVALIDATIONS at the end.
		if ph.WAL.Records != 100*tc.records+4 {
			t.Errorf("%s: %d WAL records, want %d", tc.version, ph.WAL.Records, 100*tc.records+4)
		}
		if d := tbl.heap.DeadItems(50); d != 0 {
			t.Errorf("%s: %d dead items left on block 50", tc.version, d)
		}
	}
}
