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
	// Bgwriter holds pg_stat_bgwriter; on 14+ also pg_stat_wal's
	// wal_records, wal_fpi and wal_bytes; on 16+ pg_stat_io summed per
	// backend type and context over its objects
	// ("io_<backend_type>/<context>_<column>"); on 17+ pg_stat_checkpointer
	// ("checkpointer_<column>").
	Bgwriter map[string]int64
	// Sizes maps each user table and index (named as Tables and Indexes
	// are) to its forks' sizes in 8 kB pages, pg_relation_size(rel, fork)
	// / 8192: "main", "fsm", "vm". They are states, not counters: Minus
	// keeps the later snapshot's.
	Sizes map[string]map[string]int64
}

// TakeSnapshot reads the statistics in the session conn through a Monitor
// made for the occasion: it resolves the relations (reading the catalogs)
// and takes one snapshot. It forces the flush of the session's own pending
// counters first (15+), so SQL run in the same session is visible at once.
// Measurements that must not disturb shared buffers keep one Monitor instead.
//
// Counters of other sessions become visible only when those sessions flush:
// when they disconnect, and otherwise at most once a second while idle
// (and an idle session whose last flush was recent waits up to
// PGSTAT_IDLE_INTERVAL, 10 s). Use Monitor.Settle after other sessions
// did work.
func TakeSnapshot(ctx context.Context, conn *pgx.Conn) (Snapshot, error) {
	m, err := NewMonitor(ctx, conn)
	if err != nil {
		return Snapshot{}, err
	}
	return m.Snapshot(ctx)
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
