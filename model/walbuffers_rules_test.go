package model_test

import (
	"math"
	"testing"
)

// wal_buffers (xlog.c AdvanceXLInsertBuffer): an INSERT of 100000 rows of
// 105 bytes writes about 16 MB of WAL in one statement; with
// shared_buffers 128 MB wal_buffers is 4 MB (XLOGChooseNumBuffers), so the
// backend finds every page after the first 4 MB still unwritten and
// writes the page 4 MB back itself: pg_stat_wal's wal_buffers_full, which
// PostgreSQL 15 gave as 1448 for this statement on the development
// machine. Each write costs costs.os_write of the backend's CPU. With
// wal_buffers 16 MB nothing is full. The WAL writer, which writes (and
// flushes) everything inserted every wal_writer_delay, is kept out by a
// long delay, as PostgreSQL's did not run during that statement; with
// its 200 ms it takes some of the writes.
func TestWALBuffersFullWrittenByTheBackend(t *testing.T) {
	const doc = `name: wal-buffers
server: {version: "15", shared_buffers: 128MB, autovacuum: false, cpus: 2}
os: {page_cache: 2GB}
tables:
  relations:
    - {name: t, rows: 0, row_width: 105}
workload:
  phases:
    - {name: insert, transactions: 1, script: {text: "INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 100000) g;\n"}}
`
	auto := bhPhase(t, bhRunYAML(t, doc, "server.wal_writer_delay=10s"), "insert")
	lsnSpan := float64(auto.WAL.Bytes) * 8192 / 8168 // the records and the pages' headers
	want := math.Ceil((lsnSpan - 4<<20) / 8192)
	if got := float64(auto.WAL.BuffersFull); math.Abs(got-want) > 2 || math.Abs(got-1448) > 0.02*1448 {
		t.Errorf("wal_buffers_full %.0f, want (%.0f bytes of WAL - 4 MB) / 8 kB = %.0f, near PostgreSQL's 1448", got, lsnSpan, want)
	}
	if auto.WAL.Writes < auto.WAL.BuffersFull+1 {
		t.Errorf("wal_write %d, want the %d full buffers' writes and the commit's", auto.WAL.Writes, auto.WAL.BuffersFull)
	}
	big := bhPhase(t, bhRunYAML(t, doc, "server.wal_writer_delay=10s", "server.wal_buffers=16MB"), "insert")
	if big.WAL.BuffersFull != 0 {
		t.Errorf("wal_buffers 16 MB: %d pages written for a full buffer, want 0", big.WAL.BuffersFull)
	}
	if d, want := auto.CPU.BusySeconds-big.CPU.BusySeconds, float64(auto.WAL.BuffersFull)*3e-6; math.Abs(d-want) > 0.01*want {
		t.Errorf("busy %.6f s more with 4 MB of WAL buffers, want %d writes x os_write 3 us = %.6f s", d, auto.WAL.BuffersFull, want)
	}
	if auto.ExecutionMS <= big.ExecutionMS {
		t.Errorf("execution %.3f ms with 4 MB of WAL buffers, %.3f with 16 MB: want the writes in the statement's time", auto.ExecutionMS, big.ExecutionMS)
	}
	// Explicit sizes under 4 pages are 4 pages (check_wal_buffers).
	tiny := bhPhase(t, bhRunYAML(t, doc, "server.wal_writer_delay=10s", "server.wal_buffers=8kB"), "insert")
	if d := tiny.WAL.BuffersFull - auto.WAL.BuffersFull; math.Abs(float64(d)-float64((4<<20)-4*8192)/8192) > 2 {
		t.Errorf("wal_buffers 8kB: %d full buffers, want %d more than with 4 MB (a 32 kB ring)", tiny.WAL.BuffersFull, (4<<20-4*8192)/8192)
	}
	writer := bhPhase(t, bhRunYAML(t, doc), "insert")
	if writer.WAL.BuffersFull >= auto.WAL.BuffersFull || writer.WAL.BuffersFull == 0 {
		t.Errorf("with the WAL writer every 200 ms: %d full buffers, want fewer than %d and some", writer.WAL.BuffersFull, auto.WAL.BuffersFull)
	}
}
