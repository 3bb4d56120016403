package pgcompare

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/pgbufsim/pgbufsim/model"
)

// A Case is one experiment run both ways: on a private PostgreSQL server
// (PG) and in the simulator (Sim, a scenario whose phases are the PG
// experiment's measured steps: the phase of a measured step has the step's
// name). Relations names the tables (and indexes) whose buffers are
// compared; Mechanism says which PostgreSQL code the case exercises, for
// docs/fidelity.md. Every SQL step runs in a new session, as every phase of
// the simulator starts new connections: both sides then read the system
// catalogs for a session's first use of each relation.
type Case struct {
	Name      string
	PG        Experiment
	Sim       string
	Relations []string
	Mechanism string
	// Effects are expected signs between measured steps: the difference
	// of a metric from one step to another must have the same sign on both
	// sides.
	Effects []Effect
	// Pgbench marks a case whose measured steps are pgbench runs (per
	// transaction comparisons, looser: the keys are random).
	Pgbench bool
	// Scripts are pgbench script files by name: a pgbench step's
	// argument "@name" is the file of the script of that name.
	Scripts map[string]string
	// Costs, if set, prices a second simulation of the case (a costs file
	// of simulate calibrate), whose measures CaseResult.Calibrated holds:
	// the calibrated mode of docs/calibration.md.
	Costs *model.Costs
}

// Effect compares metric between steps From and To.
type Effect struct {
	Metric, From, To string
}

// Cases returns the differential test's cases, for a server of the given
// major version (the simulator runs the same version).
func Cases(major int) []Case {
	v := fmt.Sprint(major)
	cs := []Case{seqscanRing(v), bulkDML(v), rangeScan(v), openRange(v), limitRange(v), rangeChange(v), bitmapScan(v), smallTables(v, "16MB"), smallTables(v, "4MB")}
	for _, sb := range []string{"16MB", "32MB", "128MB"} {
		cs = append(cs, pgbenchCase(v, sb, false), pgbenchCase(v, sb, true))
	}
	cs = append(cs, selectOnlyCase(v, "32MB"), mixCase(v, "128MB"), prewarmCase(v), vacuumDeadCase(v), analyzeCase(v))
	for i := range cs {
		cs[i].Sim = withMonitor(cs[i].Sim)
	}
	return cs
}

