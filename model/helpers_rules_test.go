package model

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
)

// Helpers for the internal rule tests (package model): scenarios built in
// Go, engines built but driven by hand, and a pool filled to a chosen
// state.

// rtIdleScenario is a scenario whose only client sleeps, over one declared
// table of the given pages; autovacuum is off so that only the process
// under test acts.
func rtIdleScenario(nbuffers int64, tablePages int64) Scenario {
	sc := DefaultScenario()
	sc.Name = "rules"
	sc.Server.SharedBuffers = nbuffers * 8192
	sc.Server.Autovacuum = false
	// Each rule test counts one mechanism's accesses exactly; the system
	// catalogs' own are tested in syscatalog_rules_test.go.
	sc.Server.SystemCatalogs = false
	sc.Tables.Relations = []TableConfig{rtTable("t", tablePages)}
	sc.Workload.Phases = []Phase{{Name: "idle", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Steps: []Step{{Sleep: sec}}}}}
	return sc
}

// rtTable declares a vacuumed table of pages pages with 61 rows each
// (100-byte rows, fillfactor 100), with a primary key.
func rtTable(name string, pages int64) TableConfig {
	tc := TableConfig{Name: name, Pages: pages}
	tc.Defaults()
	tc.Index = true
	return tc
}

func rtBuild(t *testing.T, sc Scenario) *engine {
	t.Helper()
	e, err := build(sc)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return e
}

func rtRun(t *testing.T, sc Scenario) (*engine, *Result) {
	t.Helper()
	e := rtBuild(t, sc)
	r, err := e.run(Options{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return e, r
}

// rtFillPool reads table t's first NBuffers pages into the pool (free-list
// order), then takes one clock-sweep victim: that pass decrements every
// buffer to usage 0 and puts page NBuffers in slot 0 (usage 1), leaving
// the hand at slot 1 with one complete pass. It returns the gid in each
// slot.
func rtFillPool(t *testing.T, e *engine, tbl *table) []int32 {
	t.Helper()
	p := e.pool
	if tbl.heap.NBlocks() <= p.N {
		t.Fatalf("table of %d pages cannot fill %d buffers plus one", tbl.heap.NBlocks(), p.N)
	}
	load := func(blk int32) {
		s, _ := p.GetVictim(nil, 0)
		if s < 0 {
			t.Fatalf("no victim")
		}
		p.Assign(s, e.cat.GID(tbl.rel, blk), 0, false)
		p.ReadDone(s)
		p.Unpin(s)
	}
	for b := int32(0); b <= p.N; b++ {
		load(b)
	}
	gids := make([]int32, p.N)
	for s := range gids {
		gids[s] = p.Tag[s]
	}
	return gids
}

// rtBump raises a slot's usage count by pinning and unpinning it with the
// default strategy (PinBuffer), k times.
func rtBump(p *bufpool.Pool, s int32, k int) {
	for range k {
		p.Pin(s, 0, false)
		p.Unpin(s)
	}
}

// rtUsages returns every slot's usage count.
func rtUsages(p *bufpool.Pool) []int {
	u := make([]int, p.N)
	for s := range u {
		u[s] = p.Usage(int32(s))
	}
	return u
}

func rtDirty(p *bufpool.Pool, s int32) bool { return p.Flags[s]&bufpool.Dirty != 0 }
