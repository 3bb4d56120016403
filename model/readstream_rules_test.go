package model

import "testing"

// docs/model.md "Read streams" (read_stream.c, heapam.c heap_beginscan,
// PostgreSQL 17+): a cold sequential scan reads 1, 2, 4, 8, then
// io_combine_limit (16) blocks per vectored read, so 1000 blocks take 66
// preadv calls instead of 1000 pread calls; pg_statio, pgBufferUsage and
// the ring see the same blocks read as before. A scan of cached blocks
// makes no read at all.
func TestSeqScanReadStream(t *testing.T) {
	for _, tc := range []struct {
		version   string
		combine   int64
		readCalls int64
	}{
		{"15", 128 << 10, 1000},
		// 1 + 2 + 4 + 8 = 15 blocks in 4 reads, then 985 in 62 (61 of
		// 16 and one of 9).
		{"17", 128 << 10, 66},
		// io_combine_limit 64kB: 1, 2, 4, 8, then 8 at a time: 4 + 124.
		{"17", 64 << 10, 128},
	} {
		sc := rtIdleScenario(512, 1000) // 1000 pages > NBuffers/4: the BULKREAD ring
		sc.Server.Version = tc.version
		sc.Server.IOCombineLimit = tc.combine
		sc.Workload.Phases[0].DropOSCache = true
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "t", Pick: "client"}}}
		e, r := rtRun(t, sc)
		ph := r.Phases[0]
		if ph.OSCache.ReadCalls != tc.readCalls {
			t.Errorf("%s, io_combine_limit %d kB: %d read calls, want %d", tc.version, tc.combine>>10, ph.OSCache.ReadCalls, tc.readCalls)
		}
		if ph.StatioTables[0].HeapBlksRead != 1000 || ph.BufferUsage.SharedBlksRead != 1000 || e.pool.Stats.RingReuses != 1000-32 {
			t.Errorf("%s: heap_blks_read %d, shared_blks_read %d, ring reuses %d; want 1000, 1000, 968",
				tc.version, ph.StatioTables[0].HeapBlksRead, ph.BufferUsage.SharedBlksRead, e.pool.Stats.RingReuses)
		}
	}
}
