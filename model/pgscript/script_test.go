package pgscript

import (
	"reflect"
	"strings"
	"testing"
)

// TestParseSplitsAsPgbench checks where commands end (pgbench.c ParseScript
// over psqlscan.l): at a semicolon outside quotes, comments and
// parentheses; at a backslash command; at the end of the script. Meta
// commands end at their line's end unless it ends in a backslash.
func TestParseSplitsAsPgbench(t *testing.T) {
	src := `-- a comment line
\set aid random(1, \
   100000 * :scale)
BEGIN;
UPDATE t SET v = 'a;b' /* ; */ WHERE id = :aid;
SELECT (SELECT 1; ) -- parenthesised ; does not end it
  FROM t WHERE id = :aid;
SELECT id FROM t WHERE id = :aid \gset p_
\sleep 10 ms
SELECT $$ ; $$;
END`
	cmds, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	type c struct {
		line int
		meta string
		args []string
		sql  string
		gset string
	}
	var got []c
	for _, x := range cmds {
		got = append(got, c{x.Line, x.Meta, x.Args, x.SQL, x.GSet + x.GSetPrefix})
	}
	want := []c{
		{2, "set", []string{"aid", "random(1,     100000 * :scale)"}, "", ""},
		{4, "", nil, "BEGIN", ""},
		{5, "", nil, "UPDATE t SET v = 'a;b' /* ; */ WHERE id = :aid", ""},
		{6, "", nil, "SELECT (SELECT 1; ) -- parenthesised ; does not end it\n  FROM t WHERE id = :aid", ""},
		{8, "", nil, "SELECT id FROM t WHERE id = :aid", "gsetp_"},
		{9, "sleep", []string{"10", "ms"}, "", ""},
		{10, "", nil, "SELECT $$ ; $$", ""},
		{11, "", nil, "END", ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%#v\nwant\n%#v", got, want)
	}
}

// TestParseErrors checks the refusals, with pgbench's wording where it has
// one (process_backslash_command: "invalid command", "missing argument").
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"\\foo 1", `line 1: invalid command \foo`},
		{"SELECT 1;\n\\set", `line 2: missing argument in command "set"`},
		{"\\set x", `line 1: missing argument in command "set"`},
		{"\\set a-b 1", `line 1: invalid variable name: "a-b"`},
		{"\\if", `line 1: missing argument in command "if"`},
		{"SELECT 'abc", "line 1: unterminated quoted string"},
		{"SELECT 1 /* x", "line 1: unterminated /* comment"},
		{"\\gset", `line 1: \gset must follow an SQL command`},
		{"SELECT 1;\n\\gset", `line 2: \gset must follow an SQL command (write it after the query, before any semicolon)`},
		{"SELECT 1 \\; SELECT 2;", `compound statements`},
	} {
		_, err := Parse(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestShape checks the statement shapes, parsed by PostgreSQL's grammar.
func TestShape(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want Statement
	}{
		{"BEGIN", Statement{Kind: Begin}},
		{"start transaction", Statement{Kind: Begin}},
		{"END", Statement{Kind: Commit}},
		{"commit", Statement{Kind: Commit}},
		{"ABORT", Statement{Kind: Rollback}},
		{"SELECT 1", Statement{Kind: NoTable}},
		{"SELECT :aid", Statement{Kind: NoTable, Vars: []string{"aid"}}},
		{"SELECT abalance FROM pgbench_accounts WHERE aid = :aid", Statement{Kind: Lookup, Table: "pgbench_accounts", Column: "aid", Key: Value{Var: "aid"}, Targets: []string{"abalance"}, Vars: []string{"aid"}}},
		{"SELECT * FROM public.t WHERE 42 = id", Statement{Kind: Lookup, Table: "t", Column: "id", Key: Value{Const: 42}, Targets: []string{"?column?"}}},
		{"SELECT id AS k FROM t WHERE id = :x::int", Statement{Kind: Lookup, Table: "t", Column: "id", Key: Value{Var: "x"}, Targets: []string{"k"}, Vars: []string{"x"}, KeyOnly: true}},
		{"SELECT count(*) FROM t", Statement{Kind: Scan, Table: "t", Aggregate: true}},
		{"SELECT id FROM t", Statement{Kind: Scan, Table: "t", Columns: []string{"id"}}},
		{"SELECT * FROM t", Statement{Kind: Scan, Table: "t", Columns: []string{"*"}}},
		{"SELECT max(id) FROM t", Statement{Kind: Scan, Table: "t", Columns: []string{"id"}, MinMax: []MinMaxAgg{{Column: "id", Max: true}}, Lookups: []string{"agg:max"}, Aggregate: true}},
		{"SELECT min(id), MAX(t.id) FROM t", Statement{Kind: Scan, Table: "t", Columns: []string{"id"}, MinMax: []MinMaxAgg{{Column: "id"}, {Column: "id", Max: true}}, Lookups: []string{"agg:max", "agg:min"}, Aggregate: true}},
		{"SELECT max(id) + 1 FROM t", Statement{Kind: Scan, Table: "t", Columns: []string{"id"}, MinMax: []MinMaxAgg{{Column: "id", Max: true}}, Lookups: []string{"agg:max", "op:arith"}, Aggregate: true}},
		{"SELECT count(*), max(id) FROM t", Statement{Kind: Scan, Table: "t", Columns: []string{"id"}, Lookups: []string{"agg:max"}, Aggregate: true}},
		{"SELECT count(t.id), max(pad), min(id) FROM t", Statement{Kind: Scan, Table: "t", Columns: []string{"id", "pad"}, Lookups: []string{"agg:count", "agg:max", "agg:min"}, Aggregate: true}},
		{"SELECT abalance FROM pgbench_accounts WHERE aid BETWEEN :a AND :b", Statement{Kind: Range, Table: "pgbench_accounts", Column: "aid", From: Value{Var: "a"}, To: Value{Var: "b"}, Targets: []string{"abalance"}, Vars: []string{"a", "b"}, Lookups: []string{"op:<=", "op:>="}}},
		{"SELECT * FROM t WHERE id <= 20 AND id >= 10 ORDER BY id", Statement{Kind: Range, Table: "t", Column: "id", From: Value{Const: 10}, To: Value{Const: 20}, Ordered: true, Targets: []string{"?column?"}, Lookups: []string{"op:<=", "op:>=", "sort"}}},
		{"SELECT * FROM t WHERE id BETWEEN :a AND :a + 10 * :n", Statement{Kind: Range, Table: "t", Column: "id", From: Value{Var: "a"}, To: Value{Expr: "(:a) + ((10) * (:n))"}, Targets: []string{"?column?"}, Vars: []string{"a", "n"}, Lookups: []string{"op:<=", "op:>=", "op:arith"}}},
		{"SELECT sum(v) FROM t WHERE v > 3", Statement{Kind: Range, Table: "t", Column: "v", From: Value{Const: 4}, HighOpen: true, Targets: []string{"sum"}, KeyOnly: true, Lookups: []string{"agg:sum", "op:>"}, Aggregate: true}},
		{"SELECT count(*) FROM t WHERE id < :b", Statement{Kind: Range, Table: "t", Column: "id", To: Value{Expr: "(:b) - 1"}, LowOpen: true, Targets: []string{"count"}, KeyOnly: true, Vars: []string{"b"}, Lookups: []string{"op:<"}, Aggregate: true}},
		{"SELECT pad FROM t WHERE 10 <= id AND id < 20", Statement{Kind: Range, Table: "t", Column: "id", From: Value{Const: 10}, To: Value{Const: 19}, Targets: []string{"pad"}, Lookups: []string{"op:<", "op:<="}}},
		{"SELECT id FROM t WHERE id > :a AND :a + 5 >= id", Statement{Kind: Range, Table: "t", Column: "id", From: Value{Expr: "(:a) + 1"}, To: Value{Expr: "(:a) + (5)"}, Targets: []string{"id"}, KeyOnly: true, Vars: []string{"a"}, Lookups: []string{"op:>", "op:>=", "op:arith"}}},
		{"SELECT v FROM t WHERE v < 3 AND v < 5", Statement{Kind: Scan, Table: "t", Filter: true, Lookups: []string{"op:<"}}},
		{"SELECT * FROM t WHERE id > :last ORDER BY id LIMIT 10", Statement{Kind: Range, Table: "t", Column: "id", From: Value{Expr: "(:last) + 1"}, HighOpen: true, Ordered: true, Limit: Value{Const: 10}, HasLimit: true, Targets: []string{"?column?"}, Vars: []string{"last"}, Lookups: []string{"op:>", "sort"}}},
		{"SELECT id FROM t ORDER BY id LIMIT :n", Statement{Kind: Range, Table: "t", Column: "id", LowOpen: true, HighOpen: true, Ordered: true, Limit: Value{Var: "n"}, HasLimit: true, Targets: []string{"id"}, KeyOnly: true, Vars: []string{"n"}, Lookups: []string{"sort"}}},
		{"SELECT * FROM t ORDER BY id LIMIT ALL", Statement{Kind: Range, Table: "t", Column: "id", LowOpen: true, HighOpen: true, Ordered: true, Targets: []string{"?column?"}, Lookups: []string{"sort"}}},
		{"SELECT abalance FROM t WHERE bid = 1 AND aid = :a", Statement{Kind: Lookup, Table: "t", Column: "bid", Key: Value{Const: 1}, Filter: true,
			Equalities: []Equality{{Column: "bid", Key: Value{Const: 1}}, {Column: "aid", Key: Value{Var: "a"}}}, Targets: []string{"abalance"}, Vars: []string{"a"}}},
		{"SELECT count(*) FROM t WHERE id = :a AND (id > 3 AND upper(pad) <> 'x')", Statement{Kind: Lookup, Table: "t", Column: "id", Key: Value{Var: "a"}, Filter: true,
			Equalities: []Equality{{Column: "id", Key: Value{Var: "a"}}}, Ranges: []RangeAlt{{Column: "id", From: Value{Const: 4}, HighOpen: true}}, Targets: []string{"count"}, TextWalks: 3, Vars: []string{"a"}, Lookups: []string{"fn:upper", "op:<>", "op:>"}}},
		{"SELECT pad FROM t WHERE id BETWEEN 1 AND 100 AND pad <> 'x'", Statement{Kind: Range, Table: "t", Column: "id", From: Value{Const: 1}, To: Value{Const: 100}, Filter: true,
			Ranges: []RangeAlt{{Column: "id", From: Value{Const: 1}, To: Value{Const: 100}}}, Targets: []string{"pad"}, Lookups: []string{"op:<=", "op:<>", "op:>="}}},
		{"SELECT abalance FROM t WHERE bid = 1 AND aid >= :a AND aid < :a + 10", Statement{Kind: Lookup, Table: "t", Column: "bid", Key: Value{Const: 1}, Filter: true,
			Equalities: []Equality{{Column: "bid", Key: Value{Const: 1}}}, Ranges: []RangeAlt{{Column: "aid", From: Value{Var: "a"}, To: Value{Expr: "((:a) + (10)) - 1"}}}, Targets: []string{"abalance"}, Vars: []string{"a"}, Lookups: []string{"op:<", "op:>=", "op:arith"}}},
		{"SELECT pad FROM t WHERE id > 3 AND id > 5 AND pad <> 'x'", Statement{Kind: Scan, Table: "t", Filter: true, Lookups: []string{"op:<>", "op:>"}}},
		{"SELECT id FROM t WHERE id = :a AND id <> 7", Statement{Kind: Lookup, Table: "t", Column: "id", Key: Value{Var: "a"}, Filter: true,
			Equalities: []Equality{{Column: "id", Key: Value{Var: "a"}, KeyOnly: true}}, Targets: []string{"id"}, KeyOnly: true, Vars: []string{"a"}, Lookups: []string{"op:<>"}}},
		{"UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid", Statement{Kind: Update, Table: "pgbench_tellers", Column: "tid", Key: Value{Var: "tid"}, SetColumns: []string{"tbalance"}, Vars: []string{"delta", "tid"}, Lookups: []string{"op:arith"}}},
		{"UPDATE t SET v = 0", Statement{Kind: Update, Table: "t", SetColumns: []string{"v"}}},
		{"DELETE FROM t WHERE id = :id", Statement{Kind: Delete, Table: "t", Column: "id", Key: Value{Var: "id"}, Vars: []string{"id"}}},
		{"DELETE FROM t", Statement{Kind: Delete, Table: "t"}},
		{"UPDATE t SET pad = 'y' WHERE id BETWEEN :a AND :a + 100", Statement{Kind: Update, Table: "t", Column: "id", ByRange: true, From: Value{Var: "a"}, To: Value{Expr: "(:a) + (100)"}, SetColumns: []string{"pad"}, Vars: []string{"a"}, Lookups: []string{"op:<=", "op:>=", "op:arith"}}},
		{"DELETE FROM t WHERE id < :b", Statement{Kind: Delete, Table: "t", Column: "id", ByRange: true, To: Value{Expr: "(:b) - 1"}, LowOpen: true, Vars: []string{"b"}, Lookups: []string{"op:<"}}},
		{"DELETE FROM t WHERE id IN (:a, :a + 7, 3)", Statement{Kind: Delete, Table: "t", Column: "id", Keys: []Value{{Var: "a"}, {Expr: "(:a) + (7)"}, {Const: 3}}, Vars: []string{"a"}, Lookups: []string{"op:arith", "op:in"}}},
		{"UPDATE t SET pad = 'z' WHERE id = ANY(ARRAY[4])", Statement{Kind: Update, Table: "t", Column: "id", Key: Value{Const: 4}, SetColumns: []string{"pad"}, Lookups: []string{"op:in"}}},
		{"DELETE FROM t WHERE id > 10 AND id <= 20", Statement{Kind: Delete, Table: "t", Column: "id", ByRange: true, From: Value{Const: 11}, To: Value{Const: 20}, Lookups: []string{"op:<=", "op:>"}}},
		{"INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP)", Statement{Kind: Insert, Table: "pgbench_history", Rows: 1, Vars: []string{"tid", "bid", "aid", "delta"}}},
		{"INSERT INTO t VALUES (1), (2), (3)", Statement{Kind: Insert, Table: "t", Rows: 3}},
		{"INSERT INTO t SELECT g, 'x' FROM generate_series(1, :n) g", Statement{Kind: Insert, Table: "t", Series: true, From: Value{Const: 1}, To: Value{Var: "n"}, Vars: []string{"n"}, Lookups: []string{"fn:generate_series"}}},
		{"VACUUM t", Statement{Kind: Vacuum, Table: "t"}},
		{"SELECT sum(length(pad)) FROM t WHERE id BETWEEN 1 AND 9", Statement{Kind: Range, Table: "t", Column: "id", From: Value{Const: 1}, To: Value{Const: 9}, Targets: []string{"sum"}, TextWalks: 1, Lookups: []string{"agg:sum", "fn:length", "op:<=", "op:>="}, Aggregate: true}},
		{"SELECT count(*), max(id) FROM t WHERE id != 3", Statement{Kind: Scan, Table: "t", Filter: true, Lookups: []string{"agg:max", "op:<>"}, Aggregate: true}},
		{"VACUUM (VERBOSE) t", Statement{Kind: Vacuum, Table: "t"}},
		{"VACUUM ANALYZE t", Statement{Kind: Vacuum, Table: "t", Analyze: true}},
		{"VACUUM (ANALYZE, VERBOSE) t", Statement{Kind: Vacuum, Table: "t", Analyze: true}},
		{"VACUUM (ANALYZE false) t", Statement{Kind: Vacuum, Table: "t"}},
		{"ANALYZE t", Statement{Kind: Analyze, Table: "t"}},
		{"analyze verbose public.t", Statement{Kind: Analyze, Table: "t"}},
		{"CHECKPOINT", Statement{Kind: Checkpoint}},
		{"TRUNCATE t", Statement{Kind: Truncate, Table: "t"}},
		{"SELECT pg_prewarm('t')", Statement{Kind: Prewarm, Table: "t", Mode: "buffer", Targets: []string{"pg_prewarm"}}},
		{"select public.pg_prewarm('public.t'::regclass, 'read')", Statement{Kind: Prewarm, Table: "t", Mode: "read", Targets: []string{"pg_prewarm"}}},
		{"SELECT pg_prewarm('\"T\"', 'prefetch', 'main', 100, NULL)", Statement{Kind: Prewarm, Table: "T", Mode: "prefetch", From: Value{Const: 100}, FromSet: true, Targets: []string{"pg_prewarm"}}},
		{"SELECT pg_prewarm('t', last_block => :n - 1)", Statement{Kind: Prewarm, Table: "t", Mode: "buffer", To: Value{Expr: "(:n) - (1)"}, ToSet: true, Targets: []string{"pg_prewarm"}, Vars: []string{"n"}, Lookups: []string{"op:arith"}}},
	} {
		got, err := Shape(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		got.FilterOps, got.FilterOpsUnhashed = 0, 0 // TestFilterOps
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.sql, got, tc.want)
		}
	}
}

