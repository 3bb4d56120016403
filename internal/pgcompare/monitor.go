package pgcompare

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Monitor is a session that reads the statistics without touching shared
// buffers. The statistics views (pg_statio_user_tables, pg_stat_database,
// ...) are joins over pg_class, pg_index, pg_namespace and pg_database, so
// reading them scans those catalogs every time: in a small pool a reader
// that polls them keeps a score of catalog pages at high usage counts, which
// take room from the relations being measured and which a simulator of the
// workload alone has no reason to hold. A Monitor resolves the relations'
// oids and filenodes once (Refresh) and then calls only the functions the
// views are built on (pg_stat_get_blocks_fetched(oid), ..., and
// pg_buffercache_pages()), folding their results as the views do
// (system_views.sql); the relations' sizes it reads from their files
// when it knows the data directory (see fileSizes). Once its catalog
// caches are warm, a snapshot costs no buffer access at all, and not even its transactions show in
// pg_stat_database (TestMonitorTouchesNoBuffers). Its first use after a
// restart pays what any first connection pays (the relation cache's init
// files are rebuilt) plus its functions' catalog lookups: about 150 pages.
//
// The map is a copy of the catalogs at the last Refresh: call it after
// anything that creates, drops or rewrites relations.
type Monitor struct {
	conn  *pgx.Conn
	major int
	cat   catalogMap
	// dataDir, when set, is the cluster's data directory on this machine,
	// and the relations' sizes are read from their files (see fileSizes)
	// instead of by pg_relation_size.
	dataDir string
}

