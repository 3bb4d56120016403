package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgbufsim/pgbufsim/internal/pgcompare"
)

// Table is one relation the experiments use, created the same way in the
// scratch database and declared the same way in the simulation.
type Table struct {
	Name string
	// Wide tables carry a 700-byte pad (about 11 rows a page), narrow ones
	// two integers (226 rows a page): scans of the two split a page's
	// price from a tuple's. Pad, when not 0, is the pad's length instead
	// of 700 (a medium table: 100, about 58 rows a page).
	Wide bool
	Pad  int
	// Rows at the start; State is what the loaded rows look like: vacuumed
	// (hinted and all-visible), hinted (hint bits set, not all-visible),
	// empty (a bigserial key) or bulk (empty, two integers).
	Rows  int64
	State string
	// NoIndex: two integers without a primary key (heap_insert and
	// heap_delete alone).
	NoIndex bool
	// Pages is the heap's size as PostgreSQL built it (pg_relation_size),
	// which the simulation declares as it is.
	Pages int64
	// TextPad adds a text column of that many characters to its integer:
	// (id int, pad text) for a bulk table, (id int PRIMARY KEY, pad text)
	// with Rows loaded for another, each row's pad repeat('x', TextPad).
	TextPad int
	// OutOfBuffers: after loading, VACUUM FULL rewrites the table through
	// smgr, bypassing shared buffers (rewriteheap.c raw_heap_insert), and
	// drops the old file's buffers: the table is in the OS cache and none
	// of it in shared buffers, as after a restart, and its tuples keep the
	// hint bits the copy loop set (HeapTupleSatisfiesVacuum). A vacuumed
	// one is then VACUUMed through its 256 kB ring (all-visible).
	OutOfBuffers bool
}

// Experiment is one micro-benchmark: a pgbench script run by one client,
// first Warmup transactions (not measured), then Transactions measured.
type Experiment struct {
	Name   string
	Script string
	Tables []string
	Warmup int
	// Transactions is how many transactions are measured.
	Transactions int
	// SyncCommit false runs the session with synchronous_commit = off, so
	// that the WAL flush (a storage time, not a CPU price) stays out.
	SyncCommit bool
	// Builtin runs one of pgbench's scripts on pgbench's tables
	// (tables.pgbench.scale = Scale) instead of Script.
	Builtin string
	Scale   int
	// HeldOut experiments are never fitted: they check the fitted prices.
	HeldOut bool
	// Reset is SQL run before each pass's measurement (not timed): it
	// puts back the state the experiment started from where its
	// statements change what the next ones do (update-bulk's rolled-back
	// versions), so that every pass measures what the simulation runs.
	Reset []string
	// Clients and Threads are pgbench's -c and -j (0: one client, one
	// thread). Several clients are only run against a server on this
	// machine, whose CPU count the simulated server takes.
	Clients, Threads int
	// Rate is pgbench's -R (transactions a second; 0: as fast as they
	// go). Under a rate a transaction's latency counts from its scheduled
	// start, so it includes its schedule lag (pgbench.c: the latency of
	// a throttled transaction is taken from txn_scheduled).
	Rate float64
}

// rateExperiments are the experiments run under pgbench -R: a client
// that sleeps until each transaction's scheduled start and wakes late
// (costs.client_wakeup), at 500 transactions a second, a tenth or less
// of what one client runs of these, so that the lag is mostly the
// wake-up and little the queue behind the transaction before.
const rateExperimentTPS = 500.0

// Plan is what calibration runs on a server of a given size.
type Plan struct {
	Tables      []*Table
	Experiments []Experiment
	// Skipped says which experiments the server's size ruled out, and why.
	Skipped []string
}

// tpcbSchema holds the pgbench tables tpcb-like writes to.
const tpcbSchema = "cal_tpcb"

const (
	narrowPerPage = 226 // (int, int): 24-byte header + 8 bytes, MAXALIGNed, + line pointer
	widePerPage   = 11  // (int, char(700))
	mediumPerPage = 58  // (int, char(100))
	// Keys per statement of the range experiments.
	rangeFetchRows     = 2000
	rangeIndexOnlyRows = 5000
	// maxRingPages bounds the table that has to outgrow the BULKREAD ring's
	// threshold (shared_buffers / 4): 2 GB; maxRingScanPages each of the
	// four ring-scan experiments' tables: 512 MB (2 GB for the four, with
	// their loads and VACUUM FULLs a few minutes of setup at most).
	maxRingPages     = 262144
	maxRingScanPages = 65536
)

