package pgcompare

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Step is one action of an experiment. Its parts run in this order:
// Restart, DropCaches, SQL, Pgbench.
type Step struct {
	// Name labels the step's Result.
	Name string
	// SQL statements run in one session, in order, each in autocommit
	// mode. If Explain is true the last one runs under Explain.
	SQL     []string
	Explain bool
	// Restart, if non-nil, restarts the server with these settings merged
	// in, leaving shared buffers empty. The shared session is reopened.
	Restart Settings
	// DropCaches also drops the OS page cache, if allowed here; whether it
	// was done is recorded in the next Result (CachesDropped).
	DropCaches bool
	// Pgbench, if non-nil, runs pgbench with these arguments (for example
	// "-T", "30", "-c", "4", "-j", "2", "-R", "200", "-b", "tpcb-like").
	Pgbench []string
	// Measure takes snapshots before and after the step's SQL and pgbench
	// work and the usage counts after it, producing a Result. For pgbench
	// steps the statistics are reset first and the after-snapshot is taken
	// with Settle, since pgbench's sessions flush their counters late.
	Measure bool
	// NewSession runs the step in a fresh session; otherwise one session
	// is shared by the experiment's SQL steps (until a restart).
	NewSession bool
	// PgbenchSetup opens and closes a connection before the step's
	// session, inside the measurement, as pgbench does before its clients
	// when it runs only script files (pgbench.c main: doConnect, then
	// PQfinish): for steps the simulator runs as a script file.
	PgbenchSetup bool
	// TimeAgain, for a Measure step with Explain, runs its explained
	// statement this many times more after the step's measurement, each
	// in a fresh session as the step's own, unmeasured, and keeps each
	// Execution Time (Result.ExecAgainMS). It is for a statement whose run
	// leaves the state as it found it (a read-only scan of pages already
	// hinted, through a ring): its times are samples of one figure, the
	// fastest of which resists a host that slows some of them
	// (Measure.FastestOwnExecMS).
	TimeAgain int
	// TimeAgainPause is the wait before each further run: a host's slow
	// spells last a second or more, and runs spread over them are
	// samples of more than one.
	TimeAgainPause time.Duration
}

// Experiment is a sequence of steps against one fresh cluster.
type Experiment struct {
	Name     string
	Settings Settings
	Steps    []Step
}

// Result is the measurement of one Measure step.
type Result struct {
	Experiment, Step string
	// Delta is the after snapshot minus the before snapshot. Its Database
	// counters have SnapshotOverhead subtracted, so they count only the
	// step's work (plus any background activity such as the checkpointer).
	Delta Snapshot
	// SnapshotOverhead is what the snapshots themselves added to the
	// pg_stat_database counters during the step, as calibrated right
	// before it: the cost of one snapshot times the number of snapshots
	// (1 for SQL steps, SettleReads for pgbench steps). Delta.Database +
	// SnapshotOverhead is the raw difference.
	SnapshotOverhead map[string]int64
	// Explain holds the EXPLAIN totals when Step.Explain was set.
	Explain *ExplainBuffers
	// Usage is the pg_buffercache state after the step.
	Usage Usage
	// Pgbench is pgbench's stdout and Transactions its "number of
	// transactions actually processed", for pgbench steps.
	Pgbench      string
	Transactions int64
	// ExecAgainMS are the Execution Times of the step's Step.TimeAgain
	// further runs of its explained statement.
	ExecAgainMS []float64
	// WallSeconds is the duration of the step's SQL and pgbench work.
	WallSeconds float64
	// Device is what the block device under the cluster read during the
	// step's session and work, measured only when the OS page cache was
	// dropped before the step (CachesDropped) and the cluster is on a
	// block device; nil otherwise.
	Device *DeviceIO
	// Restarted and CachesDropped tell whether the server was restarted, or
	// the OS page cache dropped, since the previous measured step.
	Restarted, CachesDropped bool
	// Settled and SettleReads describe the after-snapshot of a pgbench step.
	Settled     bool
	SettleReads int
	// Unsettled lists the counters still moving when Settled is false.
	Unsettled []string `json:",omitempty"`
}

// Run starts a cluster with e.Settings, runs the steps in order, closes the
// cluster and returns one Result per measured step. On error it returns the
// results gathered so far together with the error; the cluster is closed in
// every case.
func Run(ctx context.Context, e Experiment) (_ []Result, err error) {
	c, err := Start(ctx, e.Settings)
	if err != nil {
		return nil, fmt.Errorf("experiment %q: %w", e.Name, err)
	}
	r := &runState{c: c, exp: e}
	defer func() {
		r.closeShared(ctx)
		err = errors.Join(err, c.Close())
	}()
	for _, st := range e.Steps {
		if err := r.step(ctx, st); err != nil {
			return r.results, fmt.Errorf("experiment %q step %q: %w", e.Name, st.Name, err)
		}
	}
	return r.results, nil
}

// runState is the mutable state of one Run.
type runState struct {
	c      *Cluster
	exp    Experiment
	shared *pgx.Conn // session reused across steps; nil until needed
	// mon reads the statistics in a session of its own; nil until needed
	// and after a restart. cat is its catalog map, kept across restarts
	// (which change no relation) and refreshed after steps that may.
	mon     *Monitor
	cat     *catalogMap
	results []Result
	// Events since the last measured step, reported in its Result.
	restarted, dropped bool
}

// session returns the connection a step runs in and a function to release it.
func (r *runState) session(ctx context.Context, fresh bool) (*pgx.Conn, func(), error) {
	if fresh {
		conn, err := r.c.Conn(ctx)
		if err != nil {
			return nil, nil, err
		}
		return conn, func() { _ = conn.Close(ctx) }, nil
	}
	if r.shared == nil {
		conn, err := r.c.Conn(ctx)
		if err != nil {
			return nil, nil, err
		}
		r.shared = conn
	}
	return r.shared, func() {}, nil
}

// closeShared ends the shared session and the monitor's; errors are
// irrelevant since the sessions are discarded either way (for example,
// killed by a restart).
func (r *runState) closeShared(ctx context.Context) {
	if r.shared != nil {
		_ = r.shared.Close(ctx)
		r.shared = nil
	}
	if r.mon != nil {
		_ = r.mon.conn.Close(ctx)
		r.mon = nil
	}
}

// monitor returns the monitor session, opening and priming it if needed. A
// new monitor reuses the catalog map of the previous one when no step changed
// relations since, so that reopening it after a restart reads no catalog
// pages beyond its own caches' first loads.
func (r *runState) monitor(ctx context.Context) (*Monitor, error) {
	if r.mon != nil {
		return r.mon, nil
	}
	conn, err := r.c.Conn(ctx)
	if err != nil {
		return nil, err
	}
	m := &Monitor{conn: conn, major: r.c.Major(), dataDir: r.c.dataDir}
	if r.cat != nil {
		m.cat = *r.cat
	} else if err := m.Refresh(ctx); err != nil {
		_ = conn.Close(ctx)
		return nil, err
	}
	if err := m.Prime(ctx); err != nil {
		_ = conn.Close(ctx)
		return nil, err
	}
	r.mon, r.cat = m, &m.cat
	return m, nil
}

// refresh re-reads the relations after a step that may have changed them.
func (r *runState) refresh(ctx context.Context) error {
	if r.mon == nil {
		r.cat = nil
		_, err := r.monitor(ctx) // resolves the map as it opens
		return err
	}
	return r.mon.Refresh(ctx) // r.cat points at r.mon.cat
}
