package pgscript

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Kind is the shape of an SQL statement as the model sees it.
type Kind uint8

const (
	Begin      Kind = iota + 1 // BEGIN, START TRANSACTION
	Commit                     // COMMIT, END
	Rollback                   // ROLLBACK, ABORT
	NoTable                    // SELECT without FROM (SELECT 1, SELECT :aid)
	Lookup                     // SELECT ... FROM t WHERE col = value
	Range                      // SELECT ... FROM t WHERE col BETWEEN a AND b (or col >= a AND col <= b)
	Scan                       // SELECT ... FROM t [WHERE ...]: every row is read
	Update                     // UPDATE t SET ... [WHERE col = value, or a range of col]
	Delete                     // DELETE FROM t [WHERE col = value, or a range of col]
	Insert                     // INSERT INTO t VALUES (...), ... or SELECT ... FROM generate_series(a, b)
	Vacuum                     // VACUUM t
	Checkpoint                 // CHECKPOINT
	Truncate                   // TRUNCATE t
	Prewarm                    // SELECT pg_prewarm('t'[, mode[, fork[, first_block[, last_block]]]])
	Analyze                    // ANALYZE t
	List                       // SELECT ... FROM t WHERE col IN (a, b, ...) or col = ANY(ARRAY[...])
)

var kindNames = [...]string{"", "BEGIN", "COMMIT", "ROLLBACK", "SELECT", "SELECT", "SELECT", "SELECT", "UPDATE", "DELETE", "INSERT", "VACUUM", "CHECKPOINT", "TRUNCATE", "SELECT", "ANALYZE", "SELECT"}

func (k Kind) String() string { return kindNames[k] }

// Value is a constant, a script variable (:name), or integer arithmetic
// (+ - * /) on them, which the server would compute (Expr, in pgbench's
// expression syntax: ":aid + 100").
type Value struct {
	Var   string // the variable's name, or "" for a constant
	Const int64
	Expr  string
}

// MinMaxAgg is min(Column) (Max false) or max(Column) in a SELECT list.
type MinMaxAgg struct {
	Column string
	Max    bool
}

// RangeAlt is a range of one column among a WHERE clause's conditions
// (Statement.Ranges); KeyOnly as Equality's.
type RangeAlt struct {
	Column            string
	From, To          Value
	LowOpen, HighOpen bool
	KeyOnly           bool
}

// UseRange makes a the statement's range (Column, From, To, its open
// sides, KeyOnly).
func (st *Statement) UseRange(a RangeAlt) {
	st.Column, st.From, st.To, st.LowOpen, st.HighOpen, st.KeyOnly = a.Column, a.From, a.To, a.LowOpen, a.HighOpen, a.KeyOnly
}

// Equality is a WHERE clause's col = value condition; KeyOnly: the
// statement reads no column but Column (its SELECT list and its WHERE
// clause), so Column's index could answer it alone.
type Equality struct {
	Column  string
	Key     Value
	KeyOnly bool
}

func (v Value) String() string {
	switch {
	case v.Expr != "":
		return v.Expr
	case v.Var != "":
		return ":" + v.Var
	}
	return strconv.FormatInt(v.Const, 10)
}

// Statement is the shape of one SQL command.
type Statement struct {
	Kind  Kind
	Table string // the relation, unqualified and lower-case
	// Column and Key: the WHERE clause is Column = Key (Lookup, and
	// Update and Delete of one key); Column is "" for no WHERE clause.
	Column string
	Key    Value
	// FilterOps is how many operators the WHERE clause evaluates on a row
	// that meets every condition, where a scan tests it on every row
	// (filterOps; FilterOpsUnhashed before PostgreSQL 14, which tests
	// a long IN list value by value); 0 without a WHERE clause.
	FilterOps, FilterOpsUnhashed int
	// Filter is a WHERE clause of another form (Scan: the rows are all
	// read and filtered), or, for a Lookup, conditions beside its
	// equality (key = v AND ...: tested on the row it finds).
	Filter bool
	// Equalities are a Lookup's col = value conditions when its WHERE
	// clause has more than one condition: the model looks the row up by
	// the one on the table's key (Column and Key are the first's).
	Equalities []Equality
	// OrderOrLimit: such a Lookup has ORDER BY, LIMIT or OFFSET, which
	// change nothing for a point lookup but would for a range.
	OrderOrLimit bool
	// Ranges are the ranges such a WHERE clause puts on single columns
	// (a Range's, or a Lookup's whose equalities are on other columns):
	// the model scans the one on the key, if any (UseRange).
	Ranges []RangeAlt
	// SetColumns are an UPDATE's target columns.
	SetColumns []string
	// ByRange: an UPDATE's or DELETE's WHERE clause is a range of Column
	// (From, To, LowOpen and HighOpen as a Range's), not one key.
	ByRange bool
	// Rows an INSERT adds: the number of VALUES lists, or the
	// generate_series(From, To) range; a Range's keys are From..To on
	// Column.
	Rows     int64
	From, To Value
	Series   bool
	// LowOpen and HighOpen: a Range bounded on one side only (id <= :b
	// has no lower bound: From is unset; id >= :a no upper one; both for
	// SELECT ... FROM t ORDER BY col without WHERE).
	LowOpen, HighOpen bool
	// Ordered: a Range ORDER BY its column, descending when Desc (the
	// index read backward); Limit its LIMIT when HasLimit (LIMIT ALL
	// and LIMIT NULL are none) and Offset its OFFSET when HasOffset
	// (OFFSET NULL is none).
	Ordered, Desc       bool
	Limit, Offset       Value
	HasLimit, HasOffset bool
	// Keys are a List's values, in the order written (duplicates kept:
	// the planner counts them; the scan sorts and drops them), or an
	// UPDATE's or DELETE's by an IN list of Column.
	Keys []Value
	// Aggregate: the SELECT list has an aggregate, so the statement
	// returns one row and a LIMIT or OFFSET applies to it, not to the
	// rows the scan reads (a Range's or a Scan's).
	Aggregate bool
	// Targets are a SELECT's output column names (a column's name or
	// its alias; "?column?" for other expressions), for \gset.
	Targets []string
	// KeyOnly: a Lookup's or a Range's SELECT list reads no column but
	// Column (count(*), the key itself, expressions on it), so an index
	// on Column can answer it alone (an index-only scan).
	KeyOnly bool
	// MinMax: a Scan without a WHERE clause whose SELECT list is only
	// min(col) and max(col) aggregates, each of which an index on col
	// answers from one end (preprocess_minmax_aggregates).
	MinMax []MinMaxAgg
	// Columns are the columns a Scan without a WHERE clause reads in its
	// SELECT list, distinct, in order ("*" for every column; none for
	// count(*)): an index holding them all can answer it alone (the
	// planner's check_index_only), which the model decides knowing the
	// table's key.
	Columns []string
	// TextWalks is, per row, how many times the statement's expressions
	// walk a column's text character by character (Lookup, Range, Scan;
	// textWalks): costs.text_char per byte each.
	TextWalks int
	// Vars are the script variables the statement refers to, in order.
	Vars []string
	// Analyze: VACUUM ANALYZE (Vacuum only).
	Analyze bool
	// Lookups are the catalog objects its plan looks up beyond a point
	// SELECT's (Lookups).
	Lookups []string
	// Mode is pg_prewarm's mode ("buffer", "read" or "prefetch"); a
	// Prewarm's From and To are its first_block and last_block when
	// FromSet and ToSet (NULL, or left out: the relation's first and last
	// blocks).
	Mode           string
	FromSet, ToSet bool
}