// NewPlan sizes the experiments for shared_buffers (bytes): the warm
// tables stay under a quarter of shared_buffers (larger ones are scanned
// through the BULKREAD ring, GetAccessStrategy in freelist.c, chosen by
// initscan in heapam.c), the ring table over it.
func NewPlan(sharedBuffers int64, scale int) *Plan {
	nbuf := sharedBuffers / 8192
	warm := min(450, max(16, nbuf/10)) // pages of a warm narrow table
	wideWarm := min(1000, max(16, nbuf/10))
	mediumWarm := min(1750, max(16, nbuf/10))
	textWarm := min(800, max(16, nbuf/20))
	p := &Plan{}
	narrow := &Table{Name: "cal_narrow", Rows: warm * narrowPerPage, State: "vacuumed"}
	// The warm scan tables have no index: with a primary key PostgreSQL
	// plans count(*) of an all-visible table of wide rows as an index-only
	// scan of the key (its index is a sixth of the heap), which is not
	// the sequential scan the experiment prices (measured on PostgreSQL
	// 15: cal_medium's count(*) took 4.6 ms by the index, 2.7 ms by a
	// sequential scan of a copy without it).
	wide := &Table{Name: "cal_wide", Wide: true, NoIndex: true, Rows: wideWarm * widePerPage, State: "vacuumed"}
	// A medium table (char(100): 136 bytes a tuple on the page) against
	// the narrow one (32 bytes, four tuples to 128 bytes) determines
	// tuple_cold: a warm scan's tuples cost more per row once each has
	// 128 bytes of its own (docs/model.md "A backend").
	medium := &Table{Name: "cal_medium", Wide: true, Pad: 100, NoIndex: true, Rows: mediumWarm * mediumPerPage, State: "vacuumed"}
	// A text column of 100 characters, whose length() walks every byte
	// in a multibyte encoding (text_char).
	text := &Table{Name: "cal_text", TextPad: 100, Rows: textWarm * mediumPerPage, State: "vacuumed"}
	hinted := &Table{Name: "cal_hinted", Rows: warm * narrowPerPage, State: "hinted"}
	upd := &Table{Name: "cal_update", Rows: warm * narrowPerPage, State: "vacuumed"}
	ins := &Table{Name: "cal_insert", State: "empty"}
	bulk := &Table{Name: "cal_bulk", State: "bulk", NoIndex: true}
	bulkWide := &Table{Name: "cal_bulk_wide", State: "bulk", NoIndex: true, TextPad: 100}
	bulkPK := &Table{Name: "cal_bulk_pk", State: "empty"}
	del := &Table{Name: "cal_delete", Rows: bulkRows, State: "vacuumed", NoIndex: true}
	updBulk := &Table{Name: "cal_update_bulk", Rows: bulkRows, State: "vacuumed", NoIndex: true}
	p.Tables = []*Table{narrow, wide, medium, text, hinted, upd, ins, bulk, bulkWide, bulkPK, del, updBulk}
	scans := int(max(10, min(80, 30000/warm)))
	fetchRows, indexOnlyRows := min(rangeFetchRows, narrow.Rows/4), min(rangeIndexOnlyRows, narrow.Rows/2)
	p.Experiments = []Experiment{
		{Name: "select-one", Script: "SELECT 1;\n", Warmup: 200, Transactions: 3000}, // 3000: its tail measures the stalls
		{Name: "scan-narrow", Script: "SELECT count(*) FROM cal_narrow;\n", Tables: []string{"cal_narrow"}, Warmup: 5, Transactions: scans},
		{Name: "scan-wide", Script: "SELECT count(*) FROM cal_wide;\n", Tables: []string{"cal_wide"}, Warmup: 5, Transactions: scans},
		{Name: "scan-medium", Script: "SELECT count(*) FROM cal_medium;\n", Tables: []string{"cal_medium"}, Warmup: 5, Transactions: scans},
		{Name: "scan-length", Script: "SELECT sum(length(pad)) FROM cal_text;\n", Tables: []string{"cal_text"}, Warmup: 3, Transactions: max(5, scans/3)},
		{Name: "scan-hinted", Script: "SELECT count(*) FROM cal_hinted;\n", Tables: []string{"cal_hinted"}, Warmup: 5, Transactions: scans},
		// Held out: nine tenths of the text table's keys, which the
		// planner reads by a sequential scan with the range as its filter,
		// the text's length() on the rows it passes (the differential
		// test's range-large, warm).
		{Name: "scan-filter-range", Script: fmt.Sprintf("SELECT sum(length(pad)) FROM cal_text WHERE id BETWEEN 1 AND %d;\n", text.Rows*9/10), Tables: []string{"cal_text"}, HeldOut: true, Warmup: 3, Transactions: max(5, scans/3)},
		// The medium table's scan with a filter (docs/model.md "A scan's
		// filter"): one comparison every row passes (filter_tuple), one
		// every row fails (filter_reject), three every row passes
		// (filter_operator), each against scan-medium's count(*).
		{Name: "scan-filter", Script: "SELECT count(*) FROM cal_medium WHERE id > 0;\n", Tables: []string{"cal_medium"}, Warmup: 5, Transactions: scans},
		{Name: "scan-filter-reject", Script: "SELECT count(*) FROM cal_medium WHERE id < 0;\n", Tables: []string{"cal_medium"}, Warmup: 5, Transactions: scans},
		{Name: "scan-filter-and", Script: "SELECT count(*) FROM cal_medium WHERE id > 0 AND id < 2000000000 AND id <> 0;\n", Tables: []string{"cal_medium"}, Warmup: 5, Transactions: scans},
		{Name: "lookup", Script: fmt.Sprintf("\\set k random(1, %d)\nSELECT v FROM cal_narrow WHERE id = :k;\n", narrow.Rows),
			Tables: []string{"cal_narrow"}, Warmup: 500, Transactions: 1000},
		// Ranges of keys: 2000 rows by an index scan, each a heap fetch
		// (tuple_fetch, which the lookup shares with the statement's
		// prices), and 5000 keys by an index-only scan of the all-visible
		// table (index_only_tuple).
		{Name: "range-fetch", Script: fmt.Sprintf("\\set k random(1, %d)\nSELECT sum(v) FROM cal_narrow WHERE id BETWEEN :k AND :k + %d;\n", narrow.Rows-fetchRows+1, fetchRows-1),
			Tables: []string{"cal_narrow"}, Warmup: 20, Transactions: 100},
		{Name: "range-index-only", Script: fmt.Sprintf("\\set k random(1, %d)\nSELECT count(*) FROM cal_narrow WHERE id BETWEEN :k AND :k + %d;\n", narrow.Rows-indexOnlyRows+1, indexOnlyRows-1),
			Tables: []string{"cal_narrow"}, Warmup: 20, Transactions: 100},
		// Four SELECT 1 in one transaction: against select-one (one per
		// transaction) it separates a transaction's start and end from a
		// statement's price, which single-statement experiments cannot.
		{Name: "select-one-txn", Script: "BEGIN;\n" + strings.Repeat("SELECT 1;\n", 4) + "END;\n", Warmup: 200, Transactions: 1000},
		{Name: "select-only", Builtin: "select-only", Scale: scale, HeldOut: true, Warmup: 1000, Transactions: 1500},
		// SELECT 1 under -R: its latency, from each scheduled start, is
		// select-one's and the schedule lag (client_wakeup); select-only
		// under -R checks it, held out.
		{Name: "select-one-rate", Script: "SELECT 1;\n", Rate: rateExperimentTPS, Warmup: 50, Transactions: 600},
		{Name: "select-only-rate", Builtin: "select-only", Scale: scale, HeldOut: true, Rate: rateExperimentTPS, Warmup: 50, Transactions: 600},
		// The lookup under -R: against the lookup run flat out it prices
		// a working set gone cold over a paced client's sleep
		// (cpu_halt_cold, where cpu_halt_after is set).
		{Name: "lookup-rate", Script: fmt.Sprintf("\\set k random(1, %d)\nSELECT v FROM cal_narrow WHERE id = :k;\n", narrow.Rows),
			Tables: []string{"cal_narrow"}, Rate: rateExperimentTPS, Warmup: 50, Transactions: 600},
		{Name: "update", Script: fmt.Sprintf("\\set k random(1, %d)\nUPDATE cal_update SET v = v + 1 WHERE id = :k;\n", upd.Rows),
			Tables: []string{"cal_update"}, Warmup: 200, Transactions: 800},
		{Name: "insert", Script: "INSERT INTO cal_insert (v) VALUES (1);\n", Tables: []string{"cal_insert"}, Warmup: 200, Transactions: 800},
		// Four updates in one transaction: against update (one per
		// transaction) it separates a writer's commit (its commit record,
		// and with synchronous_commit off waking the WAL writer) from the
		// UPDATE's own price, which single-statement experiments cannot.
		{Name: "update-txn", Script: fmt.Sprintf("BEGIN;\n%sEND;\n", strings.Repeat(fmt.Sprintf("\\set k random(1, %d)\nUPDATE cal_update SET v = v + 1 WHERE id = :k;\n", upd.Rows), 4)),
			Tables: []string{"cal_update"}, Warmup: 100, Transactions: 400},
		{Name: "tpcb-like", Builtin: "tpcb-like", Scale: scale, HeldOut: true, Warmup: 300, Transactions: 600},
		// Statements of many rows: where the single-row experiments leave
		// a row's own work (heap_insert, heap_delete, an index entry, their
		// WAL records) a few percent of a statement's time, these are
		// nearly all of it. They repeat the same work every time without
		// a TRUNCATE, which costs PostgreSQL 1.3-2.7 ms (a new file, the
		// old one unlinked, a commit that flushes the WAL whatever
		// synchronous_commit says: RecordTransactionCommit with relations
		// to drop) and would be priced as per-row work: the inserts append
		// to tables that grow (5000 rows, 22 pages, a statement), the
		// DELETE rolls back, so every row is there for the next one.
		{Name: "insert-bulk", Script: fmt.Sprintf("INSERT INTO cal_bulk SELECT g, g FROM generate_series(1, %d) g;\n", bulkRows),
			Tables: []string{"cal_bulk"}, Warmup: 2, Transactions: 10},
		// The same rows with 100 characters of text more (105 bytes of
		// data against 8): a row's price by its width (tuple_byte).
		{Name: "insert-bulk-wide", Script: fmt.Sprintf("INSERT INTO cal_bulk_wide SELECT g, repeat('x', 100) FROM generate_series(1, %d) g;\n", bulkRows),
			Tables: []string{"cal_bulk_wide"}, Warmup: 2, Transactions: 10},
		// cal_bulk_pk's key is a bigserial: each row's nextval() is part of
		// what index_insert is fitted to.
		{Name: "insert-bulk-pk", Script: fmt.Sprintf("INSERT INTO cal_bulk_pk (v) SELECT g FROM generate_series(1, %d) g;\n", bulkRows),
			Tables: []string{"cal_bulk_pk"}, Warmup: 2, Transactions: 10},
		{Name: "delete-bulk", Script: "BEGIN;\nDELETE FROM cal_delete;\nROLLBACK;\n", Tables: []string{"cal_delete"}, Warmup: 2, Transactions: 10},
		// Every row updated, rolled back as delete-bulk is: against
		// insert-bulk (the same rows inserted) it prices what heap_update
		// does more than heap_insert (tuple_update_old). Each rollback
		// leaves its 5000 new versions dead on 22 more pages, which the
		// next statement's scan checks (PostgreSQL's and the model's), so
		// every pass starts again from the table as it was loaded.
		{Name: "update-bulk", Script: "BEGIN;\nUPDATE cal_update_bulk SET v = v + 1;\nROLLBACK;\n", Tables: []string{"cal_update_bulk"}, Warmup: 2, Transactions: 10,
			Reset: []string{"TRUNCATE cal_update_bulk", fmt.Sprintf("INSERT INTO cal_update_bulk SELECT g, g FROM generate_series(1, %d) g", bulkRows), "VACUUM (ANALYZE) cal_update_bulk"}},
	}
	// Scans through the BULKREAD ring of tables over a quarter of
	// shared_buffers that only the OS cache holds: every page a read from
	// the OS cache into one of the ring's buffers. The wide one, mostly
	// pages, determines os_read as a scan pays it (the read and the miss
	// around it; its direct measurement is the pull's centre), the narrow
	// all-visible one the rows' share of it, the hinted one against
	// scan-hinted tuple_cold (a visibility check costs less on a page just
	// read in); the medium one, between them, is held out.
	if ringScan := nbuf/4 + nbuf/8; ringScan <= maxRingScanPages {
		p.Tables = append(p.Tables,
			&Table{Name: "cal_ring_visible", Rows: ringScan * narrowPerPage, State: "vacuumed", NoIndex: true, OutOfBuffers: true},
			&Table{Name: "cal_ring_hinted", Rows: ringScan * narrowPerPage, State: "hinted", NoIndex: true, OutOfBuffers: true},
			&Table{Name: "cal_ring_wide", Wide: true, Rows: ringScan * widePerPage, State: "hinted", NoIndex: true, OutOfBuffers: true},
			&Table{Name: "cal_ring_medium", Wide: true, Pad: 100, Rows: ringScan * mediumPerPage, State: "hinted", NoIndex: true, OutOfBuffers: true})
		p.Experiments = append(p.Experiments,
			Experiment{Name: "scan-ring", Script: "SELECT count(*) FROM cal_ring_visible;\n", Tables: []string{"cal_ring_visible"}, Warmup: 1, Transactions: 4},
			Experiment{Name: "scan-ring-hinted", Script: "SELECT count(*) FROM cal_ring_hinted;\n", Tables: []string{"cal_ring_hinted"}, Warmup: 1, Transactions: 4},
			Experiment{Name: "scan-ring-wide", Script: "SELECT count(*) FROM cal_ring_wide;\n", Tables: []string{"cal_ring_wide"}, Warmup: 1, Transactions: 4},
			Experiment{Name: "scan-ring-medium", Script: "SELECT count(*) FROM cal_ring_medium;\n", Tables: []string{"cal_ring_medium"}, HeldOut: true, Warmup: 1, Transactions: 4})
	} else {
		p.Skipped = append(p.Skipped, fmt.Sprintf("scan-ring, scan-ring-hinted, scan-ring-wide, scan-ring-medium: four tables larger than shared_buffers / 4 would take %d MB each (more than 512 MB; shared_buffers up to 1.3 GB allows them); tuple_cold stays near its start, os_read at its direct measurement", ringScan/128))
	}
	ringPages := nbuf/4 + nbuf/2 + 64
	if ringPages <= maxRingPages {
		// Scanned by MeasureOSRead (and the cold reads), not by a fitted
		// experiment: after loading, PostgreSQL keeps most of it in shared
		// buffers (INSERT ... SELECT has no ring), a state the simulated
		// load does not reproduce.
		p.Tables = append(p.Tables, &Table{Name: "cal_ring", Rows: ringPages * narrowPerPage, State: "vacuumed"})
	} else {
		p.Skipped = append(p.Skipped, fmt.Sprintf("os_read and cold reads: a table larger than shared_buffers / 4 would take %d MB (more than 2 GB); os_read keeps its default", ringPages/128))
	}
	return p
}

