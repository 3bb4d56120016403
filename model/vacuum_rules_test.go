package model

import "testing"

// docs/model.md (vacuumlazy.c SKIP_PAGES_THRESHOLD = 32): VACUUM skips pages
// whose visibility-map bit is set only in runs of at least 32 consecutive
// such pages, to keep the OS's readahead working; shorter runs are read.
// A 200-page all-visible table with the bit cleared on blocks 10, 50 and
// 120-129: blocks 0-9 (a run of 10) are read, 11-49 (39), 51-119 (69) and
// 130-199 (70) skipped: 22 heap pages read. The 12 cleared pages hold only
// frozen tuples, so VACUUM sets them all-visible again (PD_ALL_VISIBLE and
// the VM bit, on the VM page pinned once: visibilitymap_pin keeps it).
// Each page read records its free space at its free-space-map leaf
// (RecordPageWithFreeSpace); at the end FreeSpaceMapVacuumRange reads the
// map's root, internal page and leaf, and visibilitymap_count the VM page
// (as PostgreSQL 15 does: lazy_scan_heap, heap_vacuum_rel).
func TestVacuumSkipsOnlyRunsOf32AllVisiblePages(t *testing.T) {
	sc := rtIdleScenario(1024, 200)
	sc.Workload.Phases[0].Script.Steps = []Step{{Vacuum: &TableStep{Table: "t", Pick: "client"}}}
	e := rtBuild(t, sc)
	tbl := e.db.lookup("t")[0]
	cleared := []int32{10, 50}
	for b := int32(120); b < 130; b++ {
		cleared = append(cleared, b)
	}
	for _, b := range cleared {
		tbl.heap.ClearAllVisible(b)
	}
	r, err := e.run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Totals
	if m.Visibility.AllVisiblePagesSet != 12 {
		t.Errorf("VACUUM set %d pages all-visible, want the 12 cleared ones", m.Visibility.AllVisiblePagesSet)
	}
	// Reads: 22 heap pages, the VM page, the fsm leaf (then hits: 21 more
	// records, 1 in the range vacuum), the fsm root and internal page;
	// hits: those 22 leaf accesses and visibilitymap_count's VM page.
	if m.Buffers.Reads != 26 || m.Buffers.Hits != 23 {
		t.Errorf("VACUUM read %d pages with %d hits, want 22 heap + 1 VM + 3 fsm reads and 22 fsm + 1 VM hits", m.Buffers.Reads, m.Buffers.Hits)
	}
	for b := int32(0); b < 200; b++ {
		if !tbl.heap.AllVisible(b) {
			t.Fatalf("block %d not all-visible after VACUUM", b)
		}
	}
}
