package pgcompare

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// gauges are pg_stat_database columns that are current values rather than
// cumulative counters; a snapshot does not "cost" anything in them.
var gauges = map[string]bool{"numbackends": true}

// step runs one step of the experiment.
func (r *runState) step(ctx context.Context, st Step) error {
	if st.Explain && len(st.SQL) == 0 {
		return errors.New("Explain is set but the step has no SQL")
	}
	if st.Restart != nil {
		// The restart terminates the session anyway; closing it first
		// avoids a pointless error on its next use.
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
	if len(st.SQL) == 0 && st.Pgbench == nil && !st.Measure {
		return nil
	}
	conn, release, err := r.session(ctx, st.NewSession)
	if err != nil {
		return err
	}
	defer release()
	if !st.Measure {
		_, err := r.work(ctx, conn, st)
		return err
	}
	return r.measure(ctx, conn, st)
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

// measure runs a Measure step between snapshots and records its Result.
func (r *runState) measure(ctx context.Context, conn *pgx.Conn, st Step) error {
	isBench := st.Pgbench != nil
	if isBench {
		if err := ResetStats(ctx, conn); err != nil {
			return err
		}
	}
	unit, before, err := calibrate(ctx, conn)
	if err != nil {
		return err
	}
	// The usage-count query once before the work: its plan's catalog
	// lookups are then cached in the session, and the query after the
	// work reads (and evicts) as little as possible of shared buffers.
	if _, err := UsageCounts(ctx, conn); err != nil {
		return err
	}
	out, err := r.work(ctx, conn, st)
	if err != nil {
		return err
	}
	var after Snapshot
	info := SettleInfo{Reads: 1, Settled: true}
	if isBench {
		after, info, err = Settle(ctx, conn, SettleMax)
	} else {
		after, err = TakeSnapshot(ctx, conn)
	}
	if err != nil {
		return err
	}
	usage, err := UsageCounts(ctx, conn)
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
		Restarted:   r.restarted, CachesDropped: r.dropped,
	}
	if isBench {
		res.Settled, res.SettleReads, res.Unsettled = info.Settled, info.Reads, info.Changed
	}
	r.results = append(r.results, res)
	r.restarted, r.dropped = false, false
	return nil
}

// calibrate measures what one snapshot adds to the database-level counters
// and returns that cost together with a fresh snapshot to use as "before".
// A throw-away snapshot comes first because the first one in a session also
// pays for cold catalog caches and statement preparation; the next two are
// back to back, so their difference is exactly one snapshot's cost (its
// reads plus the flush call of the following one). Time columns are left
// out (noise), as are gauges and zero entries.
func calibrate(ctx context.Context, conn *pgx.Conn) (map[string]int64, Snapshot, error) {
	if _, err := TakeSnapshot(ctx, conn); err != nil {
		return nil, Snapshot{}, fmt.Errorf("calibrate: %w", err)
	}
	s0, err := TakeSnapshot(ctx, conn)
	if err != nil {
		return nil, Snapshot{}, fmt.Errorf("calibrate: %w", err)
	}
	s1, err := TakeSnapshot(ctx, conn)
	if err != nil {
		return nil, Snapshot{}, fmt.Errorf("calibrate: %w", err)
	}
	unit := map[string]int64{}
	for k, v := range minusMap(s1.Database, s0.Database) {
		if v != 0 && !isTime(k) && !gauges[k] {
			unit[k] = v
		}
	}
	return unit, s1, nil
}

// scale multiplies every counter by n.
func scale(m map[string]int64, n int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v * n
	}
	return out
}
