package model

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/pgbufsim/pgbufsim/model/pgexpr"
)

// opKind is one step of a transaction.
type opKind uint8

const (
	opNone        opKind = iota // a statement with no page work (BEGIN)
	opFetch                     // index scan by key, fetch the heap tuple
	opUpdate                    // index scan by key, heap_update
	opInsert                    // heap_insert of n rows at the end of the table
	opSeqscan                   // SELECT count(*): a sequential scan
	opDeleteKey                 // index scan by key, heap_delete
	opDeleteAll                 // DELETE FROM t: a scan deleting every visible row
	opVacuum                    // VACUUM t
	opCheckpoint                // CHECKPOINT (immediate, waits for completion)
	opSleep                     // \sleep (client side)
	opCommit                    // COMMIT: commit record, WAL flush
	opAbort                     // ROLLBACK
	opUpdateAll                 // UPDATE t SET ...: a scan updating every visible row
	opTruncate                  // TRUNCATE t
	opCatalog                   // system catalog lookups (syscatalog.go), not a statement
	opRange                     // SELECT of keys key..n (rangescan.go)
	opPrewarm                   // SELECT pg_prewarm(t, mode, 'main', key, n) (pgprewarm.go)
	opAutoprewarm               // autoprewarm's load after a restart (pgprewarm.go), not a statement
	opAnalyze                   // ANALYZE t (analyze.go)
	opList                      // SELECT of a list of keys: IN (...) (listscan.go)
	opUpdateRange               // UPDATE of keys key..n: a range scan's rows each heap_update'd (rangescan.go)
	opDeleteRange               // DELETE of keys key..n: a range scan's rows each heap_delete'd
	opUpdateList                // UPDATE of a list of keys: IN (...), each row heap_update'd (listscan.go)
	opDeleteList                // DELETE of a list of keys, each row heap_delete'd
)

var opNames = [...]string{"begin", "select", "update", "insert", "seqscan", "delete", "delete", "vacuum", "checkpoint", "sleep", "commit", "abort", "update", "truncate", "catalog", "select", "select", "autoprewarm", "analyze", "select", "update", "delete", "update", "delete"}

// isRange reports whether k reads a range of keys (execRange): a SELECT's,
// or an UPDATE's or DELETE's.
func (k opKind) isRange() bool { return k == opRange || k == opUpdateRange || k == opDeleteRange }

// isList reports whether k reads an IN list of keys (execList): a
// SELECT's, or an UPDATE's or DELETE's.
func (k opKind) isList() bool { return k == opList || k == opUpdateList || k == opDeleteList }

// rowChange is the change a range's or IN list's UPDATE or DELETE makes to
// each row it reads, as the keyed statement of that row would make it (modifyRow):
// opUpdate or opDeleteKey; opNone for other kinds.
func (k opKind) rowChange() opKind {
	switch k {
	case opUpdateRange, opUpdateList:
		return opUpdate
	case opDeleteRange, opDeleteList:
		return opDeleteKey
	}
	return opNone
}

func (k opKind) String() string { return opNames[k] }

// A range's open sides (op.open).
const (
	openLow  uint8 = 1 << iota // no lower bound: key <= b
	openHigh                   // no upper bound: key >= a
)

