package model

import (
	"embed"
	"fmt"
	"sort"

	"github.com/pgbufsim/pgbufsim/model/pgexpr"
	"github.com/pgbufsim/pgbufsim/model/pgscript"
)

// pgbench's schema (pgbench.c initCreateTables) with the tuple widths that
// give PostgreSQL's measured page counts (docs/model.md): an
// accounts row is 121 B MAXALIGNed to 128 plus a 4-byte line pointer (61
// rows per page); tellers 44 B (185 per page), branches 36 B (226),
// history 52 B (157).
const (
	accountsPerScale = 100000
	tellersPerScale  = 10
	branchesPerScale = 1
	accountsTuple    = 132
	tellersTuple     = 44
	branchesTuple    = 36
	historyTuple     = 52
)

// WAL record sizes in bytes (record header plus block reference plus data),
// typical of pgbench's records, and the size of a full-page image.
const (
	walUpdate      = 72 // a HOT update (prefix and suffix compressed): PostgreSQL 15's pgbench average, pg_waldump
	walIndexInsert = 64
	walPrune       = 54 // without its offsets (walPruneRecord)
	walVacuum      = 48 // likewise (walVacuumRecord)
	walBtreeVacuum = 50 // likewise (walBtreeVacuumRecord)
	walCommit      = 34
	walFPI         = 8240 // 8192-byte image plus headers (measured, docs/model.md)
)

// builtinText holds pgbench's built-in scripts as pgbench --show-script
// prints them (a test checks them against the installed pgbench): the
// statement lines of pgbench -r.
//
//go:embed builtin/*.sql
var builtinText embed.FS

// builtinCommands returns the first lines of a built-in script's commands.
func builtinCommands(name string) []string {
	data, err := builtinText.ReadFile("builtin/" + name + ".sql")
	if err != nil {
		panic("model: built-in script text missing: " + name) // embedded at build time
	}
	cmds, err := pgscript.Parse(string(data))
	if err != nil {
		panic("model: built-in script text does not parse: " + err.Error())
	}
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = c.FirstLine
	}
	return out
}

// builtinScript returns a fresh copy of a built-in script. Its ops carry
// the numbers of the commands of builtinText they run.
func builtinScript(name string) (*script, error) {
	s, err := builtinOps(name)
	if err == nil {
		s.commands = builtinCommands(name)
	}
	return s, err
}

// builtinInserts names the tables built-in script name inserts into (its
// ops below are built per transaction, so validation asks here).
func builtinInserts(name string) []string {
	switch name {
	case "tpcb-like", "simple-update":
		return []string{"pgbench_history"}
	}
	return nil
}

func builtinOps(name string) (*script, error) {
	std := []scriptVar{
		{name: "aid", def: "random(1, 100000 * :scale)"},
		{name: "bid", def: "random(1, 1 * :scale)"},
		{name: "tid", def: "random(1, 10 * :scale)"},
		{name: "delta", def: "random(-5000, 5000)"},
	}
	switch name {
	case "tpcb-like":
		return &script{name: "<builtin: TPC-B (sort of)>", vars: std, build: func(b *backend, v []int64, ops []op) []op {
			db := b.e.db
			return append(ops,
				op{kind: opNone, stmt: true, cmdNo: 5}, // BEGIN (after four \set)
				op{kind: opUpdate, stmt: true, t: db.accounts, key: v[0], cmdNo: 6},
				op{kind: opFetch, stmt: true, t: db.accounts, key: v[0], cmdNo: 7},
				op{kind: opUpdate, stmt: true, t: db.tellers, key: v[2], cmdNo: 8},
				op{kind: opUpdate, stmt: true, t: db.branches, key: v[1], cmdNo: 9},
				op{kind: opInsert, stmt: true, t: db.history, n: 1, cmdNo: 10},
				op{kind: opCommit, stmt: true, cmdNo: 11}, // END
			)
		}}, nil
	case "simple-update":
		return &script{name: "<builtin: simple update>", vars: std, build: func(b *backend, v []int64, ops []op) []op {
			db := b.e.db
			return append(ops,
				op{kind: opNone, stmt: true, cmdNo: 5},
				op{kind: opUpdate, stmt: true, t: db.accounts, key: v[0], cmdNo: 6},
				op{kind: opFetch, stmt: true, t: db.accounts, key: v[0], cmdNo: 7},
				op{kind: opInsert, stmt: true, t: db.history, n: 1, cmdNo: 8},
				op{kind: opCommit, stmt: true, cmdNo: 9},
			)
		}}, nil
	case "select-only":
		return &script{name: "<builtin: select only>", vars: std[:1], build: func(b *backend, v []int64, ops []op) []op {
			return append(ops, op{kind: opFetch, stmt: true, t: b.e.db.accounts, key: v[0], cmdNo: 2}, op{kind: opCommit})
		}}, nil
	}
	return nil, fmt.Errorf("unknown built-in script %q (valid: select-only, simple-update, tpcb-like)", name)
}

// checkSetNames reports a phase's `set` variable that none of its scripts
// has, naming the variables they do have.
func checkSetNames(set map[string]string, scripts []*script) error {
	known := map[string]bool{}
	var valid []string
	for _, s := range scripts {
		for _, v := range s.vars {
			if !known[v.name] {
				known[v.name] = true
				valid = append(valid, v.name)
			}
		}
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !known[k] {
			what := "the script has"
			if len(scripts) > 1 {
				what = "no script of the mix has"
				return Problem{Path: "set." + k, Msg: fmt.Sprintf("%s a variable %q (they use %v)", what, k, valid)}
			}
			return Problem{Path: "set." + k, Msg: fmt.Sprintf("%s no variable %q (it uses %v)", what, k, valid)}
		}
	}
	return nil
}

// bindScript compiles the script's variables, applying the phase's `set`
// overrides, against :scale, :naccounts, :ntellers, :nbranches and, for a
// step's key, :rows (the step's table's declared rows).
func bindScript(s *script, set map[string]string, sc Scenario, seed int64) error {
	scale := int64(sc.Tables.PGBench.Scale)
	for i := range s.vars {
		v := &s.vars[i]
		vars := map[string]int64{
			"scale":     scale,
			"naccounts": accountsPerScale * scale,
			"ntellers":  tellersPerScale * scale,
			"nbranches": branchesPerScale * scale,
		}
		if v.rowsOf != "" {
			vars["rows"] = max(tableRows(sc, v.rowsOf), 1)
		}
		src := v.def
		path := v.name
		if o, ok := set[v.name]; ok {
			src = o
			path = "set." + v.name
		} else if v.rowsOf == "" {
			path = "set." + v.name
		} else {
			path = "script." + v.name
		}
		e, err := pgexpr.Parse(src)
		if err != nil {
			return Problem{Path: path, Msg: err.Error()}
		}
		g, err := e.Bind(vars, seed)
		if err != nil {
			return Problem{Path: path, Msg: err.Error()}
		}
		v.gen = g
	}
	return nil
}