// withMonitor puts the harness's monitoring session into a scenario. After
// every restart the harness opens its monitor at once (runState.step), so
// in PostgreSQL the monitor's connection is the first after the restart:
// it rebuilds the relation cache's init files (and reads its own
// functions' catalog rows) before the next step's session starts, which
// then finds them done. In the scenario a warm-up phase of one connection
// takes the restart (and the OS cache drop) from the
// phase that had it. The phase runs a script file as psql would: one
// connection, without pgbench's setup connection before it, whose
// one statement stands for the monitor's first snapshot: a call of a
// statistics function inside an aggregate, on no relation. Its plan
// reads what the monitor's read and a plan on a table reads too (the
// output types, the name lookups, pg_proc's and pg_aggregate's shared
// index pages: docs/model.md "System catalogs"). Measured on PostgreSQL
// 15, a point SELECT by key in the next session read 34 database pages
// after the monitor and 43 after a connection that ran nothing.
func withMonitor(sim string) string {
	lines := strings.Split(sim, "\n")
	var out []string
	n := 0
	for _, l := range lines {
		if strings.Contains(l, "restart: true, ") {
			drop := strings.Contains(l, "drop_os_cache: true, ")
			l = strings.Replace(strings.Replace(l, "restart: true, ", "", 1), "drop_os_cache: true, ", "", 1)
			indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
			flags := "restart: true"
			if drop {
				flags += ", drop_os_cache: true"
			}
			n++
			out = append(out, fmt.Sprintf("%s- {name: monitor-%d, warmup: true, %s, transactions: 1, program: psql, script: {text: \"%s\"}}", indent, n, flags, monitorStandIn))
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// monitorStandIn is the statement of the monitor's warm-up phase
// (withMonitor), a script file's text in YAML's double-quoted form.
const monitorStandIn = `SELECT count(pg_stat_get_blocks_fetched(1));\n`

// rowWidth is the user data of the tables the experiments fill with
// fill(): an int and a 100-character text (1-byte varlena header), 58
// rows per 8 kB page.
const rowWidth = 105

// hintCatalogs reads every row of the system catalogs that creating,
// indexing and analyzing a table writes (pg_class, pg_attribute, pg_type,
// pg_index, pg_constraint, pg_depend, pg_statistic; CREATE EXTENSION's
// pg_proc and pg_extension), so that their hint bits are set before the
// checkpoint: the simulator's declared tables
// stand for tables that exist, whose catalog rows any earlier statement
// has long since hinted. Without it, the first statement after a restart
// hints them, which from 18 (data checksums on by default) writes a
// full-page image to WAL per catalog page (MarkBufferDirtyHint ->
// XLogSaveBufferForHint).
var hintCatalogs = []string{
	"SELECT count(*) FROM pg_class", "SELECT count(*) FROM pg_attribute", "SELECT count(*) FROM pg_type",
	"SELECT count(*) FROM pg_index", "SELECT count(*) FROM pg_constraint", "SELECT count(*) FROM pg_depend",
	"SELECT count(*) FROM pg_statistic", "SELECT count(*) FROM pg_proc", "SELECT count(*) FROM pg_extension",
}

func fill(table string, n int) string {
	return fmt.Sprintf("INSERT INTO %s SELECT g, repeat('x', 100) FROM generate_series(1, %d) g", table, n)
}

func scanSQL(table string) []string {
	return []string{"SET max_parallel_workers_per_gather = 0", "SELECT count(*) FROM " + table}
}

// base is the scenario header every case shares: a server like the one
// Start makes (autovacuum off, defaults otherwise), one client per phase,
// and the readahead and largest request of the device the clusters live on.
// Its page cache starts loaded (os.start): each case creates and fills its
// tables in PostgreSQL on a running machine, so their pages sit in the OS
// page cache unless a step drops it.
func base(name, version, sharedBuffers string) string {
	device := ""
	if q, ok := scratchQueue(); ok {
		device = fmt.Sprintf(", read_ahead: %dkB, max_writeback_batch: %dkB", q.ReadAheadKB, min(max(q.MaxSectorsKB, 8), 64<<10))
	}
	return fmt.Sprintf(`name: fidelity-%s
seed: 1
server: {version: "%s", shared_buffers: %s, cpus: 2, autovacuum: false}
os: {page_cache: 2GB, start: loaded%s}
`, name, version, sharedBuffers, device)
}

func seqscanRing(v string) Case {
	return Case{
		Name:      "seqscan-ring",
		Relations: []string{"t_big"},
		Mechanism: "heapgetpage per page; initscan's BULKREAD ring (256 kB) for tables > NBuffers/4 (freelist.c GetBufferFromRing: a ring buffer is reused once its usage_count is <= 1); SetHintBits on the first scan dirties every page, the ring's backend writes them (FlushBuffer); a ring pin raises usage_count only from 0 to 1 (PinBuffer); VACUUM's own ring",
		PG: Experiment{
			Name:     "seqscan-ring",
			Settings: Settings{"shared_buffers": "16MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "load", NewSession: true, SQL: []string{"CREATE TABLE t_big (id int, pad text)", fill("t_big", 90000), "CHECKPOINT"}},
				{Name: "restart", Restart: Settings{}, DropCaches: true},
				{Name: "scan1", NewSession: true, SQL: scanSQL("t_big"), Explain: true, Measure: true},
				{Name: "scan2", NewSession: true, SQL: scanSQL("t_big"), Explain: true, Measure: true},
				{Name: "vacuum", NewSession: true, SQL: []string{"VACUUM t_big", "CHECKPOINT"}},
				{Name: "scan3", NewSession: true, SQL: scanSQL("t_big"), Explain: true, Measure: true},
			},
		},
		Sim: base("seqscan-ring", v, "16MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_big, rows: 90000, row_width: %d, state: fresh}
workload:
  phases:
    - {name: scan1, transactions: 1, restart: true, drop_os_cache: true, script: [{seqscan: t_big}]}
    - {name: scan2, transactions: 1, script: [{seqscan: t_big}]}
    - {name: vacuum, transactions: 1, warmup: true, script: [{vacuum: t_big}, {checkpoint: true}]}
    - {name: scan3, transactions: 1, script: [{seqscan: t_big}]}
`, rowWidth),
		Effects: []Effect{{"dirtied", "scan1", "scan2"}, {"hit", "scan1", "scan2"}},
	}
}

func bulkDML(v string) Case {
	measured := func(name, stmt string) Step {
		return Step{Name: name, NewSession: true, SQL: []string{stmt}, Explain: true, Measure: true}
	}
	return Case{
		Name:      "bulk-dml",
		Relations: []string{"t_ins", "t_pk", "t_pk_pkey", "t_upd"},
		Mechanism: "heap_insert -> RelationGetBufferForTuple: one ReadBuffer of the backend's target page per row (no BulkInsertState in INSERT ... SELECT), RecordAndGetPageWithFreeSpace and ReadBufferBI(P_NEW) per new page (an extension counts as a read in pgstat up to 15, as written in EXPLAIN); _bt_doinsert per row with rightmost splits; heap_delete reads the page once per row; UPDATE = table_tuple_fetch_row_version + heap_update + the new version's page per row",
		PG: Experiment{
			Name:     "bulk-dml",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: []string{"CREATE TABLE t_ins (id int, pad text)", "CREATE TABLE t_pk (id int PRIMARY KEY, pad text)", "CREATE TABLE t_upd (id int, pad text)"}},
				// The pool then holds what creating the database, its
				// extensions and the tables read of the catalogs; the
				// simulated server starts with none of it.
				{Name: "restart", Restart: Settings{}},
				measured("insert", fill("t_ins", 100000)),
				measured("delete", "DELETE FROM t_ins"),
				measured("insert-pk", fill("t_pk", 100000)),
				{Name: "fill-upd", NewSession: true, SQL: []string{fill("t_upd", 100000)}},
				measured("update", "UPDATE t_upd SET id = id + 1"),
			},
		},
		Sim: base("bulk-dml", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_ins, rows: 0, row_width: %[1]d}
    - {name: t_pk, rows: 0, row_width: %[1]d, index: true}
    - {name: t_upd, rows: 0, row_width: %[1]d}
workload:
  phases:
    - {name: insert, transactions: 1, restart: true, script: [{insert: {table: t_ins, rows: 100000}}]}
    - {name: delete, transactions: 1, script: [{delete: t_ins}]}
    - {name: insert-pk, transactions: 1, script: [{insert: {table: t_pk, rows: 100000}}]}
    - {name: fill-upd, transactions: 1, warmup: true, script: [{insert: {table: t_upd, rows: 100000}}]}
    - {name: update, transactions: 1, script: [{update: {table: t_upd}}]}
`, rowWidth),
	}
}

// rangeScan is a script file's range SELECT: an index scan over 500 keys
// (the descent, one more leaf, each heap page once), the same again (hits),
// a range of 90 % of the table, which the planner reads by a sequential
// scan, then index-only scans (the table is VACUUMed: all-visible): a
// count(*) of 10000 keys and a point SELECT of the key alone, which read
// the index and the visibility map's page but no heap page, and a count(*)
// of the whole table, which the planner reads by an index-only scan of
// every key (its 276 index pages cost less than the heap's 1725).
func rangeScan(v string) Case {
	const small = "SELECT sum(length(pad)) FROM t_rng WHERE id BETWEEN 20001 AND 20500"
	const large = "SELECT sum(length(pad)) FROM t_rng WHERE id BETWEEN 1 AND 90000"
	const count = "SELECT count(*) FROM t_rng WHERE id BETWEEN 30001 AND 40000"
	const keyOnly = "SELECT id FROM t_rng WHERE id = 77777"
	const all = "SELECT count(*) FROM t_rng"
	measured := func(name, stmt string) Step {
		// The simulator runs the statement as a script file, so pgbench's
		// setup connection comes first on both sides.
		return Step{Name: name, NewSession: true, PgbenchSetup: true, SQL: []string{"SET max_parallel_workers_per_gather = 0", stmt}, Explain: true, Measure: true}
	}
	return Case{
		Name:      "range-scan",
		Relations: []string{"t_rng", "t_rng_pkey"},
		Mechanism: "a script file's SELECT ... WHERE id BETWEEN a AND b: the planner's cost_index (correlation 1) against cost_seqscan; _bt_first's descent, _bt_readpage and _bt_steppage (one access per leaf), index_fetch_heap re-reading the heap page only when the item's block changes (heapam_index_fetch_tuple); an index-only scan (IndexOnlyNext) when the SELECT list reads only the key, its visibility-map page pinned and no heap page read where it is all-visible; a count(*) without WHERE by an index-only scan of the whole key when cost_index prices it under cost_seqscan by add_path's fuzz factor",
		PG: Experiment{
			Name:     "range-scan",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: slices.Concat([]string{"CREATE TABLE t_rng (id int PRIMARY KEY, pad text)", fill("t_rng", 100000), "VACUUM ANALYZE t_rng"}, hintCatalogs, []string{"CHECKPOINT"})},
				{Name: "restart", Restart: Settings{}},
				measured("range-small", small),
				measured("range-again", small),
				measured("range-large", large),
				measured("range-count", count),
				measured("key-only", keyOnly),
				measured("count-all", all),
			},
		},
		Sim: base("range-scan", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_rng, rows: 100000, row_width: %d, index: true, key: id}
workload:
  phases:
    - {name: range-small, transactions: 1, restart: true, script: {text: "%[2]s;"}}
    - {name: range-again, transactions: 1, script: {text: "%[2]s;"}}
    - {name: range-large, transactions: 1, script: {text: "%[3]s;"}}
    - {name: range-count, transactions: 1, script: {text: "%[4]s;"}}
    - {name: key-only, transactions: 1, script: {text: "%[5]s;"}}
    - {name: count-all, transactions: 1, script: {text: "%[6]s;"}}
`, rowWidth, small, large, count, keyOnly, all),
	}
}

// openRange is a script file's ranges without one of BETWEEN's bounds, on
// a table like rangeScan's: an index scan of id > a (the planner's
// histogram search probes the key's maximum: get_actual_variable_range),
// an index-only count(*) of id < b, and a count(*) of the whole table,
// which the planner reads by an index-only scan of every key (its 276
// index pages cost less than the heap's 1725; cost_index against
// cost_seqscan with add_path's fuzz factor); max(id), the first entry
// from the index's end (planagg.c), and a lookup by key with another
// condition (an Index Scan with a Filter). A case of its own: after
// rangeScan's steps the background writer's standby snapshot (every 15 s
// of a server that wrote WAL) falls inside a measured step, at a time the
// model's shorter steps do not reach.
func openRange(v string) Case {
	const above = "SELECT sum(length(pad)) FROM t_ro WHERE id > 99500"
	const below = "SELECT count(*) FROM t_ro WHERE id < 5001"
	const all = "SELECT count(*) FROM t_ro"
	const max = "SELECT max(id) FROM t_ro"
	const filtered = "SELECT length(pad) FROM t_ro WHERE pad <> 'y' AND id = 5000"
	measured := func(name, stmt string) Step {
		return Step{Name: name, NewSession: true, PgbenchSetup: true, SQL: []string{"SET max_parallel_workers_per_gather = 0", stmt}, Explain: true, Measure: true}
	}
	return Case{
		Name:      "range-open",
		Relations: []string{"t_ro", "t_ro_pkey"},
		Mechanism: "a script file's SELECT ... WHERE id > a, WHERE id < b and without WHERE: one comparison priced by cost_index and cost_seqscan (cpu_operator_cost once per tuple), the histogram search's probe of the key's end for a bound in its last bin, an index-only scan where the SELECT list reads only the key; a count(*) without WHERE by an index-only scan of the whole key when cost_index prices it under cost_seqscan by add_path's fuzz factor; max(key) by a Limit over an index-only scan from the index's end (preprocess_minmax_aggregates); key = v AND another condition by an index scan and a filter",
		PG: Experiment{
			Name:     "range-open",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: slices.Concat([]string{"CREATE TABLE t_ro (id int PRIMARY KEY, pad text)", fill("t_ro", 100000), "VACUUM ANALYZE t_ro"}, hintCatalogs, []string{"CHECKPOINT"})},
				{Name: "restart", Restart: Settings{}},
				measured("range-above", above),
				measured("count-below", below),
				measured("count-all", all),
				measured("max", max),
				measured("lookup-filter", filtered),
			},
		},
		Sim: base("range-open", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_ro, rows: 100000, row_width: %d, index: true, key: id}
workload:
  phases:
    - {name: range-above, transactions: 1, restart: true, script: {text: "%[2]s;"}}
    - {name: count-below, transactions: 1, script: {text: "%[3]s;"}}
    - {name: count-all, transactions: 1, script: {text: "%[4]s;"}}
    - {name: max, transactions: 1, script: {text: "%[5]s;"}}
    - {name: lookup-filter, transactions: 1, script: {text: "%[6]s;"}}
`, rowWidth, above, below, all, max, filtered),
	}
}

