package policies

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestRegistryHasEveryPolicy(t *testing.T) {
	want := []string{"2q", "arc", "clock", "clock-sweep", "fifo", "lfu", "lru", "opt", "s3-fifo", "sieve"}
	if got := policyNames(); !slices.Equal(got, want) {
		t.Fatalf("All() = %v, want %v (sorted)", got, want)
	}
	for _, s := range All() {
		if s.Name != strings.ToLower(s.Name) || s.Summary == "" || s.Reference == "" || s.New == nil {
			t.Errorf("%q: incomplete Spec", s.Name)
		}
		if s.Offline != (s.Name == "opt") {
			t.Errorf("%s: Offline = %v", s.Name, s.Offline)
		}
		pol, err := s.New(nil)
		if err != nil {
			t.Fatalf("%s: New(nil): %v", s.Name, err)
		}
		if pol.Name() != s.Name {
			t.Errorf("%s: default policy is named %q", s.Name, pol.Name())
		}
		if _, ok := pol.(Clairvoyant); ok != s.Offline {
			t.Errorf("%s: Clairvoyant = %v but Offline = %v", s.Name, ok, s.Offline)
		}
	}
	// The clock-like interfaces the pool and the bgwriter use.
	pol := newPolicy(t, "clock-sweep")
	_, u := pol.(UsageCounter)
	_, h := pol.(ClockHand)
	_, st := pol.(SweepStats)
	if !u || !h || !st {
		t.Errorf("clock-sweep: UsageCounter %v, ClockHand %v, SweepStats %v; want all", u, h, st)
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"clock-sweep", "Clock-Sweep", "CLOCK-SWEEP", "LRU", "Arc", "2Q", "Sieve", "OPT"} {
		s, err := Lookup(name)
		if err != nil || !strings.EqualFold(s.Name, name) {
			t.Errorf("Lookup(%q) = %q, %v", name, s.Name, err)
		}
	}
	_, err := Lookup("clock-sweeps")
	if err == nil {
		t.Fatal("Lookup of an unknown name succeeded")
	}
	msg := err.Error()
	for _, want := range []string{`"clock-sweeps"`, "valid: 2q, arc, clock, clock-sweep, fifo, lfu, lru, opt, s3-fifo, sieve", `did you mean "clock-sweep"?`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	_, err = Lookup("slru")
	if err == nil || !strings.Contains(err.Error(), `did you mean "lru"?`) {
		t.Errorf("Lookup(slru): %v, want a suggestion of lru", err)
	}
	_, err = Lookup("completely-different")
	if err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "valid:") {
		t.Errorf("Lookup(completely-different): %v, want the list and no suggestion", err)
	}
}

// Every params struct: documented YAML keys, defaults inside their ranges,
// and a YAML round trip that gives the defaults back.
func TestParamsRoundTrip(t *testing.T) {
	for _, s := range All() {
		if s.Params == nil {
			continue
		}
		def := s.Params()
		rv := reflect.ValueOf(def)
		if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
			t.Fatalf("%s: Params() returns %T, want a pointer to a struct", s.Name, def)
		}
		typ := rv.Elem().Type()
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Tag.Get("yaml") == "" || f.Tag.Get("doc") == "" {
				t.Errorf("%s: field %s lacks a yaml or doc tag", s.Name, f.Name)
			}
		}
		if err := checkRanges(s.Name, def); err != nil {
			t.Errorf("%s: defaults out of range: %v", s.Name, err)
		}
		out, err := yaml.Marshal(def)
		if err != nil {
			t.Fatal(err)
		}
		back := reflect.New(typ).Interface()
		dec := yaml.NewDecoder(strings.NewReader(string(out)))
		dec.KnownFields(true)
		if err := dec.Decode(back); err != nil {
			t.Fatalf("%s: decoding %q: %v", s.Name, out, err)
		}
		if !reflect.DeepEqual(back, def) {
			t.Errorf("%s: round trip gave %+v, want %+v", s.Name, back, def)
		}
		pol, err := s.New(back)
		if err != nil || pol.Name() != s.Name {
			t.Errorf("%s: New(round-tripped defaults) = %v, %v", s.Name, pol, err)
		}
		// A value works as well as a pointer.
		if _, err := s.New(reflect.ValueOf(back).Elem().Interface()); err != nil {
			t.Errorf("%s: New(value): %v", s.Name, err)
		}
		if _, err := s.New(42); err == nil {
			t.Errorf("%s: New(42) accepted", s.Name)
		}
	}
	for _, s := range All() {
		if s.Params == nil {
			if _, err := s.New(&ClockSweepParams{}); err == nil {
				t.Errorf("%s takes no parameters but accepted some", s.Name)
			}
		}
	}
}

