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

// ioPrefix starts the Bgwriter keys of pg_stat_io's rows:
// "io_<backend_type>/<context>_<column>".
const ioPrefix = "io_"

var (
	// bgwriterQuery is pg_stat_bgwriter up to 16 as the functions it is
	// made of (system_views.sql), so that reading it does not expand the
	// view (pg_rewrite and its toast table, read on every session's first
	// use). 17 moved the checkpointer's columns out; there the views are
	// read.
	bgwriterQuery = `SELECT pg_stat_get_bgwriter_timed_checkpoints() AS checkpoints_timed,
	pg_stat_get_bgwriter_requested_checkpoints() AS checkpoints_req,
	pg_stat_get_checkpoint_write_time() AS checkpoint_write_time,
	pg_stat_get_checkpoint_sync_time() AS checkpoint_sync_time,
	pg_stat_get_bgwriter_buf_written_checkpoints() AS buffers_checkpoint,
	pg_stat_get_bgwriter_buf_written_clean() AS buffers_clean,
	pg_stat_get_bgwriter_maxwritten_clean() AS maxwritten_clean,
	pg_stat_get_buf_written_backend() AS buffers_backend,
	pg_stat_get_buf_fsync_backend() AS buffers_backend_fsync,
	pg_stat_get_buf_alloc() AS buffers_alloc`
	bgwriterView = `SELECT * FROM pg_stat_bgwriter`

	// One row per backend type and context, summed over the objects
	// (relation, temp relation: the model has no temporary tables); the
	// casts are needed because sum(bigint) is numeric.
	ioQuery = `SELECT backend_type || '/' || context,
	coalesce(sum(reads), 0)::bigint AS reads, coalesce(sum(writes), 0)::bigint AS writes,
	coalesce(sum(extends), 0)::bigint AS extends, coalesce(sum(hits), 0)::bigint AS hits,
	coalesce(sum(evictions), 0)::bigint AS evictions, coalesce(sum(reuses), 0)::bigint AS reuses,
	coalesce(sum(fsyncs), 0)::bigint AS fsyncs
FROM pg_stat_io GROUP BY backend_type, context`

	checkpointerQuery = `SELECT * FROM pg_stat_checkpointer`
)

// readBgwriter merges the background writer, checkpointer and I/O views that
// exist in this server version.
func readBgwriter(ctx context.Context, tx pgx.Tx, major int) (map[string]int64, error) {
	q := bgwriterQuery
	if major >= 17 {
		q = bgwriterView
	}
	out, err := queryFlat(ctx, tx, q, "")
	if err != nil {
		return nil, fmt.Errorf("snapshot: pg_stat_bgwriter: %w", err)
	}
	if major >= 16 {
		perContext, err := queryKeyed(ctx, tx, ioQuery)
		if err != nil {
			return nil, fmt.Errorf("snapshot: pg_stat_io: %w", err)
		}
		for typeContext, cols := range perContext {
			for k, v := range cols {
				out[ioPrefix+typeContext+"_"+k] = v
			}
		}
	}
	if major >= 14 {
		// pg_stat_wal (14+): the WAL every process inserted, as
		// XLogInsertRecord counts it in pgWalUsage (full-page images for
		// hint bits among wal_fpi). Read from the function the view is
		// defined on (system_views.sql), as the view's expansion costs a
		// new session ten catalog pages (pg_rewrite and its toast table,
		// measured on PostgreSQL 15 right after a restart).
		w, err := queryFlat(ctx, tx, "SELECT wal_records, wal_fpi, wal_bytes::bigint AS wal_bytes FROM pg_stat_get_wal()", "")
		if err != nil {
			return nil, fmt.Errorf("snapshot: pg_stat_wal: %w", err)
		}
		for k, v := range w {
			out[k] = v
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
func queryFlat(ctx context.Context, tx pgx.Tx, sql, prefix string, args ...any) (map[string]int64, error) {
	rows, err := tx.Query(ctx, sql, args...)
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