// op is one statement (or the commit) of a transaction. Its small fields
// come first, together: an op is 64 bytes.
type op struct {
	kind opKind
	stmt bool // charge statement overhead and a client round trip first
	copy bool // insert: COPY (a BulkInsertState) rather than INSERT ... SELECT
	// indexOnly: a lookup, range or count(*) whose SELECT list reads
	// only the key (pgscript KeyOnly, Columns): the planner may take an
	// index-only scan.
	indexOnly bool
	// analyze: VACUUM ANALYZE (vacuum: ANALYZE follows in the same command)
	analyze bool
	// allKeys: a range whose plan is made, an index-only scan without a
	// qual: a count(*) of every key (allKeysRange) or the first entry
	// at one end for min(key) or max(key) (appendMinMax). No planning
	// probes, no plan to choose.
	allKeys bool
	// open: a range's sides that have no comparison (openLow: key <= b,
	// openHigh: key >= a), which the planner neither costs nor probes;
	// key and n are then the table's first and last keys.
	open uint8
	// ordered: a range ORDER BY the key, whose plan must deliver its
	// rows in key order (an index scan, or another scan and a sort);
	// limit, when > 0, its LIMIT (plus its OFFSET): an index scan stops
	// after that many rows.
	ordered bool
	t       *table
	key     int64
	n       int64 // rows to insert
	every   int64 // insert: commit every this many rows (0 = at the end)
	dur     int64 // sleep
	limit   int64
	mode    prewarmMode
	// desc: an ordered range read in descending key order (ORDER BY
	// the key DESC: the index scanned backward).
	desc bool
	// cmdNo is the script command the op belongs to, from 1 (pgbench -r's
	// per-statement latencies); 0: part of the command before it.
	cmdNo int16
	// textBytes: bytes of a column's text the statement's expressions
	// walk per row it returns (pgscript.Statement.TextWalks times the
	// table's text: textBytes), at costs.text_char each.
	textBytes int32
}

// script builds the ops of one execution of a script, with keys drawn by
// the client's generators.
type script struct {
	name string
	// fileScale is a script file's :scale (0 for other scripts).
	fileScale int64
	vars      []scriptVar
	// build appends the transaction's ops for the drawn variable values.
	build func(b *backend, v []int64, ops []op) []op
	// run, for script files, draws and builds in one pass (txn).
	run func(b *backend, rng *rand.Rand, v []int64, ops []op) []op
	// commands are the script's commands as pgbench -r lists them (their
	// first lines), indexed by op.cmdNo - 1.
	commands []string
	// lookups are, by op.cmdNo - 1, the catalog objects a script file's
	// statement names beyond a point SELECT's (pgscript.Lookups); nil
	// when none does.
	lookups [][]string
	// filters are, by op.cmdNo - 1, a script file's statements' WHERE
	// clauses as a scan tests them (filter.go); nil when none has one.
	filters []filterSpec
	// carried are the variables a script file reads before it sets them:
	// they keep their value from the client's previous execution of the
	// script, from the -D value at first (pgbench's per-client variables).
	carried []carriedVar
}

// carriedVar is a variable carried from one transaction to the next.
type carriedVar struct {
	slot    int
	initial int64
}

// txn appends the ops of one execution of the script for b's client:
// the variables drawn from rng in the script's order (vals holds them),
// then the statements built from them. A script file runs its own program
// (run: \set, \if and statements interleaved, as pgbench executes them).
func (s *script) txn(b *backend, rng *rand.Rand, vals []int64, ops []op) []op {
	if s.carried != nil {
		// Its own values, kept from one execution to the next.
		vals = b.client.ownVals(s)
	}
	if s.run != nil {
		return s.run(b, rng, vals, ops)
	}
	for i := range s.vars {
		vals[i] = s.vars[i].gen.Next(rng)
	}
	return s.build(b, vals, ops)
}

type scriptVar struct {
	name string
	def  string // the expression (a built-in script's \set, or a step's key)
	gen  *pgexpr.Gen
	// rowsOf names the table whose row count is :rows in def, if any.
	rowsOf string
}

