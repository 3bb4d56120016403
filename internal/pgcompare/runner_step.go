package pgcompare

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// gauges are pg_stat_database columns that are current values rather than
// cumulative counters; a snapshot does not "cost" anything in them.
var gauges = map[string]bool{"numbackends": true}

// step runs one step of the experiment.
func (r *runState) step(ctx context.Context, st Step) error {
	if st.Explain && len(st.SQL) == 0 {
		return errors.New("Explain is set but the step has no SQL")
	}
	if st.TimeAgain > 0 && !(st.Explain && st.Measure) {
		return errors.New("TimeAgain is set on a step that is not a measured EXPLAIN")
	}
	if st.Restart != nil {
		// The restart terminates the sessions anyway; closing them first
		// avoids a pointless error on their next use.
		r.closeShared(ctx)
		if err := r.c.Restart(ctx, st.Restart); err != nil {
			return err
		}
		r.restarted = true
	}
	if st.DropCaches {
		if err := DropCaches(); err != nil {
			return err
		}
		r.dropped = r.dropped || CanDropCaches()
	}
	if st.Restart != nil {
		// The monitor's new session loads its catalog caches now, right
		// after the restart, rather than between the next steps.
		if _, err := r.monitor(ctx); err != nil {
			return err
		}
	}
	if len(st.SQL) == 0 && st.Pgbench == nil && !st.Measure {
		return nil
	}
	if st.Measure {
		if err := r.measure(ctx, st); err != nil {
			return err
		}
	} else if err := r.unmeasured(ctx, st); err != nil {
		return err
	}
	if changesRelations(st) {
		return r.refresh(ctx)
	}
	return nil
}

// changesRelations reports whether a step may have created, dropped or
// rewritten relations (so that the monitor's map is stale): pgbench -i, and
// any SQL statement other than queries, DML, SET, CHECKPOINT, ANALYZE and a
// VACUUM without FULL. A statement that does not parse counts as a change.
func changesRelations(st Step) bool {
	for _, a := range st.Pgbench {
		if a == "-i" || a == "--initialize" {
			return true
		}
	}
	for _, sql := range st.SQL {
		tree, err := pg_query.Parse(sql)
		if err != nil {
			return true
		}
		for _, raw := range tree.Stmts {
			if !keepsRelations(raw.Stmt) {
				return true
			}
		}
	}
	return false
}

func keepsRelations(n *pg_query.Node) bool {
	switch {
	case n.GetSelectStmt() != nil, n.GetInsertStmt() != nil, n.GetUpdateStmt() != nil,
		n.GetDeleteStmt() != nil, n.GetVariableSetStmt() != nil, n.GetCheckPointStmt() != nil,
		n.GetTransactionStmt() != nil:
		return true
	case n.GetExplainStmt() != nil:
		return keepsRelations(n.GetExplainStmt().Query)
	case n.GetVacuumStmt() != nil:
		for _, o := range n.GetVacuumStmt().Options {
			if d := o.GetDefElem(); d != nil && d.Defname == "full" {
				return false
			}
		}
		return true
	}
	return false
}

// workOutput is what the SQL and pgbench parts of a step produced.
type workOutput struct {
	explain *ExplainBuffers
	pgbench string
	wall    float64
}

// work runs the step's SQL and pgbench parts.
func (r *runState) work(ctx context.Context, conn *pgx.Conn, st Step) (workOutput, error) {
	var out workOutput
	start := time.Now()
	plain := st.SQL
	if st.Explain {
		plain = st.SQL[:len(st.SQL)-1]
	}
	for _, s := range plain {
		if _, err := conn.Exec(ctx, s); err != nil {
			return out, fmt.Errorf("%s: %w", abbreviate(s), err)
		}
	}
	if st.Explain {
		eb, err := Explain(ctx, conn, st.SQL[len(st.SQL)-1])
		if err != nil {
			return out, err
		}
		out.explain = &eb
	}
	if st.Pgbench != nil {
		stdout, err := r.c.Pgbench(ctx, st.Pgbench...)
		if err != nil {
			return out, err
		}
		out.pgbench = stdout
	}
	out.wall = time.Since(start).Seconds()
	return out, nil
}

// bgwriterAbsorb is five cycles of the background writer at the default
// bgwriter_delay (200 ms).
const bgwriterAbsorb = time.Second

