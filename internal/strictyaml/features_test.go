package strictyaml

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestAbsentKeysKeepDefaults(t *testing.T) {
	cfg := mustDecode(t, "seed: 7\n")
	want := defaultConfig()
	want.Seed = 7
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
}

func TestShorthand(t *testing.T) {
	// shorthand:"preset": a scalar means {preset: scalar}, on top of defaults.
	cfg := mustDecode(t, "storage: {data: nvme, wal: hdd-7200}\n")
	if cfg.Storage.Data != (testDisk{Preset: "nvme", QueueDepth: 32, Latency: 100_000}) {
		t.Errorf("data = %+v", cfg.Storage.Data)
	}
	// A nil pointer is allocated and Defaults is called before decoding.
	if cfg.Storage.WAL == nil || *cfg.Storage.WAL != (testDisk{Preset: "hdd-7200", QueueDepth: 32, Latency: 100_000}) {
		t.Errorf("wal = %+v", cfg.Storage.WAL)
	}
	// seqshorthand:"commands": a list means {commands: [...]}.
	cfg = mustDecode(t, "workload: {phases: [{script: [a, b]}, {script: simple-update}]}\n")
	if got := cfg.Workload.Phases[0].Script; !reflect.DeepEqual(got, testScript{Commands: []string{"a", "b"}}) {
		t.Errorf("seqshorthand: %+v", got)
	}
	if got := cfg.Workload.Phases[1].Script; !reflect.DeepEqual(got, testScript{Builtin: "simple-update"}) {
		t.Errorf("shorthand: %+v", got)
	}
	// null for a pointer means nil.
	cfg = mustDecode(t, "storage: {wal: null}\nnotes: ~\n")
	if cfg.Storage.WAL != nil || cfg.Notes != nil {
		t.Errorf("null pointers: %+v %+v", cfg.Storage.WAL, cfg.Notes)
	}
}

func TestTagged(t *testing.T) {
	// The tag key is absent: the default variant is kept and its params
	// decoded (ParamsFor gives the defaults).
	cfg := mustDecode(t, "policies: {replacement: {max_usage_count: 2}}\n")
	if got := cfg.Policies.Replacement; got.name != "clock-sweep" || !reflect.DeepEqual(got.params, &clockParams{MaxUsageCount: 2}) {
		t.Errorf("default variant: %+v", got)
	}
	// Switching variant: the other variant's defaults, then its keys.
	cfg = mustDecode(t, "policies: {replacement: {name: 2q, kout_buffers: 100}}\n")
	if got := cfg.Policies.Replacement; got.name != "2q" || !reflect.DeepEqual(got.params, &twoQParams{A1inFraction: 0.25, KoutBuffers: 100}) {
		t.Errorf("2q: %+v", got)
	}
	// A scalar is the tag value; a variant without params stores nil.
	cfg = mustDecode(t, "policies: {replacement: lru}\n")
	if got := cfg.Policies.Replacement; got.name != "lru" || got.params != nil {
		t.Errorf("lru: %+v", got)
	}
	// The tag key is read first wherever it is written.
	cfg = mustDecode(t, "policies:\n  replacement:\n    max_usage_count: 9\n    name: clock-sweep\n")
	if got := cfg.Policies.Replacement; !reflect.DeepEqual(got.params, &clockParams{MaxUsageCount: 9}) {
		t.Errorf("key order: %+v", got)
	}
	// A tag value that is not a scalar.
	_, err := decodeString(t, "policies: {replacement: {name: [a]}}\n")
	wantError(t, err, `x.yaml:1: policies.replacement.name: expected a name, got a list`)
}

type emptyTagged struct{ v string }

func (e *emptyTagged) TagKey() string                  { return "kind" }
func (e *emptyTagged) ParamsFor(v string) (any, error) { return nil, nil }
func (e *emptyTagged) SetTagged(v string, _ any)       { e.v = v }
func (e *emptyTagged) Tagged() (string, any)           { return e.v, nil }

func TestTaggedWithoutDefaultNeedsTheKey(t *testing.T) {
	type c struct {
		X emptyTagged `yaml:"x"`
	}
	doc, _ := Parse("x.yaml", []byte("x: {}\n"))
	var v c
	wantError(t, doc.Decode(&v), `x.yaml:1: x: missing key "kind"`)
}