// NewMonitor wraps conn, whose database is the one measured, and resolves
// its relations. Prime it before measurements (see Prime).
func NewMonitor(ctx context.Context, conn *pgx.Conn) (*Monitor, error) {
	major, err := serverMajor(conn)
	if err != nil {
		return nil, err
	}
	m := &Monitor{conn: conn, major: major}
	if err := m.Refresh(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

// Refresh re-reads the relations from the catalogs. It is the only method
// that scans catalogs.
func (m *Monitor) Refresh(ctx context.Context) error {
	cat, err := resolveCatalog(ctx, m.conn)
	if err != nil {
		return err
	}
	m.cat = cat
	return nil
}

// Prime runs a snapshot, a usage-count read and a wait for a session's end
// once, so that the session's catalog caches (the functions and types they
// call) are loaded now rather than during the next measurement.
func (m *Monitor) Prime(ctx context.Context) error {
	if _, err := m.Snapshot(ctx); err != nil {
		return err
	}
	if _, err := m.Usage(ctx); err != nil {
		return err
	}
	// waitGone's query too: its first parse looks up pg_stat_get_activity
	// in pg_proc and its OUT columns' types (inet, xid) in pg_type, 12
	// catalog accesses that would otherwise land in the first measured
	// step after a restart, when a step's session is closed
	// (ParseFuncOrColumn, build_function_result_tupdesc_t). Pid 0 names no
	// backend.
	if err := m.waitGone(ctx, 0); err != nil {
		return err
	}
	// PublishBackground's query too (pg_reload_conf in pg_proc).
	return m.signalBackground(ctx)
}

// PublishBackground makes the background writer and the checkpointer publish
// what they have counted, then waits until they did. The checkpointer adds the
// backends' writes to buffers_backend (up to 16) only when it absorbs their
// sync requests (checkpointer.c AbsorbSyncRequests, then
// pgstat_report_checkpointer), once per wake-up of its main loop, which
// otherwise sleeps until the next checkpoint; the background writer takes
// buffers_alloc from the strategy's counter in its next round (bgwriter.c
// BgWriterMain -> BgBufferSync -> StrategySyncStart). A configuration reload
// (pg_reload_conf: SIGHUP, whose handler sets each process's latch) wakes
// both; bgwriterAbsorb covers the background writer's next rounds.
func (m *Monitor) PublishBackground(ctx context.Context) error {
	if err := m.signalBackground(ctx); err != nil {
		return err
	}
	return sleep(ctx, bgwriterAbsorb)
}

func (m *Monitor) signalBackground(ctx context.Context) error {
	if _, err := m.conn.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("wake the background writer and checkpointer: %w", err)
	}
	return nil
}

// relationCounters are the per-relation functions the user views read, in
// the order of relationQuery's columns after the oid.
var relationCounters = []string{
	"blocks_fetched", "blocks_hit", "numscans", "tuples_returned", "tuples_fetched",
	"tuples_inserted", "tuples_updated", "tuples_deleted", "tuples_hot_updated",
	"live_tuples", "dead_tuples", "mod_since_analyze",
	"vacuum_count", "autovacuum_count", "analyze_count", "autoanalyze_count",
}

// counterCol maps a relationCounters name to its index.
var counterCol = func() map[string]int {
	col := make(map[string]int, len(relationCounters))
	for i, f := range relationCounters {
		col[f] = i
	}
	return col
}()

// relationQuery reads relationCounters of one relation, $1. The monitor
// runs it once per relation in one batch rather than once over
// unnest($1::oid[]): unnest and the oid[] type cost a new session six
// catalog pages it would otherwise never read (measured on PostgreSQL 15
// right after a restart), and every catalog page the monitor holds moves
// the clock hand of a small pool (docs/fidelity.md).
var relationQuery = func() string {
	q := "SELECT $1::oid"
	for _, f := range relationCounters {
		q += ", pg_stat_get_" + f + "($1)"
	}
	return q
}()

// databaseColumns are pg_stat_database's columns as functions of the
// database oid (system_views.sql); blks_read is computed from
// blocks_fetched. Columns of 14+ are added by databaseQuery.
var databaseColumns = [][2]string{
	{"numbackends", "numbackends"}, {"xact_commit", "xact_commit"}, {"xact_rollback", "xact_rollback"},
	{"blks_fetched", "blocks_fetched"}, {"blks_hit", "blocks_hit"},
	{"tup_returned", "tuples_returned"}, {"tup_fetched", "tuples_fetched"},
	{"tup_inserted", "tuples_inserted"}, {"tup_updated", "tuples_updated"}, {"tup_deleted", "tuples_deleted"},
	{"conflicts", "conflict_all"}, {"temp_files", "temp_files"}, {"temp_bytes", "temp_bytes"},
	{"deadlocks", "deadlocks"}, {"blk_read_time", "blk_read_time"}, {"blk_write_time", "blk_write_time"},
}

var databaseColumns14 = [][2]string{
	{"session_time", "session_time"}, {"active_time", "active_time"},
	{"idle_in_transaction_time", "idle_in_transaction_time"}, {"sessions", "sessions"},
	{"sessions_abandoned", "sessions_abandoned"}, {"sessions_fatal", "sessions_fatal"},
	{"sessions_killed", "sessions_killed"},
}

func databaseQuery(major int) string {
	cols := databaseColumns
	if major >= 14 {
		cols = append(cols[:len(cols):len(cols)], databaseColumns14...)
	}
	q := "SELECT "
	for i, c := range cols {
		if i > 0 {
			q += ", "
		}
		q += "pg_stat_get_db_" + c[1] + "($1::oid) AS " + c[0]
	}
	return q
}

// sizesByOIDQuery reads the forks' sizes; pg_relation_size gives NULL for a
// relation dropped since the last Refresh, which is left out.
const sizesByOIDQuery = `SELECT o, pg_relation_size(o, 'main') / 8192, pg_relation_size(o, 'fsm') / 8192,
	pg_relation_size(o, 'vm') / 8192 FROM unnest($1::oid[]) AS o`

// Snapshot reads the counters. It first calls pg_stat_force_next_flush()
// (15+) so that the session's own pending counters are published, then reads
// everything in one read-only transaction with stats_fetch_consistency =
// snapshot, so that all counters describe the same moment.
func (m *Monitor) Snapshot(ctx context.Context) (Snapshot, error) {
	if m.major >= 15 {
		if _, err := m.conn.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
			return Snapshot{}, fmt.Errorf("snapshot: force stats flush: %w", err)
		}
	}
	tx, err := m.conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: begin: %w", err)
	}
	s, err := m.read(ctx, tx)
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