// limitRange is a script file's ranges read in descending key order, and
// LIMIT and OFFSET, on a table like openRange's: the newest rows (ORDER BY
// id DESC LIMIT 10: the descent to the rightmost leaf and the last heap
// pages), 501 keys backward (a step left reads the leaf it leaves again
// before 18, and a scan that runs out of its range reads its last leaf
// again), a page of 20 rows past an OFFSET of 5000 (the scan reads the
// skipped rows), an index-only scan backward past an OFFSET (it keeps its
// pin: no re-reads), a LIMIT without ORDER BY on half the table (the
// sequential scan is cheapest at the LIMIT's share of the rows, and reads
// the table up to the range's tenth row: half of it), and a LIMIT with
// an OFFSET on the whole table (the first pages), and an IN list (a
// primitive index scan per key before 17, per leaf from 17). A case of its
// own for the reason openRange is.
func limitRange(v string) Case {
	const newest = "SELECT length(pad) FROM t_rl ORDER BY id DESC LIMIT 10"
	const backward = "SELECT length(pad) FROM t_rl WHERE id BETWEEN 1500 AND 2000 ORDER BY id DESC"
	const page = "SELECT length(pad) FROM t_rl ORDER BY id LIMIT 20 OFFSET 5000"
	const keys = "SELECT id FROM t_rl WHERE id <= 30000 ORDER BY id DESC LIMIT 100 OFFSET 900"
	const unordered = "SELECT length(pad) FROM t_rl WHERE id > 50000 LIMIT 10"
	const first = "SELECT length(pad) FROM t_rl LIMIT 100 OFFSET 1000"
	const list = "SELECT length(pad) FROM t_rl WHERE id IN (1100, 1200, 1300, 1400, 50000, 1100)"
	measured := func(name, stmt string) Step {
		return Step{Name: name, NewSession: true, PgbenchSetup: true, SQL: []string{"SET max_parallel_workers_per_gather = 0", stmt}, Explain: true, Measure: true}
	}
	return Case{
		Name:      "range-limit",
		Relations: []string{"t_rl", "t_rl_pkey"},
		Mechanism: "a script file's ORDER BY id DESC (an Index Scan Backward: _bt_first from the range's last key, _bt_readnextpage stepping left, which before 18 reads the leaf it leaves again for its left link and, once the range runs out, the last leaf again; an index-only scan keeps its pin), LIMIT with OFFSET (ExecLimit fetches the skipped rows: the scan stops after OFFSET + LIMIT rows, which the planner prices: preprocess_limit), LIMIT without ORDER BY (get_cheapest_fractional_path: a sequential scan that stops at the LIMIT's row; 18's read stream one page ahead), and an IN list (_bt_first per key before 17; from 17 _bt_advance_array_keys along the leaf)",
		PG: Experiment{
			Name:     "range-limit",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: slices.Concat([]string{"CREATE TABLE t_rl (id int PRIMARY KEY, pad text)", fill("t_rl", 100000), "VACUUM ANALYZE t_rl"}, hintCatalogs, []string{"CHECKPOINT"})},
				{Name: "restart", Restart: Settings{}},
				measured("newest", newest),
				measured("backward", backward),
				measured("page", page),
				measured("keys-backward", keys),
				measured("unordered", unordered),
				measured("first", first),
				measured("in-list", list),
			},
		},
		Sim: base("range-limit", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_rl, rows: 100000, row_width: %d, index: true, key: id}