func TestDefaultsOnNewElements(t *testing.T) {
	cfg := mustDecode(t, "workload:\n  phases:\n    - {name: a}\n    - {name: b, clients: 4}\ntables: {t1: {}, t2: {scale: 3}}\n")
	want := []testPhase{
		{Name: "a", Duration: 60e9, Clients: 1},
		{Name: "b", Duration: 60e9, Clients: 4},
	}
	if !reflect.DeepEqual(cfg.Workload.Phases, want) {
		t.Errorf("phases = %+v", cfg.Workload.Phases)
	}
	if !reflect.DeepEqual(cfg.Tables, map[string]testTable{"t1": {1, 100}, "t2": {3, 100}}) {
		t.Errorf("tables = %+v", cfg.Tables)
	}
	// An empty list or map replaces the default with nil.
	cfg = mustDecode(t, "workload: {phases: []}\ntables: {}\n")
	if cfg.Workload.Phases != nil || cfg.Tables != nil {
		t.Errorf("empty: %#v %#v", cfg.Workload.Phases, cfg.Tables)
	}
}

func TestAliasesAndMergeKeys(t *testing.T) {
	src := `
base: &base {duration: 5min, clients: 8}
workload:
  phases:
    - <<: *base
      name: a
    - <<: [*base, {rate: 10}]
      name: b
      clients: 16
    - &c {name: c}
    - *c
`
	// "base" is not a key of the config: move it under a raw node.
	src = strings.Replace(src, "base: &base", "sweep: {axes: &base", 1)
	src = strings.Replace(src, "clients: 8}\n", "clients: 8}}\n", 1)
	cfg := mustDecode(t, src)
	want := []testPhase{
		{Name: "a", Duration: 300e9, Clients: 8},
		{Name: "b", Duration: 300e9, Clients: 16, Rate: 10},
		{Name: "c", Duration: 60e9, Clients: 1},
		{Name: "c", Duration: 60e9, Clients: 1},
	}
	if !reflect.DeepEqual(cfg.Workload.Phases, want) {
		t.Fatalf("phases = %+v", cfg.Workload.Phases)
	}
	// A merged key that the target does not have is an unknown key, at
	// the line where it is written.
	_, err := decodeString(t, "sweep: {axes: &b {colour: red}}\nserver:\n  <<: *b\n")
	wantError(t, err, `x.yaml:1: server.colour: unknown key (valid keys: comment, version, shared_buffers, work_mem, cpus, bgwriter_delay, checkpoint_timeout, fsync, checkpoint_completion_target)`)
	_, err = decodeString(t, "server:\n  <<: 3\n")
	wantError(t, err, `x.yaml:2: server.<<: a merge (<<) needs a mapping or a list of mappings`)
}

// Raw yaml.Node fields get a plain tree: aliases and merges expanded.
func TestRawNodeIsExpanded(t *testing.T) {
	cfg := mustDecode(t, "sweep:\n  axes:\n    a: &v [1, 2]\n    b: *v\n")
	axes := cfg.Sweep.Axes
	if len(axes.Content) != 4 || axes.Content[3].Kind != yaml.SequenceNode || axes.Content[3].Anchor != "" || axes.Content[1].Anchor != "" {
		t.Fatalf("axes = %+v", axes)
	}
	if axes.Content[1] == axes.Content[3] || axes.Content[3].Content[1].Value != "2" {
		t.Fatalf("alias not expanded to a copy")
	}
	_, err := decodeString(t, "sweep:\n  axes:\n    a: 1\n    a: 2\n")
	wantError(t, err, `x.yaml:4: sweep.axes.a: duplicate key (already defined at line 3)`)
	// An empty raw value is kept as a null node, not an error.
	cfg = mustDecode(t, "sweep:\n  axes:\n")
	if !isNull(&cfg.Sweep.Axes) {
		t.Fatalf("axes = %+v", cfg.Sweep.Axes)
	}
}