// unmeasured runs a step's work without measuring it. A fresh session's
// backend is gone before the next step starts: it publishes its counters
// as it exits, and on a slow machine that came during the next measured
// step's first snapshots (a fill of 100000 rows counted as what two
// snapshots cost, and subtracted from the UPDATE measured after it, on the
// CI machine).
func (r *runState) unmeasured(ctx context.Context, st Step) error {
	conn, release, err := r.stepSession(ctx, st)
	if err != nil {
		return err
	}
	_, err = r.work(ctx, conn, st)
	// Without a monitor yet (the steps before a case's first restart,
	// which waits for every backend) there is nothing to wait with:
	// opening one here would read its catalogs where the simulated case
	// does not, and calibrate's retries cover a session still exiting
	// when one opens.
	if err != nil || conn == nil || !st.NewSession || r.mon == nil {
		release()
		return err
	}
	return r.publish(ctx, conn, true) // closes it and waits for its backend
}

// stepSession returns the session a step's SQL runs in (nil, for a step
// without SQL) and the function that releases it.
func (r *runState) stepSession(ctx context.Context, st Step) (*pgx.Conn, func(), error) {
	if len(st.SQL) == 0 {
		return nil, func() {}, nil
	}
	return r.session(ctx, st.NewSession)
}

// measure runs a Measure step between snapshots and records its Result.
// The snapshots and usage counts are read by the monitor, whose reads touch
// no buffer. The step's SQL runs in its session, opened after the
// before-snapshot when it is a new one, so that its start-up (InitPostgres'
// catalog reads) is part of the step, as a simulated phase's connections
// are; its counters are published before the after-snapshot.
func (r *runState) measure(ctx context.Context, st Step) error {
	mon, err := r.monitor(ctx)
	if err != nil {
		return err
	}
	isBench := st.Pgbench != nil
	// pg_stat_bgwriter's buffers_alloc and buffers_backend are published
	// by the background writer and the checkpointer, late
	// (PublishBackground): the steps before this one must have reached
	// them before the before-snapshot (or the reset), or they would count
	// in this step.
	if err := mon.PublishBackground(ctx); err != nil {
		return err
	}
	if isBench {
		if err := mon.ResetStats(ctx); err != nil {
			return err
		}
	}
	unit, before, err := calibrate(ctx, mon)
	if err != nil {
		return err
	}
	if st.PgbenchSetup {
		setup, err := r.c.Conn(ctx)
		if err != nil {
			return err
		}
		if err := r.publish(ctx, setup, true); err != nil {
			return err
		}
	}
	var devBefore DeviceIO
	devErr := errors.New("page cache not dropped")
	if r.dropped {
		devBefore, devErr = ReadDeviceIO(r.c.Dir())
	}
	conn, release, err := r.stepSession(ctx, st)
	if err != nil {
		return err
	}
	defer release()
	out, err := r.work(ctx, conn, st)
	if err != nil {
		return err
	}
	var device *DeviceIO
	if devErr == nil {
		if after, err := ReadDeviceIO(r.c.Dir()); err == nil {
			d := after.Minus(devBefore)
			device = &d
		}
	}
	if conn != nil {
		if err := r.publish(ctx, conn, st.NewSession); err != nil {
			return err
		}
	}
	if err := mon.PublishBackground(ctx); err != nil {
		return err
	}
	var after Snapshot
	info := SettleInfo{Reads: 1, Settled: true}
	// Before 15 the statistics collector publishes asynchronously.
	if isBench || mon.major < 15 {
		after, info, err = mon.Settle(ctx, SettleMax)
	} else {
		after, err = mon.Snapshot(ctx)
	}
	if err != nil {
		return err
	}
	usage, err := mon.Usage(ctx)
	if err != nil {
		return err
	}
	overhead := scale(unit, int64(info.Reads))
	delta := after.Minus(before)
	delta.Database = minusMap(delta.Database, overhead)
	res := Result{
		Experiment: r.exp.Name, Step: st.Name,
		Delta: delta, SnapshotOverhead: overhead,
		Explain: out.explain, Usage: usage,
		Pgbench: out.pgbench, Transactions: ParseTransactions(out.pgbench),
		WallSeconds: out.wall,
		Device:      device,
		Restarted:   r.restarted, CachesDropped: r.dropped,
	}
	if isBench {
		res.Settled, res.SettleReads, res.Unsettled = info.Settled, info.Reads, info.Changed
	}
	if res.ExecAgainMS, err = r.timeAgain(ctx, st); err != nil {
		return err
	}
	r.results = append(r.results, res)
	r.restarted, r.dropped = false, false
	return nil
}

