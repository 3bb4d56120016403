package model

import (
	"crypto/sha256"
	"encoding/binary"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// prewarmBase is a small scenario whose prewarm evicts from both the pool
// (128 buffers) and the page cache (512 pages) over a 1700-page database,
// with two phases so that a later phase's keys exist.
func prewarmBase() Scenario {
	sc := DefaultScenario()
	sc.Name = "prewarm-key"
	sc.Server.SharedBuffers = 1 << 20
	sc.OS.PageCache = 4 << 20
	sc.Tables.PGBench.Scale = 1
	sc.Workload.Prewarm = 3000
	sc.Workload.Phases = []Phase{
		{Name: "warm", Clients: 2, Threads: 1, Duration: 1e9, Rate: 200, Script: Script{Builtin: "tpcb-like"}},
		{Name: "run", Clients: 2, Threads: 1, Duration: 2e9, Script: Script{Builtin: "select-only"}},
	}
	ResolveVersionDefaults(&sc)
	return sc
}

// prewarmDigest builds sc, prewarms it and digests what the prewarm left:
// every buffer's page, flags, LSN and usage count, the victims the pool
// gives next (which the free list and the policy's state decide), and the
// page cache's LRU order.
func prewarmDigest(t *testing.T, sc Scenario) [32]byte {
	t.Helper()
	e := rtBuild(t, sc)
	if sc.OS.Start == "loaded" {
		e.loadPageCache()
	}
	if !e.prewarmReferences(sc.Workload.Prewarm) {
		t.Fatal("prewarm interrupted")
	}
	lru, err := e.os.SaveLRU()
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	put := func(v int64) { b = binary.LittleEndian.AppendUint64(b, uint64(v)) }
	p := e.pool
	for s := range p.N {
		put(int64(p.Tag[s]))
		put(int64(p.Flags[s]))
		put(p.LSN[s])
		put(int64(p.Usage(s)))
	}
	fake := e.cat.GIDSpace()
	for i := range 2 * p.N {
		s, _ := p.GetVictim(nil, 1)
		put(int64(s))
		if s >= 0 {
			p.Assign(s, fake+i, 1, false)
			p.ReadDone(s)
			p.Unpin(s)
		}
	}
	for _, g := range lru.Order() {
		put(int64(g))
	}
	return sha256.Sum256(b)
}

// scenarioLeaves lists the scenario's settable leaves (numbers, strings,
// booleans and pointers to them) by Go field path, e.g.
// "Server.BgwriterDelay" or "Workload.Phases[1].Rate". Maps, interfaces
// and the sweep block are left out: PrewarmKey never clears them.
func scenarioLeaves(v reflect.Value, path string, out *[]string) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Name == "Sweep" {
				continue
			}
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			scenarioLeaves(v.Field(i), p, out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			scenarioLeaves(v.Index(i), path+"["+strconv.Itoa(i)+"]", out)
		}
	case reflect.Pointer:
		if e := v.Type().Elem().Kind(); e == reflect.Bool || e <= reflect.Float64 && e >= reflect.Int || e == reflect.String {
			*out = append(*out, path)
		}
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64, reflect.String:
		*out = append(*out, path)
	}
}

// fieldAt returns the settable value at a path of scenarioLeaves in sc,
// whose phases must already be a private copy.
func fieldAt(sc *Scenario, path string) reflect.Value {
	v := reflect.ValueOf(sc).Elem()
	for _, part := range strings.Split(path, ".") {
		name, idx, ok := strings.Cut(part, "[")
		v = v.FieldByName(name)
		if ok {
			i, _ := strconv.Atoi(strings.TrimSuffix(idx, "]"))
			v = v.Index(i)
		}
	}
	return v
}

// perturb changes the leaf to some other value (not necessarily a valid one).
func perturb(v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 0.5)
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Pointer:
		n := reflect.New(v.Type().Elem())
		if !v.IsNil() {
			n.Elem().Set(v.Elem())
		}
		perturb(n.Elem())
		v.Set(n)
	}
}

func withOwnPhases(sc Scenario) Scenario {
	sc.Workload.Phases = slices.Clone(sc.Workload.Phases)
	return sc
}

