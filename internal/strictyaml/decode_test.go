package strictyaml

import (
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

const fullDoc = `name: gaussian-clock-sweep
seed: 18446744073709551615
server:
  comment: inline field
  version: 9.10
  shared_buffers: 8GB
  work_mem: 64MB
  cpus: 16
  bgwriter_delay: 200ms
  checkpoint_timeout: 5min
  fsync: off
  checkpoint_completion_target: 0.5
storage:
  data: nvme
  wal: {preset: hdd-7200, queue_depth: 1}
policies:
  replacement: {name: clock-sweep, max_usage_count: 3, correlated_reference_period: 1.5s}
  hint_cache: {enabled: true}
tables:
  pgbench: {scale: 5000}
  history: {fillfactor: 50}
workload:
  phases:
    - name: warmup
      duration: 10min
    - name: run
      duration: 1h
      clients: 32
      rate: 125.5
      script: select-only
      set: {aid: "random_gaussian(1, 100000 * :scale, 5)"}
    - name: custom
      script: ["\\set aid 1", "SELECT 1"]
sweep:
  replicates: 3
  axes:
    policies.replacement.correlated_reference_period: [0s, 3s]
notes: hello
`

func TestDecodeFullDocument(t *testing.T) {
	cfg := mustDecode(t, fullDoc)
	notes := "hello"
	want := defaultConfig()
	want.Name = "gaussian-clock-sweep"
	want.Seed = 18446744073709551615
	want.Server = testServer{
		testCommon:        testCommon{Comment: "inline field"},
		Version:           "9.10", // the text as written, not the float 9.1
		SharedBuffers:     8 << 30,
		WorkMem:           64 << 20,
		CPUs:              16,
		BgwriterDelay:     200e6,
		CheckpointTimeout: 300e9,
		Fsync:             false,
		CompletionTarget:  0.5,
	}
	want.Storage.Data = testDisk{Preset: "nvme", QueueDepth: 32, Latency: 100_000}
	want.Storage.WAL = &testDisk{Preset: "hdd-7200", QueueDepth: 1, Latency: 100_000}
	want.Policies.Replacement = testPolicy{name: "clock-sweep", params: &clockParams{MaxUsageCount: 3, CorrelatedPeriod: 1.5e9}}
	want.Policies.HintCache.Enabled = true
	// The map from the file replaces the default map; each value starts
	// from testTable.Defaults.
	want.Tables = map[string]testTable{"pgbench": {Scale: 5000, Fillfactor: 100}, "history": {Scale: 1, Fillfactor: 50}}
	want.Workload.Phases = []testPhase{
		{Name: "warmup", Duration: 600e9, Clients: 1},
		{Name: "run", Duration: 3600e9, Clients: 32, Rate: 125.5, Script: testScript{Builtin: "select-only"},
			Set: map[string]string{"aid": "random_gaussian(1, 100000 * :scale, 5)"}},
		// seqshorthand: the list means {commands: [...]}.
		{Name: "custom", Duration: 60e9, Clients: 1, Script: testScript{Commands: []string{`\set aid 1`, "SELECT 1"}}},
	}
	want.Sweep.Replicates = 3
	want.Notes = &notes
	// The raw node carries positions; check it apart, then compare the rest.
	axes := cfg.Sweep.Axes
	cfg.Sweep.Axes = yaml.Node{}
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("decoded:\n%+v\nwant:\n%+v", cfg, want)
	}
	if axes.Kind != yaml.MappingNode || len(axes.Content) != 2 ||
		axes.Content[0].Value != "policies.replacement.correlated_reference_period" ||
		axes.Content[1].Kind != yaml.SequenceNode || len(axes.Content[1].Content) != 2 {
		t.Fatalf("sweep.axes raw node: %+v", axes)
	}
	if axes.Content[0].Line != 37 || axes.Content[1].Content[1].Line != 37 {
		t.Errorf("sweep.axes lines = %d, %d, want 37 (positions are kept)", axes.Content[0].Line, axes.Content[1].Content[1].Line)
	}
}
