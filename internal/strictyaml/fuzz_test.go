package strictyaml

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzDecode feeds arbitrary bytes through Parse, Decode, Line, Errorf and,
// when decoding succeeds, Encode and a second decode. It asserts: no panic
// (the decoder's own recover turns one into an error naming a bug, which
// fails here too); user mistakes come back as Errors, never as a plain
// error; and what decodes, encodes and decodes back to the same value.
//
//	go test -run '^$' -fuzz FuzzDecode ./internal/strictyaml
func FuzzDecode(f *testing.F) {
	f.Add([]byte(fullDoc))
	f.Add([]byte(setBase))
	f.Add([]byte(defaultEncoded))
	for _, c := range errorCases {
		f.Add([]byte(c.src))
	}
	for _, c := range parseErrorCases {
		f.Add([]byte(c.src))
	}
	f.Add([]byte("workload:\n  phases:\n    - &p {name: a}\n    - <<: *p\n      clients: 3\n"))
	f.Add([]byte("sweep: {axes: {a: &a [*a]}}\n"))
	f.Add([]byte("policies: {replacement: {name: 2q, a1in_fraction: 0.5}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse("f.yaml", data)
		if err != nil {
			requireUserError(t, err)
			return
		}
		cfg := defaultConfig()
		err = doc.Decode(&cfg)
		doc.Line("workload.phases.0.clients")
		doc.Errorf("server.cpus", "x")
		if err != nil {
			requireUserError(t, err)
			return
		}
		out, err := Encode(&cfg)
		if err != nil {
			t.Fatalf("Encode after a successful Decode: %v", err)
		}
		doc2, err := Parse("f2.yaml", out)
		if err != nil {
			t.Fatalf("re-Parse: %v\n%s", err, out)
		}
		again := defaultConfig()
		if err := doc2.Decode(&again); err != nil {
			t.Fatalf("re-Decode: %v\n%s", err, out)
		}
		a1, a2 := cfg.Sweep.Axes, again.Sweep.Axes
		cfg.Sweep.Axes, again.Sweep.Axes = yaml.Node{}, yaml.Node{}
		if !reflect.DeepEqual(cfg, again) {
			t.Fatalf("round trip changed the value\n got %+v\nwant %+v\n%s", again, cfg, out)
		}
		if nodeText(t, &a1) != nodeText(t, &a2) {
			t.Fatalf("round trip changed the raw node\n%s", out)
		}
	})
}

// FuzzSet applies an arbitrary override to a fixed document.
func FuzzSet(f *testing.F) {
	f.Add("server.cpus", "4")
	f.Add("workload.phases.run.clients", "x")
	f.Add("workload.phases[9].name", "a")
	f.Add("policies.replacement.max_usage_count", "{a: [1, *b]}")
	f.Add("storage.data.queue_depth", "2")
	f.Add("sweep.axes.a.b.0", "&x [*x]")
	f.Fuzz(func(t *testing.T, path, value string) {
		doc, err := Parse("x.yaml", []byte(setBase+"sweep:\n  axes: &a {k: [1, 2]}\nname: *a\n"))
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.Set(configType, path, value); err != nil {
			requireUserError(t, err)
			return
		}
		cfg := defaultConfig()
		if err := doc.Decode(&cfg); err != nil {
			requireUserError(t, err)
		}
		doc.Line(path)
		doc.Errorf(path, "x")
	})
}

func requireUserError(t *testing.T, err error) {
	t.Helper()
	var es Errors
	if !errors.As(err, &es) || strings.Contains(err.Error(), "this is a bug") {
		t.Fatalf("not a user error: %v", err)
	}
	for _, e := range es {
		if e.Msg == "" || strings.Contains(e.Msg, "strictyaml") || strings.Contains(e.Msg, "main.") {
			t.Fatalf("bad message: %q", e.Error())
		}
	}
}
