package model_test

import "testing"

// 18's VACUUM reads its first heap pass through a read stream whose
// pending read merges consecutive blocks whether they are in shared
// buffers or not; StartReadBuffers reads the blocks not in shared buffers
// up to the first that is (forwarded to the next read), a hit decays the
// distance by one and every read of the stream's own doubles it when the
// scan reaches it (read_stream.c read_stream_look_ahead,
// read_stream_start_pending_read, read_stream_next_buffer; bufmgr.c
// StartReadBuffersImpl). Measured on PostgreSQL 18.3 (io_method worker,
// maintenance_io_concurrency 16), VACUUM after 3000 keyed DELETEs from one
// pgbench client (--random-seed 5) on a 1725-page table with 128MB of
// shared buffers: 304 blocks in 255 reads (2490368 bytes), 3117 hits and
// 48 reuses of the VACUUM ring, the distance staying at 1 until block 172
// and reaching 94 (max_pinned_buffers) by block 206; traced, it reads each
// run of uncached blocks as the rule above does.
func TestVacuumReadStreamReads(t *testing.T) {
	r := bhRunYAML(t, `name: vacuum-stream
seed: 1
server: {version: "18", shared_buffers: 128MB, cpus: 2, autovacuum: false}
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
		if row.Reads != 255 || bytes != 304*8192 || row.Reuses != 48 {
			t.Errorf("VACUUM's stream: %d reads of %d bytes, %d reuses; want 255 reads of %d bytes (304 blocks), 48 reuses", row.Reads, bytes, row.Reuses, 304*8192)
		}
		return
	}
	t.Fatal("no client backend vacuum row in pg_stat_io")
}