// Name() shows exactly the parameters that differ from the defaults: for
// every field of every params struct, change that field alone and expect
// exactly "name(key=value)".
func TestNameShowsExactlyNonDefaultParams(t *testing.T) {
	for _, s := range All() {
		if s.Params == nil {
			continue
		}
		typ := reflect.ValueOf(s.Params()).Elem().Type()
		for i := range typ.NumField() {
			f := typ.Field(i)
			p := s.Params()
			v := reflect.ValueOf(p).Elem().Field(i)
			var shown string
			switch {
			case f.Tag.Get("unit") == "duration":
				v.SetInt(v.Int() + 1500e6)
				shown = formatDuration(v.Int())
			case f.Tag.Get("range") != "":
				lo, hi, _ := strings.Cut(f.Tag.Get("range"), ",")
				other := hi
				if formatValue(f, v) == hi {
					other = lo
				}
				switch v.Kind() {
				case reflect.Int, reflect.Int64:
					n, _ := strconv.ParseInt(other, 10, 64)
					v.SetInt(n)
				case reflect.Float64:
					x, _ := strconv.ParseFloat(other, 64)
					v.SetFloat(x)
				}
				shown = other
			default:
				t.Fatalf("%s.%s: no range tag and not a duration; extend this test", s.Name, f.Name)
			}
			pol, err := s.New(p)
			if err != nil {
				t.Fatalf("%s with %s changed: %v", s.Name, f.Name, err)
			}
			want := s.Name + "(" + yamlName(f) + "=" + shown + ")"
			if pol.Name() != want {
				t.Errorf("Name() = %q, want %q", pol.Name(), want)
			}
		}
	}
	// The examples of the task and design documents, literally.
	for _, tc := range []struct {
		p    ClockSweepParams
		want string
	}{
		{ClockSweepParams{MaxUsageCount: 5}, "clock-sweep"},
		{ClockSweepParams{MaxUsageCount: 3}, "clock-sweep(max_usage_count=3)"},
		{ClockSweepParams{MaxUsageCount: 5, CorrelatedReferencePeriod: 3e9}, "clock-sweep(correlated_reference_period=3s)"},
		{ClockSweepParams{MaxUsageCount: 3, CorrelatedReferencePeriod: 3e9}, "clock-sweep(max_usage_count=3,correlated_reference_period=3s)"},
		{ClockSweepParams{MaxUsageCount: 5, CorrelatedReferencePeriod: 200e6}, "clock-sweep(correlated_reference_period=200ms)"},
		{ClockSweepParams{MaxUsageCount: 5, CorrelatedReferencePeriod: 300e9}, "clock-sweep(correlated_reference_period=5min)"},
		{ClockSweepParams{MaxUsageCount: 5, CorrelatedReferencePeriod: 1500}, "clock-sweep(correlated_reference_period=1500ns)"},
	} {
		c, err := NewClockSweep(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != tc.want {
			t.Errorf("Name() = %q, want %q", c.Name(), tc.want)
		}
	}
	q, _ := NewTwoQ(TwoQParams{Kin: 0.3, Kout: 0.5})
	if q.Name() != "2q(kin=0.3)" {
		t.Errorf("Name() = %q, want 2q(kin=0.3)", q.Name())
	}
}

func TestParamsOutOfRangeErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params any
		want   string
	}{
		{"clock-sweep", &ClockSweepParams{MaxUsageCount: 16}, "max_usage_count = 16 is out of range [1, 15]"},
		{"clock-sweep", &ClockSweepParams{MaxUsageCount: 0}, "max_usage_count = 0 is out of range [1, 15]"},
		{"clock-sweep", &ClockSweepParams{MaxUsageCount: 5, CorrelatedReferencePeriod: -3e9}, "correlated_reference_period = -3s must not be negative"},
		{"2q", &TwoQParams{Kin: 1.5, Kout: 0.5}, "kin = 1.5 is out of range [0, 1]"},
		{"2q", &TwoQParams{Kin: 0.25, Kout: -1}, "kout = -1 is out of range [0, 4]"},
	} {
		s, _ := Lookup(tc.name)
		_, err := s.New(tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s.New(%+v) = %v, want an error containing %q", tc.name, tc.params, err, tc.want)
		}
	}
}