func (m *Monitor) read(ctx context.Context, tx pgx.Tx) (Snapshot, error) {
	if m.major >= 15 {
		// Freeze all stats at first access so the counters agree with each
		// other even while other backends flush.
		if _, err := tx.Exec(ctx, "SET LOCAL stats_fetch_consistency = snapshot"); err != nil {
			return Snapshot{}, fmt.Errorf("snapshot: set stats_fetch_consistency: %w", err)
		}
	}
	var s Snapshot
	db, err := queryFlat(ctx, tx, databaseQuery(m.major), "", m.cat.dbOID)
	if err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: pg_stat_database: %w", err)
	}
	// pg_stat_database: blks_read = blocks_fetched - blocks_hit.
	db["blks_read"] = db["blks_fetched"] - db["blks_hit"]
	delete(db, "blks_fetched")
	// pg_stat_database's row for shared objects (datid 0): the shared
	// catalogs (pg_database, pg_authid, ...) every connection reads at
	// its start count there, not in its database's row.
	var sharedFetched, sharedHit int64
	if err := tx.QueryRow(ctx, "SELECT pg_stat_get_db_blocks_fetched(0), pg_stat_get_db_blocks_hit(0)").Scan(&sharedFetched, &sharedHit); err != nil {
		return Snapshot{}, fmt.Errorf("snapshot: pg_stat_database (shared objects): %w", err)
	}
	db["shared_blks_hit"], db["shared_blks_read"] = sharedHit, sharedFetched-sharedHit
	s.Database = db
	raw, err := m.relationCounters(ctx, tx)
	if err != nil {
		return Snapshot{}, err
	}
	s.Tables, s.Indexes = m.cat.fold(raw)
	if s.Bgwriter, err = readBgwriter(ctx, tx, m.major); err != nil {
		return Snapshot{}, err
	}
	if s.Sizes, err = m.sizes(ctx, tx); err != nil {
		return Snapshot{}, err
	}
	return s, nil
}

// relationCounters reads relationCounters for every counted relation, one
// query each in one batch (one round trip) inside the snapshot's
// transaction.
func (m *Monitor) relationCounters(ctx context.Context, tx pgx.Tx) (map[uint32][]int64, error) {
	out := map[uint32][]int64{}
	if len(m.cat.counted) == 0 {
		return out, nil
	}
	batch := &pgx.Batch{}
	for _, oid := range m.cat.counted {
		batch.Queue(relationQuery, oid)
	}
	br := tx.SendBatch(ctx, batch)
	for range m.cat.counted {
		vals := make([]int64, len(relationCounters))
		dest := make([]any, 1+len(vals))
		var oid uint32
		dest[0] = &oid
		for i := range vals {
			dest[i+1] = &vals[i]
		}
		if err := br.QueryRow().Scan(dest...); err != nil {
			_ = br.Close()
			return nil, fmt.Errorf("snapshot: relation counters: %w", err)
		}
		out[oid] = vals
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("snapshot: relation counters: %w", err)
	}
	return out, nil
}

func (m *Monitor) sizes(ctx context.Context, tx pgx.Tx) (map[string]map[string]int64, error) {
	if m.dataDir != "" {
		return m.fileSizes()
	}
	rows, err := tx.Query(ctx, sizesByOIDQuery, m.cat.sized)
	if err != nil {
		return nil, fmt.Errorf("snapshot: relation sizes: %w", err)
	}
	defer rows.Close()
	out := map[string]map[string]int64{}
	for rows.Next() {
		var (
			oid            uint32
			main, fsm, vmp *int64
		)
		if err := rows.Scan(&oid, &main, &fsm, &vmp); err != nil {
			return nil, fmt.Errorf("snapshot: relation sizes: %w", err)
		}
		r, ok := m.cat.byOID(oid)
		if !ok || main == nil || fsm == nil || vmp == nil {
			continue
		}
		out[r.name] = map[string]int64{"main": *main, "fsm": *fsm, "vm": *vmp}
	}
	return out, rows.Err()
}