// A nested alias bomb must stop with an error, quickly, not expand 10^9
// values.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("sweep:\n  axes:\n    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		b.WriteString("    a" + itoa(i) + ": &a" + itoa(i) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + itoa(i-1))
		}
		b.WriteString("]\n")
	}
	_, err := decodeString(t, b.String())
	if err == nil || !strings.Contains(err.Error(), "expands to too many values") {
		t.Fatalf("alias bomb: %v", err)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestValidateJoinedErrors(t *testing.T) {
	type outer struct {
		In validated `yaml:"in"`
	}
	doc, err := Parse("v.yaml", []byte("in:\n  a: 1\n  b: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	var o outer
	wantError(t, doc.Decode(&o), lines(
		"v.yaml:1: in: whole struct",
		"v.yaml:2: in.a: a is odd",
		"v.yaml:3: in.b: must exceed a by 2",
	))
}

type validated struct {
	A int `yaml:"a"`
	B int `yaml:"b"`
}

func (v *validated) Validate() error {
	return errors.Join(
		&FieldError{Path: "a", Msg: "a is odd"},
		&FieldError{Path: "b", Msg: "must exceed a by 2"},
		errors.New("whole struct"),
	)
}

// Programming mistakes are plain errors for the developer, with Go names.
func TestProgrammerErrors(t *testing.T) {
	doc, _ := Parse("x.yaml", []byte("a: 1\n"))
	check := func(out any, want string) {
		t.Helper()
		err := doc.Decode(out)
		var es Errors
		if err == nil || errors.As(err, &es) || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%T) = %v, want a plain error containing %q", out, err, want)
		}
	}
	var s struct {
		A int `yaml:"a,omitempty"`
	}
	check(&s, `unsupported yaml tag option "omitempty"`)
	var u struct {
		A string `yaml:"a" unit:"bytes"`
	}
	check(&u, "unit tag needs a signed integer field")
	var r struct {
		A int `yaml:"a" range:"x,"`
	}
	check(&r, `bad range bound "x"`)
	var e struct {
		A int `yaml:"a" enum:"x|y"`
	}
	check(&e, "enum tag needs a string field")
	var sh struct {
		A testDisk `yaml:"a" shorthand:"nope"`
	}
	check(&sh, `shorthand key "nope" is not a key`)
	var ch struct {
		A chan int `yaml:"a"`
	}
	check(&ch, "unsupported field type chan int")
	var mk struct {
		A map[int]int `yaml:"a"`
	}
	doc2, _ := Parse("x.yaml", []byte("a: {1: 2}\n"))
	if err := doc2.Decode(&mk); err == nil || !strings.Contains(err.Error(), "map keys must be strings") {
		t.Errorf("map[int]int: %v", err)
	}
	var dup struct {
		A int `yaml:"a"`
		B int `yaml:"a"`
	}
	check(&dup, `two fields use the key "a"`)
	check(s, "needs a non-nil pointer to a struct")
	check(nil, "needs a non-nil pointer to a struct")
}

func TestLineAndErrorf(t *testing.T) {
	src := "seed: 1\nserver:\n  cpus: 4\nworkload:\n  phases:\n    - name: warmup\n    - name: run\n      clients: 8\n"
	doc, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		line int
	}{
		{"seed", 1},
		{"server.cpus", 3},
		{"server.shared_buffers", 2}, // absent: the nearest ancestor
		{"workload.phases[1].clients", 8},
		{"workload.phases.1.clients", 8},
		{"workload.phases.run.clients", 8},
		{"workload.phases.run", 7},
		{"workload.phases.nope.clients", 5},
		{"nothing.here", 0},
		{"bad..path", 0},
	} {
		if got := doc.Line(c.path); got != c.line {
			t.Errorf("Line(%q) = %d, want %d", c.path, got, c.line)
		}
	}
	if got := doc.Errorf("workload.phases.run.clients", "must be at most %d", 4).Error(); got != "x.yaml:8: workload.phases[1].clients: must be at most 4" {
		t.Errorf("Errorf = %q", got)
	}
	if got := doc.Errorf("server.shared_buffers", "too small").Error(); got != "x.yaml:2: server.shared_buffers: too small" {
		t.Errorf("Errorf absent key = %q", got)
	}
	if got := doc.Errorf("tables.pgbench.scale", "too small").Error(); got != "x.yaml: tables.pgbench.scale: too small" {
		t.Errorf("Errorf absent block = %q", got)
	}
}