// Supported lists the statement shapes Shape accepts, for messages.
const Supported = "BEGIN/START TRANSACTION, END/COMMIT, ROLLBACK/ABORT, SELECT without FROM, SELECT ... FROM t WHERE col = :v [AND ...] (a point lookup), SELECT ... FROM t WHERE col IN (:a, :b, ...) or col = ANY(ARRAY[...]) (a list of keys), SELECT ... FROM t WHERE col BETWEEN :a AND :b or col >= :a [AND col < :b] [ORDER BY col [DESC]] [LIMIT :n] [OFFSET :m] (a range), SELECT ... FROM t ORDER BY col [DESC] [LIMIT :n] [OFFSET :m], SELECT ... FROM t [LIMIT :n] [OFFSET :m] (a sequential scan), SELECT ... FROM t WHERE ... (a sequential scan with a filter), UPDATE t SET ... [WHERE col = :v | WHERE col BETWEEN :a AND :b (or col >= :a [AND col < :b]) | WHERE col IN (:a, :b, ...)], DELETE FROM t [WHERE col = :v | WHERE col BETWEEN :a AND :b ... | WHERE col IN (...)], INSERT INTO t [(cols)] VALUES (...)[, ...], INSERT INTO t SELECT ... FROM generate_series(a, b), VACUUM [VERBOSE] t, CHECKPOINT, TRUNCATE t, SELECT pg_prewarm('t'[, 'buffer'|'read'|'prefetch'[, 'main'[, first_block[, last_block]]]])"

// Shape parses an SQL command of a pgbench script and returns its shape.
// :name references become parameters first, as pgbench's parseQuery does
// for its prepared and extended query modes.
func Shape(sql string) (Statement, error) {
	text, vars := bindParams(sql)
	res, err := pg_query.Parse(text)
	if err != nil {
		return Statement{}, err
	}
	if len(res.Stmts) != 1 {
		return Statement{}, fmt.Errorf("one statement per command expected, found %d", len(res.Stmts))
	}
	sh := shaper{vars: vars}
	st, err := sh.stmt(res.Stmts[0].Stmt)
	if err != nil {
		return Statement{}, fmt.Errorf("%s: %v (supported: %s)", summary(sql), err, Supported)
	}
	st.Vars = vars
	st.Lookups = Lookups(res.Stmts[0].Stmt)
	st.FilterOps, st.FilterOpsUnhashed = filterOps(whereOf(res.Stmts[0].Stmt))
	return st, nil
}

// whereOf is a SELECT's, UPDATE's or DELETE's WHERE clause (nil: none).
func whereOf(n *pg_query.Node) *pg_query.Node {
	switch {
	case n.GetSelectStmt() != nil:
		return n.GetSelectStmt().WhereClause
	case n.GetUpdateStmt() != nil:
		return n.GetUpdateStmt().WhereClause
	case n.GetDeleteStmt() != nil:
		return n.GetDeleteStmt().WhereClause
	}
	return nil
}

// hashedListMin is the shortest IN list of constants PostgreSQL 14 and
// later test by a hash table rather than value by value
// (MIN_ARRAY_SIZE_FOR_HASHED_SAOP, planner's convert_saop_to_hashed_saop).
const hashedListMin = 9

// filterOps counts the operators a WHERE clause evaluates on a row that
// satisfies every condition (ExecQual over the expression: an AND's
// conditions all, an OR's each; BETWEEN two comparisons, an IN list one
// per value, a test of NULL or a boolean one). ops counts an IN list of
// hashedListMin or more values as one probe (PostgreSQL 14 and later),
// unhashed as its values (before 14).
func filterOps(w *pg_query.Node) (ops, unhashed int) {
	if w == nil {
		return 0, 0
	}
	if tc := w.GetTypeCast(); tc != nil {
		return filterOps(tc.Arg)
	}
	if be := w.GetBoolExpr(); be != nil {
		for _, a := range be.Args {
			o, u := filterOps(a)
			ops, unhashed = ops+o, unhashed+u
		}
		return ops, unhashed
	}
	if e := w.GetAExpr(); e != nil {
		switch e.Kind {
		case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN,
			pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
			return 2, 2
		case pg_query.A_Expr_Kind_AEXPR_IN, pg_query.A_Expr_Kind_AEXPR_OP_ANY:
			n := 1
			if l := e.Rexpr.GetList(); l != nil {
				n = max(1, len(l.Items))
			} else if a := e.Rexpr.GetAArrayExpr(); a != nil {
				n = max(1, len(a.Elements))
			}
			if n >= hashedListMin {
				return 1, n
			}
			return n, n
		}
	}
	return 1, 1
}

// summary is the statement's first words, for messages.
func summary(sql string) string {
	f := strings.Fields(sql)
	if len(f) > 4 {
		f = append(f[:4], "...")
	}
	return strings.Join(f, " ")
}

// bindParams replaces every :name with $n, a parameter per distinct name
// (pgbench.c parseQuery and parseVariable: "::" is a cast and is kept).
func bindParams(sql string) (string, []string) {
	var b strings.Builder
	var vars []string
	for i := 0; i < len(sql); {
		c := sql[i]
		if c != ':' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		for j < len(sql) && (sql[j] == '_' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] >= '0' && sql[j] <= '9' || sql[j] >= 0x80) {
			j++
		}
		if j == i+1 {
			// Not a variable: copy the colons as they are.
			for i < len(sql) && sql[i] == ':' {
				b.WriteByte(':')
				i++
			}
			continue
		}
		name := sql[i+1 : j]
		n := -1
		for k, v := range vars {
			if v == name {
				n = k
			}
		}
		if n < 0 {
			vars = append(vars, name)
			n = len(vars) - 1
		}
		fmt.Fprintf(&b, "$%d", n+1)
		i = j
	}
	return b.String(), vars
}

type shaper struct{ vars []string }