workload:
  phases:
    - {name: newest, transactions: 1, restart: true, script: {text: "%[2]s;"}}
    - {name: backward, transactions: 1, script: {text: "%[3]s;"}}
    - {name: page, transactions: 1, script: {text: "%[4]s;"}}
    - {name: keys-backward, transactions: 1, script: {text: "%[5]s;"}}
    - {name: unordered, transactions: 1, script: {text: "%[6]s;"}}
    - {name: first, transactions: 1, script: {text: "%[7]s;"}}
    - {name: in-list, transactions: 1, script: {text: "%[8]s;"}}
`, rowWidth, newest, backward, page, keys, unordered, first, list),
	}
}

// rangeChange is a script file's UPDATE and DELETE of a range of the key,
// on a table like openRange's, each in a session of its own after a
// restart: DELETEs of 11 rows (one heap page; away from the key's first
// histogram bin, where the planner would probe the index's start with
// ANALYZE's actual bounds, not the model's evenly spaced ones), of 1000
// rows by an open range (the last leaves and pages) and of 120 rows across
// a leaf and two heap pages, UPDATEs of 21 rows (each new version to the table's last
// page, its index entry to the leaf) and of the same rows again (the
// versions just written: their page and the new ones), and an UPDATE and a
// DELETE of IN lists (a primitive index scan per key before 17, along the
// leaf from 17; the first IN list of a session reads 3 buffers more in
// PostgreSQL's execution, which the model counts as planning work), and a
// purge of the keys above 30000 (70 % of the table: a Seq Scan under the
// DELETE, every page read and each of its rows in the range deleted). Each row is changed
// as the statement by key changes it (ExecUpdate, ExecDelete over the range's
// Index Scan). The UPDATEs stay under the 40-odd rows after which
// PostgreSQL's leaf fills with their index entries (docs/model.md "What is
// not modelled").
func rangeChange(v string) Case {
	const deleteSmall = "DELETE FROM t_rc WHERE id BETWEEN 3000 AND 3010"
	const deleteOpen = "DELETE FROM t_rc WHERE id > 99000"
	const deleteLeaf = "DELETE FROM t_rc WHERE id >= 1050 AND id < 1170"
	const update = "UPDATE t_rc SET pad = pad WHERE id BETWEEN 2000 AND 2020"
	const updateList = "UPDATE t_rc SET pad = pad WHERE id IN (7000, 7001, 70000, 7000)"
	const deleteList = "DELETE FROM t_rc WHERE id = ANY(ARRAY[8000, 80000, 8100])"
	const purge = "DELETE FROM t_rc WHERE id > 30000"
	measured := func(name, stmt string) Step {
		return Step{Name: name, NewSession: true, PgbenchSetup: true, SQL: []string{"SET max_parallel_workers_per_gather = 0", stmt}, Explain: true, Measure: true}
	}
	return Case{
		Name:      "range-change",
		Relations: []string{"t_rc", "t_rc_pkey"},
		Mechanism: "a script file's UPDATE and DELETE of a range of the key or of an IN list: ModifyTable over the range's or the list's Index Scan (or a Seq Scan for most of the table), each row changed as by its key (ExecUpdate / ExecDelete: heap_update with its re-fetch, the new version's page and index entry; heap_delete; the visibility map's page for the first change of an all-visible page)",
		PG: Experiment{
			Name:     "range-change",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: slices.Concat([]string{"CREATE TABLE t_rc (id int PRIMARY KEY, pad text)", fill("t_rc", 100000), "VACUUM ANALYZE t_rc"}, hintCatalogs, []string{"CHECKPOINT"})},
				{Name: "restart", Restart: Settings{}},
				measured("delete-small", deleteSmall),
				measured("delete-open", deleteOpen),
				measured("delete-leaf", deleteLeaf),
				measured("update", update),
				measured("update-again", update),
				measured("update-list", updateList),
				measured("delete-list", deleteList),
				measured("purge", purge),
			},
		},
		Sim: base("range-change", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_rc, rows: 100000, row_width: %d, index: true, key: id}
workload:
  phases:
    - {name: delete-small, transactions: 1, restart: true, script: {text: "%[2]s;"}}
    - {name: delete-open, transactions: 1, script: {text: "%[3]s;"}}
    - {name: delete-leaf, transactions: 1, script: {text: "%[4]s;"}}
    - {name: update, transactions: 1, script: {text: "%[5]s;"}}
    - {name: update-again, transactions: 1, script: {text: "%[5]s;"}}
    - {name: update-list, transactions: 1, script: {text: "%[6]s;"}}
    - {name: delete-list, transactions: 1, script: {text: "%[7]s;"}}
    - {name: purge, transactions: 1, script: {text: "%[8]s;"}}
`, rowWidth, deleteSmall, deleteOpen, deleteLeaf, update, updateList, deleteList, purge),
	}
}

// bitmapScan is a range SELECT over a table loaded in random key order
// (correlation about 0): 30 keys by an index scan (a heap page per key),
// 500 and 5000 keys by a bitmap heap scan (the leaves, then each heap page
// once in block order, with posix_fadvise one page ahead before 18 and a
// read stream from 18), the 500 again (hits), 60000 keys by a
// sequential scan, and a DELETE of 300 keys by a bitmap heap scan.
func bitmapScan(v string) Case {
	const (
		point  = "SELECT sum(length(pad)) FROM t_bm WHERE id BETWEEN 40001 AND 40030"
		small  = "SELECT sum(length(pad)) FROM t_bm WHERE id BETWEEN 20001 AND 20500"
		medium = "SELECT sum(length(pad)) FROM t_bm WHERE id BETWEEN 50001 AND 55000"
		large  = "SELECT sum(length(pad)) FROM t_bm WHERE id BETWEEN 1 AND 60000"
		// A DELETE of 300 keys: the bitmap heap scan under ModifyTable,
		// each row deleted in its page's turn.
		deleteRange = "DELETE FROM t_bm WHERE id BETWEEN 70001 AND 70300"
	)
	measured := func(name, stmt string) Step {
		return Step{Name: name, NewSession: true, PgbenchSetup: true, SQL: []string{"SET max_parallel_workers_per_gather = 0", stmt}, Explain: true, Measure: true}
	}
	return Case{
		Name:      "bitmap-scan",
		Relations: []string{"t_bm", "t_bm_pkey"},
		Mechanism: "a range SELECT over a table loaded in random order: the planner's cost_index (correlation 0: Mackert and Lohman's pages at random_page_cost), cost_bitmap_heap_scan and cost_seqscan; btgetbitmap reading each leaf of the range once, BitmapHeapNext visiting each heap page once in block order with no strategy (PrefetchBuffer ahead before 18, a read stream from 18)",
		PG: Experiment{
			Name:     "bitmap-scan",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: slices.Concat([]string{"CREATE TABLE t_bm (id int, pad text)", fill("t_bm", 100000) + " ORDER BY md5(g::text)", "ALTER TABLE t_bm ADD PRIMARY KEY (id)", "VACUUM ANALYZE t_bm"}, hintCatalogs, []string{"CHECKPOINT"})},
				{Name: "restart", Restart: Settings{}},
				measured("bitmap-point", point),
				measured("bitmap-small", small),
				measured("bitmap-again", small),
				measured("bitmap-medium", medium),
				measured("bitmap-large", large),
				measured("bitmap-delete", deleteRange),
			},
		},
		Sim: base("bitmap-scan", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_bm, rows: 100000, row_width: %d, index: true, key: id, load_order: random}
