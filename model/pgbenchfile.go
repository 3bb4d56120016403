package model

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/model/pgexpr"
	"github.com/pgbufsim/pgbufsim/model/pgscript"
)

// Script files (pgbench -f): model/pgscript splits the file into commands
// and gives each SQL command's shape; compileFile maps them to the model's
// operations (docs/pgbench.md lists what maps to what and what is refused).
// Variables follow pgbench.c: \set assigns a client's variable, read by
// later commands as :name; :scale, :client_id, :default_seed and
// :random_seed are pgbench's own (main, "startup" variables), -D adds
// more. The compiled program runs as pgbench executes a script
// (advanceConnectionState): commands in order, \set drawing from the
// client's random state when it runs, \if choosing a branch, so a skipped
// branch draws nothing.

// maxFileInsertRows bounds the rows one INSERT of a script may add.
const maxFileInsertRows = 1 << 30

// Control steps of a compiled script file (fileStep.ctl).
const (
	ctlOp   = iota // a statement or \sleep
	ctlSet         // vals[slot] = gen
	ctlIf          // unless gen holds, continue at target (\if, \elif)
	ctlJump        // continue at target (the end of a branch)
)

// fileStep is one step of a compiled script file.
type fileStep struct {
	ctl    uint8
	slot   int
	gen    *pgexpr.Gen
	target int

	kind      opKind
	stmt      bool
	indexOnly bool // a lookup's or range's SELECT list reads only the key
	textWalks int  // pgscript.Statement.TextWalks
	table     string
	pick      string
	// A keyed statement's key: vals[keySlot], or keyConst if keySlot < 0,
	// or keyGen's value (arithmetic in the SQL, on the variables).
	keySlot  int
	keyConst int64
	keyGen   *pgexpr.Gen
	// INSERT: n rows, or vals[toSlot] - vals[fromSlot] + 1 (slots < 0
	// are the constants from, to).
	n                  int64
	series             bool
	fromSlot, toSlot   int
	fromConst, toConst int64
	fromGen, toGen     *pgexpr.Gen
	// \sleep: the value (vals[durSlot] or durConst) times unit.
	durSlot  int
	durConst int64
	unit     int64
	txnStart bool  // outside BEGIN ... END: the statement commits at once
	cmdNo    int16 // the command, from 1 (pgbench -r)
	// seqRange: a range of the key read by a sequential scan (no index):
	// the op carries its bounds (key, n) for its filter's passing rows.
	seqRange bool
	mode     prewarmMode
	analyze  bool // VACUUM ANALYZE
	// rangeOpen: a range's sides without a comparison (openLow,
	// openHigh).
	rangeOpen uint8
	// minMax: a SELECT of min(key) and max(key) aggregates, one op per
	// aggregate (true: max).
	minMax []bool
	// A range ORDER BY its key (ordered; desc: descending), its LIMIT
	// when hasLimit (vals[limitSlot], limitConst, or limitGen's value)
	// and its OFFSET when hasOffset (likewise).
	// aggregate: the SELECT list has an aggregate (one row: a LIMIT of
	// one or more reads every row, LIMIT 0 none).
	ordered, desc, hasLimit, hasOffset, aggregate bool
	limitSlot, offsetSlot                         int
	limitConst, offsetConst                       int64
	limitGen, offsetGen                           *pgexpr.Gen
	// listVals are an IN list's values (opList): each a variable's slot,
	// a constant or a generator's value.
	listVals []listVal
}

// listVal is one value of an IN list: vals[slot] (slot >= 0), c, or gen's.
type listVal struct {
	slot int
	c    int64
	gen  *pgexpr.Gen
}

// ifFrame is an open \if while compiling.
type ifFrame struct {
	line     int
	cond     int               // the pending condition step (-1 after \else)
	jumps    []int             // branch ends to point at the \endif
	before   map[string]bool   // variables set before the \if
	branches []map[string]bool // variables set at the end of each branch
	inTxn    bool
	hasElse  bool
}

// compileFile compiles a pgbench script file of phase ph. A variable read
// before the script sets it holds the value it had at the end of the
// client's previous transaction, as in pgbench, starting from its -D value:
// its possible values are found by compiling again with the values its
// assignments produced until they no longer grow (a counter such as
// \set n :n + 1 never stops growing and is refused).
func compileFile(w WeightedScript, ph Phase, sc Scenario, mixHasBuiltin bool) (*script, error) {
	var carriedIn map[string][2]int64
	for pass := 0; pass < 4; pass++ {
		s, carriedOut, err := compileFilePass(w, ph, sc, mixHasBuiltin, carriedIn)
		if err != nil || len(carriedOut) == 0 {
			return s, err
		}
		stable := true
		next := map[string][2]int64{}
		for v, b := range carriedOut {
			next[v] = b
			if in, ok := carriedIn[v]; !ok || b[0] < in[0] || b[1] > in[1] {
				stable = false
			}
		}
		if stable {
			return s, nil
		}
		carriedIn = next
	}
	names := make([]string, 0, len(carriedIn))
	for v := range carriedIn {
		names = append(names, v)
	}
	slices.Sort(names)
	name := w.File
	if name == "" {
		name = "script"
	}
	return nil, Problem{Path: "script.file", Msg: fmt.Sprintf("%s: the values of %s, carried from one transaction to the next, grow without bound (a counter such as \\set n :n + 1): not modelled", name, strings.Join(names, ", "))}
}

