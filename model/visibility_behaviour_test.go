package model_test

import (
	"testing"
)

// Tuple visibility, hint bits, PD_ALL_VISIBLE and the visibility map end
// to end (docs/model.md).

// loadScanYAML: 6100 rows (100 pages of 61) inserted by one transaction,
// a CHECKPOINT so that the pages are clean, then two scans.
const loadScanYAML = `
name: hints
server: {autovacuum: false}
storage: {data: nvme, wal: nvme}
tables:
  relations:
    - {name: t, rows: 0}
workload:
  phases:
    - name: load
      transactions: 1
      script: [{insert: {table: t, rows: 6100}}, {checkpoint: true}]
    - name: scan1
      transactions: 1
      script: [{seqscan: t}]
    - name: scan2
      transactions: 1
      script: [{seqscan: t}]
`

// docs/model.md, §1.6, §1.7, §2 (HeapTupleSatisfiesMVCC, SetHintBits,
// MarkBufferDirtyHint, TransactionLogFetch): the first scan after a bulk
// load checks every tuple, looks the loading xid up once in the clog and
// then in transam.c's one-entry cache, sets XMIN_COMMITTED on every tuple
// and dirties every (clean) page; no WAL without checksums or
// wal_log_hints. The second scan answers every tuple from its hint bits.
func TestFirstScanSetsHintBitsSecondScanUsesThem(t *testing.T) {
	r := bhRunYAML(t, loadScanYAML)
	v1 := bhPhase(t, r, "scan1").Visibility
	if v1.TuplesChecked != 6100 || v1.HintBitsSet != 6100 || v1.HintDirtiedPages != 100 || v1.HintBitHits != 0 {
		t.Errorf("first scan: checked %d, hints set %d, pages hint-dirtied %d, hint hits %d; want 6100, 6100, 100, 0",
			v1.TuplesChecked, v1.HintBitsSet, v1.HintDirtiedPages, v1.HintBitHits)
	}
	if v1.ClogLookups != 6100 || v1.TransamCacheHits != 6099 || v1.ClogSLRUHits+v1.ClogSLRUMisses != 1 {
		t.Errorf("first scan: %d clog lookups, %d one-entry cache hits, %d SLRU accesses; want 6100, 6099, 1",
			v1.ClogLookups, v1.TransamCacheHits, v1.ClogSLRUHits+v1.ClogSLRUMisses)
	}
	if w := bhPhase(t, r, "scan1").WAL; w.FPIHint != 0 || w.Bytes != 0 {
		t.Errorf("first scan without checksums/wal_log_hints wrote %d bytes of WAL, %d hint FPIs; want none", w.Bytes, w.FPIHint)
	}
	v2 := bhPhase(t, r, "scan2").Visibility
	if v2.HintBitHits != 6100 || v2.HintBitsSet != 0 || v2.HintDirtiedPages != 0 || v2.ClogLookups != 0 {
		t.Errorf("second scan: hint hits %d, set %d, dirtied %d, clog lookups %d; want 6100, 0, 0, 0",
			v2.HintBitHits, v2.HintBitsSet, v2.HintDirtiedPages, v2.ClogLookups)
	}
}

// docs/model.md (MarkBufferDirtyHint, XLogSaveBufferForHint): with
// wal_log_hints (or data checksums, on by default at initdb from 18) the
// first hint on a page since the checkpoint's redo point logs a full-page
// image: one XLOG_FPI_FOR_HINT of ~8240 bytes per page (measured on PG15:
// 8240 B per page), none on the second scan.
func TestHintBitFPIOncePerPageWithWALLogHints(t *testing.T) {
	for _, c := range []struct {
		over []string
		fpi  int64
	}{
		{[]string{"server.wal_log_hints=true"}, 100},
		{[]string{"server.version=18"}, 100}, // data_checksums default on
		{[]string{"server.version=17"}, 0},
		{[]string{"server.version=18", "server.data_checksums=false"}, 0},
	} {
		r := bhRunYAML(t, loadScanYAML, c.over...)
		w1, w2 := bhPhase(t, r, "scan1").WAL, bhPhase(t, r, "scan2").WAL
		if w1.FPIHint != c.fpi || w2.FPIHint != 0 {
			t.Errorf("%v: hint FPIs %d then %d, want %d then 0", c.over, w1.FPIHint, w2.FPIHint, c.fpi)
		}
		if c.fpi > 0 && (w1.Bytes < 100*8192 || w1.Bytes > 100*8300) {
			t.Errorf("%v: first scan wrote %d bytes of WAL, want ~100 x 8240", c.over, w1.Bytes)
		}
	}
}

