package model_test

import (
	"fmt"
	"math"
	"testing"
)

// An index-only scan's entry on an all-visible heap page costs
// costs.index_only_tuple and a visibility-map test (IndexOnlyNext:
// VM_ALL_VISIBLE, then the tuple from the index), never a heap fetch's
// costs.tuple_fetch; on pages the map does not mark all-visible the scan
// fetches the heap tuple and pays tuple_fetch instead.
func TestIndexOnlyEntriesCostTheirOwnPrice(t *testing.T) {
	for _, tc := range []struct {
		state     string
		indexOnly bool // every entry answered from the index
	}{{"vacuumed", true}, {"hinted", false}} {
		doc := fmt.Sprintf(`name: index-only-price
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 8, index: true, key: id, state: %s}
workload:
  phases:
    - {name: warm, transactions: 1, warmup: true, script: {text: "SELECT count(*) FROM t WHERE id BETWEEN 1001 AND 6000;"}}
    - {name: run, transactions: 1, script: {text: "SELECT count(*) FROM t WHERE id BETWEEN 1001 AND 6000;"}}
`, tc.state)
		base := bhPhase(t, bhRunYAML(t, doc), "run").CPU.BusySeconds
		ios := bhPhase(t, bhRunYAML(t, doc, "costs.index_only_tuple=1085ns"), "run").CPU.BusySeconds - base
		fetch := bhPhase(t, bhRunYAML(t, doc, "costs.tuple_fetch=1300ns"), "run").CPU.BusySeconds - base
		wantIOS, wantFetch := 5000e-6, 0.0
		if !tc.indexOnly {
			wantIOS, wantFetch = 0, 5000e-6
		}
		if math.Abs(ios-wantIOS) > 2e-6 || math.Abs(fetch-wantFetch) > 2e-6 {
			t.Errorf("%s table, 5000 entries: index_only_tuple +1 us gives %.6f s more busy, want %.6f; tuple_fetch +1 us %.6f s, want %.6f", tc.state, ios, wantIOS, fetch, wantFetch)
		}
	}
}
