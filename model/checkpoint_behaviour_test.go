package model_test

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// Checkpoint triggers end to end (/work/shared/docs/pg-buffers-facts.md
// §4.1; checkpointer.c CheckpointerMain, xlog.c XLogCheckpointNeeded).

// A timed checkpoint starts when checkpoint_timeout has passed since the
// previous one started, so starts are evenly spaced: 30, 60, 90 s.
func TestTimedCheckpointsStartTimeoutApart(t *testing.T) {
	r := bhRunYAML(t, `
name: timed
server: {checkpoint_timeout: 30s, autovacuum: false}
storage: {data: nvme, wal: nvme}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: run, duration: 95s, clients: 2, rate: 50}
`)
	var starts []float64
	for _, m := range r.Marks {
		if strings.HasPrefix(m.Label, "checkpoint start") {
			if m.Label != "checkpoint start (time)" {
				t.Errorf("%q at %.3f s: only timed checkpoints expected", m.Label, m.TimeS)
			}
			starts = append(starts, m.TimeS)
		}
	}
	if !slices.Equal(starts, []float64{30, 60, 90}) {
		t.Fatalf("checkpoints started at %v s, want [30 60 90]", starts)
	}
	// The completed ones (the third is still writing when the run ends)
	// finished within their interval.
	for i, c := range r.Checkpoints {
		if c.StartS != starts[i] || c.EndS > c.StartS+30 {
			t.Errorf("checkpoint %d: %.3f .. %.3f s", i, c.StartS, c.EndS)
		}
	}
}

// A WAL-triggered checkpoint is requested when WAL enters segment
// redo_segment + CheckPointSegments - 1 (xlog.c XLogCheckpointNeeded), so
// consecutive starts are (CheckPointSegments - 1) x 16 MB of WAL apart, up
// to the position of the record that crossed the boundary within its
// segment: 9.4 with checkpoint_segments 3: 32 MB; 17 with max_wal_size
// 160MB: floor(10 / 1.9) = 5 segments, 64 MB.
func TestWALTriggeredCheckpointsEveryCheckPointSegments(t *testing.T) {
	const seg = 16 << 20
	for _, c := range []struct {
		version string
		cps     int64
	}{{"9.4", 3}, {"17", 5}} {
		r := bhRunYAML(t, `
name: walckpt
server:
  version: "`+c.version+`"
  shared_buffers: 8MB
  max_wal_size: 160MB
  checkpoint_segments: 3
  checkpoint_timeout: 1h
  autovacuum: false
storage: {data: nvme, wal: nvme}
tables:
  relations:
    - {name: h, rows: 0}
workload:
  phases:
    - name: load
      transactions: 25
      script:
        - insert: {table: h, rows: 100000}
`)
		want := (c.cps - 1) * seg
		if n := int64(len(r.Checkpoints)); n < 3 || n > r.Totals.WAL.Bytes/want {
			t.Fatalf("%s: %d checkpoints for %d MB of WAL, want %d", c.version, n, r.Totals.WAL.Bytes>>20, r.Totals.WAL.Bytes/want)
		}
		prevEnd := -1.0
		for i, ck := range r.Checkpoints {
			deferred := ck.StartS == prevEnd // requested while the previous one ran
			prevEnd = ck.EndS
			if ck.Reason != "wal" {
				t.Errorf("%s checkpoint %d: reason %q, want wal", c.version, i, ck.Reason)
			}
			if deferred {
				continue
			}
			if d := ck.WALBytes - want; math.Abs(float64(d)) >= 16<<10 {
				t.Errorf("%s checkpoint %d started %d bytes of WAL after the previous one, want %d MB +- one record", c.version, i, ck.WALBytes, want>>20)
			}
		}
	}
}

// CreateCheckPoint (xlog.c) skips a timed checkpoint when no important WAL
// was written since the previous one: "checkpoint skipped because system
// is idle" (only shutdown, end-of-recovery and CHECKPOINT_FORCE
// checkpoints are always taken).
func TestTimedCheckpointSkippedWhenIdle(t *testing.T) {
	t.Skip("BUG: checkpointer.begin runs every timed checkpoint, even when no WAL was inserted since the previous one")
	r := bhRunYAML(t, `
name: idle
server: {checkpoint_timeout: 30s, autovacuum: false}
tables:
  relations:
    - {name: t, pages: 10}
workload:
  phases:
    - name: idle
      transactions: 1
      script:
        - sleep: 100s
`)
	if r.Totals.WAL.Bytes != 0 {
		t.Fatalf("an idle run wrote %d bytes of WAL", r.Totals.WAL.Bytes)
	}
	if len(r.Checkpoints) != 0 {
		t.Fatalf("%d timed checkpoints on an idle system, want 0 (skipped)", len(r.Checkpoints))
	}
}
