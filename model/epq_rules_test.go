package model_test

import (
	"fmt"
	"testing"
)

// An UPDATE that waited for the row's updater reads the row's page five
// more times than one that did not (ExecUpdate on TM_Updated: the first
// heap_update, heap_lock_tuple, heap_fetch of the newer version,
// heap_lock_tuple again, table_tuple_fetch_row_version; then the retried
// heap_update of the normal path), each a hit; before 14, with no
// table_tuple_fetch_row_version, four.
func TestEvalPlanQualRereadsTheRowsPage(t *testing.T) {
	const doc = `name: epq
server: {shared_buffers: 64MB, version: "%s"}
tables:
  relations:
    - {name: t, rows: 1000, index: true}
workload:
  phases:
    - name: run
      duration: 2s
      clients: 8
      script:
        - begin: true
        - update: {table: t, key: "random(1, 2)"}
        - sleep: 1ms
        - commit: true
`
	for _, c := range []struct {
		version string
		extra   int64
	}{{"15", 5}, {"13", 4}} {
		res := bhRunYAML(t, fmt.Sprintf(doc, c.version))
		waits, upd := res.Totals.RowLockWaits, res.Totals.Transactions
		var hits int64
		for _, r := range res.Totals.StatioTables {
			if r.Relname == "t" {
				hits = r.HeapBlksHit + r.HeapBlksRead
			}
		}
		perUpdate := int64(3)
		if c.version == "13" {
			perUpdate = 2 // no table_tuple_fetch_row_version before 14
		}
		rest := hits - perUpdate*upd - c.extra*waits
		t.Logf("version %s: %d updates, %d waits, %d heap accesses, %d beyond the rule", c.version, upd, waits, hits, rest)
		if waits < upd/4 {
			t.Fatalf("version %s: %d waits in %d updates: the test needs contention", c.version, waits, upd)
		}
		if rest < 0 || rest > waits/10 {
			t.Errorf("version %s: heap accesses %d, want %d per update and %d more per wait (%d, %d): %d beyond", c.version, hits, perUpdate, c.extra, upd, waits, rest)
		}
	}
}
