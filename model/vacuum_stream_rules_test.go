package model_test

import (
	"fmt"
	"testing"
)

// 18's VACUUM reads its first heap pass through a read stream whose
// pending read merges consecutive blocks whether they are in shared
// buffers or not; StartReadBuffers reads the blocks not in shared buffers
// up to the first that is (forwarded to the next read), a hit decays the
// distance by one and every read of the stream's own doubles it when the
// scan reaches it (read_stream.c read_stream_look_ahead,
// read_stream_start_pending_read, read_stream_next_buffer; bufmgr.c
// StartReadBuffersImpl). With io_method sync the reads are the same, done
// when the scan reaches them. Measured on PostgreSQL 18.3 (io_method
// worker and sync alike, maintenance_io_concurrency 16), VACUUM after 3000
// keyed DELETEs from one
// pgbench client (--random-seed 5) on a 1725-page table with 128MB of
// shared buffers: 304 blocks in 255 reads (2490368 bytes), 3117 hits and
// 48 reuses of the VACUUM ring, the distance staying at 1 until block 172
// and reaching 94 (max_pinned_buffers) by block 206; traced, it reads each
// run of uncached blocks as the rule above does. With io_method sync the
// stream advises the kernel of its reads (read_stream_start_pending_read:
// a random jump while something is pinned, then the reads of that
// sequential region until the scan reaches its first block): strace
// counted 220 fadvise64 calls by that VACUUM's backend.
func TestVacuumReadStreamReads(t *testing.T) {
	for _, c := range []struct {
		method      string
		mic         int
		reads, advs int64
	}{
		{"worker", 16, 255, 0},
		{"sync", 16, 255, 220},
		// maintenance_io_concurrency 0: one read at a time and 16 pins
		// (max_ios 0 bumped to 1, max_pinned_buffers (0 + 1) x
		// io_combine_limit), no advice: 287 reads on 18.3.
		{"worker", 0, 287, 0},
	} {
		vacuumStreamReads(t, c.method, c.mic, c.reads, c.advs)
	}
}

func vacuumStreamReads(t *testing.T, method string, mic int, wantReads, wantAdvice int64) {
	r := bhRunYAML(t, `name: vacuum-stream
seed: 1
server: {version: "18", shared_buffers: 128MB, cpus: 2, autovacuum: false, io_method: `+method+`, maintenance_io_concurrency: `+fmt.Sprint(mic)+`}
os: {page_cache: 2GB, start: loaded, read_ahead: 8192kB, max_writeback_batch: 4096kB}
tables:
  relations:
    - {name: t_vac, rows: 100000, row_width: 105, index: true, key: id}
workload:
  phases:
    - {name: delete, warmup: true, restart: true, transactions: 3000, random_seed: 5, script: {text: "\\set id random(1, 100000)\nDELETE FROM t_vac WHERE id = :id;\n"}}
    - {name: vacuum, transactions: 1, script: [{vacuum: t_vac}]}
`)
	for _, row := range bhPhase(t, r, "vacuum").Metrics.PGStatIO {
		if row.BackendType != "client backend" || row.Context != "vacuum" {
			continue
		}
		var bytes int64 = -1
		if row.ReadBytes != nil {
			bytes = *row.ReadBytes
		}
		if advice := bhPhase(t, r, "vacuum").OSCache.AdviceCalls; advice != wantAdvice {
			t.Errorf("io_method %s, maintenance_io_concurrency %d: VACUUM advised %d reads, want %d", method, mic, advice, wantAdvice)
		}
		if row.Reads != wantReads || bytes != 304*8192 || row.Reuses != 48 {
			t.Errorf("io_method %s, maintenance_io_concurrency %d, VACUUM's stream: %d reads of %d bytes, %d reuses; want %d reads of %d bytes (304 blocks), 48 reuses", method, mic, row.Reads, bytes, row.Reuses, wantReads, 304*8192)
		}
		return
	}
	t.Fatalf("io_method %s, maintenance_io_concurrency %d: no client backend vacuum row in pg_stat_io", method, mic)
}

// ANALYZE's stream at 18 reads the same with io_method sync as with
// worker, and advises nothing where it samples every block of the table
// (a sequential stream: no jump while pins are held). Measured on
// PostgreSQL 18.3 with io_method sync, the differential test's analyze
// case after a restart: 10, 379, 363 and 129 reads of a 100-, a 6001-
// (twice) and a 2001-page table, and no fadvise64 call (strace).
func TestAnalyzeReadStreamSync(t *testing.T) {
	r := bhRunYAML(t, `name: analyze-sync
seed: 1
server: {version: "18", shared_buffers: 128MB, cpus: 2, autovacuum: false, io_method: sync}
os: {page_cache: 2GB, start: loaded, read_ahead: 8192kB, max_writeback_batch: 4096kB}
tables:
  relations:
    - {name: t_an, rows: 5800, row_width: 105, index: true, key: id}
    - {name: t_anbig, rows: 348000, row_width: 105, index: true, key: id}
    - {name: t_anfresh, rows: 116000, row_width: 105, index: true, key: id, state: fresh}
workload:
  phases:
    - {name: small, transactions: 1, restart: true, script: [{analyze: t_an}]}
    - {name: big, transactions: 1, script: [{analyze: t_anbig}]}
    - {name: big-again, transactions: 1, script: [{analyze: t_anbig}]}
    - {name: fresh, transactions: 1, script: [{analyze: t_anfresh}]}
`)
	for phase, want := range map[string]int64{"small": 10, "big": 379, "big-again": 363, "fresh": 129} {
		ph := bhPhase(t, r, phase)
		var reads int64 = -1
		for _, row := range ph.Metrics.PGStatIO {
			if row.BackendType == "client backend" && row.Context == "vacuum" {
				reads = row.Reads
			}
		}
		if reads != want || ph.Metrics.OSCache.AdviceCalls != 0 {
			t.Errorf("%s: %d reads and %d advice calls, want %d and none", phase, reads, ph.Metrics.OSCache.AdviceCalls, want)
		}
	}
}
