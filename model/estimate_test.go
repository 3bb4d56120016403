package model

import (
	"runtime"
	"strings"
	"testing"
)

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// The memory estimate that refuses impossible runs must not understate
// the state a run builds before its first event (tables, buffers, page
// cache, clients), nor overstate it grossly, across the scenario shapes
// that drive it: a big pgbench database, a big buffer pool, many small
// tables, many clients.
func TestEstimateMatchesBuiltState(t *testing.T) {
	if testing.Short() {
		t.Skip("builds databases of several hundred MB")
	}
	base := func() Scenario {
		sc := DefaultScenario()
		sc.Tables.PGBench.Scale = 10
		sc.Workload.Phases = []Phase{{Name: "run", Clients: 8, Threads: 1, Duration: 10 * sec, Script: Script{Builtin: "tpcb-like"}}}
		return sc
	}
	cases := map[string]func(*Scenario){
		"pgbench scale 300":  func(sc *Scenario) { sc.Tables.PGBench.Scale = 300 },
		"shared_buffers 4GB": func(sc *Scenario) { sc.Server.SharedBuffers = 4 << 30 },
		"arc, 2GB": func(sc *Scenario) {
			sc.Server.SharedBuffers = 2 << 30
			sc.Policies.Replacement = ReplacementConfig{Policy: "arc"}
		},
		"2000 small tables": func(sc *Scenario) {
			sc.Tables.Relations = []TableConfig{{Name: "t", Rows: 100, RowWidth: 100, Fillfactor: 100, Count: 2000, State: "vacuumed", Index: true}}
		},
		"5000 tables without an index": func(sc *Scenario) {
			sc.Tables.Relations = []TableConfig{{Name: "t", Rows: 10, RowWidth: 100, Fillfactor: 100, Count: 5000, State: "vacuumed"}}
		},
		"2000 clients": func(sc *Scenario) { sc.Workload.Phases[0].Clients = 2000 },
	}
	for name, mod := range cases {
		sc := base()
		mod(&sc)
		est, err := EstimateRun(sc)
		if err != nil {
			t.Fatal(err)
		}
		before := liveHeap()
		e, err := build(sc)
		if err != nil {
			t.Fatal(err)
		}
		// The page-id space: what the relations were given, the catalogs'
		// included (a run with thousands of relations has several chunks
		// of pg_catalog).
		if space := int64(e.cat.GIDSpace()); est.Pages < space {
			t.Errorf("%s: estimated %d page ids, the built state uses %d", name, est.Pages, space)
		}
		// Clients exist once their phase starts.
		e.startPhase(0)
		got := float64(liveHeap() - before)
		runtime.KeepAlive(e)
		// The estimate also holds the process's fixed cost and the time
		// series, which a built engine has not allocated yet.
		want := float64(est.Bytes - bytesFixed)
		for _, p := range est.Parts {
			if p.Key == "output.interval" || p.What == "snapshots (they grow during the run)" {
				want -= float64(p.Bytes)
			}
		}
		t.Logf("%s: built %.1f MB, estimated %.1f MB (x%.2f)", name, got/(1<<20), want/(1<<20), want/got)
		if want < got || want > 2*got+8<<20 {
			t.Errorf("%s: estimate %.1f MB for %.1f MB built", name, want/(1<<20), got/(1<<20))
		}
	}
}

// A table loaded in random order can have a range read by a bitmap heap
// scan, whose bitmap each backend holds whole: the estimate counts the
// largest one the planner would build per client. For the 200000-row
// table PostgreSQL 15 plans a bitmap heap scan for 60000 keys and a
// sequential scan for 99460 (planner_rules_test.go), so the largest is
// in between.
func TestEstimateCountsBitmaps(t *testing.T) {
	if n := largestBitmapRange(3279, 200000, 551, 1); n < 60000 || n >= 99460 {
		t.Fatalf("largest bitmap range %d rows, want in [60000, 99460)", n)
	}
	sc := rtIdleScenario(16384, 0)
	tc := rtTable("bm", 0)
	tc.Rows = 200000
	part := func(order string, clients int) int64 {
		tc.LoadOrder = order
		sc.Tables.Relations = []TableConfig{tc}
		sc.Workload.Phases[0].Clients = clients
		est, err := EstimateRun(sc)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range est.Parts {
			if strings.HasPrefix(p.What, "bitmap heap scans") {
				return p.Bytes
			}
		}
		return 0
	}
	if b := part("key", 10); b != 0 {
		t.Errorf("a key-ordered table: %d bytes of bitmaps, want none", b)
	}
	one, ten := part("random", 1), part("random", 10)
	if one < 60000*16 || ten != 10*one {
		t.Errorf("bitmaps: %d bytes for one client, %d for ten; want at least %d, and ten times as much", one, ten, 60000*16)
	}
}
