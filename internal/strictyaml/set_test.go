package strictyaml

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const setBase = `server:
  cpus: 4
storage:
  data: nvme
policies:
  replacement: lru
workload:
  phases:
    - name: warmup
      duration: 1min
    - name: run
      clients: 8
`

// applySets parses setBase, applies overrides and decodes.
func applySets(t *testing.T, src string, sets ...string) (testConfig, error) {
	t.Helper()
	doc, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sets {
		path, value, _ := strings.Cut(s, "=")
		if err := doc.Set(configType, path, value); err != nil {
			return testConfig{}, err
		}
	}
	cfg := defaultConfig()
	return cfg, doc.Decode(&cfg)
}

func TestSet(t *testing.T) {
	cfg, err := applySets(t, setBase,
		"server.shared_buffers=1GB",           // new key in an existing mapping
		"server.cpus=16",                      // replace a value
		"workload.phases.0.clients=2",         // list element by index
		"workload.phases[1].duration=2h",      // by bracketed index
		"workload.phases.run.rate=99.5",       // by name
		"tables.accounts.scale=7",             // missing maps are created
		"storage.data.queue_depth=64",         // a shorthand scalar becomes {preset: nvme, ...}
		"storage.wal={preset: hdd-7200}",      // a flow mapping
		"policies.replacement.name=2q",        // a Tagged scalar becomes {name: ...}
		"policies.replacement.kout_buffers=3", // checked against 2q's params
		"workload.phases.run.script=[a, b]",   // a flow list (seqshorthand)
		"name=a: b",                           // block YAML is taken as a string
		"notes=",                              // empty: the empty string
	)
	if err != nil {
		t.Fatal(err)
	}
	notes := ""
	want := defaultConfig()
	want.Name = "a: b"
	want.Notes = &notes
	want.Server.CPUs = 16
	want.Server.SharedBuffers = 1 << 30
	want.Storage.Data = testDisk{Preset: "nvme", QueueDepth: 64, Latency: 100_000}
	want.Storage.WAL = &testDisk{Preset: "hdd-7200", QueueDepth: 32, Latency: 100_000}
	want.Policies.Replacement = testPolicy{name: "2q", params: &twoQParams{A1inFraction: 0.25, KoutBuffers: 3}}
	want.Tables = map[string]testTable{"accounts": {Scale: 7, Fillfactor: 100}}
	want.Workload.Phases = []testPhase{
		{Name: "warmup", Duration: 60e9, Clients: 2},
		{Name: "run", Duration: 7200e9, Clients: 8, Rate: 99.5, Script: testScript{Commands: []string{"a", "b"}}},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got  %+v\nwant %+v", cfg, want)
	}
}

func TestSetErrors(t *testing.T) {
	cases := []struct {
		set, want string
	}{
		// path problems, found by Set itself
		{"server.shared_bufers=64MB", `-set server.shared_bufers=64MB: unknown key (did you mean "shared_buffers"?)`},
		{"sever.cpus=2", `-set sever.cpus=2: sever: unknown key (did you mean "server"?)`},
		{"server.cpus.max=2", `-set server.cpus.max=2: unknown key (server.cpus is a single value, not a mapping)`},
		{"workload.phases.5.clients=2", `-set workload.phases.5.clients=2: workload.phases.5: index 5 is out of range (the list has 2 elements)`},
		{"workload.phases.load.clients=2", `-set workload.phases.load.clients=2: workload.phases.load: no element named "load" (names: warmup, run)`},
		{"policies.replacement.max_usage_count=3", `-set policies.replacement.max_usage_count=3: unknown key (valid keys: name)`},
		{"policies.replacement.name.x=3", `-set policies.replacement.name.x=3: unknown key (policies.replacement.name is a single value, not a mapping)`},
		{"server[0].cpus=1", `-set server[0].cpus=1: server: server is a mapping, not a list`},
		{"server..cpus=1", `-set server..cpus=1: invalid key path "server..cpus" (empty key in key path)`},
		{"server.cpus={a", `-set server.cpus={a: invalid value: did not find expected ',' or '}'`},
		// value problems, found by Decode and reported against the override
		{"server.shared_buffers=64XB", `-set server.shared_buffers=64XB: invalid size "64XB" (use a number with a unit: 8kB, 128MB, 1GB)`},
		{"workload.phases.run.clients=many", `-set workload.phases.run.clients=many: invalid integer "many"`},
		{"policies.replacement={name: clock-sweep, max_usage: 2}", `-set policies.replacement={name: clock-sweep, max_usage: 2}: policies.replacement.max_usage: unknown key (did you mean "max_usage_count"?)`},
		{"storage.wal=floppy", `-set storage.wal=floppy: unknown value "floppy" (valid: hdd-7200, ssd, nvme)`},
	}
	for _, c := range cases {
		t.Run(c.set, func(t *testing.T) {
			_, err := applySets(t, setBase, c.set)
			wantError(t, err, c.want)
		})
	}
}