// compileFilePass is one compilation of a script file; carriedIn bounds
// the values carried over of the variables read before they are set (nil:
// their -D value only). It returns, for those variables, the bounds of
// their -D value and of every value the script assigns them.
func compileFilePass(w WeightedScript, ph Phase, sc Scenario, mixHasBuiltin bool, carriedIn map[string][2]int64) (*script, map[string][2]int64, error) {
	name := w.File
	if name == "" {
		name = "script"
	}
	problem := func(line int, format string, a ...any) error {
		return Problem{Path: "script.file", Msg: fmt.Sprintf("%s:%d: ", name, line) + fmt.Sprintf(format, a...)}
	}
	if w.File != "" && w.Text == "" {
		return nil, nil, Problem{Path: "script.file", Msg: fmt.Sprintf("%s was not read (scenarios loaded through configs read script files)", w.File)}
	}
	cmds, err := pgscript.Parse(w.Text)
	if err != nil {
		pe := err.(*pgscript.Error)
		return nil, nil, problem(pe.Line, "%s", pe.Msg)
	}
	if len(cmds) == 0 {
		return nil, nil, problem(1, "the script has no commands (pgbench: empty command list for script)")
	}

	// pgbench's startup variables, then -D's (pgbench.c main: -D first,
	// then scale, client_id, default_seed and random_seed unless
	// defined).
	consts := map[string]int64{}
	strs := map[string]bool{} // -D values that are not integers: SQL text only
	defNames := make([]string, 0, len(ph.Define))
	for k := range ph.Define {
		defNames = append(defNames, k)
	}
	slices.Sort(defNames)
	for _, k := range defNames {
		if x, err := strconv.ParseInt(strings.TrimSpace(ph.Define[k]), 10, 64); err == nil {
			consts[k] = x
		} else {
			strs[k] = true
		}
	}
	if _, ok := ph.Define["scale"]; !ok {
		// With a built-in script in the mix pgbench reads the scale from
		// pgbench_branches; otherwise it is -s, 1 by default.
		consts["scale"] = 1
		if mixHasBuiltin {
			consts["scale"] = int64(sc.Tables.PGBench.Scale)
		}
	}
	if _, ok := ph.Define["default_seed"]; !ok {
		consts["default_seed"] = sc.Seed
		if ph.RandomSeed != nil {
			consts["default_seed"] = pgbenchDefaultSeed(*ph.RandomSeed, ph.Clients)
		}
	}
	if _, ok := ph.Define["random_seed"]; !ok {
		consts["random_seed"] = sc.Seed
		if ph.RandomSeed != nil {
			// pgbench's random_seed is a uint64 put into an int64 variable.
			consts["random_seed"] = int64(*ph.RandomSeed)
		}
	}

	s := &script{name: w.File, fileScale: consts["scale"]}
	if s.name == "" {
		s.name = "inline script"
	}
	// One slot per variable; its bounds are those of every value it may
	// hold at the point being compiled. assigned: the variables surely set
	// at that point in every transaction.
	slots := map[string]pgexpr.Slot{}
	var slotNames []string
	assigned := map[string]bool{}
	clientSlot := -1
	var frames []*ifFrame
	setLater := map[string]bool{}
	for _, c := range cmds {
		if c.Meta == "set" {
			setLater[c.Args[0]] = true
		}
	}
	// carriedOut: for each variable read before it is set, the bounds of
	// its -D value and of its assignments.
	carriedOut := map[string][2]int64{}
	unsetMsg := func(line int, v string) error {
		return problem(line, "variable %q may not be set here (it is set later, or only in some branches of an \\if): pgbench would use the previous transaction's value, and fail in the first (\"undefined variable\"); define its first value with -D %s=N", v, v)
	}
	// carry makes v, read where it may not be set this transaction, a
	// variable carried over from the client's previous transaction (its
	// -D value at first); false when v has no integer -D value.
	carry := func(v string) bool {
		d, ok := consts[v]
		if !ok || !setLater[v] {
			return false
		}
		b, ok := carriedIn[v]
		if !ok {
			b = [2]int64{d, d}
		}
		out := carriedOut[v]
		if _, seen := carriedOut[v]; !seen {
			out = [2]int64{d, d}
		}
		carriedOut[v] = [2]int64{min(out[0], d), max(out[1], d)}
		sl, exists := slots[v]
		if !exists {
			sl = pgexpr.Slot{Index: len(s.vars), Lo: b[0], Hi: b[1]}
			s.vars = append(s.vars, scriptVar{name: v})
			slotNames = append(slotNames, v)
			s.carried = append(s.carried, carriedVar{slot: sl.Index, initial: d})
		} else {
			sl.Lo, sl.Hi = min(sl.Lo, b[0]), max(sl.Hi, b[1])
			if !slices.ContainsFunc(s.carried, func(c carriedVar) bool { return c.slot == sl.Index }) {
				s.carried = append(s.carried, carriedVar{slot: sl.Index, initial: d})
			}
		}
		slots[v] = sl
		assigned[v] = true
		return true
	}
	// ref resolves a variable read at line: a slot, or a constant.
	ref := func(line int, v string) (slot int, val int64, err error) {
		if _, ok := slots[v]; ok {
			if !assigned[v] && !carry(v) {
				return 0, 0, unsetMsg(line, v)
			}
			return slots[v].Index, 0, nil
		}
		if v == "client_id" {
			if _, ok := consts[v]; !ok {
				sl := pgexpr.Slot{Index: len(s.vars), Lo: 0, Hi: int64(max(ph.Clients, 1) - 1)}
				s.vars = append(s.vars, scriptVar{name: "client_id"})
				slots[v], assigned[v], clientSlot = sl, true, sl.Index
				slotNames = append(slotNames, v)
				return sl.Index, 0, nil
			}
		}
		if setLater[v] {
			if carry(v) {
				return slots[v].Index, 0, nil
			}
			return 0, 0, unsetMsg(line, v)
		}
		if x, ok := consts[v]; ok {
			return -1, x, nil
		}
		if strs[v] {
			return 0, 0, problem(line, "variable %q (-D %s=%s) is not an integer, so it cannot be a key, a count or in an expression here", v, v, ph.Define[v])
		}
		return 0, 0, problem(line, "undefined variable %q", v)
	}
	// checkReads refuses an expression that reads a variable not surely
	// set (Bind reports undefined names itself).
	checkReads := func(line int, src string) error {
		for _, k := range defNames {
			if strs[k] && !setLater[k] && containsVar(src, k) {
				return problem(line, "-D %s=%s is not an integer, so an expression cannot use :%s (pgbench: malformed variable %q value: %q); give an integer, or use it in SQL text only", k, ph.Define[k], k, k, ph.Define[k])
			}
		}
		if containsVar(src, "client_id") {
			if _, _, err := ref(line, "client_id"); err != nil {
				return err
			}
		}
		names := mapKeys(setLater)
		slices.Sort(names)
		for _, k := range append(names, slotNames...) {
			if containsVar(src, k) && !assigned[k] && !carry(k) {
				return unsetMsg(line, k)
			}
		}
		return nil
	}
	var plan []fileStep
	// assign compiles \set name src.
	assign := func(line int, name, src string) error {
		if o, ok := ph.Set[name]; ok {
			src = o
		}
		e, err := pgexpr.Parse(src)
		if err != nil {
			return problem(line, "\\set %s: %v", name, err)
		}
		if err := checkReads(line, src); err != nil {
			return err
		}
		g, err := e.BindSlots(consts, slots, sc.Seed)
		if err != nil {
			return problem(line, "\\set %s: %v", name, err)
		}
		lo, hi := g.Bounds()
		if b, ok := carriedOut[name]; ok {
			carriedOut[name] = [2]int64{min(b[0], lo), max(b[1], hi)}
		} else if _, isDef := consts[name]; isDef && setLater[name] {
			d := consts[name]
			carriedOut[name] = [2]int64{min(d, lo), max(d, hi)}
		}
		sl, ok := slots[name]
		if !ok {
			sl = pgexpr.Slot{Index: len(s.vars), Lo: lo, Hi: hi}
			s.vars = append(s.vars, scriptVar{name: name, def: src, gen: g})
			slotNames = append(slotNames, name)
		} else if len(frames) > 0 {
			// Set in a branch: after it the variable holds this value
			// or an earlier one.
			sl.Lo, sl.Hi = min(sl.Lo, lo), max(sl.Hi, hi)
		} else {
			sl.Lo, sl.Hi = lo, hi
		}
		slots[name] = sl
		assigned[name] = true
		plan = append(plan, fileStep{ctl: ctlSet, slot: sl.Index, gen: g})
		return nil
	}
	declared := declaredTables(sc)
	table := func(line int, name string) (TableConfig, error) {
		tc, ok := declared[name]
		if !ok {
			names := make([]string, 0, len(declared))
			for k := range declared {
				names = append(names, k)
			}
			slices.Sort(names)
			return tc, problem(line, "unknown table %q (the scenario's tables: %s)", name, strings.Join(names, ", "))
		}
		return tc, nil
	}

	for _, c := range cmds {
		s.commands = append(s.commands, c.FirstLine)
	}
	inTxn := false
	// nextBranch ends the current branch of the innermost \if at an
	// \elif or \else: the branch jumps to the \endif, the pending
	// condition's false exit comes here, and the next branch starts with
	// the variables set before the \if.
	nextBranch := func(c pgscript.Command) (*ifFrame, error) {
		if len(frames) == 0 {
			return nil, problem(c.Line, "\\%s without matching \\if", c.Meta)
		}
		f := frames[len(frames)-1]
		if f.hasElse {
			return nil, problem(c.Line, "\\%s after \\else", c.Meta)
		}
		if inTxn != f.inTxn {
			return nil, problem(c.Line, "a branch of the \\if at line %d begins or ends a transaction: BEGIN and END must not be split across branches", f.line)
		}
		f.branches = append(f.branches, assigned)
		assigned = maps.Clone(f.before)
		f.jumps = append(f.jumps, len(plan))
		plan = append(plan, fileStep{ctl: ctlJump})
		plan[f.cond].target = len(plan)
		return f, nil
	}
	for ci, c := range cmds {
		cmdNo := int16(min(ci+1, math.MaxInt16))
		if c.Meta != "" {
			switch c.Meta {
			case "set":
				if err := assign(c.Line, c.Args[0], c.Args[1]); err != nil {
					return nil, nil, err
				}
			case "sleep":
				p, err := sleepStep(c, ref, problem)
				if err != nil {
					return nil, nil, err
				}
				p.cmdNo = cmdNo
				plan = append(plan, p)
			case "if", "elif":
				var f *ifFrame
				if c.Meta == "elif" {
					if f, err = nextBranch(c); err != nil {
						return nil, nil, err
					}
				}
				e, err := pgexpr.Parse(c.Args[0])
				if err != nil {
					return nil, nil, problem(c.Line, "\\%s: %v", c.Meta, err)
				}
				if err := checkReads(c.Line, c.Args[0]); err != nil {
					return nil, nil, err
				}
				g, err := e.BindCond(consts, slots, sc.Seed)
				if err != nil {
					return nil, nil, problem(c.Line, "\\%s: %v", c.Meta, err)
				}
				if f == nil {
					f = &ifFrame{line: c.Line, before: maps.Clone(assigned), inTxn: inTxn}
					frames = append(frames, f)
				}
				f.cond = len(plan)
				plan = append(plan, fileStep{ctl: ctlIf, gen: g})
			case "else":
				f, err := nextBranch(c)
				if err != nil {
					return nil, nil, err
				}
				f.cond, f.hasElse = -1, true
			case "endif":
				if len(frames) == 0 {
					return nil, nil, problem(c.Line, "\\endif without matching \\if")
				}
				f := frames[len(frames)-1]
				frames = frames[:len(frames)-1]
				if inTxn != f.inTxn {
					return nil, nil, problem(c.Line, "a branch of the \\if at line %d begins or ends a transaction: BEGIN and END must not be split across branches", f.line)
				}
				f.branches = append(f.branches, assigned)
				if !f.hasElse {
					f.branches = append(f.branches, f.before) // no branch taken
				}
				if f.cond >= 0 {
					plan[f.cond].target = len(plan)
				}
				for _, j := range f.jumps {
					plan[j].target = len(plan)
				}
				// Surely set after the \endif: set at the end of every
				// branch.
				assigned = map[string]bool{}
				for v := range f.branches[0] {
					every := true
					for _, br := range f.branches[1:] {
						every = every && br[v]
					}
					if every {
						assigned[v] = true
					}
				}
			case "setshell", "shell":
				return nil, nil, problem(c.Line, "\\%s: shell commands are not modelled", c.Meta)
			default: // startpipeline, endpipeline
				return nil, nil, problem(c.Line, "\\%s: pipeline mode is not modelled", c.Meta)
			}
			continue
		}
		st, err := pgscript.Shape(c.SQL)
		if err != nil {
			return nil, nil, problem(c.Line, "%v", err)
		}
		if len(st.Lookups) > 0 && ci < math.MaxInt16 {
			if s.lookups == nil {
				s.lookups = make([][]string, min(len(cmds), math.MaxInt16))
			}
			s.lookups[ci] = st.Lookups
		}
		for _, v := range st.Vars {
			if strs[v] && !setLater[v] {
				continue // -D text substituted into the SQL
			}
			if _, _, err := ref(c.Line, v); err != nil {
				return nil, nil, err
			}
		}
		p := fileStep{stmt: true, keySlot: -1, fromSlot: -1, toSlot: -1, pick: "client", txnStart: !inTxn, cmdNo: cmdNo}
		// exprs collects the generators of arithmetic values, in the
		// order value met them.
		var exprs []*pgexpr.Gen
		value := func(v pgscript.Value) (int, int64, error) {
			switch {
			case v.Expr != "":
				e, err := pgexpr.Parse(v.Expr)
				if err != nil {
					return 0, 0, problem(c.Line, "%s: %v", v.Expr, err)
				}
				if err := checkReads(c.Line, v.Expr); err != nil {
					return 0, 0, err
				}
				g, err := e.BindSlots(consts, slots, sc.Seed)
				if err != nil {
					return 0, 0, problem(c.Line, "%v", err)
				}
				exprs = append(exprs, g)
				return -2, 0, nil // -2: the value is exprs' last
			case v.Var == "":
				return -1, v.Const, nil
			}
			return ref(c.Line, v.Var)
		}
		last := func() *pgexpr.Gen { return exprs[len(exprs)-1] }
		var tc TableConfig
		if st.Table != "" {
			if tc, err = table(c.Line, st.Table); err != nil {
				return nil, nil, err
			}
			p.table = st.Table
		}
		// A lookup with other conditions is by the equality on the key,
		// wherever it stands among them (the rest filter its row).
		eqOnKey := false
		for _, eq := range st.Equalities {
			if tc.Index && eq.Column == tc.Key {
				st.Column, st.Key, st.KeyOnly = eq.Column, eq.Key, eq.KeyOnly
				eqOnKey = true
				break
			}
		}
		// A range on the key among other conditions, when no equality
		// names the key: an index scan of the range with a Filter.
		if !eqOnKey && tc.Index {
			for _, r := range st.Ranges {
				if r.Column == tc.Key {
					if st.OrderOrLimit {
						return nil, nil, problem(c.Line, "ORDER BY, LIMIT or OFFSET on a range of %s with other conditions is not modelled", tc.Key)
					}
					st.Kind = pgscript.Range
					st.UseRange(r)
					break
				}
			}
		}
		keyed := st.Column != "" && tc.Index && st.Column == tc.Key
		switch st.Kind {
		case pgscript.Begin:
			if inTxn {
				return nil, nil, problem(c.Line, "BEGIN inside a transaction (there is already a transaction in progress)")
			}
			inTxn = true
			p.kind, p.txnStart = opNone, false
		case pgscript.Commit, pgscript.Rollback:
			if !inTxn {
				return nil, nil, problem(c.Line, "%s outside a transaction (there is no transaction in progress)", st.Kind)
			}
			inTxn = false
			p.kind, p.txnStart = opCommit, false
			if st.Kind == pgscript.Rollback {
				p.kind = opAbort
			}
		case pgscript.NoTable:
			p.kind, p.keyConst = opNone, plannedNoTable
		case pgscript.Range:
			// Without an index on the column the planner scans the table.
			p.kind, p.textWalks = opSeqscan, st.TextWalks
			if !(tc.Index && st.Column == tc.Key) && st.HasLimit && !st.Ordered && !st.Aggregate {
				return nil, nil, problem(c.Line, "LIMIT on a range of %s, which has no index, is not modelled: the sequential scan stops at the rows of the range it meets first, and the model places only a key's rows", st.Column)
			}
			if !(tc.Index && st.Column == tc.Key) {
				if err := p.setLimit(st, value, last); err != nil {
					return nil, nil, err
				}
			} else {
				p.kind, p.indexOnly, p.ordered, p.desc = opRange, st.KeyOnly, st.Ordered, st.Desc
				if err := p.setLimit(st, value, last); err != nil {
					return nil, nil, err
				}
				if err := p.setRange(st, value, last); err != nil {
					return nil, nil, err
				}
			}
		case pgscript.List:
			// Without an index on the column a sequential scan tests
			// every row against the list.
			p.kind, p.textWalks = opSeqscan, st.TextWalks
			if keyed {
				p.kind, p.indexOnly = opList, st.KeyOnly
				if err := p.setList(st, value, last); err != nil {
					return nil, nil, err
				}
			}
		case pgscript.Lookup, pgscript.Scan:
			// A lookup by a scan (no index on its column) prices no
			// text calls: they run on the one row the filter passes,
			// which the scan's own work dwarfs.
			p.kind = opSeqscan
			if st.Kind == pgscript.Scan {
				p.textWalks = st.TextWalks
				// Without a WHERE clause, an index holding every column
				// the SELECT list reads can answer it alone.
				p.indexOnly = !st.Filter && tc.Index && onlyColumn(st.Columns, tc.Key)
				if err := p.setLimit(st, value, last); err != nil {
					return nil, nil, err
				}
				if p.indexOnly && len(st.MinMax) > 0 {
					// min(key) and max(key): each the first entry from
					// one end of the key's index (appendMinMax).
					p.kind, p.fromSlot, p.toSlot = opRange, -1, -1
					for _, a := range st.MinMax {
						p.minMax = append(p.minMax, a.Max)
					}
				}
			}
			if st.Kind == pgscript.Lookup && keyed {
				p.kind, p.indexOnly, p.textWalks = opFetch, st.KeyOnly, st.TextWalks
				if p.keySlot, p.keyConst, err = value(st.Key); err != nil {
					return nil, nil, err
				}
				if p.keySlot == -2 {
					p.keySlot, p.keyGen = -1, last()
				}
			}
		case pgscript.Update, pgscript.Delete:
			what := strings.ToLower(st.Kind.String())
			switch {
			case st.Column == "":
				p.kind = opUpdateAll
				if st.Kind == pgscript.Delete {
					p.kind = opDeleteAll
				}
			case st.ByRange && keyed:
				// The range's rows, read as a SELECT of the range reads
				// them, each changed as by its key (rangescan.go).
				p.kind = opUpdateRange
				if st.Kind == pgscript.Delete {
					p.kind = opDeleteRange
				}
				if err := p.setRange(st, value, last); err != nil {
					return nil, nil, err
				}
			case len(st.Keys) > 0 && keyed:
				// The list's rows, read as a SELECT of the list reads
				// them, each changed as by its key (listscan.go).
				p.kind = opUpdateList
				if st.Kind == pgscript.Delete {
					p.kind = opDeleteList
				}
				if err := p.setList(st, value, last); err != nil {
					return nil, nil, err
				}
			case len(st.Keys) > 0:
				return nil, nil, problem(c.Line, "%s of table %q by an IN list of %s: only a list of the table's indexed key is modelled (declare it with index: true, key: %s); a scan for the rows is not", strings.ToUpper(what), st.Table, st.Column, st.Column)
			case st.ByRange:
				return nil, nil, problem(c.Line, "%s of table %q by a range of %s: only a range of the table's indexed key is modelled (declare it with index: true, key: %s); a scan for the rows is not", strings.ToUpper(what), st.Table, st.Column, st.Column)
			case !keyed:
				if !tc.Index {
					return nil, nil, problem(c.Line, "%s of table %q by %s: the table has no index (declare it with index: true, key: %s), and an %s that scans for one row is not modelled", strings.ToUpper(what), st.Table, st.Column, st.Column, what)
				}
				return nil, nil, problem(c.Line, "%s of table %q by %s: only its key column %s is indexed, and an %s that scans for a row is not modelled", strings.ToUpper(what), st.Table, st.Column, tc.Key, what)
			default:
				p.kind = opUpdate
				if st.Kind == pgscript.Delete {
					p.kind = opDeleteKey
				}
				if p.keySlot, p.keyConst, err = value(st.Key); err != nil {
					return nil, nil, err
				}
				if p.keySlot == -2 {
					p.keySlot, p.keyGen = -1, last()
				}
			}
			if tc.Key != "" && slices.Contains(st.SetColumns, tc.Key) {
				return nil, nil, problem(c.Line, "UPDATE of %q sets its key column %s: changing a key is not modelled", st.Table, tc.Key)
			}
		case pgscript.Insert:
			p.kind = opInsert
			if !st.Series {
				p.n = st.Rows
				break
			}
			if st.From.Expr != "" || st.To.Expr != "" {
				return nil, nil, problem(c.Line, "generate_series's bounds must be integers or :variables")
			}
			if p.fromSlot, p.fromConst, err = value(st.From); err != nil {
				return nil, nil, err
			}
			if p.toSlot, p.toConst, err = value(st.To); err != nil {
				return nil, nil, err
			}
			lo, hi := p.fromConst, p.toConst
			if p.fromSlot >= 0 {
				lo = slots[st.From.Var].Lo
			}
			if p.toSlot >= 0 {
				hi = slots[st.To.Var].Hi
			}
			if d, ok := subOK64(hi, lo); !ok || d >= maxFileInsertRows {
				return nil, nil, problem(c.Line, "generate_series(%s, %s) may insert up to %s rows; one statement of the model inserts at most %d", st.From, st.To, rowsText(lo, hi), maxFileInsertRows)
			}
			if p.fromSlot < 0 && p.toSlot < 0 {
				p.n = max(p.toConst-p.fromConst+1, 0)
			} else {
				p.series = true
			}
		case pgscript.Vacuum:
			if inTxn {
				return nil, nil, problem(c.Line, "VACUUM cannot run inside a transaction block")
			}
			p.kind, p.analyze = opVacuum, st.Analyze
		case pgscript.Analyze:
			p.kind = opAnalyze
		case pgscript.Checkpoint:
			p.kind = opCheckpoint
		case pgscript.Truncate:
			p.kind = opTruncate
		case pgscript.Prewarm:
			p.kind, p.mode = opPrewarm, prewarmModes[st.Mode]
			p.fromConst, p.toConst = nullBlock, nullBlock
			if st.FromSet {
				if p.fromSlot, p.fromConst, err = value(st.From); err != nil {
					return nil, nil, err
				}
				if p.fromSlot == -2 {
					p.fromSlot, p.fromGen = -1, last()
				}
			}
			if st.ToSet {
				if p.toSlot, p.toConst, err = value(st.To); err != nil {
					return nil, nil, err
				}
				if p.toSlot == -2 {
					p.toSlot, p.toGen = -1, last()
				}
			}
		}
		if st.FilterOps > 0 && ci < math.MaxInt16 {
			s.setFilter(ci, st, tc)
		}
		if p.kind == opSeqscan && st.Kind == pgscript.Range && st.Column == tc.Key {
			// A range of the key read by a sequential scan (the table
			// has no index): its bounds say which rows its filter passes
			// (a LIMIT that counts rows sets them to every key).
			if err := p.setRange(st, value, last); err != nil {
				return nil, nil, err
			}
			p.seqRange = true
		}
		plan = append(plan, p)
		if c.GSet != "" {
			if err := gsetVars(c, st, keyed, assign, problem); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(frames) > 0 {
		return nil, nil, problem(frames[len(frames)-1].line, "\\if without a matching \\endif")
	}
	if inTxn {
		return nil, nil, problem(cmds[len(cmds)-1].Line, "the script ends inside a transaction (BEGIN without END): pgbench aborts such a client")
	}
	if err := checkSetNames(ph.Set, []*script{s}); err != nil {
		return nil, nil, err
	}
	s.run = func(b *backend, rng *rand.Rand, v []int64, ops []op) []op {
		if clientSlot >= 0 {
			v[clientSlot] = int64(b.client.id)
		}
		for pc := 0; pc < len(plan); {
			p := &plan[pc]
			switch p.ctl {
			case ctlSet:
				v[p.slot] = p.gen.NextVars(rng, v)
				pc++
				continue
			case ctlIf:
				if p.gen.NextBool(rng, v) {
					pc++
				} else {
					pc = p.target
				}
				continue
			case ctlJump:
				pc = p.target
				continue
			}
			pc++
			o := op{kind: p.kind, stmt: p.stmt, cmdNo: p.cmdNo, analyze: p.analyze, indexOnly: p.indexOnly, open: p.rangeOpen}
			if p.table != "" {
				o.t = b.pickTable(p.table, p.pick)
				o.textBytes = int32(min(int64(p.textWalks)*o.t.textBytes(), math.MaxInt32))
			}
			switch p.kind {
			case opNone:
				o.key = p.keyConst
			case opFetch, opUpdate, opDeleteKey:
				o.key = p.keyConst
				if p.keySlot >= 0 {
					o.key = v[p.keySlot]
				}
				if p.keyGen != nil {
					o.key = p.keyGen.NextVars(rng, v)
				}
			case opSeqscan:
				if p.seqRange {
					o.key, o.n = p.bounds(rng, v)
				}
			case opRange, opPrewarm, opUpdateRange, opDeleteRange:
				o.key, o.n = p.bounds(rng, v)
				o.mode = p.mode
				if p.rangeOpen&openHigh != 0 {
					o.n = o.t.heap.Rows
				}
				o.ordered, o.desc = p.ordered, p.desc
			case opList, opUpdateList, opDeleteList:
				o.key, o.n, o.every = b.listKeys(p.listVals, rng, v)
			case opInsert:
				o.n = p.n
				if p.series {
					from, to := p.fromConst, p.toConst
					if p.fromSlot >= 0 {
						from = v[p.fromSlot]
					}
					if p.toSlot >= 0 {
						to = v[p.toSlot]
					}
					o.n = max(to-from+1, 0)
				}
				if o.n == 0 {
					// An INSERT of no rows is a statement with no page work.
					o = op{kind: opNone, stmt: true, cmdNo: p.cmdNo}
				}
			case opSleep:
				d := p.durConst
				if p.durSlot >= 0 {
					d = v[p.durSlot]
				}
				if d <= 0 {
					continue
				}
				// A variable's sleep beyond the longest the loader accepts
				// as a constant sleeps that long: past any phase's end.
				o.dur = min(satMul(d, p.unit), maxSleepNs)
			}
			if p.hasLimit {
				if lim, none := p.limitOf(rng, v); none {
					// LIMIT 0 returns no row: ExecLimit never asks its
					// plan for one, whatever the OFFSET.
					o = op{kind: opNone, stmt: true, cmdNo: p.cmdNo}
				} else if !p.aggregate {
					o.limit = lim
					if o.kind == opSeqscan {
						// SELECT ... FROM t LIMIT n: every row counts.
						o.key, o.n = 1, math.MaxInt64
					}
				}
			}
			if p.minMax != nil && o.kind != opNone {
				ops = appendMinMax(ops, o, p.minMax)
			} else {
				ops = append(ops, o)
			}
			// Autocommit: a statement outside BEGIN ... END commits at
			// once (VACUUM and CHECKPOINT run outside any transaction).
			// VACUUM ANALYZE's ANALYZE commits the transaction it
			// writes pg_statistic in.
			if p.txnStart && p.stmt && p.kind != opCheckpoint && (p.kind != opVacuum || p.analyze) {
				ops = append(ops, op{kind: opCommit})
			}
		}
		return ops
	}
	if !slices.ContainsFunc(cmds, func(c pgscript.Command) bool { return c.Meta == "" || c.Meta == "sleep" }) {
		// pgbench would run such transactions on the client's CPU alone,
		// which the model does not price: they would take no simulated
		// time, and a phase of a duration would never end.
		return nil, nil, problem(cmds[0].Line, "the script has no SQL command and no \\sleep: its transactions would take no simulated time (pgbench spins on the client's CPU, which the model does not price), so a phase would never end; add a statement")
	}
	return s, carriedOut, nil
}

// listKeys evaluates an IN list's values for the values v drawn and
// keeps them, sorted and without duplicates as _bt_preprocess_array_keys
// leaves them, in the client's list arena (client.lists, reset with each
// transaction's ops): the op's key is their offset there, n how many,
// and every how many values the list has with its duplicates (the
// planner's row estimate counts them).
func (b *backend) listKeys(vals []listVal, rng *rand.Rand, v []int64) (off, n, all int64) {
	c := b.client
	off = int64(len(c.lists))
	for _, lv := range vals {
		k := lv.c
		if lv.slot >= 0 {
			k = v[lv.slot]
		}
		if lv.gen != nil {
			k = lv.gen.NextVars(rng, v)
		}
		c.lists = append(c.lists, k)
	}
	keys := c.lists[off:]
	slices.Sort(keys)
	keys = slices.Compact(keys)
	c.lists = c.lists[:off+int64(len(keys))]
	return off, int64(len(keys)), int64(len(vals))
}

// setLimit takes a range's or a scan's LIMIT and OFFSET (pgscript's
// limitOffset) into p; value and last compile their expressions as the
// other values of the statement. An ORDER BY on a column without an
// index sorts every row the scan reads: the LIMIT changes no page, and
// only LIMIT 0 (no plan run) is kept.
func (p *fileStep) setLimit(st pgscript.Statement, value func(pgscript.Value) (int, int64, error), last func() *pgexpr.Gen) error {
	if !st.HasLimit {
		return nil
	}
	var err error
	if p.limitSlot, p.limitConst, err = value(st.Limit); err != nil {
		return err
	}
	if p.limitSlot == -2 {
		p.limitSlot, p.limitGen = -1, last()
	}
	p.hasLimit, p.aggregate = true, st.Aggregate || st.Ordered && p.kind == opSeqscan
	if st.HasOffset {
		if p.offsetSlot, p.offsetConst, err = value(st.Offset); err != nil {
			return err
		}
		if p.offsetSlot == -2 {
			p.offsetSlot, p.offsetGen = -1, last()
		}
		p.hasOffset = true
	}
	return nil
}

// setList sets an IN list's values (each a constant, a variable's slot or
// an expression's generator).
func (p *fileStep) setList(st pgscript.Statement, value func(pgscript.Value) (int, int64, error), last func() *pgexpr.Gen) error {
	for _, k := range st.Keys {
		lv := listVal{}
		var err error
		if lv.slot, lv.c, err = value(k); err != nil {
			return err
		}
		if lv.slot == -2 {
			lv.slot, lv.gen = -1, last()
		}
		p.listVals = append(p.listVals, lv)
	}
	return nil
}

// setRange sets the range's bounds (its first and last keys, each a
// constant, a variable's slot or an expression's generator). An open side
// is the table's first or last key (the keys are 1..rows): rangeOpen tells
// the planner it has no comparison.
func (p *fileStep) setRange(st pgscript.Statement, value func(pgscript.Value) (int, int64, error), last func() *pgexpr.Gen) error {
	var err error
	p.fromSlot, p.fromConst, p.toSlot, p.toConst = -1, 1, -1, math.MaxInt64
	if st.LowOpen {
		p.rangeOpen |= openLow
	} else {
		if p.fromSlot, p.fromConst, err = value(st.From); err != nil {
			return err
		}
		if p.fromSlot == -2 {
			p.fromSlot, p.fromGen = -1, last()
		}
	}
	if st.HighOpen {
		p.rangeOpen |= openHigh
	} else {
		if p.toSlot, p.toConst, err = value(st.To); err != nil {
			return err
		}
		if p.toSlot == -2 {
			p.toSlot, p.toGen = -1, last()
		}
	}
	return nil
}

// bounds are the range's first and last keys (a prewarm's blocks) for
// the values v drawn: each a constant, a variable's value or an
// expression's (the first drawn first).
func (p *fileStep) bounds(rng *rand.Rand, v []int64) (lo, hi int64) {
	lo, hi = p.fromConst, p.toConst
	if p.fromSlot >= 0 {
		lo = v[p.fromSlot]
	}
	if p.toSlot >= 0 {
		hi = v[p.toSlot]
	}
	if p.fromGen != nil {
		lo = p.fromGen.NextVars(rng, v)
	}
	if p.toGen != nil {
		hi = p.toGen.NextVars(rng, v)
	}
	return lo, hi
}

// limitOf is the rows a LIMIT lets the plan return, OFFSET's included
// (ExecLimit fetches the skipped rows, then stops asking; the planner
// prices that many: preprocess_limit), for the values v drawn; none for
// LIMIT 0 (or a negative LIMIT from a variable, an error in PostgreSQL).
// A negative OFFSET from a variable counts as none.
func (p *fileStep) limitOf(rng *rand.Rand, v []int64) (lim int64, none bool) {
	lim = p.limitConst
	if p.limitSlot >= 0 {
		lim = v[p.limitSlot]
	}
	if p.limitGen != nil {
		lim = p.limitGen.NextVars(rng, v)
	}
	if lim <= 0 {
		return 0, true
	}
	if p.hasOffset {
		off := p.offsetConst
		if p.offsetSlot >= 0 {
			off = v[p.offsetSlot]
		}
		if p.offsetGen != nil {
			off = p.offsetGen.NextVars(rng, v)
		}
		lim = satAdd(lim, max(off, 0))
	}
	return lim, false
}

// mapKeys returns a map's keys (unsorted).
func mapKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// subOK64 is a - b and whether it did not overflow.
func subOK64(a, b int64) (int64, bool) {
	d := a - b
	return d, (a >= b) == (d >= 0)
}

// rowsText words hi - lo + 1 rows, which may exceed int64.
func rowsText(lo, hi int64) string {
	if d, ok := subOK64(hi, lo); ok && d < math.MaxInt64 {
		return strconv.FormatInt(d+1, 10)
	}
	return "more than 2^63"
}

// containsVar reports whether src reads :name (not a longer name).
func containsVar(src, name string) bool {
	for i := 0; ; {
		j := strings.Index(src[i:], ":"+name)
		if j < 0 {
			return false
		}
		end := i + j + 1 + len(name)
		if end == len(src) || !isVarChar(src[end]) {
			return true
		}
		i = end
	}
}

func isVarChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// satMul is a*b, saturating at the int64 range (a sleep that long never
// ends within a run).
func satMul(a, b int64) int64 {
	if a > 0 && b > 0 && a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// satAdd is a+b for a, b >= 0, saturating at the int64 range.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// sleepStep compiles \sleep N [us|ms|s] (pgbench.c: the unit defaults to
// seconds; N is an integer or a :variable).
func sleepStep(c pgscript.Command, ref func(int, string) (int, int64, error), problem func(int, string, ...any) error) (fileStep, error) {
	p := fileStep{kind: opSleep, keySlot: -1, durSlot: -1, fromSlot: -1, toSlot: -1, unit: 1e9}
	if len(c.Args) < 1 || len(c.Args) > 2 {
		return p, problem(c.Line, `\sleep: missing argument (\sleep N [us|ms|s])`)
	}
	if len(c.Args) == 2 {
		switch strings.ToLower(c.Args[1]) {
		case "us":
			p.unit = 1e3
		case "ms":
			p.unit = 1e6
		case "s":
		default:
			return p, problem(c.Line, "\\sleep: unrecognized time unit %q: use us, ms or s", c.Args[1])
		}
	}
	arg := c.Args[0]
	if strings.HasPrefix(arg, ":") {
		slot, val, err := ref(c.Line, arg[1:])
		if err != nil {
			return p, err
		}
		p.durSlot, p.durConst = slot, val
		return p, nil
	}
	x, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		return p, problem(c.Line, "\\sleep: invalid sleep time %q: an integer or a :variable", arg)
	}
	if x > 0 && satMul(x, p.unit) > maxSleepNs {
		return p, problem(c.Line, "\\sleep: %s %s is longer than the %d days a sleep may last", arg, map[int64]string{1e3: "us", 1e6: "ms", 1e9: "s"}[p.unit], maxSleepNs/(86400*1e9))
	}
	p.durConst = x
	return p, nil
}

// maxSleepNs bounds a \sleep (about 36 years: far past any phase, and far
// from the int64 nanoseconds' end).
const maxSleepNs = int64(1) << 60

// gsetVars handles \gset and \aset after a lookup: the only value the
// model knows of a row is its key, so each target must be the key column,
// and the variable (prefix + column) takes the key's value.
func gsetVars(c pgscript.Command, st pgscript.Statement, keyed bool, assign func(int, string, string) error, problem func(int, string, ...any) error) error {
	if st.Kind != pgscript.Lookup || !keyed {
		return problem(c.Line, "\\%s: only a lookup by a table's key column can set variables (the model knows a row's key, not its other values)", c.GSet)
	}
	if len(st.Targets) == 0 {
		return problem(c.Line, "\\%s: the query returns no column", c.GSet)
	}
	for _, t := range st.Targets {
		if t != st.Column {
			return problem(c.Line, "\\%s: the query returns %q; of a row the model knows only its key column %s", c.GSet, t, st.Column)
		}
	}
	src := st.Key.String()
	for _, t := range st.Targets {
		if err := assign(c.Line, c.GSetPrefix+t, src); err != nil {
			return err
		}
	}
	return nil
}

// onlyColumn reports whether cols name no column but col (none at all, as
// count(*) reads, included).
func onlyColumn(cols []string, col string) bool {
	for _, c := range cols {
		if c != col {
			return false
		}
	}
	return true
}

// appendMinMax appends the ops of a SELECT of min(key) and max(key)
// aggregates, o being the statement: planagg.c's plan, an InitPlan per
// aggregate, each a Limit 1 over an index scan of the key from its first
// or last entry (an index-only scan from 9.2), so each reads the descent
// to that end's leaf and the entry's visibility-map page (or its heap
// page). The first op carries the statement's overhead.
func appendMinMax(ops []op, o op, maxes []bool) []op {
	for i, isMax := range maxes {
		m := o
		m.kind, m.indexOnly, m.allKeys = opRange, true, true
		m.key, m.n = 1, 1
		if isMax {
			m.key, m.n = o.t.heap.Rows, o.t.heap.Rows
		}
		if i > 0 {
			m.stmt = false
		}
		ops = append(ops, m)
	}
	return ops
}
