package model

import "testing"

// docs/model.md (vacuumlazy.c SKIP_PAGES_THRESHOLD = 32): VACUUM skips pages
// whose visibility-map bit is set only in runs of at least 32 consecutive
// such pages, to keep the OS's readahead working; shorter runs are read.
// A 200-page all-visible table with the bit cleared on blocks 10, 50 and
// 120-129: blocks 0-9 (a run of 10) are read, 11-49 (39), 51-119 (69) and
// 130-199 (70) skipped: 22 heap pages read. The 12 cleared pages hold only
// frozen tuples, so VACUUM sets them all-visible again (PD_ALL_VISIBLE and
// the VM bit: one VM page read, then hits).
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
	// 22 heap pages + the VM page once; the 11 other VM accesses hit.
	if m.Buffers.Reads != 23 || m.Buffers.Hits != 11 {
		t.Errorf("VACUUM read %d pages with %d hits, want 22 heap + 1 VM read and 11 VM hits", m.Buffers.Reads, m.Buffers.Hits)
	}
	for b := int32(0); b < 200; b++ {
		if !tbl.heap.AllVisible(b) {
			t.Fatalf("block %d not all-visible after VACUUM", b)
		}
	}
}