// padLen is a wide table's pad length.
func (t *Table) padLen() int {
	if t.Pad > 0 {
		return t.Pad
	}
	return 700
}

// bulkRows is how many rows a bulk experiment inserts or deletes: 22 pages
// of two integers.
const bulkRows = 5000

// Table returns the plan's table of that name.
func (p *Plan) Table(name string) *Table {
	for _, t := range p.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Setup creates and loads every table in the scratch database as its State
// says, and pgbench's tables at scale when a builtin experiment needs them.
func (p *Plan) Setup(ctx context.Context, s *Server, pg *Pgbench) error {
	for _, t := range p.Tables {
		cols := "id int PRIMARY KEY, v int"
		fill := "SELECT g, g FROM generate_series(1, %d) g"
		if t.Wide {
			cols = fmt.Sprintf("id int PRIMARY KEY, pad char(%d) NOT NULL DEFAULT 'x'", t.padLen())
			fill = "SELECT g, 'x' FROM generate_series(1, %d) g"
		}
		switch {
		case t.State == "empty":
			cols = "id bigserial PRIMARY KEY, v int"
		case t.TextPad > 0 && t.State != "bulk":
			cols = "id int PRIMARY KEY, pad text"
			fill = fmt.Sprintf("SELECT g, repeat('x', %d) FROM generate_series(1, %%d) g", t.TextPad)
		case t.TextPad > 0:
			cols = "id int, pad text"
		case t.NoIndex && t.Wide:
			cols = fmt.Sprintf("id int, pad char(%d) NOT NULL DEFAULT 'x'", t.padLen())
		case t.NoIndex:
			cols = "id int, v int"
		}
		stmts := []string{
			"DROP TABLE IF EXISTS " + t.Name,
			"CREATE TABLE " + t.Name + " (" + cols + ") WITH (autovacuum_enabled = off)",
		}
		if t.Rows > 0 {
			stmts = append(stmts, "INSERT INTO "+t.Name+" "+fmt.Sprintf(fill, t.Rows))
		}
		switch {
		case t.OutOfBuffers && t.State == "vacuumed":
			stmts = append(stmts, "VACUUM FULL "+t.Name, "VACUUM "+t.Name)
		case t.OutOfBuffers:
			stmts = append(stmts, "VACUUM FULL "+t.Name)
		case t.State == "vacuumed":
			stmts = append(stmts, "VACUUM (ANALYZE) "+t.Name)
		case t.State == "hinted":
			// A first scan sets every tuple's hint bits; ANALYZE gives the
			// planner its statistics without setting the visibility map.
			stmts = append(stmts, "SELECT count(*) FROM "+t.Name, "ANALYZE "+t.Name)
		}
		if err := s.Exec(ctx, stmts...); err != nil {
			return err
		}
		pages, err := s.Int64(ctx, "SELECT pg_relation_size('"+t.Name+"') / 8192")
		if err != nil {
			return err
		}
		t.Pages = pages
	}
	scale := 0
	for _, e := range p.Experiments {
		scale = max(scale, e.Scale)
	}
	if scale > 0 {
		// Two sets of pgbench's tables: tpcb-like's updates would leave
		// select-only's table with dead versions that its lookups follow
		// (measured: select-only 20-50 % slower than a lookup of a fresh
		// table after a few passes), which the simulated select-only, on
		// fresh tables, does not see.
		if _, err := pg.Run(ctx, s, "", "-i", "-q", "-s", strconv.Itoa(scale)); err != nil {
			return err
		}
		if err := s.Exec(ctx, "DROP SCHEMA IF EXISTS "+tpcbSchema+" CASCADE", "CREATE SCHEMA "+tpcbSchema); err != nil {
			return err
		}
		if _, err := pg.Run(ctx, s, "-c search_path="+tpcbSchema, "-i", "-q", "-s", strconv.Itoa(scale)); err != nil {
			return err
		}
	}
	return s.Exec(ctx, "CHECKPOINT")
}

// Pgbench runs the server's pgbench client.
type Pgbench struct{ Path string }

// FindPgbench locates pgbench: path if given, else next to pg_config's
// bindir, else on PATH.
func FindPgbench(path string) (*Pgbench, error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, &Refusal{Msg: "-pgbench " + path + ": " + err.Error()}
		}
		return &Pgbench{Path: path}, nil
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "pgbench")
		if _, err := os.Stat(p); err == nil {
			return &Pgbench{Path: p}, nil
		}
	}
	if p, err := exec.LookPath("pgbench"); err == nil {
		return &Pgbench{Path: p}, nil
	}
	return nil, &Refusal{Msg: "no pgbench found (pg_config --bindir, PATH)", Hint: "install PostgreSQL's client programs or give -pgbench PATH"}
}