// compileSteps turns a custom script into a script. Tables are resolved
// against db when it exists (at run time), or only checked by name
// against the scenario's declarations (validation, db == nil).
func compileSteps(steps []Step, sc Scenario, db *database) (*script, error) {
	declared := declaredTables(sc)
	s := &script{name: "custom"}
	type stepPlan struct {
		kind     opKind
		table    string
		pick     string
		keyVar   int // index into vars, -1 none
		n, every int64
		dur      int64
		txnStart bool
		copy     bool
		mode     prewarmMode
		first    int64
		last     int64
	}
	var plan []stepPlan
	inTxn := false
	needTable := func(i int, name, what string, needIndex bool) error {
		tc, ok := declared[name]
		if !ok {
			return Problem{Path: fmt.Sprintf("script.steps[%d].%s.table", i, what), Msg: fmt.Sprintf("unknown table %q (declare it under tables.relations, or use pgbench tables)", name)}
		}
		if needIndex && !tc.Index {
			return Problem{Path: fmt.Sprintf("script.steps[%d].%s.key", i, what), Msg: fmt.Sprintf("table %q has no index to find a row by key (set index: true in its declaration)", name)}
		}
		return nil
	}
	// A delete of a table that starts empty and that no step of any phase
	// inserts into deletes nothing, which is surely a mistake in the
	// scenario.
	// A built-in script inserts into the tables builtinInserts names; a
	// script file or text may insert into any table.
	inserted := map[string]bool{}
	anyInserted := false
	for _, ph := range sc.Workload.Phases {
		for _, w := range ph.ScriptList() {
			for _, name := range builtinInserts(w.Builtin) {
				inserted[name] = true
			}
			if w.File != "" || w.Text != "" {
				anyInserted = true
			}
		}
		for _, st := range allSteps(ph) {
			if st.Insert != nil {
				inserted[st.Insert.Table] = true
			}
			if st.Copy != nil {
				inserted[st.Copy.Table] = true
			}
		}
	}
	for i, st := range steps {
		s.commands = append(s.commands, stepText(st))
		p := stepPlan{keyVar: -1}
		switch {
		case st.Begin:
			if inTxn {
				return nil, Problem{Path: fmt.Sprintf("script.steps[%d].begin", i), Msg: "already inside a transaction (missing commit?)"}
			}
			inTxn = true
			p.kind = opNone
		case st.Commit, st.Abort:
			if !inTxn {
				return nil, Problem{Path: fmt.Sprintf("script.steps[%d]", i), Msg: "commit/abort without begin"}
			}
			inTxn = false
			p.kind = opCommit
			if st.Abort {
				p.kind = opAbort
			}
		case st.Seqscan != nil:
			p.kind, p.table, p.pick = opSeqscan, st.Seqscan.Table, st.Seqscan.Pick
			if err := needTable(i, p.table, "seqscan", false); err != nil {
				return nil, err
			}
		case st.Vacuum != nil:
			if inTxn {
				return nil, Problem{Path: fmt.Sprintf("script.steps[%d].vacuum", i), Msg: "VACUUM cannot run inside a transaction block"}
			}
			p.kind, p.table, p.pick = opVacuum, st.Vacuum.Table, st.Vacuum.Pick
			if err := needTable(i, p.table, "vacuum", false); err != nil {
				return nil, err
			}
		case st.Analyze != nil:
			p.kind, p.table, p.pick = opAnalyze, st.Analyze.Table, st.Analyze.Pick
			if err := needTable(i, p.table, "analyze", false); err != nil {
				return nil, err
			}
		case st.Insert != nil, st.Copy != nil:
			ins, what := st.Insert, "insert"
			if st.Copy != nil {
				ins, what = st.Copy, "copy"
				p.copy = true
			}
			p.kind, p.table, p.pick, p.n, p.every = opInsert, ins.Table, ins.Pick, ins.Rows, ins.CommitEvery
			if err := needTable(i, p.table, what, false); err != nil {
				return nil, err
			}
			if p.every > 0 && inTxn {
				return nil, Problem{Path: fmt.Sprintf("script.steps[%d].%s.commit_every", i, what), Msg: "commit_every commits, so it cannot be used inside begin/commit"}
			}
			inserted[p.table] = true
		case st.Truncate != nil:
			p.kind, p.table, p.pick = opTruncate, st.Truncate.Table, st.Truncate.Pick
			if err := needTable(i, p.table, "truncate", false); err != nil {
				return nil, err
			}
		case st.Select != nil, st.Update != nil, st.Delete != nil:
			ks, what, kind := st.Select, "select", opFetch
			if st.Update != nil {
				ks, what, kind = st.Update, "update", opUpdate
			}
			if st.Delete != nil {
				ks, what, kind = st.Delete, "delete", opDeleteKey
			}
			p.kind, p.table, p.pick = kind, ks.Table, ks.Pick
			if ks.Key == "" && kind == opFetch {
				return nil, Problem{Path: fmt.Sprintf("script.steps[%d].%s.key", i, what), Msg: "a key expression is needed, e.g. \"random(1, :rows)\" (a scan of every row is a seqscan step)"}
			}
			if ks.Key == "" {
				p.kind = opDeleteAll
				if kind == opUpdate {
					p.kind = opUpdateAll
				}
				if err := needTable(i, p.table, what, false); err != nil {
					return nil, err
				}
				if tc := declared[p.table]; tc.Rows == 0 && tc.Pages == 0 && !inserted[p.table] && !anyInserted {
					return nil, Problem{Path: fmt.Sprintf("script.steps[%d].%s", i, what), Msg: fmt.Sprintf("table %q starts empty and no step inserts into it: the %s would change nothing", p.table, what)}
				}
			} else {
				if err := needTable(i, p.table, what, true); err != nil {
					return nil, err
				}
				p.keyVar = len(s.vars)
				s.vars = append(s.vars, scriptVar{name: fmt.Sprintf("steps[%d].%s.key", i, what), def: ks.Key, rowsOf: p.table})
			}
		case st.Prewarm != nil:
			pw := st.Prewarm
			p.kind, p.table, p.pick, p.mode = opPrewarm, pw.Table, pw.Pick, prewarmModes[pw.Mode]
			p.first, p.last = pw.FirstBlock, pw.LastBlock
			if pw.FirstBlock < 0 {
				p.first = nullBlock
			}
			if pw.LastBlock < 0 {
				p.last = nullBlock
			}
			if err := needTable(i, p.table, "prewarm", false); err != nil {
				return nil, err
			}
			if p.first != nullBlock && p.last != nullBlock && p.last < p.first {
				// pg_prewarm does no blocks then (its loop never starts),
				// surely not what the scenario means.
				return nil, Problem{Path: fmt.Sprintf("script.steps[%d].prewarm.last_block", i), Msg: fmt.Sprintf("last_block %d is before first_block %d: pg_prewarm would do no blocks", p.last, p.first)}
			}
		case st.Checkpoint:
			p.kind = opCheckpoint
		case st.Sleep > 0:
			p.kind, p.dur = opSleep, st.Sleep
		default:
			return nil, Problem{Path: fmt.Sprintf("script.steps[%d]", i), Msg: "empty step"}
		}
		p.txnStart = !inTxn
		plan = append(plan, p)
	}
	if inTxn {
		return nil, Problem{Path: "script.steps", Msg: "the script ends inside a transaction (begin without commit)"}
	}
	if len(plan) == 0 {
		return nil, Problem{Path: "script.steps", Msg: "the script has no steps"}
	}
	s.build = func(b *backend, v []int64, ops []op) []op {
		explicit := false
		for i, p := range plan {
			o := op{kind: p.kind, stmt: p.kind != opSleep, n: p.n, every: p.every, dur: p.dur, copy: p.copy, mode: p.mode, cmdNo: int16(i + 1)}
			if p.kind == opPrewarm {
				o.key, o.n = p.first, p.last
			}
			if p.table != "" {
				o.t = b.pickTable(p.table, p.pick)
			}
			if p.keyVar >= 0 {
				o.key = v[p.keyVar]
			}
			switch p.kind {
			case opNone:
				explicit = true
			case opCommit, opAbort:
				explicit = false
			}
			ops = append(ops, o)
			// Autocommit: a statement outside begin/commit commits at once.
			if !explicit && p.kind != opNone && p.kind != opCommit && p.kind != opAbort && p.kind != opSleep && p.kind != opCheckpoint && p.kind != opVacuum {
				ops = append(ops, op{kind: opCommit})
			}
		}
		return ops
	}
	return s, nil
}

