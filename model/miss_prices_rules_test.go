package model_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// costs.buffer_alloc is charged once per buffer miss (bufmgr.c
// BufferAlloc's remapping of the victim, StartBufferIO/TerminateBufferIO):
// a scan of a table nobody has read yet pays it on every page it reads and
// on none it finds, so the cores' busy time grows by exactly the reads
// times the price.
func TestBufferAllocPricePerMiss(t *testing.T) {
	doc := `name: buffer-alloc
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, pages: 1000, rows_per_page: 100, state: vacuumed, index: false}
workload:
  phases:
    - name: scans
      transactions: 3
      script: [{seqscan: {table: t}}]
`
	free := bhRunYAML(t, doc)
	priced := bhRunYAML(t, doc, "costs.buffer_alloc=1us")
	reads := priced.Totals.Buffers.Reads
	if reads < 1000 || reads != free.Totals.Buffers.Reads {
		t.Fatalf("reads: %d priced, %d not; want the same, at least the table's 1000 pages", reads, free.Totals.Buffers.Reads)
	}
	extra := priced.Totals.CPU.BusySeconds - free.Totals.CPU.BusySeconds
	if want := float64(reads) * 1e-6; math.Abs(extra-want) > 2e-6 {
		t.Errorf("busy %.6f s more with the price, want %d reads x 1 us = %.6f s", extra, reads, want)
	}
}

// costs.tuple_cold is charged per tuple a scan visits on a page that was
// a buffer hit, never on one the backend has just read in: the first scan
// of a hinted table reads every page and pays nothing for its 100000
// checks, the second finds every page in shared buffers and pays it on
// each, at the tuple's share of 128 bytes (100 rows a page: 53 bytes of
// data, 80 on the page with the header, 80/128 of the price).
func TestTupleColdOnlyOnBufferHits(t *testing.T) {
	doc := `name: tuple-cold
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, pages: 1000, rows_per_page: 100, state: hinted, index: false}
workload:
  phases:
    - {name: cold, transactions: 1, script: [{seqscan: {table: t}}]}
    - {name: warm, transactions: 1, script: [{seqscan: {table: t}}]}
`
	free := bhRunYAML(t, doc)
	priced := bhRunYAML(t, doc, "costs.tuple_cold=100ns")
	cold, coldFree := bhPhase(t, priced, "cold"), bhPhase(t, free, "cold")
	warm, warmFree := bhPhase(t, priced, "warm"), bhPhase(t, free, "warm")
	if cold.Visibility.TuplesChecked < 100000 || warm.Visibility.TuplesChecked < 100000 {
		t.Fatalf("tuples checked: cold %d, warm %d; want the table's 100000 each", cold.Visibility.TuplesChecked, warm.Visibility.TuplesChecked)
	}
	if d := cold.CPU.BusySeconds - coldFree.CPU.BusySeconds; math.Abs(d) > 2e-6 {
		t.Errorf("the cold scan (every page read in): busy %.6f s more with the price, want none", d)
	}
	if d, want := warm.CPU.BusySeconds-warmFree.CPU.BusySeconds, float64(warm.Visibility.TuplesChecked)*100e-9*80/128; math.Abs(d-want) > 2e-6 {
		t.Errorf("the warm scan: busy %.6f s more, want %d checks x 100 ns x 80/128 = %.6f s", d, warm.Visibility.TuplesChecked, want)
	}
}

// A warm scan of all-visible pages checks no tuple and still pays
// costs.tuple_cold per tuple (measured on PostgreSQL 15: a warm count(*)
// of all-visible pages cost 36 ns a row for 32-byte tuples, 44 for 72
// and 55 for 136 to 730), at min(1, the tuple's bytes / 128): 226 rows a
// page are 32 bytes each (a quarter), 11 rows a page 738 (all of it).
func TestTupleColdOnAllVisiblePagesByWidth(t *testing.T) {
	for _, tc := range []struct {
		perPage int
		share   float64
	}{{226, 32.0 / 128}, {58, 1}, {11, 1}} {
		doc := fmt.Sprintf(`name: tuple-cold-visible
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, pages: 500, rows_per_page: %d, state: vacuumed, index: false}
workload:
  phases:
    - {name: cold, transactions: 1, script: [{seqscan: {table: t}}]}
    - {name: warm, transactions: 1, script: [{seqscan: {table: t}}]}
`, tc.perPage)
		free := bhRunYAML(t, doc)
		priced := bhRunYAML(t, doc, "costs.tuple_cold=100ns")
		warm, warmFree := bhPhase(t, priced, "warm"), bhPhase(t, free, "warm")
		if warm.Visibility.AllVisibleSkips < 500 || warm.Visibility.TuplesChecked != 0 {
			t.Fatalf("%d rows a page: all-visible skips %d, tuples checked %d; want every page skipped", tc.perPage, warm.Visibility.AllVisibleSkips, warm.Visibility.TuplesChecked)
		}
		if d := bhPhase(t, priced, "cold").CPU.BusySeconds - bhPhase(t, free, "cold").CPU.BusySeconds; math.Abs(d) > 2e-6 {
			t.Errorf("%d rows a page, the cold scan: busy %.6f s more with the price, want none", tc.perPage, d)
		}
		rows := float64(500 * tc.perPage)
		if d, want := warm.CPU.BusySeconds-warmFree.CPU.BusySeconds, rows*100e-9*tc.share; math.Abs(d-want) > 2e-6 {
			t.Errorf("%d rows a page, the warm scan: busy %.6f s more, want %.0f rows x 100 ns x %.3f = %.6f s", tc.perPage, d, rows, tc.share, want)
		}
	}
}

// A scan through a read stream (17, 18) pays costs.tuple_cold by each
// block's own access: a table whose blocks are cached in runs of 10 out of
// 20 pays it on the 200 cached pages only, whatever the stream read
// ahead of the block it returns.
func TestTupleColdByEachStreamedBlock(t *testing.T) {
	var prewarm strings.Builder
	for i := range 20 {
		fmt.Fprintf(&prewarm, "SELECT pg_prewarm('t', 'buffer', 'main', %d, %d);\n", 20*i, 20*i+9)
	}
	for _, version := range []string{"16", "17", "18"} {
		doc := fmt.Sprintf(`name: tuple-cold-stream
server: {version: %q, autovacuum: false, cpus: 2, shared_buffers: 128MB}
tables:
  relations:
    - {name: t, pages: 400, rows_per_page: 100, state: vacuumed, index: false}
workload:
  phases:
    - {name: cache, transactions: 1, restart: true, script: {text: %q}}
    - {name: scan, transactions: 1, script: [{seqscan: {table: t}}]}
`, version, prewarm.String())
		free := bhPhase(t, bhRunYAML(t, doc), "scan")
		priced := bhPhase(t, bhRunYAML(t, doc, "costs.tuple_cold=100ns"), "scan")
		// 200 cached pages of 100 tuples of 80 bytes: 80/128 of the price.
		if d, want := priced.CPU.BusySeconds-free.CPU.BusySeconds, 200*100*100e-9*80/128; math.Abs(d-want) > 2e-6 {
			t.Errorf("%s: busy %.6f s more with the price, want 200 cached pages x 100 tuples x 100 ns x 80/128 = %.6f s", version, d, want)
		}
	}
}
