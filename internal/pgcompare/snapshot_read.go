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
	// view (pg_rewrite and its toast table, the view's pg_class and
	// pg_attribute rows: catalog pages a session's first use reads, and
	// after a restart the monitor's first snapshot would warm them for
	// the experiment's next session). 17 moved the checkpointer's columns
	// into pg_stat_checkpointer: bgwriterQuery17 and checkpointerQuery
	// are those views' functions in the same way.
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
	bgwriterQuery17 = `SELECT pg_stat_get_bgwriter_buf_written_clean() AS buffers_clean,
	pg_stat_get_bgwriter_maxwritten_clean() AS maxwritten_clean,
	pg_stat_get_buf_alloc() AS buffers_alloc`
	// The columns 17 and 18 share (18 adds num_done and slru_written).
	checkpointerQuery = `SELECT pg_stat_get_checkpointer_num_timed() AS num_timed,
	pg_stat_get_checkpointer_num_requested() AS num_requested,
	pg_stat_get_checkpointer_restartpoints_timed() AS restartpoints_timed,
	pg_stat_get_checkpointer_restartpoints_requested() AS restartpoints_req,
	pg_stat_get_checkpointer_restartpoints_performed() AS restartpoints_done,
	pg_stat_get_checkpointer_write_time() AS write_time,
	pg_stat_get_checkpointer_sync_time() AS sync_time,
	pg_stat_get_checkpointer_buffers_written() AS buffers_written`

	// pg_stat_io's rows (16+) from the function the view is defined on,
	// without an operator, a cast or a GROUP BY, whose lookups would warm
	// catalog pages that the experiment's statements read (readIO keeps
	// the relation object's rows: the model has no temporary tables, and
	// 18's WAL rows, object wal, are pg_stat_wal's).
	ioQuery = `SELECT backend_type, object, context, reads, writes, extends, hits, evictions, reuses, fsyncs FROM pg_stat_get_io()`
)

// readBgwriter merges the background writer, checkpointer and I/O views that
// exist in this server version.
func readBgwriter(ctx context.Context, tx pgx.Tx, major int) (map[string]int64, error) {
	q := bgwriterQuery
	if major >= 17 {
		q = bgwriterQuery17
	}
	out, err := queryFlat(ctx, tx, q, "")
	if err != nil {
		return nil, fmt.Errorf("snapshot: pg_stat_bgwriter: %w", err)
	}
	if major >= 16 {
		if err := readIO(ctx, tx, out); err != nil {
			return nil, fmt.Errorf("snapshot: pg_stat_io: %w", err)
		}
	}
	if major >= 14 {
		// pg_stat_wal (14+): the WAL every process inserted, as
		// XLogInsertRecord counts it in pgWalUsage (full-page images for
		// hint bits among wal_fpi). Read from the function the view is
		// defined on (system_views.sql), as the view's expansion costs a
		// new session ten catalog pages (pg_rewrite and its toast table,
		// measured on PostgreSQL 15 right after a restart).
		w, err := queryFlat(ctx, tx, "SELECT wal_records, wal_fpi, wal_bytes::bigint AS wal_bytes, wal_buffers_full FROM pg_stat_get_wal()", "")
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

// readIO adds pg_stat_io's relation rows to out, as
// "io_<backend_type>/<context>_<column>" (one row per backend type and
// context: the view has one per backend type, object and context).
func readIO(ctx context.Context, tx pgx.Tx, out map[string]int64) error {
	rows, err := tx.Query(ctx, ioQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		bt, _ := vals[0].(string)
		object, _ := vals[1].(string)
		ioContext, _ := vals[2].(string)
		if object != "relation" {
			continue
		}
		for i, fd := range rows.FieldDescriptions()[3:] {
			if k, v, ok := counterValue(fd.Name, vals[i+3]); ok {
				out[ioPrefix+bt+"/"+ioContext+"_"+k] = v
			}
		}
	}
	return rows.Err()
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