// stepText names a step for pgbench -r's statement list.
func stepText(st Step) string {
	table := func(t *TableStep) string { return t.Table }
	key := func(k *KeyStep) string {
		if k.Key == "" {
			return k.Table
		}
		return k.Table + " key " + k.Key
	}
	switch {
	case st.Begin:
		return "begin"
	case st.Commit:
		return "commit"
	case st.Abort:
		return "abort"
	case st.Seqscan != nil:
		return "seqscan " + table(st.Seqscan)
	case st.Select != nil:
		return "select " + key(st.Select)
	case st.Update != nil:
		return "update " + key(st.Update)
	case st.Delete != nil:
		return "delete " + key(st.Delete)
	case st.Insert != nil:
		return fmt.Sprintf("insert %s rows %d", st.Insert.Table, st.Insert.Rows)
	case st.Copy != nil:
		return fmt.Sprintf("copy %s rows %d", st.Copy.Table, st.Copy.Rows)
	case st.Truncate != nil:
		return "truncate " + table(st.Truncate)
	case st.Vacuum != nil:
		return "vacuum " + table(st.Vacuum)
	case st.Analyze != nil:
		return "analyze " + table(st.Analyze)
	case st.Prewarm != nil:
		return fmt.Sprintf("prewarm %s %s", st.Prewarm.Table, st.Prewarm.Mode)
	case st.Checkpoint:
		return "checkpoint"
	}
	return fmt.Sprintf("sleep %s", time.Duration(st.Sleep))
}