// PrewarmKey leaves out exactly the keys listed here, and each of them,
// set to another valid value, leaves the prewarmed pool and page cache
// unchanged: a run that copies a shared prewarm is the run that would
// have prewarmed itself. Every other leaf changes the key. A key added
// to the scenario is in the key unless PrewarmKey clears it; clearing one
// fails this test until its line here shows that the prewarm cannot see it.
func TestPrewarmKeyIgnoresOnlyWhatThePrewarmCannotSee(t *testing.T) {
	base := prewarmBase()
	baseKey := PrewarmKey(base)
	ignored := map[string]func(*Scenario){
		"Name":                                     func(s *Scenario) { s.Name = "other" },
		"CostsFile":                                func(s *Scenario) { s.CostsFile = "" },
		"Server.CPUs":                              func(s *Scenario) { s.Server.CPUs = 1 },
		"Server.BgwriterDelay":                     func(s *Scenario) { s.Server.BgwriterDelay = 10e6 },
		"Server.BgwriterLRUMaxpages":               func(s *Scenario) { s.Server.BgwriterLRUMaxpages = 1000 },
		"Server.BgwriterLRUMultiplier":             func(s *Scenario) { s.Server.BgwriterLRUMultiplier = 10 },
		"Server.BgwriterFlushAfter":                func(s *Scenario) { s.Server.BgwriterFlushAfter = 0 },
		"Server.CheckpointTimeout":                 func(s *Scenario) { s.Server.CheckpointTimeout = 30e9 },
		"Server.CheckpointCompletionTarget":        func(s *Scenario) { s.Server.CheckpointCompletionTarget = 0.1 },
		"Server.CheckpointFlushAfter":              func(s *Scenario) { s.Server.CheckpointFlushAfter = 0 },
		"Server.MaxWALSize":                        func(s *Scenario) { s.Server.MaxWALSize = 32 << 20 },
		"Server.CheckpointSegments":                func(s *Scenario) { s.Server.CheckpointSegments = 64 },
		"Server.FullPageWrites":                    func(s *Scenario) { s.Server.FullPageWrites = !s.Server.FullPageWrites },
		"Server.WALLogHints":                       func(s *Scenario) { s.Server.WALLogHints = !s.Server.WALLogHints },
		"Server.SynchronousCommit":                 func(s *Scenario) { s.Server.SynchronousCommit = !s.Server.SynchronousCommit },
		"Server.WALWriterDelay":                    func(s *Scenario) { s.Server.WALWriterDelay = 10e6 },
		"Server.WALWriterFlushAfter":               func(s *Scenario) { s.Server.WALWriterFlushAfter = 0 },
		"Server.WALBuffers":                        func(s *Scenario) { s.Server.WALBuffers = 1 << 20 },
		"Server.AutovacuumNaptime":                 func(s *Scenario) { s.Server.AutovacuumNaptime = 1e9 },
		"Server.AutovacuumMaxWorkers":              func(s *Scenario) { s.Server.AutovacuumMaxWorkers = 1 },
		"Server.AutovacuumVacuumThreshold":         func(s *Scenario) { s.Server.AutovacuumVacuumThreshold = 5 },
		"Server.AutovacuumVacuumScaleFactor":       func(s *Scenario) { s.Server.AutovacuumVacuumScaleFactor = 0.01 },
		"Server.AutovacuumVacuumMaxThreshold":      func(s *Scenario) { s.Server.AutovacuumVacuumMaxThreshold = 1000 },
		"Server.AutovacuumVacuumInsertThreshold":   func(s *Scenario) { s.Server.AutovacuumVacuumInsertThreshold = 10 },
		"Server.AutovacuumVacuumInsertScaleFactor": func(s *Scenario) { s.Server.AutovacuumVacuumInsertScaleFactor = 0.01 },
		"Server.AutovacuumAnalyzeThreshold":        func(s *Scenario) { s.Server.AutovacuumAnalyzeThreshold = 5 },
		"Server.AutovacuumAnalyzeScaleFactor":      func(s *Scenario) { s.Server.AutovacuumAnalyzeScaleFactor = 0.01 },
		"Server.AutovacuumVacuumCostDelay":         func(s *Scenario) { s.Server.AutovacuumVacuumCostDelay = 20e6 },
		"Server.VacuumCostLimit":                   func(s *Scenario) { s.Server.VacuumCostLimit = 2000 },
		"Server.VacuumCostPageHit":                 func(s *Scenario) { s.Server.VacuumCostPageHit = 2 },
		"Server.VacuumCostPageMiss":                func(s *Scenario) { s.Server.VacuumCostPageMiss = 20 },
		"Server.VacuumCostPageDirty":               func(s *Scenario) { s.Server.VacuumCostPageDirty = 30 },
		"Server.VacuumBufferUsageLimit":            func(s *Scenario) { s.Server.VacuumBufferUsageLimit = 1 << 20 },
		"Server.IOCombineLimit":                    func(s *Scenario) { s.Server.IOCombineLimit = 64 << 10 },
		"Server.IOMethod":                          func(s *Scenario) { s.Server.IOMethod = "" },
		"Server.IOWorkers":                         func(s *Scenario) { s.Server.IOWorkers = 8 },
		"Server.EffectiveIOConcurrency":            func(s *Scenario) { s.Server.EffectiveIOConcurrency = 200 },
		"Server.MaintenanceIOConcurrency":          func(s *Scenario) { s.Server.MaintenanceIOConcurrency = 200 },
		"OS.DirtyBackgroundRatio":                  func(s *Scenario) { s.OS.DirtyBackgroundRatio = 1 },
		"OS.DirtyRatio":                            func(s *Scenario) { s.OS.DirtyRatio = 40 },
		"OS.DirtyBackgroundBytes":                  func(s *Scenario) { s.OS.DirtyBackgroundBytes = 256 << 10 },
		"OS.DirtyBytes":                            func(s *Scenario) { s.OS.DirtyBytes = 2 << 20 },
		"OS.DirtyExpireCentisecs":                  func(s *Scenario) { s.OS.DirtyExpireCentisecs = 100 },
		"OS.DirtyWritebackCentisecs":               func(s *Scenario) { s.OS.DirtyWritebackCentisecs = 100 },
		"OS.NrRequests":                            func(s *Scenario) { s.OS.NrRequests = 4 },
		"OS.MaxWritebackBatch":                     func(s *Scenario) { s.OS.MaxWritebackBatch = 64 << 10 },
		"OS.ReadAhead":                             func(s *Scenario) { s.OS.ReadAhead = 0 },
		"Workload.Phases[0].Name":                  func(s *Scenario) { s.Workload.Phases[0].Name = "w" },
		"Workload.Phases[0].Duration":              func(s *Scenario) { s.Workload.Phases[0].Duration = 5e9 },
		"Workload.Phases[0].Transactions":          func(s *Scenario) { s.Workload.Phases[0].Transactions, s.Workload.Phases[0].Duration = 100, 0 },
		"Workload.Phases[0].LatencyLimit":          func(s *Scenario) { s.Workload.Phases[0].LatencyLimit = 1e9 },
		"Workload.Phases[1].Name":                  func(s *Scenario) { s.Workload.Phases[1].Name = "r" },
		"Workload.Phases[1].Duration":              func(s *Scenario) { s.Workload.Phases[1].Duration = 5e9 },
		"Workload.Phases[1].Transactions":          func(s *Scenario) { s.Workload.Phases[1].Transactions, s.Workload.Phases[1].Duration = 100, 0 },
		"Workload.Phases[1].LatencyLimit":          func(s *Scenario) { s.Workload.Phases[1].LatencyLimit = 1e9 },
		"Workload.Phases[1].Clients":               func(s *Scenario) { s.Workload.Phases[1].Clients = 16 },
		"Workload.Phases[1].Threads":               func(s *Scenario) { s.Workload.Phases[1].Threads = 2 },
		"Workload.Phases[1].Rate":                  func(s *Scenario) { s.Workload.Phases[1].Rate = 100 },
	}
	// Costs, Storage, the output block and the hint-bit and all-visible
	// policies are cleared whole: every leaf under them is ignored.
	wholes := []string{"Costs.", "Storage.", "Output.", "Policies.HintCache.", "Policies.AllVisible."}
	var leaves []string
	scenarioLeaves(reflect.ValueOf(base), "", &leaves)
	found := map[string]bool{}
	for _, path := range leaves {
		sc := withOwnPhases(base)
		perturb(fieldAt(&sc, path))
		if PrewarmKey(sc) != baseKey {
			if ignored[path] != nil {
				t.Errorf("%s changes the prewarm key, but this test lists it as ignored", path)
			}
			continue
		}
		whole := false
		for _, w := range wholes {
			whole = whole || strings.HasPrefix(path, w)
		}
		if !whole && ignored[path] == nil {
			t.Errorf("PrewarmKey ignores %s: add it here with another valid value, to show the prewarm cannot see it", path)
		}
		found[path] = true
	}
	for path := range ignored {
		if !found[path] {
			t.Errorf("%s is listed as ignored but is not a leaf PrewarmKey ignores", path)
		}
	}
	if t.Failed() {
		return
	}
	// Each ignored key, set to another valid value, leaves the same state.
	want := prewarmDigest(t, base)
	alts := map[string]func(*Scenario){
		"Costs":               func(s *Scenario) { s.Costs.BufferHit *= 3; s.Costs.OSRead = 50000; s.Costs.Statement = 1e6 },
		"Storage":             func(s *Scenario) { s.Storage.Data.Preset = "hdd-7200"; s.Storage.WAL.Preset = "data" },
		"Output":              func(s *Scenario) { s.Output.Interval = 3e9; s.Output.PGBenchLog = true },
		"Policies.HintCache":  func(s *Scenario) { s.Policies.HintCache.Enabled = !s.Policies.HintCache.Enabled },
		"Policies.AllVisible": func(s *Scenario) { s.Policies.AllVisible.Mode = "vm"; s.Policies.AllVisible.VMSkipThreshold = 4 },
	}
	names := make([]string, 0, len(ignored)+len(alts))
	for k := range ignored {
		names = append(names, k)
	}
	for k, f := range alts {
		ignored[k] = f
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		sc := withOwnPhases(base)
		ignored[name](&sc)
		if ps := Check(sc); len(ps) > 0 {
			t.Fatalf("%s: the alternative value is not valid: %v", name, ps[0])
		}
		if PrewarmKey(sc) != baseKey {
			t.Fatalf("%s: the alternative value changed the key", name)
		}
		if got := prewarmDigest(t, sc); got != want {
			t.Errorf("%s changes what the prewarm leaves behind, but PrewarmKey ignores it", name)
		}
	}
	// And a key that is kept does change the state (the digest can fail).
	other := withOwnPhases(base)
	other.Seed++
	if prewarmDigest(t, other) == want {
		t.Fatal("the seed does not change the prewarm's digest: the digest sees too little")
	}
}
