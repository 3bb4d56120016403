package strictyaml

import (
	"errors"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// A representative scenario type, shaped like the configs package's: nested
// structs, units, ranges, enums, shorthands, a Tagged policy, lists and maps
// with Defaults, Validate methods, an inline struct and a raw node.

type testConfig struct {
	Name     string               `yaml:"name"`
	Seed     uint64               `yaml:"seed"`
	Server   testServer           `yaml:"server"`
	Storage  testStorage          `yaml:"storage"`
	Policies testPolicies         `yaml:"policies"`
	Tables   map[string]testTable `yaml:"tables"`
	Workload testWorkload         `yaml:"workload"`
	Sweep    testSweep            `yaml:"sweep"`
	Notes    *string              `yaml:"notes"`
	Skipped  int                  `yaml:"-"`
	hidden   int
}

type testCommon struct {
	Comment string `yaml:"comment"`
}

type testServer struct {
	testCommon        `yaml:",inline"`
	Version           string  `yaml:"version"`
	SharedBuffers     int64   `yaml:"shared_buffers" unit:"bytes,8kB" range:"128kB,"`
	WorkMem           int64   `yaml:"work_mem" unit:"bytes"`
	CPUs              int     `yaml:"cpus" range:"1,1024"`
	BgwriterDelay     int64   `yaml:"bgwriter_delay" unit:"duration,ms" range:"10ms,10s"`
	CheckpointTimeout int64   `yaml:"checkpoint_timeout" unit:"duration" range:"30s,1d"`
	Fsync             bool    `yaml:"fsync"`
	CompletionTarget  float64 `yaml:"checkpoint_completion_target" range:"0,1"`
}

type testDisk struct {
	Preset     string `yaml:"preset" enum:"hdd-7200|ssd|nvme"`
	QueueDepth int    `yaml:"queue_depth" range:"1,"`
	Latency    int64  `yaml:"latency" unit:"duration"`
}

type testStorage struct {
	Data testDisk  `yaml:"data" shorthand:"preset"`
	WAL  *testDisk `yaml:"wal" shorthand:"preset"`
}

func (d *testDisk) Defaults() { d.Preset, d.QueueDepth, d.Latency = "ssd", 32, 100_000 }

type testPolicies struct {
	Replacement testPolicy `yaml:"replacement"`
	HintCache   testHint   `yaml:"hint_cache"`
}

type testHint struct {
	Enabled bool `yaml:"enabled"`
}

// testPolicy is a Tagged value with a registry of three variants.
type testPolicy struct {
	name   string
	params any
}

type clockParams struct {
	MaxUsageCount    int   `yaml:"max_usage_count" range:"1,15"`
	CorrelatedPeriod int64 `yaml:"correlated_reference_period" unit:"duration"`
}

type twoQParams struct {
	A1inFraction float64 `yaml:"a1in_fraction" range:"0,1"`
	KoutBuffers  int     `yaml:"kout_buffers" range:"0,"`
}

// Validate on parameters: checked after they decode.
func (p *twoQParams) Validate() error {
	if p.A1inFraction == 0 && p.KoutBuffers == 0 {
		return &FieldError{Path: "kout_buffers", Msg: "must be set when a1in_fraction is 0"}
	}
	return nil
}

var testPolicyNames = []string{"clock-sweep", "lru", "2q"}

func (p *testPolicy) TagKey() string { return "name" }

func (p *testPolicy) ParamsFor(value string) (any, error) {
	switch value {
	case "clock-sweep":
		return &clockParams{MaxUsageCount: 5}, nil
	case "lru":
		return nil, nil
	case "2q":
		return &twoQParams{A1inFraction: 0.25}, nil
	}
	return nil, UnknownValueError(value, testPolicyNames)
}

func (p *testPolicy) SetTagged(value string, params any) { p.name, p.params = value, params }
func (p *testPolicy) Tagged() (string, any)              { return p.name, p.params }
func (p *testPolicy) Defaults()                          { p.name, p.params = "clock-sweep", &clockParams{MaxUsageCount: 5} }

type testTable struct {
	Scale      int `yaml:"scale" range:"1,"`
	Fillfactor int `yaml:"fillfactor" range:"10,100"`
}

func (t *testTable) Defaults() { t.Scale, t.Fillfactor = 1, 100 }

type testWorkload struct {
	Phases []testPhase `yaml:"phases"`
}

type testPhase struct {
	Name     string            `yaml:"name"`
	Duration int64             `yaml:"duration" unit:"duration"`
	Clients  int               `yaml:"clients" range:"1,"`
	Rate     float64           `yaml:"rate"`
	Script   testScript        `yaml:"script" shorthand:"builtin" seqshorthand:"commands"`
	Set      map[string]string `yaml:"set"`
}

func (p *testPhase) Defaults() {
	p.Duration, p.Clients = 60e9, 1
}

// Validate with a relative path.
func (p *testPhase) Validate() error {
	if p.Rate < 0 {
		return &FieldError{Path: "rate", Msg: "must not be negative"}
	}
	return nil
}

type testScript struct {
	Builtin  string   `yaml:"builtin" enum:"|select-only|simple-update|tpcb-like"` // "" when commands are given
	Commands []string `yaml:"commands"`
}

// Validate with a plain error: placed at the struct.
func (s *testScript) Validate() error {
	if s.Builtin != "" && len(s.Commands) > 0 {
		return errors.New("give builtin or commands, not both")
	}
	return nil
}

type testSweep struct {
	Replicates int       `yaml:"replicates" range:"1,"`
	Axes       yaml.Node `yaml:"axes"`
}

func defaultConfig() testConfig {
	c := testConfig{
		Name: "default",
		Seed: 1,
		Server: testServer{
			Version:           "17",
			SharedBuffers:     128 << 20,
			WorkMem:           4 << 20,
			CPUs:              4,
			BgwriterDelay:     200e6,
			CheckpointTimeout: 300e9,
			Fsync:             true,
			CompletionTarget:  0.9,
		},
		Tables:   map[string]testTable{"pgbench": {Scale: 10, Fillfactor: 100}},
		Workload: testWorkload{Phases: []testPhase{{Name: "run", Duration: 60e9, Clients: 1}}},
		Sweep:    testSweep{Replicates: 1},
	}
	c.Storage.Data.Defaults()
	c.Policies.Replacement.Defaults()
	return c
}

var configType = reflect.TypeFor[testConfig]()