// declaredTables maps every table name a script may use (group members
// too) to its declaration; pgbench's tables carry their key columns.
func declaredTables(sc Scenario) map[string]TableConfig {
	declared := map[string]TableConfig{}
	for _, tc := range sc.Tables.Relations {
		declared[tc.Name] = tc
		for m := 1; tc.Count > 1 && m <= tc.Count; m++ {
			declared[tc.Name+"_"+strconv.Itoa(m)] = tc
		}
	}
	if sc.Tables.PGBench.Scale > 0 {
		for n, key := range map[string]string{"pgbench_accounts": "aid", "pgbench_tellers": "tid", "pgbench_branches": "bid", "pgbench_history": ""} {
			declared[n] = TableConfig{Name: n, Index: key != "", Key: key, Count: 1, Rows: tableRows(sc, n)}
		}
	}
	return declared
}

// pickTable chooses a member of a table group for this client.
func (b *backend) pickTable(name, pick string) *table {
	ts := b.e.db.lookup(name)
	if len(ts) == 1 {
		return ts[0]
	}
	switch pick {
	case "random":
		return ts[b.client.extra.IntN(len(ts))]
	case "cycle":
		return ts[int(b.txNo%int64(len(ts)))]
	}
	return ts[b.client.id%len(ts)]
}

// tableRows is the declared row count of a table (for :rows).
func tableRows(sc Scenario, name string) int64 {
	for _, tc := range sc.Tables.Relations {
		if tc.Name == name || len(name) > len(tc.Name) && name[:len(tc.Name)+1] == tc.Name+"_" {
			if tc.Pages > 0 {
				per, _, _ := tableLayout(tc)
				return tc.Pages * int64(per)
			}
			return tc.Rows
		}
	}
	switch name {
	case "pgbench_accounts":
		return accountsPerScale * int64(sc.Tables.PGBench.Scale)
	case "pgbench_tellers":
		return tellersPerScale * int64(sc.Tables.PGBench.Scale)
	case "pgbench_branches":
		return branchesPerScale * int64(sc.Tables.PGBench.Scale)
	}
	return 0
}