func (s shaper) stmt(n *pg_query.Node) (Statement, error) {
	switch {
	case n.GetTransactionStmt() != nil:
		return s.transaction(n.GetTransactionStmt())
	case n.GetSelectStmt() != nil:
		return s.selectStmt(n.GetSelectStmt())
	case n.GetUpdateStmt() != nil:
		return s.update(n.GetUpdateStmt())
	case n.GetDeleteStmt() != nil:
		return s.delete(n.GetDeleteStmt())
	case n.GetInsertStmt() != nil:
		return s.insert(n.GetInsertStmt())
	case n.GetVacuumStmt() != nil:
		return s.vacuum(n.GetVacuumStmt())
	case n.GetCheckPointStmt() != nil:
		return Statement{Kind: Checkpoint}, nil
	case n.GetTruncateStmt() != nil:
		t := n.GetTruncateStmt()
		if len(t.Relations) != 1 {
			return Statement{}, fmt.Errorf("a TRUNCATE of %d tables is not modelled: truncate one table per statement", len(t.Relations))
		}
		name, err := relName(t.Relations[0].GetRangeVar())
		return Statement{Kind: Truncate, Table: name}, err
	}
	return Statement{}, fmt.Errorf("this kind of statement is not modelled")
}

func (s shaper) transaction(t *pg_query.TransactionStmt) (Statement, error) {
	switch t.Kind {
	case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN, pg_query.TransactionStmtKind_TRANS_STMT_START:
		return Statement{Kind: Begin}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
		if t.Chain {
			return Statement{}, fmt.Errorf("COMMIT AND CHAIN is not modelled")
		}
		return Statement{Kind: Commit}, nil
	case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		if t.Chain {
			return Statement{}, fmt.Errorf("ROLLBACK AND CHAIN is not modelled")
		}
		return Statement{Kind: Rollback}, nil
	}
	return Statement{}, fmt.Errorf("savepoints and two-phase commit are not modelled")
}

// relName is a table reference's name; a schema other than public is
// refused (the model has one schema).
func relName(rv *pg_query.RangeVar) (string, error) {
	if rv == nil {
		return "", fmt.Errorf("only a plain table name is modelled here")
	}
	if rv.Schemaname != "" && rv.Schemaname != "public" {
		return "", fmt.Errorf("schema %q: the model's tables are all in public", rv.Schemaname)
	}
	if rv.Alias != nil && len(rv.Alias.Colnames) > 0 {
		return "", fmt.Errorf("column aliases are not modelled")
	}
	return rv.Relname, nil
}

func (s shaper) selectStmt(q *pg_query.SelectStmt) (Statement, error) {
	switch {
	case q.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED && q.Op != pg_query.SetOperation_SETOP_NONE:
		return Statement{}, fmt.Errorf("UNION, INTERSECT and EXCEPT are not modelled")
	case q.WithClause != nil:
		return Statement{}, fmt.Errorf("WITH queries are not modelled")
	case len(q.ValuesLists) > 0:
		return Statement{Kind: NoTable}, nil
	case q.IntoClause != nil:
		return Statement{}, fmt.Errorf("SELECT INTO is not modelled")
	case len(q.LockingClause) > 0:
		return Statement{}, fmt.Errorf("FOR UPDATE/SHARE is not modelled")
	}
	if len(q.FromClause) == 0 {
		if q.WhereClause != nil {
			return Statement{}, fmt.Errorf("a WHERE clause without FROM is not modelled")
		}
		for _, t := range q.TargetList {
			if hasSubquery(t) {
				return Statement{}, fmt.Errorf("subqueries are not modelled")
			}
			if hasCall(t, "pg_prewarm") {
				return s.prewarm(q.TargetList)
			}
		}
		return Statement{Kind: NoTable}, nil
	}
	if len(q.FromClause) > 1 || q.FromClause[0].GetRangeVar() == nil {
		return Statement{}, fmt.Errorf("joins, subqueries and functions in FROM are not modelled")
	}
	name, err := relName(q.FromClause[0].GetRangeVar())
	if err != nil {
		return Statement{}, err
	}
	for _, t := range q.TargetList {
		if hasSubquery(t) {
			return Statement{}, fmt.Errorf("subqueries are not modelled")
		}
	}
	if hasSubquery(q.WhereClause) {
		return Statement{}, fmt.Errorf("subqueries are not modelled")
	}
	if len(q.GroupClause) > 0 || q.HavingClause != nil || len(q.WindowClause) > 0 || len(q.DistinctClause) > 0 {
		// Every row is still read once; the grouping is CPU the model
		// does not price, so say so rather than approximate.
		return Statement{}, fmt.Errorf("GROUP BY, HAVING, DISTINCT and window functions are not modelled")
	}
	r, isRange := s.keyRange(q.WhereClause)
	if !isRange && q.WhereClause == nil && len(q.SortClause) == 1 {
		// SELECT ... FROM t ORDER BY col: every row in col's order.
		if col := columnName(q.SortClause[0].GetSortBy().GetNode()); col != "" {
			r, isRange = keyRangeShape{col: col, lowOpen: true, highOpen: true}, true
		}
	}
	if isRange {
		col := r.col
		ordered := len(q.SortClause) > 0
		desc := false
		if ordered {
			sb := q.SortClause[0].GetSortBy()
			desc = sb.SortbyDir == pg_query.SortByDir_SORTBY_DESC
			// The index holds its keys ascending with NULLs last, so
			// read forward it gives ASC NULLS LAST and backward DESC
			// NULLS FIRST, the defaults (build_index_pathkeys); other
			// orders need a Sort, and USING an operator's own order.
			nulls := sb.SortbyNulls == pg_query.SortByNulls_SORTBY_NULLS_DEFAULT ||
				sb.SortbyNulls == pg_query.SortByNulls_SORTBY_NULLS_LAST && !desc ||
				sb.SortbyNulls == pg_query.SortByNulls_SORTBY_NULLS_FIRST && desc
			if len(q.SortClause) != 1 || columnName(sb.GetNode()) != col || sb.SortbyDir == pg_query.SortByDir_SORTBY_USING || !nulls {
				return Statement{}, fmt.Errorf("ORDER BY other than the range's column (ASC or DESC, NULLs where the index puts them) is not modelled")
			}
		}
		st := Statement{Kind: Range, Table: name, Column: col, From: r.from, To: r.to, LowOpen: r.lowOpen, HighOpen: r.highOpen, Ordered: ordered, Desc: desc, Targets: targets(q.TargetList), KeyOnly: keyOnly(q.TargetList, col), TextWalks: textWalks(q.TargetList)}
		st.Aggregate = hasAggregate(q.TargetList)
		if err := s.limitOffset(q, &st); err != nil {
			return Statement{}, err
		}
		return st, nil
	}
	if col, keys, isList, err := s.inList(q.WhereClause); err != nil {
		return Statement{}, err
	} else if isList {
		if len(q.SortClause) > 0 || q.LimitCount != nil || q.LimitOffset != nil {
			return Statement{}, fmt.Errorf("ORDER BY, LIMIT or OFFSET on an IN list is not modelled")
		}
		if len(keys) == 1 {
			// transformAExprIn: a list of one is col = value.
			return Statement{Kind: Lookup, Table: name, Column: col, Key: keys[0], Targets: targets(q.TargetList), KeyOnly: keyOnly(q.TargetList, col), TextWalks: textWalks(q.TargetList)}, nil
		}
		return Statement{Kind: List, Table: name, Column: col, Keys: keys, Targets: targets(q.TargetList), KeyOnly: keyOnly(q.TargetList, col), TextWalks: textWalks(q.TargetList), Aggregate: hasAggregate(q.TargetList)}, nil
	}
	if conj := conjuncts(q.WhereClause); len(conj) > 1 {
		for _, c := range conj {
			if _, _, isList, _ := s.inList(c); isList {
				return Statement{}, fmt.Errorf("an IN list with other conditions is not modelled")
			}
		}
		// key = v AND other conditions: the planner looks the row up by
		// the key's index and tests the rest on it (a Filter). Which
		// column is the key the model decides (Equalities).
		// Likewise a range of one column AND other conditions: an index
		// scan of the range with a Filter (Ranges).
		read := append(slices.Clone(q.TargetList), q.WhereClause)
		var eqs []Equality
		for _, c := range conj {
			if col, v, ok, _ := s.equality(c); ok {
				eqs = append(eqs, Equality{Column: col, Key: v, KeyOnly: keyOnly(read, col)})
			}
		}
		ranges := s.rangeAlternatives(conj, read)
		walks := textWalks(q.TargetList) + textWalks([]*pg_query.Node{q.WhereClause})
		switch {
		case len(eqs) > 0:
			return Statement{Kind: Lookup, Table: name, Column: eqs[0].Column, Key: eqs[0].Key, Filter: true, Equalities: eqs, Ranges: ranges, Targets: targets(q.TargetList), KeyOnly: eqs[0].KeyOnly, TextWalks: walks,
				OrderOrLimit: len(q.SortClause) > 0 || q.LimitCount != nil || q.LimitOffset != nil}, nil
		case len(ranges) > 0:
			if len(q.SortClause) > 0 || q.LimitCount != nil || q.LimitOffset != nil {
				return Statement{}, fmt.Errorf("ORDER BY, LIMIT or OFFSET on a range with other conditions is not modelled")
			}
			st := Statement{Kind: Range, Table: name, Filter: true, Ranges: ranges, Targets: targets(q.TargetList), TextWalks: walks}
			st.UseRange(ranges[0])
			return st, nil
		}
	}
	col, key, ok, err := s.equality(q.WhereClause)
	if err != nil {
		return Statement{}, err
	}
	if ok {
		// A point lookup returns its row whatever the order or limit:
		// ORDER BY and LIMIT change nothing the model counts.
		return Statement{Kind: Lookup, Table: name, Column: col, Key: key, Targets: targets(q.TargetList), KeyOnly: keyOnly(q.TargetList, col), TextWalks: textWalks(q.TargetList)}, nil
	}
	if q.WhereClause != nil && (q.LimitCount != nil || q.LimitOffset != nil) {
		return Statement{}, fmt.Errorf("LIMIT or OFFSET on a scan with a filter is not modelled (the scan stops at the rows the filter passes, which the model does not place)")
	}
	if len(q.SortClause) > 0 {
		return Statement{}, fmt.Errorf("ORDER BY on a scan is not modelled (a sort, or an index scan in key order)")
	}
	walks := textWalks(q.TargetList)
	if q.WhereClause != nil {
		walks += textWalks([]*pg_query.Node{q.WhereClause})
	}
	st := Statement{Kind: Scan, Table: name, Filter: q.WhereClause != nil, TextWalks: walks, Aggregate: hasAggregate(q.TargetList)}
	if !st.Filter {
		st.Columns = listColumns(q.TargetList)
		st.MinMax = minMaxAggs(q.TargetList)
		// SELECT ... FROM t LIMIT n: the scan stops after n rows.
		if err := s.limitOffset(q, &st); err != nil {
			return Statement{}, err
		}
	}
	return st, nil
}