// Run runs pgbench with args against the scratch database and returns its
// output (stdout and stderr); pgoptions, if not empty, is the sessions'
// PGOPTIONS (settings such as -c search_path=...).
func (pg *Pgbench) Run(ctx context.Context, s *Server, pgoptions string, args ...string) (string, error) {
	out, _, err := pg.runCPU(ctx, s, pgoptions, args...)
	return out, err
}

// runCPU is Run, and also returns the CPU time pgbench itself used (user
// and system, getrusage of the finished process).
func (pg *Pgbench) runCPU(ctx context.Context, s *Server, pgoptions string, args ...string) (string, time.Duration, error) {
	cmd := exec.CommandContext(ctx, pg.Path, append(args, s.ConnInfo())...)
	cmd.Env = append(os.Environ(), s.Env()...)
	if pgoptions != "" {
		cmd.Env = append(cmd.Env, "PGOPTIONS="+pgoptions)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), 0, fmt.Errorf("pgbench %s: %v\n%s", strings.Join(args, " "), err, lastLines(out.String(), 5))
	}
	return out.String(), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// Measurement is what one run of an experiment measured.
type Measurement struct {
	// MS is the mean latency of the measured transactions, P99MS their
	// 99th percentile (pgbench's per-transaction log); LagMS under -R
	// their mean schedule lag (the log's schedule_lag column).
	MS, P99MS, LagMS float64
	// Tail is the measured transactions' latency tail; TailOK is false
	// when they were too few to have one (tailOf).
	Tail   latencyTail
	TailOK bool
	// ClientCPU is pgbench's own CPU time (user and system) over the
	// whole run, warm-up included, and Statements the statements it sent.
	ClientCPU  time.Duration
	Statements int
	// Commands are pgbench -r's per-command average latencies (ms) of an
	// experiment that asks for them (perCommand), in the script's order,
	// \set commands left out: over all its transactions, the warm-up's
	// too (pgbench averages them all).
	Commands []CommandTime
}