// fold computes pg_statio_user_tables joined with pg_stat_user_tables, and
// pg_statio_user_indexes joined with pg_stat_user_indexes, from the
// per-relation counters, as system_views.sql defines them. A column that is
// NULL in the view (a sum over no indexes, a table without toast) is left
// out, as the view readers leave NULLs out.
func (m catalogMap) fold(raw map[uint32][]int64) (tables, indexes map[string]map[string]int64) {
	get := func(oid uint32, f string) int64 {
		if v, ok := raw[oid]; ok {
			return v[counterCol[f]]
		}
		return 0 // pg_stat_get_* of a relation without statistics
	}
	read := func(oid uint32) int64 { return get(oid, "blocks_fetched") - get(oid, "blocks_hit") }
	tables = map[string]map[string]int64{}
	for _, t := range m.tables {
		c := map[string]int64{
			"heap_blks_read": read(t.oid), "heap_blks_hit": get(t.oid, "blocks_hit"),
			"seq_scan": get(t.oid, "numscans"), "seq_tup_read": get(t.oid, "tuples_returned"),
			"n_tup_ins": get(t.oid, "tuples_inserted"), "n_tup_upd": get(t.oid, "tuples_updated"),
			"n_tup_del": get(t.oid, "tuples_deleted"), "n_tup_hot_upd": get(t.oid, "tuples_hot_updated"),
			"n_live_tup": get(t.oid, "live_tuples"), "n_dead_tup": get(t.oid, "dead_tuples"),
			"n_mod_since_analyze": get(t.oid, "mod_since_analyze"),
			"vacuum_count":        get(t.oid, "vacuum_count"), "autovacuum_count": get(t.oid, "autovacuum_count"),
			"analyze_count": get(t.oid, "analyze_count"), "autoanalyze_count": get(t.oid, "autoanalyze_count"),
		}
		if ixs := m.indexes[t.oid]; len(ixs) > 0 {
			var rd, hit, scans, fetched int64
			for _, ix := range ixs {
				rd += read(ix)
				hit += get(ix, "blocks_hit")
				scans += get(ix, "numscans")
				fetched += get(ix, "tuples_fetched")
			}
			c["idx_blks_read"], c["idx_blks_hit"] = rd, hit
			c["idx_scan"], c["idx_tup_fetch"] = scans, fetched+get(t.oid, "tuples_fetched")
		}
		if t.toast != 0 {
			c["toast_blks_read"], c["toast_blks_hit"] = read(t.toast), get(t.toast, "blocks_hit")
			if ixs := m.indexes[t.toast]; len(ixs) > 0 {
				var rd, hit int64
				for _, ix := range ixs {
					rd += read(ix)
					hit += get(ix, "blocks_hit")
				}
				c["tidx_blks_read"], c["tidx_blks_hit"] = rd, hit
			}
		}
		tables[t.name] = c
	}
	indexes = map[string]map[string]int64{}
	for _, ix := range m.userIdx {
		indexes[ix.name] = map[string]int64{
			"idx_blks_read": read(ix.oid), "idx_blks_hit": get(ix.oid, "blocks_hit"),
			"idx_scan": get(ix.oid, "numscans"), "idx_tup_read": get(ix.oid, "tuples_returned"),
			"idx_tup_fetch": get(ix.oid, "tuples_fetched"),
		}
	}
	return tables, indexes
}

// usageByFilenodeQuery lists every shared buffer's relation and usage
// count; the names come from the monitor's map, so no catalog is read. It
// calls pg_buffercache_pages() rather than the pg_buffercache view, whose
// expansion reads pg_rewrite and its toast table, and the monitor counts
// the buffers itself: a GROUP BY and coalesce() cost a new session six
// catalog pages (their operators and functions) that it would otherwise
// never read (measured on PostgreSQL 15 right after a restart).
const usageByFilenodeQuery = `SELECT reldatabase, relfilenode, usagecount
FROM pg_buffercache_pages() AS b(bufferid integer, relfilenode oid, reltablespace oid, reldatabase oid,
	relforknumber int2, relblocknumber int8, isdirty bool, usagecount int2, pinning_backends int4)`

// Usage returns the usage-count histogram of shared buffers overall and per
// relation of the current database (and the shared catalogs), named by the
// map of the last Refresh.
func (m *Monitor) Usage(ctx context.Context) (Usage, error) {
	rows, err := m.conn.Query(ctx, usageByFilenodeQuery)
	if err != nil {
		return Usage{}, fmt.Errorf("usage counts: %w", err)
	}
	defer rows.Close()
	type group struct {
		db, filenode uint32
		used         bool // a relation's page (relfilenode not NULL)
		uc           int32
	}
	counts := map[group]int64{}
	for rows.Next() {
		var (
			db, filenode *uint32
			uc           *int16
		)
		if err := rows.Scan(&db, &filenode, &uc); err != nil {
			return Usage{}, fmt.Errorf("usage counts: scan: %w", err)
		}
		var g group
		if filenode != nil {
			g.used, g.filenode = true, *filenode
			if db != nil {
				g.db = *db
			}
		}
		if uc != nil {
			g.uc = int32(*uc)
		}
		counts[g]++
	}
	if err := rows.Err(); err != nil {
		return Usage{}, fmt.Errorf("usage counts: %w", err)
	}
	u := Usage{ByRel: map[string][MaxUsageCount + 1]int64{}}
	for g, n := range counts {
		var name *string
		if g.used {
			if s, ok := m.cat.byFilenode[[2]uint32{g.db, g.filenode}]; ok {
				name = &s
			}
		}
		if err := u.add(name, !g.used, g.uc, n); err != nil {
			return Usage{}, err
		}
	}
	return u, nil
}