// limitOffset sets st's LIMIT and OFFSET from q's (LIMIT ALL, LIMIT NULL
// and OFFSET NULL are none). With a LIMIT the scan stops after OFFSET +
// LIMIT rows (ExecLimit fetches the skipped rows from it, then stops
// asking); without one the OFFSET changes nothing the scan reads.
func (s shaper) limitOffset(q *pg_query.SelectStmt, st *Statement) (err error) {
	if st.Limit, st.HasLimit, err = s.count(q.LimitCount, "LIMIT"); err != nil {
		return err
	}
	st.Offset, st.HasOffset, err = s.count(q.LimitOffset, "OFFSET")
	return err
}

// count is a LIMIT's or an OFFSET's value (what names it), if n is one
// and not NULL.
func (s shaper) count(n *pg_query.Node, what string) (Value, bool, error) {
	if n == nil || isNull(n) {
		return Value{}, false, nil
	}
	v, ok := s.value(n)
	if !ok {
		return Value{}, false, fmt.Errorf("%s must be an integer, a :variable or + - * / of them", what)
	}
	if v.Var == "" && v.Expr == "" && v.Const < 0 {
		return Value{}, false, fmt.Errorf("%s must not be negative (PostgreSQL's error)", what)
	}
	return v, true, nil
}

// hasAggregate reports whether a SELECT list calls an aggregate (without
// GROUP BY, which is refused: the statement returns one row).
func hasAggregate(list []*pg_query.Node) bool {
	found := false
	for _, t := range list {
		visit(t.ProtoReflect(), func(m protoreflect.Message) {
			if fc, ok := m.Interface().(*pg_query.FuncCall); ok && aggregates[funcName(fc)] {
				found = true
			}
		})
	}
	return found
}

// minMaxAggs are the aggregates of a SELECT list whose aggregates are all
// min(col) and max(col), wherever they stand in its expressions
// (planagg.c preprocess_minmax_aggregates: each can be answered by the
// first row of an index scan in the column's order), or nil when it has
// another aggregate or none.
func minMaxAggs(list []*pg_query.Node) []MinMaxAgg {
	var out []MinMaxAgg
	other := false
	for _, t := range list {
		visit(t.ProtoReflect(), func(m protoreflect.Message) {
			fc, ok := m.Interface().(*pg_query.FuncCall)
			if !ok {
				return
			}
			name := strings.ToLower(funcName(fc))
			if !aggregates[name] && !fc.AggStar {
				return // an ordinary function
			}
			col := ""
			if len(fc.Args) == 1 {
				col = columnName(fc.Args[0])
			}
			if (name != "min" && name != "max") || col == "" || fc.AggDistinct || fc.AggFilter != nil || len(fc.AggOrder) > 0 || fc.Over != nil {
				other = true
				return
			}
			out = append(out, MinMaxAgg{Column: col, Max: name == "max"})
		})
	}
	if other {
		return nil
	}
	return out
}