// CommandTime is one command's average latency (ms) as pgbench -r prints
// it, with the command's line.
type CommandTime struct {
	Line string
	MS   float64
}

// perCommand reports whether e's pgbench run reports each command's
// latency (-r): the held-out tpcb-like runs, whose seven statements show
// where the model's time goes against the server's.
func (e Experiment) perCommand() bool { return e.HeldOut && e.Builtin == "tpcb-like" }

// parseCommandLatencies reads pgbench -r's "statement latencies in
// milliseconds" section of out: one line a command, its average latency
// then (from 15) its failures, then the command's text; \set and other
// meta-commands are left out.
func parseCommandLatencies(out string) []CommandTime {
	var cmds []CommandTime
	in := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "statement latencies in milliseconds") {
			in = true
			continue
		}
		if !in {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 2 {
			break // the section's end
		}
		ms, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			break
		}
		text := f[1:]
		if _, err := strconv.Atoi(text[0]); err == nil && len(text) > 1 {
			text = text[1:] // the failures column (15 and later)
		}
		if line := strings.Join(text, " "); !strings.HasPrefix(line, `\`) {
			cmds = append(cmds, CommandTime{Line: line, MS: ms})
		}
	}
	return cmds
}

// Measure runs an experiment on the server: its warm-up, then the
// measured transactions, and returns their mean latency (ms).
func (pg *Pgbench) Measure(ctx context.Context, s *Server, e Experiment, dir string) (float64, error) {
	m, err := pg.measure(ctx, s, e, dir)
	return m.MS, err
}

// measure is Measure, with pgbench's own CPU time.
func (pg *Pgbench) measure(ctx context.Context, s *Server, e Experiment, dir string) (Measurement, error) {
	clients, threads := max(e.Clients, 1), max(e.Threads, 1)
	args := []string{"-n", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(threads)}
	if e.Builtin != "" {
		args = append(args, "-b", e.Builtin)
	} else {
		f := filepath.Join(dir, e.Name+".sql")
		if err := os.WriteFile(f, []byte(e.Script), 0o644); err != nil {
			return Measurement{}, err
		}
		args = append(args, "-f", f)
	}
	// The simulator models no parallel query: scans run in the backend
	// alone, as they do in PostgreSQL below min_parallel_table_scan_size
	// (8 MB) or with parallel workers off.
	env := "-c max_parallel_workers_per_gather=0"
	if !e.SyncCommit {
		env += " -c synchronous_commit=off"
	}
	if e.Builtin == "tpcb-like" {
		env += " -c search_path=" + tpcbSchema
	}
	// Warm-up and measured transactions run in one pgbench run, so in the
	// same sessions: a new backend's first transactions load its catalog
	// caches (relcache, catcache, the plan's lookups: 1-3 ms more on the
	// development machine), which the model does not charge, and a
	// warm-up run of its own would leave them to the measured run. The
	// per-transaction log (-l) gives each transaction's latency; the
	// first Warmup of each client are dropped.
	prefix := filepath.Join(dir, "log-"+e.Name)
	n := e.Warmup + e.Transactions
	if e.perCommand() {
		args = append(args, "-r")
	}
	if e.Rate > 0 {
		args = append(args, "-R", strconv.FormatFloat(e.Rate, 'f', -1, 64))
	}
	out, cpu, err := pg.runCPU(ctx, s, env, append(append([]string(nil), args...), "-t", strconv.Itoa(n), "-l", "--log-prefix="+prefix)...)
	if err != nil {
		return Measurement{}, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	logs, err := filepath.Glob(prefix + ".*")
	if err != nil || len(logs) == 0 {
		return Measurement{}, fmt.Errorf("experiment %s: pgbench wrote no transaction log (%v):\n%s", e.Name, err, lastLines(out, 8))
	}
	defer func() {
		for _, f := range logs {
			os.Remove(f)
		}
	}()
	var sum, lagSum float64
	var kept int
	var all []float64
	for _, f := range logs {
		data, err := os.ReadFile(f)
		if err != nil {
			return Measurement{}, err
		}
		ms, k, err := meanAfterWarmup(data, e.Warmup)
		if err != nil {
			return Measurement{}, fmt.Errorf("experiment %s: %s: %w", e.Name, filepath.Base(f), err)
		}
		sum += ms * float64(k)
		kept += k
		all = append(all, latenciesAfterWarmup(data, e.Warmup)...)
		if e.Rate > 0 {
			lag, err := lagAfterWarmup(data, e.Warmup)
			if err != nil {
				return Measurement{}, fmt.Errorf("experiment %s: %s: %w", e.Name, filepath.Base(f), err)
			}
			lagSum += lag * float64(k)
		}
	}
	if kept == 0 {
		return Measurement{}, fmt.Errorf("experiment %s: no measured transaction in pgbench's log:\n%s", e.Name, lastLines(out, 8))
	}
	m := Measurement{MS: sum / float64(kept), P99MS: quantile(all, 0.99), LagMS: lagSum / float64(kept), ClientCPU: cpu, Statements: clients * n * e.statements()}
	if e.perCommand() {
		m.Commands = parseCommandLatencies(out)
	}
	m.Tail, m.TailOK = tailOf(all)
	return m, nil
}

// statements is how many statements a transaction of e sends (\set and
// other meta-commands run in pgbench alone).
func (e Experiment) statements() int {
	switch e.Builtin {
	case "select-only":
		return 1
	case "simple-update":
		return 5
	case "tpcb-like":
		return 7
	}
	n := 0
	for _, l := range strings.Split(e.Script, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "\\") && !strings.HasPrefix(l, "--") {
			n++
		}
	}
	return n
}

// meanAfterWarmup reads a pgbench per-transaction log (-l: client_id
// transaction_no time script_no time_epoch time_us, time in us) and
// returns the mean latency (ms) of each client's transactions from number
// warmup on, and how many there were.
func meanAfterWarmup(log []byte, warmup int) (float64, int, error) {
	return columnMeanAfterWarmup(log, warmup, 2)
}

// lagAfterWarmup reads the schedule lag column of a pgbench
// per-transaction log written under -R (client_id transaction_no time
// script_no time_epoch time_us schedule_lag, the lag in us) and returns
// the mean lag (ms) of the transactions meanAfterWarmup averages.
func lagAfterWarmup(log []byte, warmup int) (float64, error) {
	ms, _, err := columnMeanAfterWarmup(log, warmup, 6)
	return ms, err
}

// columnMeanAfterWarmup is the mean (ms) of a per-transaction log's
// column col (in us) over the transactions numbered warmup and up, and
// how many there were.
func columnMeanAfterWarmup(log []byte, warmup, col int) (float64, int, error) {
	var sum float64
	n := 0
	for _, line := range strings.Split(string(log), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) <= col {
			if col == 6 {
				return 0, 0, fmt.Errorf("no schedule lag column (pgbench -R): %q", line)
			}
			return 0, 0, fmt.Errorf("a line of %d fields: %q", len(f), line)
		}
		no, err1 := strconv.Atoi(f[1])
		us, err2 := strconv.ParseFloat(f[col], 64)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("not a transaction line: %q", line)
		}
		if no < warmup {
			continue
		}
		sum += us / 1000
		n++
	}
	if n == 0 {
		return 0, 0, nil
	}
	return sum / float64(n), n, nil
}

// latenciesAfterWarmup returns the latencies (ms) meanAfterWarmup averages
// (a log it accepted).
func latenciesAfterWarmup(log []byte, warmup int) []float64 {
	var out []float64
	for _, line := range strings.Split(string(log), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		no, err1 := strconv.Atoi(f[1])
		us, err2 := strconv.ParseFloat(f[2], 64)
		if err1 == nil && err2 == nil && no >= warmup {
			out = append(out, us/1000)
		}
	}
	return out
}

// quantile returns the q-quantile of v (the smallest value with at least
// q of them at or below it, as pgbench's and the simulator's histograms
// report percentiles); 0 for none.
func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// MeasureOSRead measures os_read directly: EXPLAIN (ANALYZE, BUFFERS) of a
// scan of cal_ring through the BULKREAD ring with track_io_timing on gives
// the time of its reads (pread() of pages the OS cache holds, the table
// having just been written) and their number. It needs the right to set
// track_io_timing (a superuser, or a role granted it); ok is false, with
// the reason, when it cannot.
func (p *Plan) MeasureOSRead(ctx context.Context, s *Server, passes int) (ns float64, why string) {
	if p.Table("cal_ring") == nil {
		return 0, "no table outgrows the BULKREAD ring threshold"
	}
	if err := s.Exec(ctx, "SET max_parallel_workers_per_gather = 0", "SET track_io_timing = on"); err != nil {
		return 0, "cannot SET track_io_timing (" + err.Error() + ")"
	}
	defer s.Exec(ctx, "RESET track_io_timing", "RESET max_parallel_workers_per_gather")
	var per []float64
	for i := 0; i < max(passes, 1)+1; i++ {
		var js string
		if err := s.conn.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) SELECT count(*) FROM cal_ring").Scan(&js); err != nil {
			return 0, err.Error()
		}
		reads, ms, err := readTiming(js)
		if err != nil {
			return 0, err.Error()
		}
		if i == 0 || reads < 100 {
			continue // a warm-up scan; or too few reads to time
		}
		per = append(per, 1e6*ms/float64(reads))
	}
	if len(per) == 0 {
		return 0, "the ring scans read fewer than 100 pages (the table stayed in shared buffers)"
	}
	return median(per), ""
}

// ExplainProbe is EXPLAIN ANALYZE's own cost (ns) per instrumented node
// call (pgcompare.NodeCalls: a row a plan node returns), the probe
// effect that its Execution Time includes and a statement run without
// EXPLAIN does not: Analyze for (ANALYZE, TIMING OFF), which only counts
// the rows; Buffers for (ANALYZE, BUFFERS, WAL, TIMING OFF), which also
// copies and subtracts the buffer and WAL usage counters around each
// call (instrument.c InstrStartNode, InstrStopNode), as the differential
// test runs its statements (WAL from 13; BUFFERS alone before); Timing
// for (ANALYZE, BUFFERS), whose TIMING (on by default) also reads the
// clock twice a call.
type ExplainProbe struct {
	Analyze, Buffers, Timing float64
}

// explainProbeOptions are ExplainProbe's three EXPLAIN option lists, in
// its fields' order, for a server of major version major.
func explainProbeOptions(major int) [3]string {
	buffers := "ANALYZE, BUFFERS, WAL, TIMING OFF"
	if major < 13 {
		buffers = "ANALYZE, BUFFERS, TIMING OFF"
	}
	return [3]string{"ANALYZE, TIMING OFF", buffers, "ANALYZE, BUFFERS"}
}

// MeasureExplainProbe measures ExplainProbe directly: the warm count(*)
// of cal_narrow (226 rows a page) and of cal_wide (11), each run plain
// and under each EXPLAIN, timed by the client. The difference between a
// statement under EXPLAIN and the same plain is the probe's calls times
// its price plus what does not depend on the rows (printing the plan);
// the two tables' plans are alike, so the difference of those
// differences over the difference of their calls is the price. Each
// price is the median over passes of ten runs of each.
func (p *Plan) MeasureExplainProbe(ctx context.Context, s *Server, major, passes int) (ExplainProbe, string) {
	narrow, wide := p.Table("cal_narrow"), p.Table("cal_wide")
	if narrow == nil || wide == nil || narrow.Rows < 4*wide.Rows || narrow.Rows < 10000 {
		return ExplainProbe{}, "no warm tables of very different rows (cal_narrow, cal_wide)"
	}
	if err := s.Exec(ctx, "SET max_parallel_workers_per_gather = 0"); err != nil {
		return ExplainProbe{}, err.Error()
	}
	defer s.Exec(ctx, "RESET max_parallel_workers_per_gather")
	stmts := [2]string{"SELECT count(*) FROM cal_narrow", "SELECT count(*) FROM cal_wide"}
	opts := explainProbeOptions(major)
	// One run: its time on the client (the simple protocol, one round
	// trip), and for an EXPLAIN its node calls.
	run := func(q string, explain bool) (float64, int64, error) {
		if explain {
			var js string
			start := time.Now()
			if err := s.conn.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&js); err != nil {
				return 0, 0, err
			}
			d := time.Since(start)
			n, err := pgcompare.NodeCalls(js)
			return float64(d.Nanoseconds()), n, err
		}
		var n int64
		start := time.Now()
		if err := s.conn.QueryRow(ctx, q, pgx.QueryExecModeSimpleProtocol).Scan(&n); err != nil {
			return 0, 0, err
		}
		return float64(time.Since(start).Nanoseconds()), 0, nil
	}
	// Both tables into shared buffers and the plans' first runs paid.
	for _, q := range stmts {
		for range 2 {
			if _, _, err := run(q, false); err != nil {
				return ExplainProbe{}, err.Error()
			}
		}
	}
	var per [3][]float64
	for range max(passes, 1) {
		// times[t][v]: table t's runs, v = 0 plain, 1..3 the options.
		var times [2][4][]float64
		var calls [2]int64
		for range 10 {
			for t, q := range stmts {
				for v := 0; v < 4; v++ {
					stmt := q
					if v > 0 {
						stmt = "EXPLAIN (" + opts[v-1] + ", FORMAT JSON) " + q
					}
					ns, n, err := run(stmt, v > 0)
					if err != nil {
						return ExplainProbe{}, err.Error()
					}
					times[t][v] = append(times[t][v], ns)
					if v > 0 {
						calls[t] = n
					}
				}
			}
		}
		if calls[0] <= calls[1] {
			return ExplainProbe{}, fmt.Sprintf("cal_narrow's count(*) made %d node calls, cal_wide's %d", calls[0], calls[1])
		}
		for v := 1; v < 4; v++ {
			d0 := median(times[0][v]) - median(times[0][0])
			d1 := median(times[1][v]) - median(times[1][0])
			per[v-1] = append(per[v-1], (d0-d1)/float64(calls[0]-calls[1]))
		}
	}
	return ExplainProbe{Analyze: max(0, median(per[0])), Buffers: max(0, median(per[1])), Timing: max(0, median(per[2]))}, ""
}

// FirstRuns are what a new backend process pays the first time, measured
// directly (ns): executor_first_run, plan_first_run and buffer_map_fault.
type FirstRuns struct {
	Executor, Plan, MapFault float64
}

// MeasureFirstRuns measures a new backend's first runs directly, in new
// connections, with EXPLAIN (ANALYZE, TIMING OFF)'s Execution Time of
// warm statements (every page in shared buffers):
//
//   - SELECT 1 twice: the first pays executor_first_run;
//   - a lookup by key in cal_narrow twice, then one of a key far from it:
//     the first pays plan_first_run for its one node (Index Scan) and the
//     faults that map its pages (the index's root and leaf, the heap
//     page), the far one only the faults of its own leaf and heap page,
//     so their difference is the price of a node's first run;
//   - a count(*) of cal_medium four times (the last three's median
//     stands for the second): the first pays plan_first_run for
//     two nodes (Aggregate, Seq Scan) and one fault per 64 kB of the
//     buffers it reads (eight buffers, the table's pages taken to lie in
//     consecutive ones, as a table loaded in one go does), so the rest,
//     over its pages / 8, is buffer_map_fault.
//
// Each price is the median over passes (at least 0).
func (p *Plan) MeasureFirstRuns(ctx context.Context, s *Server, passes int) (FirstRuns, string) {
	medium, narrow := p.Table("cal_medium"), p.Table("cal_narrow")
	if medium == nil || medium.Pages < 100 || narrow == nil || narrow.Rows < 1000 {
		return FirstRuns{}, "no warm tables of 100 pages and 1000 rows or more"
	}
	k1, k2 := narrow.Rows/4, 3*narrow.Rows/4
	lookup := func(k int64) string { return fmt.Sprintf("SELECT v FROM cal_narrow WHERE id = %d", k) }
	count := "SELECT count(*) FROM cal_medium"
	// The tables into shared buffers first (each is under a quarter of
	// them: no ring), whatever ran before (the ring scans and the cold
	// reads may have evicted them).
	if err := s.Exec(ctx, "SET max_parallel_workers_per_gather = 0", count, count, "SELECT count(*) FROM cal_narrow", lookup(k1), lookup(k2), "RESET max_parallel_workers_per_gather"); err != nil {
		return FirstRuns{}, err.Error()
	}
	// The scan again three times: one scan of a few milliseconds varies
	// by a tenth from the next, as much as its faults cost.
	stmts := []string{"SELECT 1", "SELECT 1", lookup(k1), lookup(k1), lookup(k2), count, count, count, count}
	var exec, plan, fault []float64
	for range max(passes, 1) {
		conn, err := s.NewConn(ctx)
		if err != nil {
			return FirstRuns{}, err.Error()
		}
		ms := make([]float64, len(stmts))
		_, err = conn.Exec(ctx, "SET max_parallel_workers_per_gather = 0")
		for i := 0; i < len(stmts) && err == nil; i++ {
			var js string
			if err = conn.QueryRow(ctx, "EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) "+stmts[i]).Scan(&js); err == nil {
				ms[i], err = executionTime(js)
			}
		}
		conn.Close(ctx)
		if err != nil {
			return FirstRuns{}, err.Error()
		}
		pl := 1e6 * (ms[2] - ms[4])
		exec = append(exec, 1e6*(ms[0]-ms[1]))
		plan = append(plan, pl)
		// count(*) is two nodes (Aggregate, Seq Scan), the lookup one.
		fault = append(fault, (1e6*(ms[5]-median(ms[6:9]))-2*max(0, pl))/float64((medium.Pages+7)/8))
	}
	return FirstRuns{Executor: max(0, median(exec)), Plan: max(0, median(plan)), MapFault: max(0, median(fault))}, ""
}

// MeasureFirstUse measures buffer_first_use (ns a buffer), which needs
// the server restarted (restart): after a restart a count(*) of a table
// the OS caches reads its pages into buffers never used since the start;
// then that table is dropped (its buffers go back to the free list) and a
// copy of it is read into the buffers it used. The difference of the two
// scans' read times (EXPLAIN's I/O Read Time, track_io_timing) per page
// is the price (docs/model.md "A backend"), the median over passes. The
// table is an eighth of shared_buffers at most (1725 pages), so that no
// scan takes the BULKREAD ring.
func (p *Plan) MeasureFirstUse(ctx context.Context, s *Server, restart func(context.Context) error, passes int) (ns float64, why string) {
	pages := min(1725, s.SharedBuffers/8192/8)
	if pages < 100 {
		return 0, "shared_buffers is under 6.4 MB"
	}
	const perPage = 58 // (int, repeat('x', 100))
	fill := fmt.Sprintf("INSERT INTO cal_first_use_b SELECT g, repeat('x', 100) FROM generate_series(1, %d) g", pages*perPage)
	if err := s.Exec(ctx, "DROP TABLE IF EXISTS cal_first_use_a, cal_first_use_b", "CREATE TABLE cal_first_use_b (id int, pad text)", fill, "VACUUM cal_first_use_b"); err != nil {
		return 0, err.Error()
	}
	defer s.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS cal_first_use_a, cal_first_use_b")
	scan := func(conn *pgx.Conn, table string) (reads int64, ms float64, err error) {
		var js string
		if err = conn.QueryRow(ctx, "EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) SELECT count(*) FROM "+table).Scan(&js); err != nil {
			return 0, 0, err
		}
		return readTiming(js)
	}
	var per []float64
	for range max(passes, 1) {
		if err := s.Exec(ctx, "DROP TABLE IF EXISTS cal_first_use_a", "CREATE TABLE cal_first_use_a AS SELECT * FROM cal_first_use_b", "VACUUM cal_first_use_a", "CHECKPOINT"); err != nil {
			return 0, err.Error()
		}
		if err := s.Restart(ctx, restart); err != nil {
			return 0, err.Error()
		}
		if err := s.Exec(ctx, "SET max_parallel_workers_per_gather = 0", "SET track_io_timing = on"); err != nil {
			return 0, "cannot SET track_io_timing (" + err.Error() + ")"
		}
		freshReads, freshMS, err := scan(s.conn, "cal_first_use_a")
		if err == nil {
			err = s.Exec(ctx, "DROP TABLE cal_first_use_a")
		}
		var usedReads int64
		var usedMS float64
		if err == nil {
			usedReads, usedMS, err = scan(s.conn, "cal_first_use_b")
		}
		if err != nil {
			return 0, err.Error()
		}
		if freshReads < pages*9/10 || usedReads < pages*9/10 {
			return 0, fmt.Sprintf("the scans read %d and %d pages, not the tables' %d (were they in shared buffers after the restart?)", freshReads, usedReads, pages)
		}
		per = append(per, 1e6*(freshMS/float64(freshReads)-usedMS/float64(usedReads)))
	}
	s.Exec(ctx, "RESET track_io_timing", "RESET max_parallel_workers_per_gather")
	return max(0, median(per)), ""
}

// executionTime reads EXPLAIN ANALYZE's Execution Time (ms) from its JSON.
func executionTime(js string) (float64, error) {
	var out []struct {
		ExecutionTime *float64 `json:"Execution Time"`
	}
	if err := json.Unmarshal([]byte(js), &out); err != nil || len(out) == 0 || out[0].ExecutionTime == nil {
		return 0, fmt.Errorf("EXPLAIN's JSON has no Execution Time: %v", err)
	}
	return *out[0].ExecutionTime, nil
}

// readTiming reads the top node's shared read blocks and read time from
// EXPLAIN's JSON ("I/O Read Time" up to 15, "Shared I/O Read Time" from 16).
func readTiming(js string) (reads int64, ms float64, err error) {
	var out []struct {
		Plan map[string]any `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(js), &out); err != nil || len(out) == 0 {
		return 0, 0, fmt.Errorf("EXPLAIN's JSON: %v", err)
	}
	n := out[0].Plan
	r, _ := n["Shared Read Blocks"].(float64)
	t, ok := n["I/O Read Time"].(float64)
	if !ok {
		t, ok = n["Shared I/O Read Time"].(float64)
	}
	if !ok {
		return 0, 0, fmt.Errorf("EXPLAIN reports no read time (track_io_timing is off?)")
	}
	return int64(r), t, nil
}
