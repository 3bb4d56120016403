package model

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/model/catalog"
)

// docs/model.md "The kernel's readahead" (mm/readahead.c, mm/filemap.c):
// a cold sequential scan's pread()s of 8 kB blocks reach the device as
// readahead windows growing from 2 to 16 blocks (read_ahead_kb 128), and
// as one request per block with readahead off. PostgreSQL's counters do
// not change: blks_read counts the pread()s, not the device's requests.
func TestColdSeqScanReadsAhead(t *testing.T) {
	for _, tc := range []struct {
		readAhead           int64
		requests, readahead int64
	}{
		// 2 + 4 + 8 blocks, then 16-block windows: 61 of them and a
		// last one of 10 (1000 = 14 + 61 x 16 + 10).
		{128 << 10, 65, 999},
		{0, 1000, 0},
	} {
		sc := rtIdleScenario(512, 1000) // 1000 pages > NBuffers/4: the BULKREAD ring
		sc.OS.ReadAhead = tc.readAhead
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}
		_, r := rtRun(t, sc)
		ph := r.Phases[0]
		if ph.Disk.Reads != tc.requests || ph.Disk.ReadPages != 1000 || ph.OSCache.ReadaheadPages != tc.readahead {
			t.Errorf("read_ahead %d kB: %d device reads of %d pages, %d read ahead; want %d of 1000, %d",
				tc.readAhead>>10, ph.Disk.Reads, ph.Disk.ReadPages, ph.OSCache.ReadaheadPages, tc.requests, tc.readahead)
		}
		if ph.StatioTables[0].HeapBlksRead != 1000 {
			t.Errorf("read_ahead %d kB: heap_blks_read %d, want 1000 (one per pread, whatever the device did)", tc.readAhead>>10, ph.StatioTables[0].HeapBlksRead)
		}
	}
}

// md.c keeps a relation fork in 1 GB segment files (RELSEG_SIZE, 131072
// blocks); readahead state and the end of file are per segment file.
func TestSegmentFiles(t *testing.T) {
	cat := catalog.New()
	a := cat.Add("a", catalog.Heap, 10)
	big := cat.Add("big", catalog.Heap, relSegBlocks+100)
	f := segmentFiles{cat}
	fa, b, n := f.Locate(cat.GID(a, 7))
	if b != 7 || n != 10 {
		t.Fatalf("a block 7: block %d of a %d-block file", b, n)
	}
	f0, b0, n0 := f.Locate(cat.GID(big, relSegBlocks-1))
	f1, b1, n1 := f.Locate(cat.GID(big, relSegBlocks+3))
	if f0 == f1 || f0 == fa || b0 != relSegBlocks-1 || n0 != relSegBlocks || b1 != 3 || n1 != 100 {
		t.Fatalf("big: segment 0 block %d of %d, segment 1 block %d of %d (files %d, %d)", b0, n0, b1, n1, f0, f1)
	}
	if g := f.Page(f1, 3); g != cat.GID(big, relSegBlocks+3) {
		t.Fatalf("Page(segment 1, 3) = %d, want gid %d", g, cat.GID(big, relSegBlocks+3))
	}
}

// The system catalogs are read a page at a time (docs/model.md "The
// kernel's readahead"): the model lumps PostgreSQL's many small catalog
// files into one relation, where readahead would fetch unrelated catalog
// pages together. User relations get a readahead state per segment file.
func TestCatalogsReadWithoutReadahead(t *testing.T) {
	sc := rtIdleScenario(512, 100)
	sc.Server.SystemCatalogs = true
	e := rtBuild(t, sc)
	b := &backend{e: e}
	for _, rel := range []catalog.RelID{e.db.sysCatalog, e.db.sysGlobal} {
		if ra := b.readahead(e.cat.GID(rel, 0)); ra != nil {
			t.Errorf("%s: a readahead state, want none", e.cat.Rel(rel).Name)
		}
	}
	tbl := e.db.tables[0]
	ra := b.readahead(e.cat.GID(tbl.rel, 5))
	if ra == nil || b.readahead(e.cat.GID(tbl.rel, 50)) != ra {
		t.Errorf("user table: want one readahead state for its segment file, got %p", ra)
	}
}