// textWalks counts, per row, the calls under nodes that walk a column's
// text character by character, weighted by what each costs per byte
// against length() (measured on PostgreSQL 15, UTF8, 1000-byte values:
// length and char_length 1.8 ns a byte, upper 5.2): length, char_length
// and character_length (textlen: pg_mbstrlen_with_len counts the
// characters of a multibyte encoding) 1; upper and lower (str_toupper,
// str_tolower: a wide-character copy) 3. Only calls whose argument names
// a column count: a constant's work is done once. Other functions and
// operators are not priced (docs/model.md "A backend").
func textWalks(nodes []*pg_query.Node) int {
	n := 0
	for _, root := range nodes {
		if root == nil {
			continue
		}
		visit(root.ProtoReflect(), func(m protoreflect.Message) {
			switch x := m.Interface().(type) {
			case *pg_query.FuncCall:
				w := 0
				switch strings.ToLower(funcName(x)) {
				case "length", "char_length", "character_length":
					w = 1
				case "upper", "lower":
					w = 3
				}
				if w > 0 && len(x.Args) == 1 && hasNode(x.Args[0], "ColumnRef") {
					n += w
				}
			}
		})
	}
	return n
}

func (s shaper) update(q *pg_query.UpdateStmt) (Statement, error) {
	switch {
	case len(q.FromClause) > 0:
		return Statement{}, fmt.Errorf("UPDATE ... FROM: joins are not modelled")
	case q.WithClause != nil:
		return Statement{}, fmt.Errorf("WITH queries are not modelled")
	}
	name, err := relName(q.Relation)
	if err != nil {
		return Statement{}, err
	}
	st := Statement{Kind: Update, Table: name}
	for _, t := range q.TargetList {
		rt := t.GetResTarget()
		if rt == nil {
			continue
		}
		if hasSubquery(rt.Val) {
			return Statement{}, fmt.Errorf("subqueries are not modelled")
		}
		st.SetColumns = append(st.SetColumns, rt.Name)
	}
	return s.byKey(st, q.WhereClause, "an UPDATE")
}

// byKey completes an UPDATE's or DELETE's shape with its WHERE clause,
// which must be col = value (one row by its key), a range of col as a
// SELECT's (col BETWEEN a AND b, col >= a [AND col < b], ...: ByRange),
// an IN list of col (Keys), or absent (every row).
func (s shaper) byKey(st Statement, where *pg_query.Node, what string) (Statement, error) {
	if where == nil {
		return st, nil
	}
	if r, isRange := s.keyRange(where); isRange {
		st.Column, st.ByRange = r.col, true
		st.From, st.To, st.LowOpen, st.HighOpen = r.from, r.to, r.lowOpen, r.highOpen
		return st, nil
	}
	if col, keys, isList, err := s.inList(where); err != nil {
		return Statement{}, err
	} else if isList {
		st.Column = col
		if len(keys) == 1 {
			st.Key = keys[0] // transformAExprIn: a list of one is col = value
			return st, nil
		}
		st.Keys = keys
		return st, nil
	}
	col, key, ok, err := s.equality(where)
	if err != nil {
		return Statement{}, err
	}
	if ok {
		st.Column, st.Key = col, key
		return st, nil
	}
	return Statement{}, fmt.Errorf("%s's WHERE clause must be col = value (one row by its key), a range of one column (col BETWEEN a AND b, col >= a AND col < b, ...), an IN list of one column or absent (every row)", what)
}

func (s shaper) delete(q *pg_query.DeleteStmt) (Statement, error) {
	switch {
	case len(q.UsingClause) > 0:
		return Statement{}, fmt.Errorf("DELETE ... USING: joins are not modelled")
	case q.WithClause != nil:
		return Statement{}, fmt.Errorf("WITH queries are not modelled")
	}
	name, err := relName(q.Relation)
	if err != nil {
		return Statement{}, err
	}
	return s.byKey(Statement{Kind: Delete, Table: name}, q.WhereClause, "a DELETE")
}

func (s shaper) insert(q *pg_query.InsertStmt) (Statement, error) {
	switch {
	case q.OnConflictClause != nil:
		return Statement{}, fmt.Errorf("INSERT ... ON CONFLICT is not modelled")
	case q.WithClause != nil:
		return Statement{}, fmt.Errorf("WITH queries are not modelled")
	}
	name, err := relName(q.Relation)
	if err != nil {
		return Statement{}, err
	}
	st := Statement{Kind: Insert, Table: name}
	sel := q.SelectStmt.GetSelectStmt()
	if q.SelectStmt == nil || sel == nil {
		return Statement{}, fmt.Errorf("INSERT ... DEFAULT VALUES is not modelled")
	}
	if len(sel.ValuesLists) > 0 {
		st.Rows = int64(len(sel.ValuesLists))
		for _, v := range sel.ValuesLists {
			if hasSubquery(v) {
				return Statement{}, fmt.Errorf("subqueries are not modelled")
			}
		}
		return st, nil
	}
	// INSERT ... SELECT ... FROM generate_series(a, b): b - a + 1 rows
	// from no table.
	if len(sel.FromClause) != 1 || sel.WhereClause != nil || sel.Op != pg_query.SetOperation_SETOP_NONE && sel.Op != pg_query.SetOperation_SET_OPERATION_UNDEFINED {
		return Statement{}, fmt.Errorf("INSERT ... SELECT is modelled only from generate_series(a, b)")
	}
	rf := sel.FromClause[0].GetRangeFunction()
	if rf == nil || len(rf.Functions) != 1 {
		return Statement{}, fmt.Errorf("INSERT ... SELECT is modelled only from generate_series(a, b)")
	}
	list := rf.Functions[0].GetList()
	if list == nil || len(list.Items) == 0 {
		return Statement{}, fmt.Errorf("INSERT ... SELECT is modelled only from generate_series(a, b)")
	}
	fc := list.Items[0].GetFuncCall()
	if fc == nil || funcName(fc) != "generate_series" || len(fc.Args) != 2 {
		return Statement{}, fmt.Errorf("INSERT ... SELECT is modelled only from generate_series(a, b) (two arguments)")
	}
	from, ok1 := s.value(fc.Args[0])
	to, ok2 := s.value(fc.Args[1])
	if !ok1 || !ok2 {
		return Statement{}, fmt.Errorf("generate_series's bounds must be integers or :variables")
	}
	st.Series, st.From, st.To = true, from, to
	return st, nil
}

