package model

import (
	"fmt"
	"sort"

	"github.com/pgbufsim/pgbufsim/model/btree"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/heap"
	"github.com/pgbufsim/pgbufsim/model/pgexpr"
)

// pgbench's schema (pgbench.c initCreateTables) with the tuple widths that
// give PostgreSQL's measured page counts (pg-buffers-facts.md §6.2): an
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
	walUpdate      = 96
	walInsert      = 88
	walIndexInsert = 64
	walPrune       = 48
	walCommit      = 34
	walFPI         = 8240 // 8192-byte image plus headers (measured, pg-visibility-facts.md §1.7)
)

// table is a heap relation with its primary key, if any.
type table struct {
	name string
	heap *heap.Table
	rel  catalog.RelID
	pkey *index
}

type index struct {
	name string
	bt   *btree.Index
	rel  catalog.RelID
}

// database holds every relation of a run.
type database struct {
	cat                                  *catalog.Catalog
	accounts, tellers, branches, history *table
	scale                                int
}

func newTable(cat *catalog.Catalog, name string, rows int64, tuple, fillfactor int, withPkey bool) (*table, error) {
	h, err := heap.New(name, rows, tuple, fillfactor)
	if err != nil {
		return nil, err
	}
	t := &table{name: name, heap: h}
	t.rel = cat.Add(name, catalog.Heap, h.NBlocks())
	if withPkey {
		bt := btree.New(max(rows, 1))
		t.pkey = &index{name: name + "_pkey", bt: bt}
		t.pkey.rel = cat.Add(t.pkey.name, catalog.BTree, bt.NBlocks())
	}
	return t, nil
}

// buildPGBench creates pgbench_accounts, _tellers, _branches and _history as
// `pgbench -i -s scale -F fillfactor` leaves them.
func buildPGBench(cat *catalog.Catalog, cfg PGBenchTables) (*database, error) {
	db := &database{cat: cat, scale: cfg.Scale}
	s := int64(cfg.Scale)
	var err error
	if db.accounts, err = newTable(cat, "pgbench_accounts", accountsPerScale*s, accountsTuple, cfg.Fillfactor, true); err != nil {
		return nil, err
	}
	if db.tellers, err = newTable(cat, "pgbench_tellers", tellersPerScale*s, tellersTuple, cfg.Fillfactor, true); err != nil {
		return nil, err
	}
	if db.branches, err = newTable(cat, "pgbench_branches", branchesPerScale*s, branchesTuple, cfg.Fillfactor, true); err != nil {
		return nil, err
	}
	if db.history, err = newTable(cat, "pgbench_history", 0, historyTuple, 100, false); err != nil {
		return nil, err
	}
	return db, nil
}

// opKind is one step of a transaction.
type opKind uint8

const (
	opNone   opKind = iota // a statement with no page work (BEGIN)
	opFetch                // index scan by key, fetch the heap tuple
	opUpdate               // index scan by key, heap_update
	opInsert               // heap_insert at the end of the table
	opCommit               // commit record, WAL flush
)

// op is one statement (or the commit) of a transaction.
type op struct {
	kind opKind
	stmt bool // charge statement overhead and a client round trip first
	t    *table
	key  int64
}

// script builds the ops of one transaction of a built-in pgbench script
// (pgbench.c builtin_script), with keys drawn by the client's generators.
type script struct {
	name string
	vars []scriptVar
	// build appends the transaction's ops for the drawn variable values.
	build func(db *database, v []int64, ops []op) []op
}

type scriptVar struct {
	name    string
	def     string // default expression (the built-in script's \set)
	gen     *pgexpr.Gen
	comment string
}

// builtinScript returns a fresh copy of a built-in script.
func builtinScript(name string) (*script, error) {
	std := []scriptVar{
		{name: "aid", def: "random(1, 100000 * :scale)"},
		{name: "bid", def: "random(1, 1 * :scale)"},
		{name: "tid", def: "random(1, 10 * :scale)"},
		{name: "delta", def: "random(-5000, 5000)"},
	}
	switch name {
	case "tpcb-like":
		return &script{name: "<builtin: TPC-B (sort of)>", vars: std, build: func(db *database, v []int64, ops []op) []op {
			return append(ops,
				op{kind: opNone, stmt: true}, // BEGIN
				op{kind: opUpdate, stmt: true, t: db.accounts, key: v[0]},
				op{kind: opFetch, stmt: true, t: db.accounts, key: v[0]},
				op{kind: opUpdate, stmt: true, t: db.tellers, key: v[2]},
				op{kind: opUpdate, stmt: true, t: db.branches, key: v[1]},
				op{kind: opInsert, stmt: true, t: db.history},
				op{kind: opCommit, stmt: true}, // END
			)
		}}, nil
	case "simple-update":
		return &script{name: "<builtin: simple update>", vars: std, build: func(db *database, v []int64, ops []op) []op {
			return append(ops,
				op{kind: opNone, stmt: true},
				op{kind: opUpdate, stmt: true, t: db.accounts, key: v[0]},
				op{kind: opFetch, stmt: true, t: db.accounts, key: v[0]},
				op{kind: opInsert, stmt: true, t: db.history},
				op{kind: opCommit, stmt: true},
			)
		}}, nil
	case "select-only":
		return &script{name: "<builtin: select only>", vars: std[:1], build: func(db *database, v []int64, ops []op) []op {
			return append(ops, op{kind: opFetch, stmt: true, t: db.accounts, key: v[0]}, op{kind: opCommit})
		}}, nil
	}
	return nil, fmt.Errorf("unknown built-in script %q (valid: select-only, simple-update, tpcb-like)", name)
}

// bindScript compiles the script's variables, applying the phase's `set`
// overrides, against :scale and friends.
func bindScript(s *script, set map[string]string, scale int, seed int64) error {
	vars := map[string]int64{
		"scale":     int64(scale),
		"naccounts": accountsPerScale * int64(scale),
		"ntellers":  tellersPerScale * int64(scale),
		"nbranches": branchesPerScale * int64(scale),
	}
	known := map[string]bool{}
	for i := range s.vars {
		known[s.vars[i].name] = true
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !known[k] {
			valid := make([]string, 0, len(s.vars))
			for _, v := range s.vars {
				valid = append(valid, v.name)
			}
			return Problem{Path: "set." + k, Msg: fmt.Sprintf("the script has no variable %q (it uses %v)", k, valid)}
		}
	}
	for i := range s.vars {
		v := &s.vars[i]
		src := v.def
		if o, ok := set[v.name]; ok {
			src = o
		}
		e, err := pgexpr.Parse(src)
		if err != nil {
			return Problem{Path: "set." + v.name, Msg: err.Error()}
		}
		g, err := e.Bind(vars, seed)
		if err != nil {
			return Problem{Path: "set." + v.name, Msg: err.Error()}
		}
		v.gen = g
	}
	return nil
}