// ResetStats zeroes the cumulative statistics that a Snapshot reads: those
// of the current database and its relations (pg_stat_reset), the background
// writer and checkpointer (and on 16+ pg_stat_io, on 17+ the separate
// checkpointer view), and pg_stat_statements.
func (m *Monitor) ResetStats(ctx context.Context) error {
	stmts := []string{
		"SELECT pg_stat_reset()",
		"SELECT pg_stat_reset_shared('bgwriter')",
		"SELECT pg_stat_statements_reset()",
	}
	if m.major >= 16 {
		stmts = append(stmts, "SELECT pg_stat_reset_shared('io')")
	}
	if m.major >= 17 {
		stmts = append(stmts, "SELECT pg_stat_reset_shared('checkpointer')")
	}
	for _, s := range stmts {
		if _, err := m.conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("reset stats: %s: %w", s, err)
		}
	}
	return nil
}

// waitGone waits until the backend with that pid has left the backend status
// array (pg_stat_get_activity reads shared memory, no catalog), for at most
// SettleMax.
func (m *Monitor) waitGone(ctx context.Context, pid uint32) error {
	deadline := time.Now().Add(SettleMax)
	for {
		var n int64
		if err := m.conn.QueryRow(ctx, "SELECT count(*) FROM pg_stat_get_activity($1::int)", int32(pid)).Scan(&n); err != nil {
			return fmt.Errorf("wait for backend %d to exit: %w", pid, err)
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("backend %d still running %v after its session was closed", pid, SettleMax)
		}
		if err := sleep(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
}

// fileSizes reads the sizes of the user tables and indexes from their files
// in the data directory: a fork's pages are the sum of its segments' sizes
// over BLCKSZ (md.c: mdnblocks), a missing fork has none. pg_relation_size
// would give the same numbers, but it opens the relation
// (try_relation_open), and a session's first open of a relation builds its
// relation cache entry from pg_class and pg_attribute (RelationBuildDesc):
// after a restart the monitor's first snapshot read the catalog pages of
// every user relation into shared buffers, where the measured steps then
// found them (200 small tables' 100 pages of pg_attribute and pg_class,
// which the model's monitor does not read). Reading the files touches no
// buffer, before or after a restart. A relation dropped since the last
// Refresh is left out.
func (m *Monitor) fileSizes() (map[string]map[string]int64, error) {
	out := map[string]map[string]int64{}
	dbDir := filepath.Join(m.dataDir, "base", strconv.FormatUint(uint64(m.cat.dbOID), 10))
	for _, oid := range m.cat.sized {
		r, ok := m.cat.byOID(oid)
		if !ok || r.filenode == 0 {
			continue
		}
		base := filepath.Join(dbDir, strconv.FormatUint(uint64(r.filenode), 10))
		main, ok, err := forkPages(base)
		if err != nil {
			return nil, fmt.Errorf("snapshot: relation sizes: %w", err)
		}
		if !ok {
			continue
		}
		fsm, _, err := forkPages(base + "_fsm")
		if err != nil {
			return nil, fmt.Errorf("snapshot: relation sizes: %w", err)
		}
		vm, _, err := forkPages(base + "_vm")
		if err != nil {
			return nil, fmt.Errorf("snapshot: relation sizes: %w", err)
		}
		out[r.name] = map[string]int64{"main": main, "fsm": fsm, "vm": vm}
	}
	return out, nil
}

// forkPages returns the pages of the fork whose first segment is path
// (segments path, path.1, path.2, ...; md.c's _mdfd_segpath), and whether
// the fork exists.
func forkPages(path string) (int64, bool, error) {
	var size int64
	for seg := 0; ; seg++ {
		name := path
		if seg > 0 {
			name += "." + strconv.Itoa(seg)
		}
		fi, err := os.Stat(name)
		if errors.Is(err, fs.ErrNotExist) {
			return size / 8192, seg > 0, nil
		}
		if err != nil {
			return 0, false, err
		}
		size += fi.Size()
	}
}
