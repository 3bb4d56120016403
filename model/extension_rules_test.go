package model_test

import (
	"testing"
)

// docs/model.md (hio.c RelationGetBufferForTuple, RelationAddExtraBlocks;
// lmgr.c LockRelationForExtension): a backend extends a relation under its
// extension lock, held until the new page is pinned. Up to 15 a backend that
// had to wait for the lock looks in the free space map again and, finding
// nothing, adds 20 pages per backend still waiting before its own, each
// recorded in the free space map; the waiters behind it then find those
// pages instead of extending. Every page added is a P_NEW read in pgstat
// up to 15 (pg_statio_user_tables' heap_blks_read counts them), whoever
// fills it later. From 16 the model takes the lock without the bulk
// extension.
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
	v16 := bhRunYAML(t, doc, "server.version=16")
	if v16.Totals.ExtensionLockWaits == 0 || v16.Totals.ExtraBlocks != 0 {
		t.Errorf("16: %d lock waits, %d extra blocks; want waits and no RelationAddExtraBlocks", v16.Totals.ExtensionLockWaits, v16.Totals.ExtraBlocks)
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