// docs/model.md, §5.4 (vacuumlazy.c sets PD_ALL_VISIBLE; heapam.c
// heapgetpage skips per-tuple checks on all-visible pages): after VACUUM a
// seqscan in page_flag mode skips every page's tuple checks.
func TestScanAfterVacuumSkipsAllVisiblePages(t *testing.T) {
	r := bhRunYAML(t, loadScanYAML+`
    - name: vacuum
      transactions: 1
      script: [{vacuum: t}]
    - name: scan3
      transactions: 1
      script: [{seqscan: t}]
`)
	if v := bhPhase(t, r, "vacuum").Visibility; v.AllVisiblePagesSet != 100 {
		t.Errorf("VACUUM marked %d pages all-visible, want 100", v.AllVisiblePagesSet)
	}
	v := bhPhase(t, r, "scan3").Visibility
	if v.AllVisibleSkips != 100 || v.TuplesChecked != 0 || v.HintBitHits != 0 {
		t.Errorf("scan after VACUUM: %d all-visible skips, %d tuples checked; want 100 and 0", v.AllVisibleSkips, v.TuplesChecked)
	}
	if v := bhPhase(t, r, "scan2").Visibility; v.AllVisibleSkips != 0 {
		t.Errorf("scan before VACUUM skipped %d pages", v.AllVisibleSkips)
	}
}

// docs/model.md (Jeff Davis's 2013 "Removing
// PD_ALL_VISIBLE" patch, policy all_visible: vm): with the page flag gone
// a scan of a table of at least vm_skip_threshold (32) pages pins the VM
// page and tests one bit per heap page; a smaller table checks every
// tuple. In page_flag mode both skip on the page flag without the VM.
func TestVMModeThreshold(t *testing.T) {
	const yaml = `
name: vm
server: {autovacuum: false, system_catalogs: false} # the scans' reads only
storage: {data: nvme, wal: nvme}
tables:
  relations:
    - {name: t31, pages: 31}
    - {name: t32, pages: 32}
    - {name: t33, pages: 33}
workload:
  phases:
    - {name: s31, transactions: 1, script: [{seqscan: t31}]}
    - {name: s32, transactions: 1, script: [{seqscan: t32}]}
    - {name: s33, transactions: 1, script: [{seqscan: t33}]}
`
	vm := bhRunYAML(t, yaml, "policies.all_visible.mode=vm")
	v31, v33 := bhPhase(t, vm, "s31"), bhPhase(t, vm, "s33")
	if v := v31.Visibility; v.TuplesChecked != 31*61 || v.AllVisibleSkips != 0 || v.VMLookups != 0 {
		t.Errorf("vm, 31 pages: %d tuples checked, %d skips, %d VM tests; want %d, 0, 0", v.TuplesChecked, v.AllVisibleSkips, v.VMLookups, 31*61)
	}
	if v := v33.Visibility; v.TuplesChecked != 0 || v.AllVisibleSkips != 33 || v.VMLookups != 33 {
		t.Errorf("vm, 33 pages: %d tuples checked, %d skips, %d VM tests; want 0, 33, 33", v.TuplesChecked, v.AllVisibleSkips, v.VMLookups)
	}
	if v := bhPhase(t, vm, "s32").Visibility; v.VMLookups != 32 || v.AllVisibleSkips != 32 {
		t.Errorf("vm, 32 pages (= the threshold): %d VM tests, %d skips; want 32, 32 (only smaller tables skip the VM)", v.VMLookups, v.AllVisibleSkips)
	}
	// The 33-page scan also reads the VM page through shared buffers.
	if v31.Buffers.Reads != 31 || v33.Buffers.Reads != 34 {
		t.Errorf("vm: buffer reads %d and %d, want 31 and 33 + 1 VM page", v31.Buffers.Reads, v33.Buffers.Reads)
	}
	pf := bhRunYAML(t, yaml)
	for _, c := range []struct {
		name  string
		pages int64
	}{{"s31", 31}, {"s32", 32}, {"s33", 33}} {
		p := bhPhase(t, pf, c.name)
		if v := p.Visibility; v.AllVisibleSkips != c.pages || v.TuplesChecked != 0 || v.VMLookups != 0 || p.Buffers.Reads != c.pages {
			t.Errorf("page_flag, %d pages: %d skips, %d checked, %d VM tests, %d reads; want %d, 0, 0, %d",
				c.pages, v.AllVisibleSkips, v.TuplesChecked, v.VMLookups, p.Buffers.Reads, c.pages, c.pages)
		}
	}
}