workload:
  phases:
    - {name: bitmap-point, transactions: 1, restart: true, script: {text: "%[2]s;"}}
    - {name: bitmap-small, transactions: 1, script: {text: "%[3]s;"}}
    - {name: bitmap-again, transactions: 1, script: {text: "%[3]s;"}}
    - {name: bitmap-medium, transactions: 1, script: {text: "%[4]s;"}}
    - {name: bitmap-large, transactions: 1, script: {text: "%[5]s;"}}
    - {name: bitmap-delete, transactions: 1, script: {text: "%[6]s;"}}
`, rowWidth, point, small, medium, large, deleteRange),
	}
}

// prewarmCase is contrib/pg_prewarm on a cold pool of 128 MB (16384
// buffers): a table of 2000 pages loaded twice (reads, then hits: usage
// counts 1 then 2), then one of 20000 pages, larger than shared buffers,
// which goes through no ring, then the small one in read and prefetch
// modes, which touch no buffer.
func prewarmCase(v string) Case {
	const smallRows, bigRows = 2000 * 58, 20000 * 58
	measured := func(name, stmt string) Step {
		return Step{Name: name, NewSession: true, SQL: []string{stmt}, Explain: true, Measure: true}
	}
	return Case{
		Name:      "prewarm",
		Relations: []string{"t_pw", "t_pwbig"},
		Mechanism: "contrib/pg_prewarm's pg_prewarm: buffer mode is ReadBufferExtended(RBM_NORMAL) with no strategy per block and ReleaseBuffer (a read stream from 17), so a fresh pin raises usage_count and a relation larger than shared buffers evicts through the clock sweep, keeping its last blocks; read mode is smgrread into private memory, prefetch mode PrefetchBuffer (posix_fadvise): neither counts a buffer access",
		PG: Experiment{
			Name:     "prewarm",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: slices.Concat([]string{"CREATE EXTENSION pg_prewarm", "CREATE TABLE t_pw (id int, pad text)", fill("t_pw", smallRows), "CREATE TABLE t_pwbig (id int, pad text)", fill("t_pwbig", bigRows), "VACUUM t_pw", "VACUUM t_pwbig"}, hintCatalogs, []string{"CHECKPOINT"})},
				{Name: "restart", Restart: Settings{}},
				measured("buffer", "SELECT pg_prewarm('t_pw')"),
				measured("buffer-again", "SELECT pg_prewarm('t_pw')"),
				measured("buffer-big", "SELECT pg_prewarm('t_pwbig')"),
				measured("read", "SELECT pg_prewarm('t_pw', 'read')"),
				measured("prefetch", "SELECT pg_prewarm('t_pw', 'prefetch')"),
			},
		},
		Sim: base("prewarm", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_pw, rows: %[2]d, row_width: %[1]d}
    - {name: t_pwbig, rows: %[3]d, row_width: %[1]d}
workload:
  phases:
    - {name: buffer, transactions: 1, restart: true, script: [{prewarm: t_pw}]}
    - {name: buffer-again, transactions: 1, script: [{prewarm: t_pw}]}
    - {name: buffer-big, transactions: 1, script: [{prewarm: t_pwbig}]}
    - {name: read, transactions: 1, script: [{prewarm: {table: t_pw, mode: read}}]}
    - {name: prefetch, transactions: 1, script: [{prewarm: {table: t_pw, mode: prefetch}}]}
`, rowWidth, smallRows, bigRows),
	}
}

// analyzeCase is ANALYZE after a restart (pg_statistic rows and the
// tables' statistics already there, from VACUUM ANALYZE): a table of 100
// pages, every block and row sampled; one of 6000 pages (348000 rows, so
// a sample of 30000 rows from every block), through the VACUUM ring, twice;
// and one of 2000 pages never read, whose hint bits ANALYZE sets, the ring
// writing the pages it dirtied.
func analyzeCase(v string) Case {
	const small, big, fresh = 100 * 58, 6000 * 58, 2000 * 58
	measured := func(name, table string) Step {
		return Step{Name: name, NewSession: true, SQL: []string{"ANALYZE " + table}, Measure: true}
	}
	return Case{
		Name:      "analyze",
		Relations: []string{"t_an", "t_anbig", "t_anfresh"},
		Mechanism: "analyze.c acquire_sample_rows: BlockSampler_Init's min(blocks, 300 x default_statistics_target) blocks, each read with the command's BAS_VACUUM strategy (the VACUUM ring: a pin raises usage_count only from 0 to 1) and every tuple judged by HeapTupleSatisfiesVacuum, which sets hint bits; PrefetchBuffer ahead (14+); visibilitymap_count reads the visibility map without a strategy; update_attstats' pg_statistic updates and vac_update_relstats",
		PG: Experiment{
			Name:     "analyze",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: []string{
					"CREATE TABLE t_an (id int PRIMARY KEY, pad text)", fill("t_an", small),
					"CREATE TABLE t_anbig (id int PRIMARY KEY, pad text)", fill("t_anbig", big),
					"VACUUM ANALYZE t_an", "VACUUM ANALYZE t_anbig",
					"CREATE TABLE t_anfresh (id int PRIMARY KEY, pad text)", fill("t_anfresh", fresh),
					"CHECKPOINT"}},
				{Name: "restart", Restart: Settings{}},
				measured("small", "t_an"),
				measured("big", "t_anbig"),
				measured("big-again", "t_anbig"),
				measured("fresh", "t_anfresh"),
			},
		},
		Sim: base("analyze", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_an, rows: %[2]d, row_width: %[1]d, index: true, key: id}
    - {name: t_anbig, rows: %[3]d, row_width: %[1]d, index: true, key: id}
    - {name: t_anfresh, rows: %[4]d, row_width: %[1]d, index: true, key: id, state: fresh}
