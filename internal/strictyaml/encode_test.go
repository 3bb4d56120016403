package strictyaml

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const defaultEncoded = `name: default
seed: 1
server:
  comment: ""
  version: "17"
  shared_buffers: 128MB
  work_mem: 4MB
  cpus: 4
  bgwriter_delay: 200ms
  checkpoint_timeout: 5min
  fsync: true
  checkpoint_completion_target: 0.9
storage:
  data:
    preset: ssd
    queue_depth: 32
    latency: 100us
  wal: null
policies:
  replacement:
    name: clock-sweep
    max_usage_count: 5
    correlated_reference_period: 0
  hint_cache:
    enabled: false
tables:
  pgbench:
    scale: 10
    fillfactor: 100
workload:
  phases:
    - name: run
      duration: 1min
      clients: 1
      rate: 0
      script:
        builtin: ""
        commands: []
      set: {}
sweep:
  replicates: 1
  axes: null
notes: null
`

// The encoded default configuration, exactly: field order, units in the
// largest exact unit, strings quoted only when YAML would misread them.
func TestEncodeGolden(t *testing.T) {
	out, err := Encode(defaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != defaultEncoded {
		t.Fatalf("Encode:\n%s\nwant:\n%s", out, defaultEncoded)
	}
}

// Encode -> Parse -> Decode gives the same struct back, for the defaults and
// for a configuration exercising every feature.
func TestEncodeRoundTrip(t *testing.T) {
	full := mustDecode(t, fullDoc)
	odd := defaultConfig()
	odd.Name = "true" // would read as a bool if not quoted
	odd.Server.Version = "9.10"
	odd.Server.WorkMem = 1536 << 20
	odd.Server.BgwriterDelay = 1500e6
	odd.Storage.Data.Latency = 1500 // ns: not a whole microsecond
	odd.Server.CompletionTarget = 1e-7
	odd.Storage.Data.Preset = "hdd-7200"
	odd.Policies.Replacement = testPolicy{name: "lru"}
	odd.Tables = nil
	odd.Workload.Phases = []testPhase{{Name: "multi\nline", Clients: 3, Script: testScript{Commands: []string{"- x", "a: b", "#c", ""}}, Set: map[string]string{"b": "2", "a": "null"}}}
	notes := "~"
	odd.Notes = &notes
	for name, v := range map[string]testConfig{"defaults": defaultConfig(), "full": full, "odd": odd} {
		t.Run(name, func(t *testing.T) {
			out, err := Encode(&v)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Parse("summary.yaml", out)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := defaultConfig()
			if err := doc.Decode(&got); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			// Raw nodes carry positions; compare them as text.
			wantAxes, gotAxes := v.Sweep.Axes, got.Sweep.Axes
			v.Sweep.Axes, got.Sweep.Axes = yaml.Node{}, yaml.Node{}
			if !reflect.DeepEqual(got, v) {
				t.Fatalf("round trip changed the value\n got %+v\nwant %+v\nYAML:\n%s", got, v, out)
			}
			if a, b := nodeText(t, &gotAxes), nodeText(t, &wantAxes); a != b {
				t.Fatalf("axes: %q != %q", a, b)
			}
		})
	}
}

func nodeText(t *testing.T, n *yaml.Node) string {
	if n.Kind == 0 {
		return "null\n"
	}
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEncodeErrors(t *testing.T) {
	type f struct {
		X float64 `yaml:"x"`
	}
	if _, err := Encode(f{X: 0}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "Encode of nil"},
		{(*f)(nil), "Encode of a nil"},
		{struct {
			X float64 `yaml:"x"`
		}{X: zero() / zero()}, "x: cannot write NaN"},
		{struct {
			C chan int `yaml:"c"`
		}{}, "c: unsupported field type chan int"},
		{struct {
			S string `yaml:"s"`
		}{S: "\xff"}, "s: string is not valid UTF-8"},
	} {
		_, err := Encode(c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Encode(%#v) = %v, want %q", c.v, err, c.want)
		}
	}
}

func zero() float64 { return 0 }

func TestKeyPaths(t *testing.T) {
	want := []string{
		"name", "seed",
		"server", "server.comment", "server.version", "server.shared_buffers", "server.work_mem", "server.cpus",
		"server.bgwriter_delay", "server.checkpoint_timeout", "server.fsync", "server.checkpoint_completion_target",
		"storage", "storage.data", "storage.data.preset", "storage.data.queue_depth", "storage.data.latency",
		"storage.wal", "storage.wal.preset", "storage.wal.queue_depth", "storage.wal.latency",
		"policies", "policies.replacement", "policies.replacement.name",
		"policies.replacement.max_usage_count", "policies.replacement.correlated_reference_period",
		"policies.hint_cache", "policies.hint_cache.enabled",
		"tables", "tables.*.scale", "tables.*.fillfactor",
		"workload", "workload.phases", "workload.phases[].name", "workload.phases[].duration",
		"workload.phases[].clients", "workload.phases[].rate", "workload.phases[].script",
		"workload.phases[].script.builtin", "workload.phases[].script.commands", "workload.phases[].set",
		"sweep", "sweep.replicates", "sweep.axes",
		"notes",
	}
	if got := KeyPaths(configType); !reflect.DeepEqual(got, want) {
		t.Fatalf("KeyPaths:\n got %q\nwant %q", got, want)
	}
	// A recursive type terminates.
	type node struct {
		Kids []node `yaml:"kids"`
		Name string `yaml:"name"`
	}
	if got := KeyPaths(reflect.TypeFor[node]()); !reflect.DeepEqual(got, []string{"kids", "name"}) {
		t.Fatalf("recursive: %q", got)
	}
}
