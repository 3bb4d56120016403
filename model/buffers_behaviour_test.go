package model_test

import (
	"testing"
)

// Shared-buffer mechanics seen end to end (
// docs/model.md): the free list by version, and the
// BULKREAD ring of large sequential scans.

// scanYAML: a 1000-page table and a 100-page one, 512 buffers (4 MB):
// NBuffers/4 = 128, so only the large table is scanned through a ring.
const scanYAML = `
name: ring
server:
  shared_buffers: 4MB
  autovacuum: false
  system_catalogs: false # the scans' buffers only
storage: {data: nvme, wal: nvme}
tables:
  relations:
    - {name: big, pages: 1000}
    - {name: small, pages: 100}
workload:
  phases:
    - name: big
      transactions: 1
      script: [{seqscan: big}]
    - name: big-again
      transactions: 1
      script: [{seqscan: big}]
    - name: small
      transactions: 1
      script: [{seqscan: small}]
`

// docs/model.md (heapam.c initscan, freelist.c GetBufferFromRing): a
// seqscan of a table larger than NBuffers/4 reads through a 256 kB
// BULKREAD ring: 32 buffers are allocated and then reused, ring reuses are
// not counted in buffers_alloc, and the scan leaves only 32 of its pages
// in the pool, so a second scan misses again. A table of at most
// NBuffers/4 pages uses the normal strategy and stays cached.
func TestLargeSeqscanReusesA32BufferRing(t *testing.T) {
	for _, v := range []string{"17", "19"} {
		r := bhRunYAML(t, scanYAML, "server.version="+v)
		b := bhPhase(t, r, "big").Buffers
		if b.Reads != 1000 || b.Alloc != 32 || b.RingReuses != 968 {
			t.Errorf("v%s big: reads %d, alloc %d, ring reuses %d; want 1000, 32, 968", v, b.Reads, b.Alloc, b.RingReuses)
		}
		// The next scan (another backend, another ring) finds only the
		// last 32 pages of the first one still cached.
		b = bhPhase(t, r, "big-again").Buffers
		if b.Reads != 968 || b.Hits != 32 || b.Alloc != 32 || b.RingReuses != 936 {
			t.Errorf("v%s big-again: reads %d, hits %d, alloc %d, ring reuses %d; want 968, 32, 32, 936", v, b.Reads, b.Hits, b.Alloc, b.RingReuses)
		}
		b = bhPhase(t, r, "small").Buffers
		if b.Reads != 100 || b.Alloc != 100 || b.RingReuses != 0 {
			t.Errorf("v%s small table: reads %d, alloc %d, ring reuses %d; want 100, 100, 0 (no ring)", v, b.Reads, b.Alloc, b.RingReuses)
		}
		// docs/model.md: the free list feeds a cold pool up to 18; 19 has none.
		pops := bhPhase(t, r, "big").Buffers.FreeListPops + bhPhase(t, r, "small").Buffers.FreeListPops
		if want := map[string]int64{"17": 132, "19": 0}[v]; pops != want {
			t.Errorf("v%s: %d free-list pops, want %d", v, pops, want)
		}
	}
}

// docs/model.md: on PG <= 18 a cold pool fills from the free list, each
// buffer exactly once (nothing returns to it without a relation drop);
// on 19 the sweep fills it. Either way every allocation is a free-list pop
// or a sweep victim.
func TestFreeListFillsColdPoolUpTo18(t *testing.T) {
	const yaml = `
name: freelist
server: {shared_buffers: 1MB, autovacuum: false}
os: {page_cache: 1GB}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: run, duration: 3s, clients: 2, script: select-only}
`
	for v, want := range map[string]int64{"9.6": 128, "18": 128, "19": 0} {
		b := bhRunYAML(t, yaml, "server.version="+v).Totals.Buffers
		if b.FreeListPops != want {
			t.Errorf("v%s: %d free-list pops with 128 buffers, want %d", v, b.FreeListPops, want)
		}
		if b.Alloc < 1000 || b.Evictions != b.Alloc-b.FreeListPops-128+want {
			t.Errorf("v%s: alloc %d, evictions %d, pops %d: every allocation after the pool is full evicts", v, b.Alloc, b.Evictions, b.FreeListPops)
		}
	}
}