// timeAgain runs a measured step's explained statement st.TimeAgain times
// more, each in a fresh session (its setup SQL first), and returns their
// Execution Times.
func (r *runState) timeAgain(ctx context.Context, st Step) ([]float64, error) {
	if st.TimeAgain <= 0 {
		return nil, nil // step has checked that TimeAgain comes with Explain
	}
	again := st
	again.NewSession = true
	times := make([]float64, 0, st.TimeAgain)
	for range st.TimeAgain {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(st.TimeAgainPause):
		}
		conn, release, err := r.stepSession(ctx, again)
		if err != nil {
			return nil, err
		}
		out, err := r.work(ctx, conn, again)
		if err == nil {
			err = r.publish(ctx, conn, true)
		}
		release()
		if err != nil {
			return nil, err
		}
		times = append(times, out.explain.ExecutionMS)
	}
	return times, nil
}

// publish makes the counters of the step's session visible to the monitor
// without a catalog access in that session after the work. A fresh session
// is closed: a backend flushes its statistics as it exits
// (pgstat_shutdown_hook, a before_shmem_exit callback) before it leaves
// the backend status array (pgstat_beshutdown_hook, on_shmem_exit), so once
// its pid is gone from pg_stat_get_activity the counters are published. A
// shared session is asked to flush (pg_stat_force_next_flush, 15+), which
// it does before it reports ready for the next query.
func (r *runState) publish(ctx context.Context, conn *pgx.Conn, fresh bool) error {
	if fresh {
		pid := conn.PgConn().PID()
		_ = conn.Close(ctx)
		return r.mon.waitGone(ctx, pid)
	}
	if r.mon.major < 15 {
		return nil
	}
	if _, err := conn.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
		return fmt.Errorf("force stats flush: %w", err)
	}
	return nil
}

// calibrate measures what one snapshot adds to the database-level counters
// and returns that cost together with a fresh snapshot to use as "before".
// The monitor is primed (its catalog caches loaded), so two snapshots back
// to back differ by exactly one snapshot's cost, which is nothing: a warm
// monitor touches no buffer, and a backend without pending relation
// counters does not even publish its transactions (pgstat_report_stat
// returns before pgstat_update_dbstats). The calibration stays as a
// check of that (the unit is in Result.SnapshotOverhead). Time columns are left out (noise), as are
// gauges and zero entries.
//
// Counters published by another backend between the two snapshots (one
// that is still exiting, a checkpoint) are not a snapshot's cost: while
// two snapshots in a row differ, they are taken again, at most
// calibrateTries times, 100 ms apart.
func calibrate(ctx context.Context, mon *Monitor) (map[string]int64, Snapshot, error) {
	return settledUnit(ctx, mon.Snapshot, 100*time.Millisecond)
}

// settledUnit is calibrate over any source of snapshots, pause apart
// when two in a row differ.
func settledUnit(ctx context.Context, snapshot func(context.Context) (Snapshot, error), pause time.Duration) (map[string]int64, Snapshot, error) {
	s0, err := snapshot(ctx)
	if err != nil {
		return nil, Snapshot{}, fmt.Errorf("calibrate: %w", err)
	}
	for try := 1; ; try++ {
		s1, err := snapshot(ctx)
		if err != nil {
			return nil, Snapshot{}, fmt.Errorf("calibrate: %w", err)
		}
		unit := map[string]int64{}
		for k, v := range minusMap(s1.Database, s0.Database) {
			if v != 0 && !isTime(k) && !gauges[k] {
				unit[k] = v
			}
		}
		if len(unit) == 0 || try == calibrateTries {
			return unit, s1, nil
		}
		if err := sleep(ctx, pause); err != nil {
			return nil, Snapshot{}, err
		}
		s0 = s1
	}
}

// calibrateTries bounds calibrate's snapshots.
const calibrateTries = 20

// scale multiplies every counter by n.
func scale(m map[string]int64, n int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v * n
	}
	return out
}