func (s shaper) vacuum(q *pg_query.VacuumStmt) (Statement, error) {
	cmd := "VACUUM"
	if !q.IsVacuumcmd {
		cmd = "ANALYZE"
	}
	analyze := !q.IsVacuumcmd
	for _, o := range q.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch d.Defname {
		case "verbose":
		case "analyze":
			// VACUUM ANALYZE t, VACUUM (ANALYZE) t; (ANALYZE false)
			// keeps it off.
			analyze = true
			if d.Arg != nil {
				if b := d.Arg.GetBoolean(); b != nil {
					analyze = b.Boolval
				} else if sv := d.Arg.GetString_(); sv != nil {
					switch strings.ToLower(sv.Sval) {
					case "off", "false", "0", "no":
						analyze = false
					}
				} else if iv := d.Arg.GetInteger(); iv != nil {
					analyze = iv.Ival != 0
				}
			}
		default:
			hint := "VERBOSE is"
			if q.IsVacuumcmd {
				hint = "VERBOSE and ANALYZE are"
			}
			return Statement{}, fmt.Errorf("%s option %s is not modelled (%s)", cmd, strings.ToUpper(d.Defname), hint)
		}
	}
	if len(q.Rels) != 1 {
		return Statement{}, fmt.Errorf("name one table: %s t", cmd)
	}
	vr := q.Rels[0].GetVacuumRelation()
	if vr == nil || len(vr.VaCols) > 0 {
		return Statement{}, fmt.Errorf("name one table, without columns: %s t", cmd)
	}
	name, err := relName(vr.Relation)
	if !q.IsVacuumcmd {
		return Statement{Kind: Analyze, Table: name}, err
	}
	return Statement{Kind: Vacuum, Table: name, Analyze: analyze}, err
}

// equality recognises a WHERE clause of the form col = value (either way
// round). ok is false for any other clause (or none).
func (s shaper) equality(w *pg_query.Node) (col string, v Value, ok bool, err error) {
	if w == nil {
		return "", Value{}, false, nil
	}
	e := w.GetAExpr()
	if e == nil || e.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 || e.Name[0].GetString_().GetSval() != "=" {
		if e != nil && e.Kind != pg_query.A_Expr_Kind_AEXPR_OP {
			return "", Value{}, false, fmt.Errorf("this condition is not modelled (a key range is col BETWEEN a AND b, or one or two comparisons col < b, col <= b, col > a, col >= a joined by AND, with bounds that are integers, :variables or + - * / of them; a lookup is col = v, possibly AND other conditions)")
		}
		return "", Value{}, false, nil
	}
	l, r := e.Lexpr, e.Rexpr
	if columnName(l) == "" {
		l, r = r, l
	}
	col = columnName(l)
	if col == "" {
		return "", Value{}, false, nil
	}
	v, ok = s.value(r)
	if !ok {
		return "", Value{}, false, nil
	}
	return col, v, true, nil
}

// inList recognises col IN (v1, v2, ...) and col = ANY(ARRAY[v1, ...])
// or col = ANY('{v1,...}') (an integer array constant), each value an
// integer, a :variable or + - * / of them: the column and the values.
// NOT IN and <> ALL are refused.
func (s shaper) inList(w *pg_query.Node) (col string, keys []Value, ok bool, err error) {
	e := w.GetAExpr()
	if e == nil || len(e.Name) != 1 {
		return "", nil, false, nil
	}
	op := e.Name[0].GetString_().GetSval()
	var items []*pg_query.Node
	switch e.Kind {
	case pg_query.A_Expr_Kind_AEXPR_IN:
		if op != "=" {
			return "", nil, false, fmt.Errorf("NOT IN is not modelled")
		}
		items = e.Rexpr.GetList().GetItems()
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY:
		if op != "=" {
			return "", nil, false, fmt.Errorf("%s ANY is not modelled (= ANY is)", op)
		}
		r := e.Rexpr
		if tc := r.GetTypeCast(); tc != nil {
			r = tc.Arg
		}
		if a := r.GetAArrayExpr(); a != nil {
			items = a.Elements
		} else if c := r.GetAConst(); c != nil && c.GetSval() != nil {
			text := strings.TrimSpace(c.GetSval().GetSval())
			if !strings.HasPrefix(text, "{") || !strings.HasSuffix(text, "}") {
				return "", nil, false, fmt.Errorf("= ANY's array must be ARRAY[...] or '{...}' of integers")
			}
			for _, f := range strings.Split(text[1:len(text)-1], ",") {
				n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
				if err != nil {
					return "", nil, false, fmt.Errorf("= ANY's array must be ARRAY[...] or '{...}' of integers")
				}
				keys = append(keys, Value{Const: n})
			}
		} else {
			return "", nil, false, fmt.Errorf("= ANY's array must be ARRAY[...] or '{...}' of integers")
		}
	default:
		return "", nil, false, nil
	}
	col = columnName(e.Lexpr)
	if col == "" {
		return "", nil, false, fmt.Errorf("an IN list must test a column")
	}
	for _, it := range items {
		v, ok := s.value(it)
		if !ok {
			return "", nil, false, fmt.Errorf("an IN list's values must be integers, :variables or + - * / of them")
		}
		keys = append(keys, v)
	}
	if len(keys) == 0 {
		return "", nil, false, fmt.Errorf("an empty IN list is not modelled")
	}
	return col, keys, true, nil
}

// rangeAlternatives are the ranges that the conditions conj (joined by
// AND) put on single columns, in the order the columns first appear: a
// BETWEEN, or one or two comparisons (<, <=, >, >=) of the column. A column
// with two lower or two upper bounds is left out (the model takes one
// range per column). read is everything the statement reads (its SELECT
// list and WHERE clause), for RangeAlt.KeyOnly.
func (s shaper) rangeAlternatives(conj []*pg_query.Node, read []*pg_query.Node) []RangeAlt {
	var out []RangeAlt
	bad := map[string]bool{}
	for _, c := range conj {
		r, ok := s.keyRange(c)
		if !ok {
			continue
		}
		i := slices.IndexFunc(out, func(a RangeAlt) bool { return a.Column == r.col })
		if i < 0 {
			out = append(out, RangeAlt{Column: r.col, LowOpen: true, HighOpen: true, KeyOnly: keyOnly(read, r.col)})
			i = len(out) - 1
		}
		a := &out[i]
		if !r.lowOpen {
			if !a.LowOpen {
				bad[r.col] = true
			}
			a.From, a.LowOpen = r.from, false
		}
		if !r.highOpen {
			if !a.HighOpen {
				bad[r.col] = true
			}
			a.To, a.HighOpen = r.to, false
		}
	}
	return slices.DeleteFunc(out, func(a RangeAlt) bool { return bad[a.Column] })
}

// isNull reports whether n is the NULL constant (LIMIT NULL; LIMIT ALL
// parses to it too).
func isNull(n *pg_query.Node) bool {
	c := n.GetAConst()
	return c != nil && c.Isnull
}

