package pgcompare

import (
	"context"
	"fmt"
	"math"

	"github.com/jackc/pgx/v5"
)

// fmtRelName returns SQL that names a relation the way all maps of this
// package do: bare in public, pg_catalog and pg_toast (where names cannot
// collide in practice), schema-qualified elsewhere.
func fmtRelName(schema, rel string) string {
	return fmt.Sprintf(`CASE WHEN %[1]s IN ('public', 'pg_catalog', 'pg_toast') THEN %[2]s ELSE %[1]s || '.' || %[2]s END`, schema, rel)
}

var (
	databaseQuery = `SELECT * FROM pg_stat_database WHERE datname = current_database()`

	tablesQuery = `SELECT ` + fmtRelName("io.schemaname", "io.relname") + ` AS name,
	io.heap_blks_read, io.heap_blks_hit, io.idx_blks_read, io.idx_blks_hit,
	io.toast_blks_read, io.toast_blks_hit, io.tidx_blks_read, io.tidx_blks_hit,
	st.seq_scan, st.seq_tup_read, st.idx_scan, st.idx_tup_fetch,
	st.n_tup_ins, st.n_tup_upd, st.n_tup_del, st.n_tup_hot_upd,
	st.n_live_tup, st.n_dead_tup, st.n_mod_since_analyze,
	st.vacuum_count, st.autovacuum_count, st.analyze_count, st.autoanalyze_count
FROM pg_statio_user_tables io JOIN pg_stat_user_tables st ON st.relid = io.relid`

	indexesQuery = `SELECT ` + fmtRelName("io.schemaname", "io.indexrelname") + ` AS name,
	io.idx_blks_read, io.idx_blks_hit, st.idx_scan, st.idx_tup_read, st.idx_tup_fetch
FROM pg_statio_user_indexes io JOIN pg_stat_user_indexes st ON st.indexrelid = io.indexrelid`

	// pg_relation_size reads the files' sizes, not their buffers: it adds
	// nothing to the relations' counters.
	sizesQuery = `SELECT ` + fmtRelName("n.nspname", "c.relname") + ` AS name,
	pg_relation_size(c.oid, 'main') / 8192 AS main, pg_relation_size(c.oid, 'fsm') / 8192 AS fsm,
	pg_relation_size(c.oid, 'vm') / 8192 AS vm
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'i') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')`

	bgwriterQuery = `SELECT * FROM pg_stat_bgwriter`

	// Summing over backend types and objects keeps the map small; the
	// casts are needed because sum(bigint) is numeric.
	ioQuery = `SELECT context,
	coalesce(sum(reads), 0)::bigint AS reads, coalesce(sum(writes), 0)::bigint AS writes,
	coalesce(sum(extends), 0)::bigint AS extends, coalesce(sum(hits), 0)::bigint AS hits,
	coalesce(sum(evictions), 0)::bigint AS evictions, coalesce(sum(reuses), 0)::bigint AS reuses,
	coalesce(sum(fsyncs), 0)::bigint AS fsyncs
FROM pg_stat_io GROUP BY context`

	checkpointerQuery = `SELECT * FROM pg_stat_checkpointer`
)

// readSnapshot runs the view queries inside tx.
func readSnapshot(ctx context.Context, tx pgx.Tx, major int) (Snapshot, error) {
	if major >= 15 {
		// Freeze all stats at first access so the views agree with each
		// other even while other backends flush.
		if _, err := tx.Exec(ctx, "SET LOCAL stats_fetch_consistency = snapshot"); err != nil {
			return Snapshot{}, fmt.Errorf("snapshot: set stats_fetch_consistency: %w", err)
		}
	}
	var s Snapshot
	var err error
	if s.Database, err = queryFlat(ctx, tx, databaseQuery, ""); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: pg_stat_database: %w", err)
	}
	if s.Tables, err = queryKeyed(ctx, tx, tablesQuery); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: tables: %w", err)
	}
	if s.Indexes, err = queryKeyed(ctx, tx, indexesQuery); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: indexes: %w", err)
	}
	if s.Bgwriter, err = readBgwriter(ctx, tx, major); err != nil {
		return Snapshot{}, err
	}
	if s.Sizes, err = queryKeyed(ctx, tx, sizesQuery); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: relation sizes: %w", err)
	}
	return s, nil
}

// readBgwriter merges the background writer, checkpointer and I/O views that
// exist in this server version.
func readBgwriter(ctx context.Context, tx pgx.Tx, major int) (map[string]int64, error) {
	out, err := queryFlat(ctx, tx, bgwriterQuery, "")
	if err != nil {
		return nil, fmt.Errorf("snapshot: pg_stat_bgwriter: %w", err)
	}
	if major >= 16 {
		perContext, err := queryKeyed(ctx, tx, ioQuery)
		if err != nil {
			return nil, fmt.Errorf("snapshot: pg_stat_io: %w", err)
		}
		for ctxName, cols := range perContext {
			for k, v := range cols {
				out["io_"+ctxName+"_"+k] = v
			}
		}
	}
	if major >= 17 {
		cp, err := queryFlat(ctx, tx, checkpointerQuery, "checkpointer_")
		if err != nil {
			return nil, fmt.Errorf("snapshot: pg_stat_checkpointer: %w", err)
		}
		for k, v := range cp {
			out[k] = v
		}
	}
	return out, nil
}

// queryFlat reads a single-row query into one map, prefixing the keys.
func queryFlat(ctx context.Context, tx pgx.Tx, sql, prefix string) (map[string]int64, error) {
	rows, err := tx.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		for i, fd := range rows.FieldDescriptions() {
			if k, v, ok := counterValue(fd.Name, vals[i]); ok {
				out[prefix+k] = v
			}
		}
	}
	return out, rows.Err()
}

// queryKeyed reads a query whose first column is a name into one map per row.
func queryKeyed(ctx context.Context, tx pgx.Tx, sql string) (map[string]map[string]int64, error) {
	rows, err := tx.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]map[string]int64{}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		name, ok := vals[0].(string)
		if !ok {
			return nil, fmt.Errorf("first column is %T, want a name", vals[0])
		}
		m := map[string]int64{}
		for i, fd := range rows.FieldDescriptions()[1:] {
			if k, v, ok := counterValue(fd.Name, vals[i+1]); ok {
				m[k] = v
			}
		}
		out[name] = m
	}
	return out, rows.Err()
}

// counterValue converts one column to a counter. Integers are kept, float
// columns (all of them times in milliseconds) become integer microseconds
// under name+"_us", and everything else (names, oids, timestamps, NULLs) is
// skipped: oids are decoded as uint32 by pgx, which is why uint32 is absent.
func counterValue(name string, v any) (string, int64, bool) {
	switch x := v.(type) {
	case int64:
		return name, x, true
	case int32:
		return name, int64(x), true
	case int16:
		return name, int64(x), true
	case float64:
		return name + "_us", int64(math.Round(x * 1000)), true
	case float32:
		return name + "_us", int64(math.Round(float64(x) * 1000)), true
	default:
		return "", 0, false
	}
}
