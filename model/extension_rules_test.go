package model_test

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// docs/model.md (hio.c RelationGetBufferForTuple, RelationAddExtraBlocks;
// lmgr.c LockRelationForExtension): a backend extends a relation under its
// extension lock, held until the new page is pinned. Up to 15 a backend that
// had to wait for the lock looks in the free space map again and, finding
// nothing, adds 20 pages per backend still waiting before its own, each
// recorded in the free space map; the waiters behind it then find those
// pages instead of extending. Every page added is a P_NEW read in pgstat
// up to 15 (pg_statio_user_tables' heap_blks_read counts them), whoever
// fills it later. From 16 the bulk extension is RelationAddBlocks'
// (TestRelationAddBlocks16).
func TestExtensionLockAndBulkExtension(t *testing.T) {
	const doc = `name: extension
server: {version: "15", shared_buffers: 64MB, autovacuum: false, cpus: 16, system_catalogs: false}
costs: {os_write: 300us}
tables:
  relations:
    - {name: h, rows: 0, row_width: 100}
workload:
  phases:
    - name: run
      transactions: 200
      clients: 32
      script: [{insert: {table: h, rows: 1}}]
`
	rowsPerPage := int64(61) // 100-byte rows
	r := bhRunYAML(t, doc)
	m := r.Totals
	if m.ExtensionLockWaits == 0 {
		t.Fatalf("32 clients extending one table with 300 us writes: no extension lock waits")
	}
	if m.ExtraBlocks == 0 || m.ExtraBlocks%20 != 0 {
		t.Errorf("RelationAddExtraBlocks added %d pages, want a positive multiple of 20", m.ExtraBlocks)
	}
	var reads int64
	for _, s := range m.StatioTables {
		if s.Relname == "h" {
			reads = s.HeapBlksRead
		}
	}
	rows := 32 * 200 * int64(1)
	// The pages read are every page added (own and extra) plus the free
	// space map's: at least the rows' pages and the extra blocks' share.
	if minPages := rows / rowsPerPage; reads < minPages {
		t.Errorf("%d heap reads for %d rows: fewer than the %d pages they fill", reads, rows, minPages)
	}
	one := bhRunYAML(t, doc, "workload.phases.run.clients=1", "workload.phases.run.transactions=6400")
	if w := one.Totals.ExtensionLockWaits; w != 0 || one.Totals.ExtraBlocks != 0 {
		t.Errorf("one client: %d extension lock waits, %d extra blocks; want none", w, one.Totals.ExtraBlocks)
	}
}