// conjuncts are the conditions of a WHERE clause joined by AND (nested
// ANDs flattened); a clause of another form is its own one conjunct.
func conjuncts(w *pg_query.Node) []*pg_query.Node {
	if w == nil {
		return nil
	}
	be := w.GetBoolExpr()
	if be == nil || be.Boolop != pg_query.BoolExprType_AND_EXPR {
		return []*pg_query.Node{w}
	}
	var out []*pg_query.Node
	for _, a := range be.Args {
		out = append(out, conjuncts(a)...)
	}
	return out
}

// columnName is a column reference's (last) name, or "".
func columnName(n *pg_query.Node) string { return columnRefName(n.GetColumnRef()) }

// columnRefName is a column reference's column ("" for none, or for *).
func columnRefName(c *pg_query.ColumnRef) string {
	if c == nil || len(c.Fields) == 0 {
		return ""
	}
	return c.Fields[len(c.Fields)-1].GetString_().GetSval()
}

// value is an integer constant or a parameter (a :variable), possibly
// with a cast (:aid::int), or + - * / of such values.
func (s shaper) value(n *pg_query.Node) (Value, bool) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.Arg
	}
	if e := n.GetAExpr(); e != nil && e.Kind == pg_query.A_Expr_Kind_AEXPR_OP && len(e.Name) == 1 && e.Lexpr != nil && e.Rexpr != nil {
		op := e.Name[0].GetString_().GetSval()
		if op != "+" && op != "-" && op != "*" && op != "/" {
			return Value{}, false
		}
		l, ok1 := s.value(e.Lexpr)
		r, ok2 := s.value(e.Rexpr)
		if !ok1 || !ok2 {
			return Value{}, false
		}
		return Value{Expr: "(" + l.String() + ") " + op + " (" + r.String() + ")"}, true
	}
	if p := n.GetParamRef(); p != nil && int(p.Number) >= 1 && int(p.Number) <= len(s.vars) {
		return Value{Var: s.vars[p.Number-1]}, true
	}
	if c := n.GetAConst(); c != nil {
		if iv := c.GetIval(); iv != nil {
			return Value{Const: int64(iv.Ival)}, true
		}
		if fv := c.GetFval(); fv != nil {
			if x, err := strconv.ParseInt(fv.Fval, 10, 64); err == nil {
				return Value{Const: x}, true
			}
		}
	}
	return Value{}, false
}

func funcName(fc *pg_query.FuncCall) string {
	if len(fc.Funcname) == 0 {
		return ""
	}
	return fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()
}

// prewarm is SELECT pg_prewarm(...) (contrib/pg_prewarm, pg_prewarm.sql:
// pg_prewarm(regclass, mode text default 'buffer', fork text default
// 'main', first_block int8 default null, last_block int8 default null)),
// the call as the statement's only target.
func (s shaper) prewarm(list []*pg_query.Node) (Statement, error) {
	var fc *pg_query.FuncCall
	if len(list) == 1 {
		if rt := list[0].GetResTarget(); rt != nil {
			fc = rt.Val.GetFuncCall()
		}
	}
	if fc == nil || funcName(fc) != "pg_prewarm" {
		return Statement{}, fmt.Errorf("pg_prewarm is modelled as a statement of its own: SELECT pg_prewarm('t', ...)")
	}
	if len(fc.Funcname) == 2 && fc.Funcname[0].GetString_().GetSval() != "public" {
		return Statement{}, fmt.Errorf("pg_prewarm of schema %q: the model's functions are all in public", fc.Funcname[0].GetString_().GetSval())
	}
	if fc.AggStar || fc.AggDistinct || fc.FuncVariadic || fc.Over != nil || fc.AggFilter != nil || len(fc.AggOrder) > 0 {
		return Statement{}, fmt.Errorf("pg_prewarm is a plain function: call it as pg_prewarm('t', ...)")
	}
	names := []string{"regclass", "mode", "fork", "first_block", "last_block"}
	args := make([]*pg_query.Node, len(names))
	named := false
	for i, a := range fc.Args {
		pos := i
		if na := a.GetNamedArgExpr(); na != nil {
			named = true
			pos = slices.Index(names, strings.ToLower(na.Name))
			if pos < 0 {
				return Statement{}, fmt.Errorf("pg_prewarm has no argument named %q (it has %s)", na.Name, strings.Join(names, ", "))
			}
			a = na.Arg
		} else if named {
			return Statement{}, fmt.Errorf("pg_prewarm: a positional argument after a named one")
		}
		if pos >= len(names) {
			return Statement{}, fmt.Errorf("pg_prewarm takes at most %d arguments", len(names))
		}
		if args[pos] != nil {
			return Statement{}, fmt.Errorf("pg_prewarm: argument %s given twice", names[pos])
		}
		args[pos] = a
	}
	if args[0] == nil {
		return Statement{}, fmt.Errorf("pg_prewarm needs the relation: pg_prewarm('t')")
	}
	text := func(i int) (string, bool, error) {
		n := args[i]
		if n == nil {
			return "", false, nil
		}
		if tc := n.GetTypeCast(); tc != nil {
			n = tc.Arg
		}
		if c := n.GetAConst(); c != nil {
			if c.Isnull {
				return "", true, nil
			}
			if sv := c.GetSval(); sv != nil {
				return sv.Sval, false, nil
			}
		}
		return "", false, fmt.Errorf("pg_prewarm's %s must be a string constant", names[i])
	}
	rel, _, err := text(0)
	if err != nil {
		return Statement{}, err
	}
	if rel == "" {
		return Statement{}, fmt.Errorf("pg_prewarm needs the relation: pg_prewarm('t')")
	}
	name, err := regclassName(rel)
	if err != nil {
		return Statement{}, err
	}
	st := Statement{Kind: Prewarm, Table: name, Mode: "buffer"}
	for i := 1; i <= 2; i++ {
		v, null, err := text(i)
		if err != nil {
			return Statement{}, err
		}
		if null {
			// pg_prewarm is not STRICT: it checks its arguments itself.
			return Statement{}, fmt.Errorf("pg_prewarm's %s cannot be null", names[i])
		}
		switch {
		case i == 1 && args[i] != nil:
			if v != "buffer" && v != "read" && v != "prefetch" {
				return Statement{}, fmt.Errorf("invalid prewarm type %q (pg_prewarm's modes are buffer, read and prefetch)", v)
			}
			st.Mode = v
		case i == 2 && args[i] != nil && v != "main":
			if v == "fsm" || v == "vm" || v == "init" {
				return Statement{}, fmt.Errorf("pg_prewarm of the %s fork is not modelled (the main fork is)", v)
			}
			return Statement{}, fmt.Errorf("invalid fork name %q", v)
		}
	}
	for i, dst := range []*Value{&st.From, &st.To} {
		n := args[3+i]
		if n == nil {
			continue
		}
		if c := n.GetAConst(); c != nil && c.Isnull {
			continue
		}
		v, ok := s.value(n)
		if !ok {
			return Statement{}, fmt.Errorf("pg_prewarm's %s must be an integer, a :variable or null", names[3+i])
		}
		*dst = v
		if i == 0 {
			st.FromSet = true
		} else {
			st.ToSet = true
		}
	}
	st.Targets = []string{"pg_prewarm"}
	return st, nil
}