workload:
  phases:
    - {name: small, transactions: 1, restart: true, script: [{analyze: t_an}]}
    - {name: big, transactions: 1, script: [{analyze: t_anbig}]}
    - {name: big-again, transactions: 1, script: [{analyze: t_anbig}]}
    - {name: fresh, transactions: 1, script: [{analyze: t_anfresh}]}
`, rowWidth, small, big, fresh),
	}
}

// vacuumDeadCase is VACUUM after keyed DELETEs (the same keys on both
// sides: pgbench --random-seed): 3000 random rows of 100000 deleted leave
// LP_DEAD items on most of the table's 1725 pages once pruned, so VACUUM
// vacuums the index and reads those pages again in its second heap pass;
// then 10 more rows, on fewer than 2 % of the pages, which VACUUM leaves
// for later (no index scan, no second pass).
func vacuumDeadCase(v string) Case {
	const del = "\\set id random(1, 100000)\nDELETE FROM t_vac WHERE id = :id;\n"
	run := func(n, seed int) []string {
		return []string{"-n", "-c", "1", "-t", fmt.Sprint(n), "--random-seed", fmt.Sprint(seed), "-f", "@delete"}
	}
	measured := func(name string) Step {
		return Step{Name: name, NewSession: true, SQL: []string{"VACUUM t_vac"}, Measure: true}
	}
	return Case{
		Name:      "vacuum-dead",
		Relations: []string{"t_vac", "t_vac_pkey"},
		Mechanism: "vacuumlazy.c: lazy_scan_prune leaves a deleted row's line pointer LP_DEAD (heap_page_prune, also on access); lazy_vacuum's bypass below BYPASS_THRESHOLD_PAGES (2 % of the pages, 14+); otherwise lazy_vacuum_all_indexes (btbulkdelete reads every index page through the ring) and lazy_vacuum_heap_rel, which reads each page with LP_DEAD items again, marks them unused (XLOG_HEAP2_VACUUM) and sets the page all-visible",
		Scripts:   map[string]string{"delete": del},
		PG: Experiment{
			Name:     "vacuum-dead",
			Settings: Settings{"shared_buffers": "128MB", "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: []string{"CREATE TABLE t_vac (id int PRIMARY KEY, pad text)", fill("t_vac", 100000), "VACUUM t_vac", "CHECKPOINT"}},
				{Name: "restart", Restart: Settings{}},
				{Name: "delete", Pgbench: run(3000, 5)},
				measured("vacuum"),
				{Name: "delete-few", Pgbench: run(10, 6)},
				measured("vacuum-few"),
			},
		},
		Sim: base("vacuum-dead", v, "128MB") + fmt.Sprintf(`tables:
  relations:
    - {name: t_vac, rows: 100000, row_width: %[1]d, index: true, key: id}
workload:
  phases:
    - {name: delete, warmup: true, restart: true, transactions: 3000, random_seed: 5, script: {text: %[2]q}}
    - {name: vacuum, transactions: 1, script: [{vacuum: t_vac}]}
    - {name: delete-few, warmup: true, transactions: 10, random_seed: 6, script: {text: %[2]q}}
    - {name: vacuum-few, transactions: 1, script: [{vacuum: t_vac}]}
`, rowWidth, del),
	}
}

func smallTables(v, sharedBuffers string) Case {
	const count, rows = 200, 290 // 5 pages each
	create := fmt.Sprintf(`DO $$
BEGIN
	FOR i IN 1..%d LOOP
		EXECUTE format('CREATE TABLE s_%%s (id int, pad text)', i);
		EXECUTE format('INSERT INTO s_%%s SELECT g, repeat(''x'', 100) FROM generate_series(1, %d) g', i);
	END LOOP;
END $$`, count, rows)
	var pass []string
	rels := make([]string, 0, count)
	for i := 1; i <= count; i++ {
		pass = append(pass, fmt.Sprintf("SELECT count(*) FROM s_%d", i))
		rels = append(rels, fmt.Sprintf("s_%d", i))
	}
	name := "small-tables-" + strings.ToLower(sharedBuffers)
	return Case{
		Name:      name,
		Relations: rels,
		Mechanism: "count(*) of 200 tables of 5 pages: no ring (a table <= NBuffers/4), one ReadBuffer per page, usage_count +1 per scan (PinBuffer); with 4 MB (512 buffers) the 1000 pages do not fit and the clock sweep evicts",
		PG: Experiment{
			Name:     name,
			Settings: Settings{"shared_buffers": sharedBuffers, "autovacuum": "off"},
			Steps: []Step{
				{Name: "create", NewSession: true, SQL: []string{create, "CHECKPOINT"}},
				{Name: "restart", Restart: Settings{}},
				{Name: "pass1", NewSession: true, SQL: pass, Measure: true},
				{Name: "pass2", NewSession: true, SQL: pass, Measure: true},
			},
		},
		Sim: base(name, v, sharedBuffers) + fmt.Sprintf(`tables:
  relations:
    - {name: s, rows: %d, row_width: %d, count: %d, state: fresh}
workload:
  phases:
    - {name: pass1, transactions: %d, restart: true, script: [{seqscan: {table: s, pick: cycle}}]}
    - {name: pass2, transactions: %d, script: [{seqscan: {table: s, pick: cycle}}]}