// hio.c RelationAddBlocks and bufmgr.c ExtendBufferedRelShared (16+): a
// backend that extends adds 1 page plus 1 per backend waiting for the
// extension lock, at most 64, in one call: one mdzeroextend (one
// register_dirty_segment, so pg_stat_bgwriter's buffers_backend counts
// the call, not its pages), the extra pages entered into the free space
// map for the waiters. The extended pages bypass pg_statio (no P_NEW
// read), pg_stat_io counts each as an extend, pgBufferUsage each as
// written. With a BulkInsertState (COPY) each extension adds at least as
// many pages as the earlier ones together: 1, 1, 2, 4, ... 64.
func TestRelationAddBlocks16(t *testing.T) {
	const doc = `name: extension16
server: {version: "16", shared_buffers: 64MB, autovacuum: false, cpus: 16, system_catalogs: false}
costs: {os_write: 300us}
tables:
  relations:
    - {name: h, rows: 0, row_width: 100}
workload:
  phases:
    - name: run
      transactions: 200
      clients: 32
      script: [{insert: {table: h, rows: 1}}]
`
	// main: h's pages; fsm: its free space map's (3: root, internal page
	// and leaf), which fsm_extend adds in one call of its own
	// (ExtendBufferedRelTo, freespace.c), into shared buffers: from 16 they
	// are not read either (heap_blks_read counts the forks; up to 15
	// fsm_extend wrote them with smgrextend and they were read).
	const fsmCalls = 1
	var fsm int64
	pagesOf := func(r *model.Result) (main int64, read int64) {
		for _, s := range r.Totals.RelationSize {
			if s.Relname == "h" {
				main, fsm = s.Main, s.FSM
			}
		}
		for _, s := range r.Totals.StatioTables {
			if s.Relname == "h" {
				read = s.HeapBlksRead
			}
		}
		return main, read
	}
	r := bhRunYAML(t, doc)
	m := r.Totals
	pages, reads := pagesOf(r)
	if m.ExtensionLockWaits == 0 || m.ExtraBlocks == 0 {
		t.Fatalf("32 clients: %d lock waits, %d extra pages; want both", m.ExtensionLockWaits, m.ExtraBlocks)
	}
	// Every page of h came from an extension call: one page for the
	// caller, the extra ones for the waiters.
	if calls := m.Buffers.BackendExtend; calls-fsmCalls+m.ExtraBlocks != pages || calls >= pages || fsm != 3 {
		t.Errorf("%d extension calls (%d of them the free space map's, for its %d pages) + %d extra pages != %d pages of h (or no call added more than one)", calls, fsmCalls, fsm, m.ExtraBlocks, pages)
	}
	if reads != 0 {
		t.Errorf("16: heap_blks_read %d, want 0 (extensions of the heap and of its free space map bypass pg_statio; the pages stay in shared buffers)", reads)
	}
	var extends int64
	for _, row := range m.PGStatIO {
		extends += row.Extends
	}
	if extends < pages {
		t.Errorf("pg_stat_io extends %d, want at least the %d pages of h (one per page)", extends, pages)
	}

	one := bhRunYAML(t, doc, "workload.phases.run.clients=1", "workload.phases.run.transactions=6400")
	if p, _ := pagesOf(one); one.Totals.ExtraBlocks != 0 || one.Totals.Buffers.BackendExtend != p+fsmCalls {
		t.Errorf("one client: %d extra pages, %d calls for %d pages (+%d for the free space map's %d); want 0 and one call a page", one.Totals.ExtraBlocks, one.Totals.Buffers.BackendExtend, p, fsmCalls, fsm)
	}

	// COPY of 61000 rows (1000 pages): extensions of 1, 1, 2, 4, 8, 16,
	// 32, 64 (128 pages), then 64 each: 14 more to reach 1000, 1024 pages,
	// the last 24 empty.
	const copyDoc = `name: copy16
server: {version: "16", shared_buffers: 64MB, autovacuum: false, system_catalogs: false}
tables:
  relations:
    - {name: h, rows: 0, row_width: 100}
workload:
  phases:
    - {name: copy, transactions: 1, script: [{copy: {table: h, rows: 61000}}]}
`
	c := bhRunYAML(t, copyDoc)
	if p, _ := pagesOf(c); p != 1024 || c.Totals.Buffers.BackendExtend != 22+fsmCalls {
		t.Errorf("COPY at 16: %d pages in %d extensions (%d of them the free space map's), want 1024 in 22", p, c.Totals.Buffers.BackendExtend, fsmCalls)
	}
	c15 := bhRunYAML(t, copyDoc, "server.version=15")
	if p, _ := pagesOf(c15); p != 1000 || c15.Totals.Buffers.BackendExtend != 1000+fsm {
		t.Errorf("COPY at 15: %d pages in %d extensions (%d of them the free space map's), want 1000 in 1000", p, c15.Totals.Buffers.BackendExtend, fsm)
	}
}

