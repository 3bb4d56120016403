package model_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// Checkpoint triggers end to end (docs/model.md
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

// A WAL-triggered checkpoint is requested when the last page of segment
// redo_segment + CheckPointSegments - 1 is written (xlog.c XLogWrite asks
// XLogCheckpointNeeded with the segment it finished), so consecutive
// starts are CheckPointSegments x 16 MB of WAL apart, as
// checkpoint_segments' documentation says ("maximum number of log file
// segments between automatic WAL checkpoints"), up to where in its
// segment the write that finished it left the insert position: 9.4 with
// checkpoint_segments 3: 48 MB; 17 with max_wal_size 160MB:
// floor(10 / 1.9) = 5 segments, 80 MB. Until this version the model asked
// at the insert that entered a new segment, a segment earlier: 32 and 64
// MB.
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
		want := c.cps * seg
		done := completed(r)
		if n := int64(len(done)); n < 3 || n > r.Totals.WAL.Bytes/want {
			t.Fatalf("%s: %d checkpoints for %d MB of WAL, want %d", c.version, n, r.Totals.WAL.Bytes>>20, r.Totals.WAL.Bytes/want)
		}
		prevEnd := -1.0
		for i, ck := range done {
			deferred := ck.StartS == prevEnd // requested while the previous one ran
			prevEnd = ck.EndS
			if ck.Reason != "wal" {
				t.Errorf("%s checkpoint %d: reason %q, want wal", c.version, i, ck.Reason)
			}
			if deferred {
				continue
			}
			lo, hi := want-16<<10, want+16<<10
			if i == 0 {
				// Counted from the run's start, not from a checkpoint
				// that itself started a write's lag (up to wal_buffers,
				// 8MB / 32) past its segment's end.
				hi = want + 256<<10
			}
			if ck.WALBytes <= lo || ck.WALBytes >= hi {
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

// spikeYAML: pgbench at 100 tps on a database larger than shared buffers,
// WAL and data on one device, checkpoint_timeout 30s (a scaled-down
// configs/checkpoint-spike.yaml).
const spikeYAML = `
name: spike
seed: 1
server:
  version: "16"
  shared_buffers: 128MB
  cpus: 8
  checkpoint_timeout: 30s
  max_wal_size: 8GB
os:
  page_cache: 512MB
storage:
  data: {preset: hdd-7200, channels: 2}
  wal: data
tables:
  pgbench: {scale: 10}
workload:
  prewarm: 50000
  phases:
    - {name: run, duration: 62s, clients: 16, rate: 100, script: tpcb-like}
`

// windowStats returns the largest per-interval max latency and p99 over
// the series rows whose interval ends in (from, to], and the median of the
// per-interval max latency over the rows ending in (0, before].
func windowStats(r *model.Result, from, to, before float64) (maxIn, p99In, baseMax float64) {
	s := r.Series
	mx, p99 := s.Column("latency_max_ms"), s.Column("latency_p99_ms")
	var base []float64
	for i, ts := range s.TimeS {
		if ts > from && ts <= to {
			maxIn = math.Max(maxIn, mx[i])
			p99In = math.Max(p99In, p99[i])
		}
		if ts <= before {
			base = append(base, mx[i])
		}
	}
	slices.Sort(base)
	if len(base) > 0 {
		baseMax = base[len(base)/2]
	}
	return
}

// A checkpoint under load (§5; docs/model.md "reads queue
// behind writeback bursts"): on a 7200 rpm disk its writes and the fsyncs
// at its end fill the device queue that reads and WAL flushes share, so
// transaction latency spikes far above the pre-checkpoint level; on NVMe
// the same checkpoint is hardly visible.
func TestCheckpointLatencySpikeOnHDDNotOnNVMe(t *testing.T) {
	for _, c := range []struct {
		dev      string
		minRatio float64 // spike max / baseline max
		maxRatio float64
	}{{"hdd-7200", 5, math.Inf(1)}, {"nvme", 0, 3}} {
		r := bhRunYAML(t, spikeYAML, "storage.data.preset="+c.dev)
		done := completed(r)
		if len(done) != 1 {
			t.Fatalf("%s: %d completed checkpoints, want 1", c.dev, len(done))
		}
		ck := done[0]
		if ck.Written < 1000 {
			t.Fatalf("%s: the checkpoint wrote only %d buffers: not a heavy write load", c.dev, ck.Written)
		}
		maxIn, p99In, base := windowStats(r, ck.StartS, ck.EndS+1, ck.StartS)
		ratio := maxIn / base
		t.Logf("%s: checkpoint %.0f-%.1f s wrote %d; max latency in it %.2f ms (p99 %.2f) vs median interval max %.2f ms before: x%.1f",
			c.dev, ck.StartS, ck.EndS, ck.Written, maxIn, p99In, base, ratio)
		if ratio < c.minRatio || ratio > c.maxRatio {
			t.Errorf("%s: latency during the checkpoint x%.1f of before, want x%.0f..x%.0f", c.dev, ratio, c.minRatio, c.maxRatio)
		}
	}
}

// The same checkpoint with Linux's deadline elevator in front of the disk
// (storage.data.scheduler: deadline; block/deadline-iosched.c): reads no
// longer wait behind the checkpoint's writeback (only behind the write
// batch in progress), so the disk's read latency p99 and the transactions'
// worst case during the checkpoint fall well below FIFO's.
func TestDeadlineElevatorServesReadsFirst(t *testing.T) {
	res := map[string]*model.Result{}
	for _, s := range []string{"fifo", "deadline"} {
		res[s] = bhRunYAML(t, spikeYAML, "storage.data.preset=hdd-7200", "storage.wal=hdd-7200", "storage.data.scheduler="+s)
	}
	f, d := res["fifo"].Totals, res["deadline"].Totals
	t.Logf("disk read p99 %.1f -> %.1f ms, transaction max %.0f -> %.0f ms, p99 %.1f -> %.1f ms",
		f.Disk.ReadMS.P99, d.Disk.ReadMS.P99, f.LatencyMS.Max, d.LatencyMS.Max, f.LatencyMS.P99, d.LatencyMS.P99)
	if d.Disk.ReadMS.P99 > 0.8*f.Disk.ReadMS.P99 {
		t.Errorf("deadline read p99 %.1f ms, want < 0.8 x FIFO's %.1f ms", d.Disk.ReadMS.P99, f.Disk.ReadMS.P99)
	}
	if d.LatencyMS.Max > 0.8*f.LatencyMS.Max {
		t.Errorf("deadline worst transaction %.0f ms, want < 0.8 x FIFO's %.0f ms", d.LatencyMS.Max, f.LatencyMS.Max)
	}
	if d.Disk.Writes != f.Disk.Writes && math.Abs(float64(d.Disk.Writes)/float64(f.Disk.Writes)-1) > 0.05 {
		t.Errorf("the elevator reorders, it should not change the writes much: %d against %d", d.Disk.Writes, f.Disk.Writes)
	}
}

// completed returns the run's checkpoints that finished (the last one may
// still have been running when the run ended).
func completed(r *model.Result) []model.Checkpoint {
	var out []model.Checkpoint
	for _, c := range r.Checkpoints {
		if c.Complete {
			out = append(out, c)
		}
	}
	return out
}

// CreateCheckPoint's WAL (docs/model.md "WAL writer"; measured with
// pg_waldump): after the writes and fsyncs, the standby snapshot
// (XLOG_RUNNING_XACTS, 50 bytes with no transaction running; wal_level
// replica, the default from 10) and the checkpoint record (114 bytes from
// 12, 104 in 9.3-9.4 with the old 32-byte header), flushed; 17+ first logs
// XLOG_CHECKPOINT_REDO (30 bytes) at the redo point.
func TestCheckpointLogsItsRecords(t *testing.T) {
	for _, c := range []struct {
		version        string
		records, bytes int64
	}{{"9.4", 1, 104}, {"15", 2, 164}, {"18", 3, 194}} {
		r := bhRunYAML(t, fmt.Sprintf(`
name: ckpt-records
server: {version: "%s", autovacuum: false}
tables:
  relations:
    - {name: t, pages: 10}
workload:
  phases:
    - {name: checkpoint, transactions: 1, script: [{checkpoint: true}]}
`, c.version))
		w := bhPhase(t, r, "checkpoint").WAL
		if w.Records != c.records || w.Bytes != c.bytes || w.Flushes < 1 {
			t.Errorf("%s: CHECKPOINT logged %d records of %d bytes with %d flushes, want %d of %d and its flush", c.version, w.Records, w.Bytes, w.Flushes, c.records, c.bytes)
		}
	}
}

// The background writer logs a standby snapshot every 15 s when an
// important record came since its last one (bgwriter.c
// LOG_SNAPSHOT_INTERVAL_MS, GetLastImportantRecPtr); the snapshots and the
// checkpoint's own are unimportant, so the next timed checkpoint of an
// idle system is still skipped (9.6+: the last important record is the
// previous checkpoint's). With 10 rows inserted and then 100 s idle at
// checkpoint_timeout 30 s on 15: the background writer's snapshot after
// the insert, the timed checkpoint at 30 s (its snapshot and record), one
// more snapshot after that record, and nothing else: no checkpoint at 60 s
// or 90 s. 9.5 logs no snapshots (wal_level minimal) and skips as well
// (no WAL at all after the checkpoint record).
func TestStandbySnapshotsKeepAnIdleSystemIdle(t *testing.T) {
	for _, c := range []struct {
		version        string
		records, bytes int64
	}{{"15", 4, 50 + 50 + 114 + 50}, {"9.5", 1, 106}} {
		r := bhRunYAML(t, fmt.Sprintf(`
name: snapshots
server: {version: "%s", checkpoint_timeout: 30s, autovacuum: false}
tables:
  relations:
    - {name: t, pages: 10}
workload:
  phases:
    - {name: write, transactions: 1, script: [{insert: {table: t, rows: 10}}]}
    - {name: idle, transactions: 1, script: [{sleep: 100s}]}
`, c.version))
		w := bhPhase(t, r, "idle").WAL
		if w.Records != c.records || w.Bytes != c.bytes || len(r.Checkpoints) != 1 {
			t.Errorf("%s: 100 s idle logged %d records of %d bytes with %d checkpoints, want %d of %d and 1 (the later ones skipped)", c.version, w.Records, w.Bytes, len(r.Checkpoints), c.records, c.bytes)
		}
	}
}

// A restart starts new auxiliary processes: the checkpointer's timer runs
// from its start (CheckpointerMain: last_checkpoint_time), and the
// background writer logs its first standby snapshot 15 s after its start
// (BackgroundWriterMain: last_snapshot_ts now, last_snapshot_lsn invalid,
// and the shutdown checkpoint's record is important WAL), not 15 s after
// the previous process's last one.
func TestRestartStartsNewAuxiliaryProcesses(t *testing.T) {
	r := bhRunYAML(t, `
name: restart-aux
server: {version: "15", checkpoint_timeout: 30s, autovacuum: false}
tables:
  relations:
    - {name: t, pages: 10}
workload:
  phases:
    - {name: write, transactions: 1, script: [{insert: {table: t, rows: 10}}]}
    - {name: wait, transactions: 1, script: [{sleep: 10s}]}
    - {name: restarted, restart: true, transactions: 1, script: [{sleep: 12s}, {insert: {table: t, rows: 10}}]}
    - {name: idle, transactions: 1, script: [{sleep: 40s}]}
`)
	// The restart at 10 s; the insert at 22 s; the new background writer's
	// first snapshot at 25 s (the old one's would have come at 15 s, in
	// the restarted phase); the timed checkpoint at 40 s (not 30), which
	// logs a snapshot and its record, and the background writer a
	// snapshot after it (the checkpoint's record is important WAL).
	if w := bhPhase(t, r, "restarted").WAL; w.Records != 11 {
		t.Errorf("restarted: %d WAL records, want the insert's 10 and its commit, no standby snapshot", w.Records)
	}
	if w := bhPhase(t, r, "idle").WAL; w.Records != 4 || w.Bytes != 50+50+114+50 {
		t.Errorf("idle: %d WAL records of %d bytes, want 4 of 264 (snapshot, the checkpoint's snapshot and record, snapshot)", w.Records, w.Bytes)
	}
	if len(r.Checkpoints) != 2 || r.Checkpoints[0].Reason != "shutdown" || r.Checkpoints[1].Reason != "time" ||
		math.Abs(r.Checkpoints[1].StartS-r.Checkpoints[0].StartS-30) > 1e-6 {
		t.Errorf("checkpoints %+v, want the shutdown one and a timed one checkpoint_timeout after it", r.Checkpoints)
	}
}