// A list absent from the file holds defaults the document cannot see, so
// its elements cannot be addressed.
func TestSetListNotInFile(t *testing.T) {
	_, err := applySets(t, "seed: 1\n", "workload.phases.0.clients=2")
	wantError(t, err, `-set workload.phases.0.clients=2: workload.phases: cannot address an element of workload.phases: the list is not in the file (set the whole list instead, e.g. workload.phases=[...])`)
	cfg, err := applySets(t, "seed: 1\n", "workload.phases=[{name: x, clients: 3}]")
	if err != nil || len(cfg.Workload.Phases) != 1 || cfg.Workload.Phases[0].Clients != 3 {
		t.Fatalf("%v %+v", err, cfg.Workload.Phases)
	}
}

// Errors in the file and in overrides come together: file lines first.
func TestSetMixedErrors(t *testing.T) {
	_, err := applySets(t, "server:\n  cpus: 0\n", "server.work_mem=lots")
	wantError(t, err, lines(
		`x.yaml:2: server.cpus: 0 is out of range [1, 1024]`,
		`-set server.work_mem=lots: invalid size "lots" (use a number with a unit: 8kB, 128MB, 1GB)`,
	))
}

// Setting through an alias must not change the anchor's other uses.
func TestSetThroughAliasCopies(t *testing.T) {
	src := "workload:\n  phases:\n    - &p {name: a, clients: 2}\n    - *p\n"
	cfg, err := applySets(t, src, "workload.phases.1.clients=9")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Workload.Phases[0].Clients != 2 || cfg.Workload.Phases[1].Clients != 9 {
		t.Fatalf("phases = %+v", cfg.Workload.Phases)
	}
	// A key that only comes from a merge is copied in, then overridden.
	src = "workload:\n  phases:\n    - &p {name: a, script: {builtin: select-only}}\n    - <<: *p\n      name: b\n"
	cfg, err = applySets(t, src, "workload.phases.b.script.builtin=simple-update")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Workload.Phases[0].Script.Builtin != "select-only" || cfg.Workload.Phases[1].Script.Builtin != "simple-update" {
		t.Fatalf("phases = %+v", cfg.Workload.Phases)
	}
}

// Errorf and Line see overrides too.
func TestErrorfOnOverride(t *testing.T) {
	doc, _ := Parse("x.yaml", []byte(setBase))
	if err := doc.Set(configType, "workload.phases.run.clients", "3"); err != nil {
		t.Fatal(err)
	}
	if got := doc.Errorf("workload.phases[1].clients", "too many").Error(); got != "-set workload.phases.run.clients=3: too many" {
		t.Errorf("Errorf = %q", got)
	}
	if got := doc.Line("workload.phases[1].clients"); got != 0 {
		t.Errorf("Line = %d, want 0", got)
	}
	if got := doc.Errorf("workload.phases[1]", "bad phase").Error(); got != "x.yaml:11: workload.phases[1]: bad phase" {
		t.Errorf("Errorf parent = %q", got)
	}
}

// SetNode puts a node from the file (a sweep value) in place; errors in it
// point at its own line.
func TestSetNodeAndClone(t *testing.T) {
	src := setBase + "sweep:\n  axes:\n    server.shared_buffers: [32MB, 64XB]\n    server.shared_bufers: [1GB]\n"
	base, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cfg := defaultConfig()
	if err := base.Decode(&cfg); err != nil {
		t.Fatal(err)
	}
	axes := cfg.Sweep.Axes
	values := axes.Content[1].Content

	point := base.Clone()
	if err := point.SetNode(configType, axes.Content[0].Value, values[0]); err != nil {
		t.Fatal(err)
	}
	c1 := defaultConfig()
	if err := point.Decode(&c1); err != nil || c1.Server.SharedBuffers != 32<<20 {
		t.Fatalf("point 1: %v %d", err, c1.Server.SharedBuffers)
	}
	// The base document is unchanged by the clone's override.
	c0 := defaultConfig()
	if err := base.Decode(&c0); err != nil || c0.Server.SharedBuffers != 128<<20 {
		t.Fatalf("base changed: %v %d", err, c0.Server.SharedBuffers)
	}

	point = base.Clone()
	if err := point.SetNode(configType, axes.Content[0].Value, values[1]); err != nil {
		t.Fatal(err)
	}
	c2 := defaultConfig()
	wantError(t, point.Decode(&c2), `x.yaml:15: server.shared_buffers: invalid size "64XB" (use a number with a unit: 8kB, 128MB, 1GB)`)

	err = base.Clone().SetNode(configType, axes.Content[2].Value, axes.Content[3].Content[0])
	wantError(t, err, `x.yaml:16: server.shared_bufers: unknown key (did you mean "shared_buffers"?)`)
}

func TestParseSetValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind yaml.Kind
		val  string
	}{
		{"64MB", yaml.ScalarNode, "64MB"},
		{"'quoted: yes'", yaml.ScalarNode, "quoted: yes"},
		{"[32MB, 64MB]", yaml.SequenceNode, ""},
		{"{name: lru}", yaml.MappingNode, ""},
		{"a: b", yaml.ScalarNode, "a: b"},
		{"- a", yaml.ScalarNode, "- a"},
		{"", yaml.ScalarNode, ""},
		{"random_gaussian(1, 100000 * :scale, 5)", yaml.ScalarNode, "random_gaussian(1, 100000 * :scale, 5)"},
	} {
		n, err := parseSetValue(c.in)
		if err != nil || n.Kind != c.kind || (c.kind == yaml.ScalarNode && n.Value != c.val) {
			t.Errorf("parseSetValue(%q) = %+v, %v", c.in, n, err)
		}
	}
}