// regclassName is the table a regclass literal names ('t', 'public.t',
// '"T"'), as regclassin reads it; other schemas are refused.
func regclassName(lit string) (string, error) {
	res, err := pg_query.Parse("SELECT FROM " + lit)
	if err == nil && len(res.Stmts) == 1 {
		if q := res.Stmts[0].Stmt.GetSelectStmt(); q != nil && len(q.FromClause) == 1 {
			if rv := q.FromClause[0].GetRangeVar(); rv != nil && rv.Alias == nil && rv.Catalogname == "" {
				return relName(rv)
			}
		}
	}
	return "", fmt.Errorf("pg_prewarm: %q is not a table name", lit)
}

// hasCall reports whether a call of the function name appears under n.
func hasCall(n *pg_query.Node, name string) bool {
	found := false
	walk(n.ProtoReflect(), &found, func(m protoreflect.Message) bool {
		fc, ok := m.Interface().(*pg_query.FuncCall)
		return ok && funcName(fc) == name
	})
	return found
}

// hasSubquery reports whether a subquery appears anywhere under n.
func hasSubquery(n *pg_query.Node) bool { return hasNode(n, "SubLink") }

// hasNode reports whether a node of the kind (SubLink, ColumnRef) appears
// anywhere under n.
func hasNode(n *pg_query.Node, kind protoreflect.Name) bool {
	if n == nil {
		return false
	}
	found := false
	walk(n.ProtoReflect(), &found, func(m protoreflect.Message) bool { return m.Descriptor().Name() == kind })
	return found
}

// keyOnly reports whether a SELECT list refers to no column but col
// (SELECT * refers to every column; count(*) to none).
func keyOnly(list []*pg_query.Node, col string) bool {
	other := false
	for _, t := range list {
		walk(t.ProtoReflect(), &other, func(m protoreflect.Message) bool {
			if m.Descriptor().Name() != "ColumnRef" {
				return false
			}
			ref, ok := m.Interface().(*pg_query.ColumnRef)
			if !ok {
				return true
			}
			return columnRefName(ref) != col
		})
	}
	return !other
}

// listColumns are the columns a SELECT list refers to, distinct, in the
// order they appear; "*" stands for SELECT * (every column).
func listColumns(list []*pg_query.Node) []string {
	var out []string
	for _, t := range list {
		visit(t.ProtoReflect(), func(m protoreflect.Message) {
			ref, ok := m.Interface().(*pg_query.ColumnRef)
			if !ok || len(ref.Fields) == 0 {
				return
			}
			name := columnRefName(ref)
			if ref.Fields[len(ref.Fields)-1].GetAStar() != nil {
				name = "*"
			}
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		})
	}
	return out
}

// targets are a SELECT list's output names as PostgreSQL names them
// (parse_target.c FigureColname): the alias, else a plain column's name,
// else a function call's function's name, else "?column?".
func targets(list []*pg_query.Node) []string {
	var out []string
	for _, t := range list {
		rt := t.GetResTarget()
		if rt == nil {
			continue
		}
		switch {
		case rt.Name != "":
			out = append(out, rt.Name)
		case columnName(rt.Val) != "":
			out = append(out, columnName(rt.Val))
		case rt.Val.GetFuncCall() != nil && funcName(rt.Val.GetFuncCall()) != "":
			// FigureColnameInternal: a function call is named after
			// the function (count(*) is "count").
			out = append(out, funcName(rt.Val.GetFuncCall()))
		default:
			out = append(out, "?column?")
		}
	}
	return out
}

// keyRange recognises a range of one column: col BETWEEN a AND b; one or
// two comparisons of it (<, <=, >, >=, the column on either side, two
// joined by AND) with integer or :variable bounds. A strict bound is the
// integer next to it (id > :a is id >= :a + 1); a side without a
// comparison is open (lowOpen, highOpen: id <= 10 has no lower bound).
func (s shaper) keyRange(w *pg_query.Node) (r keyRangeShape, ok bool) {
	if w == nil {
		return r, false
	}
	if e := w.GetAExpr(); e != nil && e.Kind == pg_query.A_Expr_Kind_AEXPR_BETWEEN {
		r.col = columnName(e.Lexpr)
		l := e.Rexpr.GetList()
		if r.col == "" || l == nil || len(l.Items) != 2 {
			return r, false
		}
		f, ok1 := s.value(l.Items[0])
		t, ok2 := s.value(l.Items[1])
		r.from, r.to = f, t
		return r, ok1 && ok2
	}
	args := []*pg_query.Node{w}
	if be := w.GetBoolExpr(); be != nil {
		if be.Boolop != pg_query.BoolExprType_AND_EXPR || len(be.Args) != 2 {
			return r, false
		}
		args = be.Args
	}
	var haveFrom, haveTo bool
	for _, a := range args {
		e := a.GetAExpr()
		if e == nil || e.Kind != pg_query.A_Expr_Kind_AEXPR_OP || len(e.Name) != 1 {
			return r, false
		}
		op := e.Name[0].GetString_().GetSval()
		c, v := columnName(e.Lexpr), e.Rexpr
		if c == "" { // the constant first: 10 < id is id > 10
			c, v = columnName(e.Rexpr), e.Lexpr
			op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
		}
		if c == "" || r.col != "" && c != r.col {
			return r, false
		}
		val, ok := s.value(v)
		if !ok {
			return r, false
		}
		r.col = c
		switch {
		case (op == ">=" || op == ">") && !haveFrom:
			r.from, haveFrom = val, true
			if op == ">" {
				r.from = val.plus(1)
			}
		case (op == "<=" || op == "<") && !haveTo:
			r.to, haveTo = val, true
			if op == "<" {
				r.to = val.plus(-1)
			}
		default:
			return r, false
		}
	}
	r.lowOpen, r.highOpen = !haveFrom, !haveTo
	return r, haveFrom || haveTo
}

// keyRangeShape is a range WHERE clause (keyRange).
type keyRangeShape struct {
	col               string
	from, to          Value
	lowOpen, highOpen bool
}

// plus is v + d: a constant's value, or the expression (v) + d.
func (v Value) plus(d int64) Value {
	if v.Var == "" && v.Expr == "" {
		return Value{Const: v.Const + d}
	}
	if d < 0 {
		return Value{Expr: fmt.Sprintf("(%s) - %d", v, -d)}
	}
	return Value{Expr: fmt.Sprintf("(%s) + %d", v, d)}
}