// A new page is visible to other inserters (as the relation's last page)
// while its extender waits for the page's write; when they fill it first,
// the extender must look for space again rather than overfill it (which
// once left a page with -1 free slots and the free space map pointing back
// at it forever: 512 closed-loop clients on configs/quickstart.yaml hung).
// The end-of-run invariant "page space" checks every page.
func TestNewPageFilledByOthersDuringItsExtension(t *testing.T) {
	if testing.Short() {
		t.Skip("512 clients")
	}
	r := runSeed(t, "quickstart.yaml", "workload.phases.warmup.duration=2s", "workload.phases.run.duration=1s",
		"workload.phases.warmup.clients=512", "workload.phases.run.clients=512")
	if r.Totals.Transactions == 0 {
		t.Fatal("no transactions")
	}
}

// freespace.c fsm_extend and visibilitymap.c vm_extend: up to 15 they
// write a fork's new pages with smgrextend, outside shared buffers, and the
// caller's ReadBuffer then reads them (heap_blks_read counts the forks);
// from 16 they are ExtendBufferedRelTo (bufmgr.c ExtendBufferedRelShared),
// which leaves every new page valid in shared buffers: no read, one
// extend call, each page counted as written in pgBufferUsage. Measured
// on PostgreSQL 15 and 18.3 (docs/fidelity.md, docs/fidelity-18.md,
// bulk-dml): an INSERT of 100000 rows into a new table read 1727 blocks
// of it on 15 (1725 extensions and the 2 free-space-map pages it reads)
// and none on 18.
func TestForkExtensionThroughSharedBuffers16(t *testing.T) {
	const doc = `name: forks
server: {version: "15", shared_buffers: 64MB, autovacuum: false, system_catalogs: false}
tables:
  relations:
    - {name: h, rows: 0, row_width: 100}
    - {name: v, rows: 1000, row_width: 100, state: hinted}
workload:
  phases:
    - {name: insert, transactions: 1, script: [{insert: {table: h, rows: 10000}}]}
    - {name: scan, transactions: 1, script: [{seqscan: {table: v}}]}
    - {name: vacuum, transactions: 1, script: [{vacuum: {table: v}}]}
`
	reads := func(p model.PhaseResult, rel string) int64 {
		for _, s := range p.StatioTables {
			if s.Relname == rel {
				return s.HeapBlksRead
			}
		}
		return -1
	}
	for _, c := range []struct {
		version                string
		insertReads, vacReads  int64
		insertWrittenOverPages int64
	}{
		// 15: the 164 pages' P_NEW reads and the 2 free-space-map pages
		// read after fsm_extend wrote them (the leaf, where
		// RecordAndGetPageWithFreeSpace records the full page, and the
		// root, whose search finds nothing), as on PostgreSQL 15; VACUUM
		// reads v's free space map (3 pages, loaded: in the OS cache)
		// and the visibility map's new page.
		{"15", 164 + 2, 3 + 1, 0},
		// 18: nothing of h read, and VACUUM reads only v's free space
		// map; h's free space map's 3 pages are written (pgBufferUsage)
		// as the heap's are.
		{"18", 0, 3, 3},
	} {
		r := bhRunYAML(t, doc, "server.version="+c.version)
		ins, vac := bhPhase(t, r, "insert"), bhPhase(t, r, "vacuum")
		var pages int64
		for _, s := range ins.RelationSize {
			if s.Relname == "h" {
				pages = s.Main
			}
		}
		if got := reads(ins, "h"); got != c.insertReads {
			t.Errorf("%s: INSERT of 10000 rows (%d pages) read %d blocks of h, want %d", c.version, pages, got, c.insertReads)
		}
		if got := reads(vac, "v"); got != c.vacReads {
			t.Errorf("%s: VACUUM of a table in shared buffers without a visibility map read %d blocks, want %d (its free space map's and, up to 15, the visibility map's new page)", c.version, got, c.vacReads)
		}
		if c.version == "18" {
			if w := ins.BufferUsage.SharedBlksWritten - pages; w != c.insertWrittenOverPages {
				t.Errorf("18: INSERT wrote %d blocks for %d pages of h (pgBufferUsage), want %d more: the free space map's", ins.BufferUsage.SharedBlksWritten, pages, c.insertWrittenOverPages)
			}
		}
	}
}