type embeddedBase struct {
	Level int `yaml:"level"`
}

type misc struct {
	embeddedBase `yaml:",inline"`
	Sizes        []int64            `yaml:"sizes" unit:"bytes" range:"1kB,1GB"`
	Delays       map[string]int64   `yaml:"delays" unit:"duration,ms"`
	Policy       *testPolicy        `yaml:"policy"`
	Small        int8               `yaml:"small"`
	Count        uint16             `yaml:"count" range:",1000"`
	Ratio        float32            `yaml:"ratio"`
	Deep         map[string][]*bool `yaml:"deep"`
}

// Tags apply through slices, maps and pointers; inline works through an
// unexported embedded struct; a pointer to a Tagged gets its Defaults.
func TestMiscTypes(t *testing.T) {
	src := "level: 3\nsizes: [1kB, 2MB]\ndelays: {a: 5, b: 1s}\npolicy: {max_usage_count: 2}\nsmall: -128\ncount: 1000\nratio: 0.5\ndeep: {x: [true, null, off]}\n"
	doc, err := Parse("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var m misc
	if err := doc.Decode(&m); err != nil {
		t.Fatal(err)
	}
	tr, fa := true, false
	want := misc{
		embeddedBase: embeddedBase{Level: 3},
		Sizes:        []int64{1024, 2 << 20},
		Delays:       map[string]int64{"a": 5e6, "b": 1e9},
		Policy:       &testPolicy{name: "clock-sweep", params: &clockParams{MaxUsageCount: 2}},
		Small:        -128,
		Count:        1000,
		Ratio:        0.5,
		Deep:         map[string][]*bool{"x": {&tr, nil, &fa}},
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	out, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	const enc = "level: 3\nsizes: [1kB, 2MB]\ndelays:\n  a: 5ms\n  b: 1s\npolicy:\n  name: clock-sweep\n  max_usage_count: 2\n  correlated_reference_period: 0\nsmall: -128\ncount: 1000\nratio: 0.5\ndeep:\n  x: [true, null, false]\n"
	if string(out) != enc {
		t.Fatalf("Encode:\n%s\nwant:\n%s", out, enc)
	}
	for _, c := range []struct{ src, want string }{
		{"sizes: [1kB, 2GB]\n", `m.yaml:1: sizes[1]: 2GB is out of range [1kB, 1GB]`},
		{"small: 128\n", `m.yaml:1: small: 128 is out of range [-128, 127]`},
		{"count: 1001\n", `m.yaml:1: count: 1001 is out of range (maximum 1000)`},
		{"count: 99999999999999999999\n", `m.yaml:1: count: "99999999999999999999" is too large`},
		{"ratio: 1e39\n", `m.yaml:1: ratio: "1e39" is too large`},
		{"ratio: 1e999\n", `m.yaml:1: ratio: "1e999" is too large`},
		{"deep: {x: [maybe]}\n", `m.yaml:1: deep.x[0]: expected true or false, got "maybe"`},
		{"policy: {name: 2q, a1in_fraction: 0}\n", `m.yaml:1: policy.kout_buffers: must be set when a1in_fraction is 0`},
	} {
		doc, err := Parse("m.yaml", []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		var m misc
		wantError(t, doc.Decode(&m), c.want)
	}
}

// The zero Document is an empty configuration that overrides can fill.
func TestZeroDocument(t *testing.T) {
	var doc Document
	if err := doc.Set(configType, "server.cpus", "2"); err != nil {
		t.Fatal(err)
	}
	cfg := defaultConfig()
	if err := doc.Decode(&cfg); err != nil || cfg.Server.CPUs != 2 {
		t.Fatalf("%v %d", err, cfg.Server.CPUs)
	}
	if doc.Line("server.cpus") != 0 || doc.Errorf("seed", "bad").Error() != "seed: bad" {
		t.Fatalf("Line/Errorf on the zero document")
	}
}