// allSteps is every step of every script of the phase.
func allSteps(ph Phase) []Step {
	var out []Step
	for _, w := range ph.ScriptList() {
		out = append(out, w.Steps...)
	}
	return out
}

// phaseMix is a phase's scripts, compiled and bound, with their weights
// (one script of weight 1 unless the phase has a weighted mix).
type phaseMix struct {
	builtin bool // a built-in script is among them (pgbench then runs its setup queries)
	pgbench bool // they are pgbench's scripts (built-in or files), not steps: pgbench opens a setup connection first
	scripts []*script
	weights []int64
	total   int64
	maxVars int
}

// choose is pgbench.c chooseScript: a draw in [0, total) walked down the
// weights. A phase of one script draws nothing.
func (m *phaseMix) choose(rng uniform) int {
	if len(m.scripts) == 1 {
		return 0
	}
	w := rng.Int64N(m.total)
	i := 0
	for w >= m.weights[i] {
		w -= m.weights[i]
		i++
	}
	return i
}

// phaseScripts builds and binds a phase's scripts.
func phaseScripts(ph Phase, sc Scenario, db *database) (phaseMix, error) {
	var m phaseMix
	list := ph.ScriptList()
	hasBuiltin := false
	for _, w := range list {
		hasBuiltin = hasBuiltin || w.Builtin != ""
	}
	for k, w := range list {
		// Problems name the key under script, or under scripts[k].
		at := func(err error) error {
			pe, ok := err.(Problem)
			if !ok || len(ph.Scripts) == 0 {
				return err
			}
			switch {
			case pe.Path == "script":
				pe.Path = fmt.Sprintf("scripts[%d].builtin", k)
			case strings.HasPrefix(pe.Path, "script."):
				pe.Path = fmt.Sprintf("scripts[%d]", k) + strings.TrimPrefix(pe.Path, "script")
			}
			return pe
		}
		var s *script
		var err error
		if w.File != "" || w.Text != "" {
			if s, err = compileFile(w, ph, sc, hasBuiltin); err != nil {
				return m, at(err)
			}
			if w.Name != "" {
				s.name = w.Name
			}
			m.pgbench = ph.Program != "psql"
			m.scripts = append(m.scripts, s)
			m.weights = append(m.weights, w.Weight)
			m.total += w.Weight
			m.maxVars = max(m.maxVars, len(s.vars))
			continue
		}
		if len(w.Steps) > 0 {
			if s, err = compileSteps(w.Steps, sc, db); err != nil {
				return m, at(err)
			}
			if w.Name != "" {
				s.name = w.Name
			}
		} else if s, err = builtinScript(w.Builtin); err != nil {
			return m, at(Problem{Path: "script", Msg: err.Error()})
		} else if ph.Program == "psql" {
			return m, Problem{Path: "program", Msg: fmt.Sprintf("the built-in script %s is pgbench's (psql runs script files); use program: pgbench, or the script's statements as a file", w.Builtin)}
		} else {
			m.builtin, m.pgbench = true, true
		}
		if err := bindScript(s, ph.Set, sc, sc.Seed); err != nil {
			return m, at(err)
		}
		m.scripts = append(m.scripts, s)
		m.weights = append(m.weights, w.Weight)
		m.total += w.Weight
		m.maxVars = max(m.maxVars, len(s.vars))
	}
	if err := checkSetNames(ph.Set, m.scripts); err != nil {
		return m, err
	}
	return m, nil
}

// ownVals returns the client's values of script s, which keep carried
// variables from one execution to the next (their -D values at first).
func (c *client) ownVals(s *script) []int64 {
	if v, ok := c.own[s]; ok {
		return v
	}
	if c.own == nil {
		c.own = map[*script][]int64{}
	}
	v := make([]int64, len(s.vars))
	for _, cv := range s.carried {
		v[cv.slot] = cv.initial
	}
	c.own[s] = v
	return v
}