// docs/model.md (the 2011 hint-bit cache): when every
// unhinted xid of a page is known committed to the backend's cache, the
// page is answered without a clog lookup and without setting hint bits,
// so it is not dirtied; a miss falls back to PostgreSQL's path (clog,
// hints, dirty) and teaches the cache the xid. Two tables loaded by one
// transaction and scanned by one backend: only the very first page is
// dirtied.
func TestHintCacheAnswersWithoutDirtying(t *testing.T) {
	const yaml = `
name: hbcache
server: {autovacuum: false}
storage: {data: nvme, wal: nvme}
tables:
  relations:
    - {name: a, rows: 0}
    - {name: b, rows: 0}
workload:
  phases:
    - name: load
      transactions: 1
      script:
        - begin: true
        - insert: {table: a, rows: 3050}
        - insert: {table: b, rows: 3050}
        - commit: true
        - checkpoint: true
    - name: scan
      transactions: 1
      script: [{seqscan: a}, {seqscan: b}]
`
	on := bhPhase(t, bhRunYAML(t, yaml, "policies.hint_cache.enabled=true"), "scan").Visibility
	off := bhPhase(t, bhRunYAML(t, yaml), "scan").Visibility
	if off.HintDirtiedPages != 100 || off.HintCacheHits != 0 {
		t.Errorf("cache off: %d pages hint-dirtied, %d cache hits; want 100, 0", off.HintDirtiedPages, off.HintCacheHits)
	}
	if on.HintDirtiedPages != 1 || on.HintCacheHits != 6100-61 || on.HintCacheMisses != 1 || on.ClogLookups != 61 {
		t.Errorf("cache on: %d pages dirtied, %d cache hits, %d misses, %d clog lookups; want 1, %d, 1, 61",
			on.HintDirtiedPages, on.HintCacheHits, on.HintCacheMisses, on.ClogLookups, 6100-61)
	}
}

// docs/model.md (clog.c, slru.c): 32768 xids per clog page; 9.1 has 8
// clog buffers, 9.6-16 min(128, max(4, NBuffers/512)) = 32 at 128MB. One
// transaction per row for 300000 rows spreads the xids over 10 clog pages;
// the first scan looks each row's xid up in clog order, so with 8 buffers
// it misses on pages evicted since they were written (the latest page
// never is), with 32 it never misses.
func TestClogMissesWhenXidsSpanMoreClogPagesThanBuffers(t *testing.T) {
	if testing.Short() {
		t.Skip("300000 transactions")
	}
	const yaml = `
name: clog
server: {autovacuum: false, synchronous_commit: false}
storage: {data: nvme, wal: nvme}
tables:
  relations:
    - {name: t, rows: 0}
workload:
  phases:
    - name: load
      transactions: 1
      script: [{insert: {table: t, rows: 300000, commit_every: 1}}]
    - name: scan
      transactions: 1
      script: [{seqscan: t}]
`
	v91 := bhPhase(t, bhRunYAML(t, yaml, "server.version=9.1"), "scan").Visibility
	v96 := bhPhase(t, bhRunYAML(t, yaml, "server.version=9.6"), "scan").Visibility
	if v91.ClogSLRUMisses < 8 {
		t.Errorf("9.1 (8 clog buffers): %d clog misses scanning xids of 10 clog pages, want >= 8", v91.ClogSLRUMisses)
	}
	if v96.ClogSLRUMisses != 0 {
		t.Errorf("9.6 (32 clog buffers): %d clog misses, want 0", v96.ClogSLRUMisses)
	}
	if v91.TuplesChecked != 300000 || v96.TuplesChecked != 300000 {
		t.Errorf("tuples checked %d / %d, want 300000", v91.TuplesChecked, v96.TuplesChecked)
	}
}