// TestFilterOps counts the operators ExecQual evaluates on a row that
// meets every condition of a WHERE clause: BETWEEN is two comparisons
// (transformAExprBetween), an IN list one per value until PostgreSQL 14
// hashes lists of nine or more constants (convert_saop_to_hashed_saop).
func TestFilterOps(t *testing.T) {
	nine := "1, 2, 3, 4, 5, 6, 7, 8, 9"
	for _, c := range []struct {
		sql           string
		ops, unhashed int
	}{
		{"SELECT count(*) FROM t", 0, 0},
		{"SELECT count(*) FROM t WHERE id > 0", 1, 1},
		{"SELECT count(*) FROM t WHERE id BETWEEN 1 AND 90000", 2, 2},
		{"SELECT count(*) FROM t WHERE id >= 1 AND id <= 100 AND pad <> 'y'", 3, 3},
		{"SELECT count(*) FROM t WHERE (id > 0 OR id < -5) AND NOT pad IS NULL", 3, 3},
		{"SELECT count(*) FROM t WHERE id IN (1, 2, 3)", 3, 3},
		{"SELECT count(*) FROM t WHERE v IN (" + nine + ")", 1, 9},
		{"SELECT count(*) FROM t WHERE v = ANY(ARRAY[" + nine + ", 10])", 1, 10},
		{"UPDATE t SET v = 1 WHERE id BETWEEN :a AND :a + 9", 2, 2},
		{"DELETE FROM t WHERE id = :k", 1, 1},
	} {
		st, err := Shape(c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if st.FilterOps != c.ops || st.FilterOpsUnhashed != c.unhashed {
			t.Errorf("%s: %d operators (%d unhashed), want %d (%d)", c.sql, st.FilterOps, st.FilterOpsUnhashed, c.ops, c.unhashed)
		}
	}
}

// ORDER BY the range's column DESC reads the index backward, and an
// OFFSET with a LIMIT makes the scan read OFFSET + LIMIT rows; without a
// LIMIT the OFFSET is kept but changes nothing the scan reads.
func TestShapeOrderAndOffset(t *testing.T) {
	for _, tc := range []struct {
		sql                 string
		desc, limit, offset bool
		off                 Value
	}{
		{"SELECT * FROM t WHERE id > 3 ORDER BY id DESC LIMIT 3 OFFSET :o", true, true, true, Value{Var: "o"}},
		{"SELECT * FROM t WHERE id BETWEEN 1 AND 9 ORDER BY id DESC NULLS FIRST", true, false, false, Value{}},
		{"SELECT * FROM t ORDER BY id ASC NULLS LAST LIMIT 10 OFFSET 20", false, true, true, Value{Const: 20}},
		{"SELECT * FROM t ORDER BY id DESC LIMIT 10 OFFSET NULL", true, true, false, Value{}},
		{"SELECT * FROM t WHERE id BETWEEN 1 AND 9 OFFSET 5", false, false, true, Value{Const: 5}},
		{"SELECT * FROM t WHERE id > :a LIMIT 10", false, true, false, Value{}},
	} {
		st, err := Shape(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if st.Kind != Range || st.Column != "id" || st.Desc != tc.desc || st.HasLimit != tc.limit || st.HasOffset != tc.offset || st.Offset != tc.off {
			t.Errorf("%s: %+v", tc.sql, st)
		}
	}
}

// SELECT ... FROM t LIMIT n is a scan that stops after n rows; with an
// aggregate the LIMIT is on the aggregate's one row (Aggregate).
func TestShapeScanLimit(t *testing.T) {
	for _, tc := range []struct {
		sql           string
		limit, offset bool
		aggregate     bool
		kind          Kind
	}{
		{"SELECT * FROM t LIMIT 10", true, false, false, Scan},
		{"SELECT v FROM t LIMIT :n OFFSET 3", true, true, false, Scan},
		{"SELECT * FROM t OFFSET 3", false, true, false, Scan},
		{"SELECT count(*) FROM t LIMIT 1", true, false, true, Scan},
		{"SELECT sum(length(pad)) FROM t WHERE id > 5 LIMIT 1", true, false, true, Range},
	} {
		st, err := Shape(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if st.Kind != tc.kind || st.HasLimit != tc.limit || st.HasOffset != tc.offset || st.Aggregate != tc.aggregate {
			t.Errorf("%s: %+v", tc.sql, st)
		}
	}
}

// An IN list (or = ANY of an array) on one column is a List of its
// values, duplicates kept; a list of one is a lookup (transformAExprIn).
func TestShapeInList(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		kind Kind
		keys []Value
	}{
		{"SELECT * FROM t WHERE id IN (3, :a, :b + 1, 3)", List, []Value{{Const: 3}, {Var: "a"}, {Expr: "(:b) + (1)"}, {Const: 3}}},
		{"SELECT count(*) FROM t WHERE id = ANY(ARRAY[1, 2])", List, []Value{{Const: 1}, {Const: 2}}},
		{"SELECT * FROM t WHERE id = ANY('{7, 8,9}'::int[])", List, []Value{{Const: 7}, {Const: 8}, {Const: 9}}},
		{"SELECT * FROM t WHERE id IN (:a)", Lookup, nil},
	} {
		st, err := Shape(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if st.Kind != tc.kind || st.Column != "id" || !reflect.DeepEqual(st.Keys, tc.keys) {
			t.Errorf("%s: %+v", tc.sql, st)
		}
	}
}

// TestShapeRefusals checks that what the model cannot express is refused
// with the reason (and the supported list).
func TestShapeRefusals(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{"UPDATE a SET v = 1 FROM b WHERE a.id = b.id", "UPDATE a SET v ...: UPDATE ... FROM: joins are not modelled (supported: BEGIN"},
		{"SELECT * FROM a, b", "joins, subqueries and functions in FROM are not modelled"},
		{"SELECT * FROM a JOIN b USING (id)", "joins, subqueries and functions in FROM are not modelled"},
		{"SELECT * FROM t WHERE id NOT IN (1, 2)", "NOT IN is not modelled"},
		{"SELECT * FROM t WHERE id <> ALL(ARRAY[1, 2])", "this condition is not modelled"},
		{"SELECT * FROM t WHERE id > ANY(ARRAY[1, 2])", "> ANY is not modelled"},
		{"SELECT * FROM t WHERE id IN (1, 2) ORDER BY id", "ORDER BY, LIMIT or OFFSET on an IN list is not modelled"},
		{"SELECT * FROM t WHERE id IN (1, 2) AND pad <> 'x'", "an IN list with other conditions is not modelled"},
		{"SELECT * FROM t WHERE id IN (1, random(1, 9))", "an IN list's values must be integers"},
		{"SELECT * FROM t WHERE id = ANY('{1,x}')", "= ANY's array must be ARRAY[...] or '{...}' of integers"},
		{"SELECT * FROM t WHERE pad <> 'x' LIMIT 3", "LIMIT or OFFSET on a scan with a filter is not modelled"},
		{"SELECT * FROM t WHERE id > 3 ORDER BY id DESC NULLS LAST LIMIT 3", "ORDER BY other than the range's column (ASC or DESC, NULLs where the index puts them)"},
		{"SELECT * FROM t WHERE id > 3 ORDER BY id NULLS FIRST", "ORDER BY other than the range's column"},
		{"SELECT * FROM t WHERE id > 3 ORDER BY id USING >", "ORDER BY other than the range's column"},
		{"SELECT * FROM t WHERE id > 3 ORDER BY id LIMIT -1", "LIMIT must not be negative"},
		{"SELECT * FROM t WHERE id > 3 ORDER BY id LIMIT 3 OFFSET -2", "OFFSET must not be negative"},
		{"SELECT * FROM t WHERE id > 3 ORDER BY id LIMIT 3 OFFSET random()", "OFFSET must be an integer"},
		{"SELECT * FROM t WHERE id > 3 AND pad <> 'x' ORDER BY id", "ORDER BY, LIMIT or OFFSET on a range with other conditions is not modelled"},
		{"SELECT * FROM t WHERE id BETWEEN 1 AND 10 ORDER BY v", "ORDER BY other than the range's column (ASC or DESC, NULLs where the index puts them) is not modelled"},
		{"SELECT * FROM t WHERE id = (SELECT max(id) FROM t)", "subqueries are not modelled"},
		{"SELECT * FROM t WHERE v <> 3 OFFSET 1", "LIMIT or OFFSET on a scan with a filter is not modelled"},
		{"SELECT * FROM t ORDER BY v, id", "ORDER BY on a scan is not modelled"},
		{"SELECT * FROM t WHERE v = 'x' ORDER BY v", "ORDER BY on a scan is not modelled"},
		{"SELECT v, count(*) FROM t GROUP BY v", "GROUP BY"},
		{"UPDATE t SET v = 1 WHERE v > 3 AND pad <> 'x'", "an UPDATE's WHERE clause must be col = value (one row by its key), a range of one column"},
		{"DELETE FROM t WHERE id NOT IN (1, 2)", "NOT IN is not modelled"},
		{"UPDATE t SET v = 1 WHERE id IN (1, 2) AND v > 3", "an UPDATE's WHERE clause must be col = value"},
		{"DELETE FROM t USING u", "DELETE ... USING: joins are not modelled"},
		{"INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING", "ON CONFLICT is not modelled"},
		{"INSERT INTO t SELECT * FROM u", "INSERT ... SELECT is modelled only from generate_series(a, b)"},
		{"VACUUM", "name one table"},
		{"SELECT 1, pg_prewarm('t')", "pg_prewarm is modelled as a statement of its own"},
		{"SELECT pg_prewarm('t') + 1", "pg_prewarm is modelled as a statement of its own"},
		{"SELECT pg_prewarm('t', 'warm')", `invalid prewarm type "warm"`},
		{"SELECT pg_prewarm('t', 'buffer', 'vm')", "pg_prewarm of the vm fork is not modelled"},
		{"SELECT pg_prewarm('t', NULL)", "pg_prewarm's mode cannot be null"},
		{"SELECT pg_prewarm('other.t')", `schema "other"`},
		{"SELECT pg_prewarm('t', first => 3)", `no argument named "first"`},
		{"SELECT pg_prewarm(:rel)", "pg_prewarm's regclass must be a string constant"},
		{"VACUUM FULL t", "VACUUM option FULL is not modelled"},
		{"ANALYZE", "name one table: ANALYZE t"},
		{"ANALYZE t (id)", "name one table, without columns: ANALYZE t"},
		{"ANALYZE (SKIP_LOCKED) t", "ANALYZE option SKIP_LOCKED is not modelled (VERBOSE is)"},
		{"VACUUM (FREEZE) t", "VACUUM option FREEZE is not modelled (VERBOSE and ANALYZE are)"},
		{"SAVEPOINT a", "savepoints and two-phase commit are not modelled"},
		{"CREATE TABLE x (a int)", "this kind of statement is not modelled"},
		{"SELECT * FROM other.t WHERE id = 1", `schema "other"`},
		{"SELEC 1", `syntax error at or near "SELEC"`},
		{"SELECT 1; SELECT 2", "one statement per command expected, found 2"},
	} {
		_, err := Shape(tc.sql)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.sql, err, tc.want)
		}
	}
}

// An index-only scan can answer a SELECT whose list refers to no column
// but the WHERE clause's key (PostgreSQL's check_index_only: every column
// the query needs is in the index).
func TestKeyOnly(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"SELECT count(*) FROM t WHERE id BETWEEN 1 AND 10", true},
		{"SELECT count(id), max(t.id) FROM t WHERE id BETWEEN :a AND :b", true},
		{"SELECT id + 1 FROM t WHERE id = 5", true},
		{"SELECT 1 FROM t WHERE id = 5", true},
		{"SELECT * FROM t WHERE id BETWEEN 1 AND 10", false},
		{"SELECT t.* FROM t WHERE id = 5", false},
		{"SELECT sum(length(pad)) FROM t WHERE id BETWEEN 1 AND 10", false},
		{"SELECT abalance FROM pgbench_accounts WHERE aid = :aid", false},
		{"SELECT count(*) FILTER (WHERE v > 0) FROM t WHERE id BETWEEN 1 AND 10", false},
	} {
		st, err := Shape(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if st.KeyOnly != c.want {
			t.Errorf("%s: KeyOnly %v, want %v", c.sql, st.KeyOnly, c.want)
		}
	}
}
