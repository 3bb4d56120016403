package strictyaml

import (
	"bytes"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Benchmarks for the costs a run and a sweep pay. Compare runs with
// benchstat; the yaml.v3 baseline gives the ratio to plain struct decoding
// of the same text, measured in the same run.

var fullLines = float64(strings.Count(fullDoc, "\n"))

func BenchmarkParseDecode(b *testing.B) {
	data := []byte(fullDoc)
	b.ReportAllocs()
	for b.Loop() {
		doc, err := Parse("x.yaml", data)
		if err != nil {
			b.Fatal(err)
		}
		cfg := defaultConfig()
		if err := doc.Decode(&cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/fullLines, "ns/line")
}

// BenchmarkBaselineYAMLUnmarshal decodes the same document with yaml.v3's
// own strict struct decoding (KnownFields), into a mirror type with units
// left as strings: what the checks of this package cost over it.
func BenchmarkBaselineYAMLUnmarshal(b *testing.B) {
	type disk struct {
		Preset     string `yaml:"preset"`
		QueueDepth int    `yaml:"queue_depth"`
	}
	type mirror struct {
		Name   string `yaml:"name"`
		Seed   uint64 `yaml:"seed"`
		Server struct {
			Comment, Version, SharedBuffers, WorkMem string
			CPUs                                     int
			BgwriterDelay, CheckpointTimeout         string
			Fsync                                    string
			Target                                   float64 `yaml:"checkpoint_completion_target"`
		} `yaml:"server"`
		Storage struct {
			Data string `yaml:"data"`
			WAL  disk   `yaml:"wal"`
		} `yaml:"storage"`
		Policies struct {
			Replacement map[string]string `yaml:"replacement"`
			HintCache   map[string]bool   `yaml:"hint_cache"`
		} `yaml:"policies"`
		Tables   map[string]map[string]int `yaml:"tables"`
		Workload struct {
			Phases []struct {
				Name, Duration string
				Clients        int
				Rate           float64
				Script         yaml.Node         `yaml:"script"`
				Set            map[string]string `yaml:"set"`
			} `yaml:"phases"`
		} `yaml:"workload"`
		Sweep struct {
			Replicates int       `yaml:"replicates"`
			Axes       yaml.Node `yaml:"axes"`
		} `yaml:"sweep"`
		Notes *string `yaml:"notes"`
	}
	// Field names without tags map to lowercase keys, which differ from
	// the snake_case ones; strip those keys so KnownFields accepts the text.
	var kept []string
	for _, l := range strings.Split(fullDoc, "\n") {
		if strings.Contains(l, "_") && !strings.Contains(l, "replacement") && !strings.Contains(l, "hint_cache") &&
			!strings.Contains(l, "queue_depth") && !strings.Contains(l, "checkpoint_completion_target") {
			continue
		}
		kept = append(kept, l)
	}
	data := []byte(strings.Join(kept, "\n"))
	b.ReportAllocs()
	for b.Loop() {
		var m mirror
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&m); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	doc, err := Parse("x.yaml", []byte(fullDoc))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		cfg := defaultConfig()
		if err := doc.Decode(&cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSweepPoint is the per-point cost of a sweep: clone the parsed
// base, set one axis value, decode.
func BenchmarkSweepPoint(b *testing.B) {
	doc, err := Parse("x.yaml", []byte(fullDoc))
	if err != nil {
		b.Fatal(err)
	}
	value := &yaml.Node{Kind: yaml.ScalarNode, Value: "64MB", Line: 38}
	b.ReportAllocs()
	for b.Loop() {
		point := doc.Clone()
		if err := point.SetNode(configType, "server.shared_buffers", value); err != nil {
			b.Fatal(err)
		}
		cfg := defaultConfig()
		if err := point.Decode(&cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	doc, _ := Parse("x.yaml", []byte(fullDoc))
	cfg := defaultConfig()
	if err := doc.Decode(&cfg); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Encode(&cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseQuantity(b *testing.B) {
	texts := []string{"128MB", "8kB", "1.5s", "200ms", "16384", "5min"}
	specs := []unitSpec{bytesPlain, bytesPlain, durPlain, durPlain, bytesBlocks, durPlain}
	b.ReportAllocs()
	for b.Loop() {
		for i, s := range texts {
			if _, e, _ := parseQuantity(s, specs[i]); e != qOK {
				b.Fatal(s)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(texts)), "ns/value")
}
