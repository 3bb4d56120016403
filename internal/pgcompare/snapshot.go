package pgcompare

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Snapshot is a set of cumulative counters read at one moment. Floating
// point columns (times in milliseconds) are stored in microseconds under the
// column name plus "_us"; text, oid and timestamp columns are left out.
type Snapshot struct {
	// Database is the pg_stat_database row of the current database.
	Database map[string]int64
	// Tables maps relname (schema-qualified outside public) to the
	// pg_statio_user_tables columns merged with counters of
	// pg_stat_user_tables (n_tup_*, seq_scan, idx_scan, n_dead_tup, ...).
	Tables map[string]map[string]int64
	// Indexes maps indexrelname to pg_statio_user_indexes and
	// pg_stat_user_indexes counters.
	Indexes map[string]map[string]int64
	// Bgwriter holds pg_stat_bgwriter; on 16+ also pg_stat_io summed per
	// context ("io_<context>_<column>"); on 17+ pg_stat_checkpointer
	// ("checkpointer_<column>").
	Bgwriter map[string]int64
	// Sizes maps each user table and index (named as Tables and Indexes
	// are) to its forks' sizes in 8 kB pages, pg_relation_size(rel, fork)
	// / 8192: "main", "fsm", "vm". They are states, not counters: Minus
	// keeps the later snapshot's.
	Sizes map[string]map[string]int64
}

// TakeSnapshot reads the statistics views in the session conn. It first calls
// pg_stat_force_next_flush() (15+) so that the session's own pending
// counters, including those of SQL just run in it, are published before the
// read. All views are read in one read-only transaction with
// stats_fetch_consistency=snapshot, so they describe the same moment.
//
// Counters of other sessions become visible only when those sessions flush:
// when they disconnect, and otherwise at most once a second while idle
// (and an idle session whose last flush was recent waits up to
// PGSTAT_IDLE_INTERVAL, 10 s). Use SettleAndSnapshot after other sessions
// did work. The read itself touches catalogs: it adds to the database-level
// blks_hit, tup_returned and xact_commit counters of the next snapshot, but
// not to user tables.
func TakeSnapshot(ctx context.Context, conn *pgx.Conn) (Snapshot, error) {
	major, err := serverMajor(conn)
	if err != nil {
		return Snapshot{}, err
	}
	if major >= 15 {
		if _, err := conn.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			return Snapshot{}, fmt.Errorf("snapshot: force stats flush: %w", err)
		}
	}
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: begin: %w", err)
	}
	s, err := readSnapshot(ctx, tx, major)
	if err != nil {
		// The read error is what matters; rollback fails only if the
		// connection is already broken.
		_ = tx.Rollback(ctx)
		return Snapshot{}, err
	}
	if err := tx.Commit(ctx); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: commit: %w", err)
	}
	return s, nil
}

// Minus returns a - b: per-counter differences for every key present in a
// (a key absent from b counts as 0, so relations created in between show
// their full counts; relations dropped in between are left out).
func (a Snapshot) Minus(b Snapshot) Snapshot {
	return Snapshot{
		Database: minusMap(a.Database, b.Database),
		Tables:   minusNested(a.Tables, b.Tables),
		Indexes:  minusNested(a.Indexes, b.Indexes),
		Bgwriter: minusMap(a.Bgwriter, b.Bgwriter),
		Sizes:    a.Sizes,
	}
}

// TableTotals sums each counter over all tables, for a quick overview.
func (a Snapshot) TableTotals() map[string]int64 {
	out := map[string]int64{}
	for _, cols := range a.Tables {
		for k, v := range cols {
			out[k] += v
		}
	}
	return out
}

func minusMap(a, b map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(a))
	for k, v := range a {
		out[k] = v - b[k]
	}
	return out
}

func minusNested(a, b map[string]map[string]int64) map[string]map[string]int64 {
	out := make(map[string]map[string]int64, len(a))
	for k, v := range a {
		out[k] = minusMap(v, b[k])
	}
	return out
}

// serverMajor reads the major version from the server_version parameter the
// server reports at connect time, avoiding a query (which would add to the
// counters being measured).
func serverMajor(conn *pgx.Conn) (int, error) {
	v := conn.PgConn().ParameterStatus("server_version")
	end := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(v)
	}
	n, err := strconv.Atoi(v[:end])
	if err != nil {
		return 0, fmt.Errorf("parse server_version %q: %w", v, err)
	}
	return n, nil
}
