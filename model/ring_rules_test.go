package model

import "testing"

// docs/model.md (freelist.c StrategyRejectBuffer, bufmgr.c GetVictimBuffer,
// README "Buffer Ring Replacement Strategy"): when a BULKREAD ring comes
// back to a buffer that the scan dirtied and whose write would need a WAL
// flush, the ring gives it up and takes a buffer from the clock sweep
// instead, so "a seqscan that dirties every page (hint bits plus WAL)
// degrades to the normal strategy". With wal_log_hints the first scan of
// a freshly loaded table logs a hint FPI on every page (advancing its LSN
// past the flushed WAL); without it the hint bits dirty the pages but
// leave their LSN alone, so the ring keeps writing its own buffers.
func TestBulkReadRingRejectsBuffersNeedingWALFlush(t *testing.T) {
	for _, hints := range []bool{true, false} {
		sc := rtIdleScenario(512, 10)
		sc.Server.WALLogHints = hints
		sc.Server.WALWriterDelay = 10 * sec
		fresh := rtTable("fresh", 1000)
		fresh.State = "fresh" // loaded, never read: no hint bits
		sc.Tables.Relations = []TableConfig{fresh}
		sc.Workload.Phases[0].Script.Steps = []Step{{Seqscan: &TableStep{Table: "fresh", Pick: "client"}}}
		e, r := rtRun(t, sc)
		st := e.pool.Stats
		// pg_stat_io (16+) counts a victim once GetVictimBuffer has
		// claimed it: a rejected ring buffer is no reuse; the buffer taken
		// instead is an eviction when it held a page (the free list's 512
		// empty buffers do not).
		var reuses, evictions int64
		for _, row := range r.Totals.PGStatIO {
			if row.BackendType == "client backend" && row.Context == "bulkread" {
				reuses, evictions = row.Reuses, row.Evictions
			}
		}
		if int64(st.RingReuses)-int64(st.RingRejects) != reuses {
			t.Errorf("wal_log_hints=%v: pg_stat_io reuses %d, want the ring's reuses less its rejections, %d - %d", hints, reuses, st.RingReuses, st.RingRejects)
		}
		if got := r.Totals.Visibility.HintDirtiedPages; got != 1000 {
			t.Fatalf("wal_log_hints=%v: the scan hint-dirtied %d pages, want 1000", hints, got)
		}
		if hints {
			if r.Totals.WAL.FPIHint != 1000 {
				t.Fatalf("wal_log_hints on: %d hint FPIs, want one per page (1000)", r.Totals.WAL.FPIHint)
			}
			// After the first lap every ring buffer is dirty with an
			// unflushed LSN: each is rejected and replaced from the sweep.
			if st.RingRejects < 900 || st.Alloc < 900 {
				t.Errorf("wal_log_hints on: %d ring rejections, %d allocations; want ~968 of each (the ring degrades to the normal strategy)", st.RingRejects, st.Alloc)
			}
			if reuses != 0 || evictions != 1000-512 {
				t.Errorf("wal_log_hints on: pg_stat_io bulkread reuses %d, evictions %d; want 0 (every ring buffer rejected) and 488 (the 1000 pages less the 512 free buffers)", reuses, evictions)
			}
		} else {
			if st.RingRejects != 0 || st.Alloc != 32 || st.RingReuses != 968 {
				t.Errorf("wal_log_hints off: %d rejections, alloc %d, ring reuses %d; want 0, 32, 968", st.RingRejects, st.Alloc, st.RingReuses)
			}
			if reuses != 968 || evictions != 0 {
				t.Errorf("wal_log_hints off: pg_stat_io bulkread reuses %d, evictions %d; want 968 and 0", reuses, evictions)
			}
			if e.bufWrites.backend != 968 {
				t.Errorf("wal_log_hints off: the scan wrote %d of its dirty ring buffers, want 968 (all but the last 32)", e.bufWrites.backend)
			}
		}
	}
}