`, rows, rowWidth, count, count, count),
		Effects: []Effect{{"read", "pass1", "pass2"}},
	}
}

// pgbenchGaussian is the tpcb-like script with gaussian account keys.
const pgbenchGaussian = `\set aid random_gaussian(1, 100000 * :scale, 5)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`

// pgbenchScale is the pgbench cases' scale: 5, about 80 MB, which 16 and 32
// MB of shared buffers do not hold and 128 MB does.
const pgbenchScale = 5

// pgbench cases run a fixed number of transactions (pgbench -t, the
// phases' transactions: per client) so that PostgreSQL and the model do
// the same work: with -T the count is a Poisson draw, and how many
// distinct pages a warm-up touched changes the next phase's misses by a
// few per cent. The run is 8000 transactions at 400 per second.
const (
	pgbenchClients    = 4
	pgbenchRunPerCl   = 2000
	pgbenchRunRate    = 400
	pgbenchWarmupRate = 800
)

// pgbenchWarmup is the warm-up's transactions per client. Under
// replacement pressure it must outlast the transient after the free list
// runs out: the clock hand's first passes then find every buffer above 0
// and decrement them all in one sweep, and a snapshot taken within the
// next few passes compares two transients that a few pages of PostgreSQL's
// catalogs shift in time (measured: after 10 s at 200 tps the usage-count
// shares differed by up to 0.2; after 40 s at 800 they agree within
// 0.05). The gaussian keys' hot set at 32 MB turns over slowest, hence
// the most.
func pgbenchWarmup(sharedBuffers string) int {
	switch sharedBuffers {
	case "16MB":
		return 3000 // 12000 transactions, 15 s
	case "32MB":
		return 8000 // 32000 transactions, 40 s
	}
	return 500 // no pressure: the pool never fills
}

func pgbenchCase(v, sharedBuffers string, gaussian bool) Case {
	dist, script, set, fileScript := "uniform", []string{"-b", "tpcb-like"}, "", "tpcb-like"
	if gaussian {
		// A custom script's :scale is -s (1 without it: pgbench reads the
		// scale from pgbench_branches for built-in scripts only).
		dist, script = "gaussian", []string{"-f", "@gaussian", "-s", fmt.Sprint(pgbenchScale)}
		// The same script file on both sides: pgbench's setup connection
		// reads the scale from pgbench_branches (GetTableInfo) only for a
		// built-in script, which costs several hundred catalog accesses a
		// file does not.
		set = fmt.Sprintf(`, define: {scale: %d}`, pgbenchScale)
		fileScript = fmt.Sprintf("{text: %q}", pgbenchGaussian)
	}
	name := fmt.Sprintf("pgbench-%s-%s", dist, strings.ToLower(sharedBuffers))
	warm := pgbenchWarmup(sharedBuffers)
	// Both sides draw the same keys: pgbench --random-seed N and the
	// phase's random_seed: N seed pg_prng alike (the model replays
	// pgbench's sequence), so what differs between them is the model, not
	// the sample. The warm-up and the measured run need different seeds
	// (one seed replays one key sequence).
	const warmupSeed, runSeed = 1, 2
	phase := func(perClient, rate, seed int) []string {
		args := []string{"-t", fmt.Sprint(perClient), "--random-seed", fmt.Sprint(seed), "-n", "-c", fmt.Sprint(pgbenchClients), "-j", "2", "-R", fmt.Sprint(rate)}
		return append(args, script...)
	}
	return Case{
		Name:      name,
		Pgbench:   true,
		Relations: []string{"pgbench_accounts", "pgbench_accounts_pkey", "pgbench_tellers", "pgbench_tellers_pkey", "pgbench_branches", "pgbench_branches_pkey", "pgbench_history"},
		Mechanism: fmt.Sprintf("pgbench tpcb-like at scale 5, 4 clients, %d transactions at %d tps after a warm-up of %d at %d tps: index descents (_bt_search), index_fetch_heap over every entry of a key, the UPDATE's refetch and heap_update re-reads (no usage bump while pinned), EvalPlanQual's re-reads after a row-lock wait, HOT and non-HOT updates with RelationGetBufferForTuple and _bt_doinsert, tellers and branches by sequential scan (the planner), history inserts with extensions; the clock sweep in its steady state and the background writer", pgbenchClients*pgbenchRunPerCl, pgbenchRunRate, pgbenchClients*warm, pgbenchWarmupRate),
		PG: Experiment{
			Name:     name,
			Settings: Settings{"shared_buffers": sharedBuffers, "autovacuum": "off"},
			Steps: []Step{
				{Name: "init", Pgbench: []string{"-i", "-s", fmt.Sprint(pgbenchScale), "-q"}},
				{Name: "vacuum", NewSession: true, SQL: []string{"VACUUM ANALYZE", "CHECKPOINT"}},
				{Name: "restart", Restart: Settings{}},
				{Name: "warm-up", Pgbench: phase(warm, pgbenchWarmupRate, warmupSeed)},
				{Name: "run", Pgbench: phase(pgbenchRunPerCl, pgbenchRunRate, runSeed), Measure: true},
			},
		},
		Sim: base(name, v, sharedBuffers) + fmt.Sprintf(`tables:
  pgbench: {scale: %d}
workload:
  phases:
    - {name: warm-up, warmup: true, restart: true, transactions: %d, clients: %d, threads: 2, rate: %d, random_seed: %d, script: %s%s}
    - {name: run, pause: %s, transactions: %d, clients: %d, threads: 2, rate: %d, random_seed: %d, script: %s%s}
