package strictyaml

import (
	"reflect"
	"sync"
	"testing"
)

func TestSuggest(t *testing.T) {
	keys := []string{"shared_buffers", "work_mem", "bgwriter_delay", "bgwriter_lru_maxpages", "checkpoint_timeout"}
	scripts := []string{"select-only", "simple-update", "tpcb-like"}
	for _, c := range []struct {
		in    string
		cands []string
		want  string
	}{
		{"shared_bufers", keys, "shared_buffers"},   // deletion
		{"shared_bufferss", keys, "shared_buffers"}, // insertion
		{"shraed_buffers", keys, "shared_buffers"},  // transposition
		{"sharedbuffers", keys, "shared_buffers"},   // separators ignored
		{"Shared-Buffers", keys, "shared_buffers"},  // case and '-' ignored
		{"work_men", keys, "work_mem"},              // substitution
		{"checkpoint", keys, "checkpoint_timeout"},  // unique extension
		{"bgwriter", keys, ""},                      // two extensions: ambiguous
		{"bgwriter_dleay", keys, "bgwriter_delay"},  // transposition in a long word
		{"fsync", keys, ""},                         // nothing close
		{"tpcb", scripts, "tpcb-like"},              // extension
		{"select", scripts, "select-only"},          // extension
		{"simple", scripts, "simple-update"},        // extension
		{"tp", scripts, ""},                         // too short to extend
		{"", scripts, ""},                           // nothing typed
		{"lru2", []string{"clock-sweep", "lru", "2q"}, "lru"},
		{"xy", []string{"ab"}, ""}, // distance 2 > 1 for a short word
	} {
		if got := suggest(c.in, c.cands); got != c.want {
			t.Errorf("suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"ab", "ba", 1}, {"abc", "acb", 1}, {"ca", "abc", 3}, {"µs", "us", 1},
	} {
		if got := editDistance(c.a, c.b); got != c.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestFieldErrorFormat(t *testing.T) {
	for _, c := range []struct {
		e    FieldError
		want string
	}{
		{FieldError{File: "x.yaml", Line: 3, Path: "a.b", Msg: "bad"}, "x.yaml:3: a.b: bad"},
		{FieldError{File: "x.yaml", Path: "a.b", Msg: "bad"}, "x.yaml: a.b: bad"},
		{FieldError{File: "x.yaml", Msg: "empty configuration"}, "x.yaml: empty configuration"},
		{FieldError{Path: "max", Msg: "too big"}, "max: too big"},
		{FieldError{Msg: "plain"}, "plain"},
		{FieldError{File: "-set a=1", Path: "a", Msg: "bad", hidePath: true}, "-set a=1: bad"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.e, got, c.want)
		}
	}
}

// Decode keeps no state in the Document or globals other than the type
// cache, so sweeps may decode one parsed document from many goroutines
// (run with -race).
func TestConcurrentDecode(t *testing.T) {
	doc, err := Parse("x.yaml", []byte(fullDoc))
	if err != nil {
		t.Fatal(err)
	}
	want := defaultConfig()
	if err := doc.Decode(&want); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	same := make([]bool, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := defaultConfig()
			errs[i] = doc.Decode(&c)
			same[i] = reflect.DeepEqual(c.Server, want.Server) && reflect.DeepEqual(c.Workload, want.Workload)
		}()
	}
	wg.Wait()
	for i := range 8 {
		if errs[i] != nil || !same[i] {
			t.Fatalf("goroutine %d: %v, same=%v", i, errs[i], same[i])
		}
	}
}
