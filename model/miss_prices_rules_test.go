package model_test

import (
	"math"
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

// costs.tuple_cold is charged per visibility check on a page that was a
// buffer hit, never on one the backend has just read in: the first scan of
// a hinted table reads every page and pays nothing for its 100000 checks,
// the second finds every page in shared buffers and pays it on each.
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
	if d, want := warm.CPU.BusySeconds-warmFree.CPU.BusySeconds, float64(warm.Visibility.TuplesChecked)*100e-9; math.Abs(d-want) > 2e-6 {
		t.Errorf("the warm scan: busy %.6f s more, want %d checks x 100 ns = %.6f s", d, warm.Visibility.TuplesChecked, want)
	}
}