`, pgbenchScale, warm, pgbenchClients, pgbenchWarmupRate, warmupSeed, fileScript, set, pgbenchGap, pgbenchRunPerCl, pgbenchClients, pgbenchRunRate, runSeed, fileScript, set),
	}
}

// pgbenchGap is the time between the warm-up's pgbench and the measured
// run's: the monitor's snapshot before a measured step (its statistics
// flush and reads) and pgbench's start. Measured on PostgreSQL 15 here,
// 1.0 s from the warm-up's pgbench exiting to the run's starting. The
// scenario's run pauses as long (workload.phases[].pause), since the
// background writer cleans during it: without the gap the model's first
// quarter second of the run met the dirty buffers the 800-tps warm-up had
// left ahead of the clock hand, and its backends wrote 197 of them
// (pg_stat_io's client writes, 0 in PostgreSQL).
const pgbenchGap = "1s"

// knownDeviations are figures the model does not reproduce yet, with what
// is known of why (docs/fidelity.md lists them). Keys are case/step/metric,
// each a pattern of path.Match ("*" matches any run of characters).
var knownDeviations = []struct{ key, why string }{
	{"pgbench-gaussian-32mb/run/buffers_clean", "the background writer's share: PostgreSQL's cleaned more buffers than the run allocated (0.140 to 0.147 per transaction in three runs, against 0.138 to 0.141 allocated), the model's a few per cent fewer (0.128 against 0.132: BgBufferSync's estimate, with the same keys and the same reads within 6 %); not explained. The other pgbench cases' buffers_clean are within tolerance"},
	{"pgbench-*/run/pgbench_history pages", "the same bulk extensions as pgbench_history's reads: RelationAddExtraBlocks (up to 15) adds 20 pages for each backend waiting on the extension lock, so the table's size after a run depends on when the clients met there. At 128 MB with uniform keys PostgreSQL's table ended at 65 pages in most runs, at 73 in one CI run and 74 in one on the development machine (the model's: 65, every run); at 16 and 32 MB 129-131 (the model's 129)"},
	{"pgbench-*/run/pgbench_history read", "the one pgbench figure that moves between PostgreSQL's own runs with the same keys: at 16 and 32 MB it has read 0.008 to 0.009 per transaction in several runs and 0.0065 in another (52 reads, each an extension: traced with strace, the run's backends made no pread() of pgbench_history at all, only the 52 writes of new pages), the model 0.006, its extensions too; both end the run with the same 129 pages. PostgreSQL's pgstat counts a page added by RelationAddExtraBlocks as a read as well (ReadBufferBI(P_NEW), up to 15), so a bulk extension that meets waiting backends adds reads the model's timing rarely reproduces; at 128 MB PostgreSQL's figure has been 0.001 to 0.006 (a warm-up that bulk-extended leaves pages the run fills without reading them), the model's 0.005 to 0.006"},
	{"pgbench-*-128mb/run/buffers_backend", backendExtensions},
	{"pgbench-gaussian-32mb/run/buffers_backend", "moves between PostgreSQL's own runs with the same keys beyond what its extensions explain: 0.0109, 0.011 and 0.0135 per transaction (87 to 108 writes and extensions in 8000 transactions) in runs on the development and CI machines, with pgbench_history's reads the same in the 0.0109 run; the model's 0.0120 (96) lies between them, so no tolerance around one of PostgreSQL's runs holds the others. The writes of dirty victims by backends depend on when the background writer's rounds fall against the clients' bursts"},
	{"pgbench-gaussian-32mb/run/pg_stat_io client backend/normal writes", "the backends' writes of dirty victims, which pg_stat_io counts apart from their extensions (16 and later): buffers_backend's writes up to 16, which move between PostgreSQL's own runs with the same keys as that figure does (above); on 18.3 PostgreSQL's run wrote about 40 in 8000 transactions (0.005 each), the model about 48 (0.006): 8 apart, where the tolerance is 5 and PostgreSQL's own runs of buffers_backend spread over 21"},
	{"pgbench-select-only-32mb/run/pgbench_accounts_pkey read", "144 index reads in PostgreSQL's 8000 transactions, 160 in the model's (0.5 % of the index's accesses), 152 before this version's catalog measurements: the index's pages stay at high usage counts, and the few the clock hand evicts depend on the few dozen catalog pages beside them in the 4096 buffers, which the model now holds as PostgreSQL does (each first plan's cold pages, docs/model.md \"System catalogs\") but at other usage counts"},
	{"seqscan-ring/scan1/device *", "PostgreSQL's requests after the OS cache drop vary between runs: 17 to 19 (1565 to 1581 pages) in some, 30 (1717 pages) in one, 44 to 48 (2046 to 2213 pages) in others, where the few catalog reads of the scan's first plan (t_big's relation cache entry, the planner's lookups) each started the kernel's readahead in a catalog file and read about 600 catalog pages more (the device's read_ahead_kb here is 8 MB). The model reads the table's 1552 pages in the same windows and each of its cold catalog pages alone (its catalogs are one relation standing for many files, read without readahead): 26 requests, within tolerance of PostgreSQL's runs of 17 to 36 requests and not of those of 44 to 48, since its first plan reads the catalog pages no init-file rebuild does (docs/model.md \"System catalogs\"; 29 before a table's catalog rows were read where PostgreSQL reads them, 23 before those pages were modelled)"},
}

// backendExtensions is why buffers_backend differs where pgbench_history's
// reads do.
const backendExtensions = "the same pages as pgbench_history's reads: up to 16 buffers_backend counts every write and extension of a backend (mdwrite and mdextend register the segment for fsync, checkpointer.c ForwardSyncRequest), and these runs' backends wrote no dirty victim, so it is their extensions (the harness wakes the checkpointer so that it absorbs them: docs/fidelity.md). At 128 MB PostgreSQL's warm-up bulk-extended pgbench_history (RelationAddExtraBlocks: 20 pages for each backend waiting on the extension lock) and its run filled those pages without extending: 8 to 32 extensions fewer than the model's in 8000 transactions (uniform, gaussian and mixed keys, on the development and CI machines), pgbench_history's read deviation counted again"

func knownDeviation(caseName, step, metric string) (string, bool) {
	match := func(pat, s string) bool {
		ok, err := path.Match(pat, s)
		return ok && err == nil
	}
	for _, d := range knownDeviations {
		parts := strings.SplitN(d.key, "/", 3)
		if match(parts[0], caseName) && match(parts[1], step) && match(parts[2], metric) {
			return d.why, true
		}
	}
	return "", false
}

// replaceBuiltin rewrites each pgbench step's "-b tpcb-like": with
// the arguments before and after the script name, f returns the new list
// (before ends with the "-b").
func (c *Case) replaceBuiltin(f func(before, after []string) []string) {
	for i, st := range c.PG.Steps {
		if j := slices.Index(st.Pgbench, "tpcb-like"); j >= 0 {
			c.PG.Steps[i].Pgbench = f(slices.Clone(st.Pgbench[:j]), st.Pgbench[j+1:])
		}
	}
}

// selectOnlyCase is pgbench -b select-only: index descents and one heap
// page per transaction, no changes: the clock sweep's dynamics with the
// simplest access pattern.
func selectOnlyCase(v, sharedBuffers string) Case {
	c := pgbenchCase(v, sharedBuffers, false)
	c.Name = "pgbench-select-only-" + strings.ToLower(sharedBuffers)
	c.PG.Name = c.Name
	c.replaceBuiltin(func(before, after []string) []string {
		return append(append(before, "select-only"), after...)
	})
	c.Sim = strings.ReplaceAll(strings.ReplaceAll(c.Sim, "script: tpcb-like", "script: select-only"), "fidelity-pgbench-uniform", "fidelity-pgbench-select-only")
	c.Mechanism = strings.Replace(c.Mechanism, "pgbench tpcb-like", "pgbench select-only", 1)
	c.Mechanism = c.Mechanism[:strings.Index(c.Mechanism, ":")] + ": a B-tree descent and one heap page per transaction, nothing changed; the clock sweep with the simplest access pattern"
	return c
}

// mixCase is pgbench -b tpcb-like@3 -b select-only@1: each transaction
// picks one script by weight (chooseScript), the phases' scripts: mix; a
// thread per client.
func mixCase(v, sharedBuffers string) Case {
	c := pgbenchCase(v, sharedBuffers, false)
	c.Name = "pgbench-mix-" + strings.ToLower(sharedBuffers)
	c.PG.Name = c.Name
	c.replaceBuiltin(func(before, after []string) []string {
		return append(append(before, "tpcb-like@3", "-b", "select-only@1"), after...)
	})
	c.Sim = strings.ReplaceAll(strings.ReplaceAll(c.Sim, "script: tpcb-like", "scripts: [{builtin: tpcb-like, weight: 3}, {builtin: select-only, weight: 1}]"), "fidelity-pgbench-uniform", "fidelity-pgbench-mix")
	// A thread per client: pgbench draws the script from the thread's
	// ts_choose_rs when a client of the thread starts a transaction, so with
	// two clients a thread the order they ask in (the interleaving, which
	// differs between PostgreSQL and the model) would decide which client
	// runs which script and with it the keys. One client a thread makes
	// both sides draw the same scripts and keys.
	c.Sim = strings.ReplaceAll(c.Sim, "threads: 2", fmt.Sprintf("threads: %d", pgbenchClients))
	for i, st := range c.PG.Steps {
		if j := slices.Index(st.Pgbench, "-j"); j >= 0 {
			args := slices.Clone(st.Pgbench)
			args[j+1] = fmt.Sprint(pgbenchClients)
			c.PG.Steps[i].Pgbench = args
		}
	}
	c.Mechanism = strings.Replace(c.Mechanism, "pgbench tpcb-like", "pgbench -b tpcb-like@3 -b select-only@1 (each transaction picks a script by weight; a pgbench thread per client)", 1)
	return c
}
