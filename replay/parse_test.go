package replay

import (
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/policies"
)

// TestParseSize covers slots, PostgreSQL memory units (powers of 1024,
// case-sensitive; 64MB = 8192 pages of 8 kB, as shared_buffers) and
// percentages of the distinct pages.
func TestParseSize(t *testing.T) {
	good := []struct {
		in      string
		slots   int
		percent float64
	}{
		{"1000", 1000, 0}, {" 7 ", 7, 0}, {"64MB", 8192, 0}, {"8kB", 1, 0}, {"1GB", 131072, 0},
		{"1.5MB", 192, 0}, {"8192B", 1, 0}, {"5%", 0, 5}, {"0.5%", 0, 0.5}, {"100%", 0, 100},
	}
	for _, c := range good {
		z, err := ParseSize(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if z.Slots != c.slots || z.Percent != c.percent || z.IsPercent != (c.percent > 0) {
			t.Errorf("%q = %+v", c.in, z)
		}
	}
	bad := map[string]string{
		"":     "empty",
		"0":    "must be 1..",
		"-5":   "must be 1..",
		"64mb": "unknown unit",
		"4kB":  "not a whole number of 8 kB pages",
		"0%":   "above 0%",
		"120%": "at most 100%",
		"x%":   "above 0%",
		"abc":  "expected a number of pages",
		"0MB":  "positive number",
		"8TB0": "unknown unit",
	}
	for in, want := range bad {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to mention %q", in, err, want)
		}
	}
	// Percentages round to the nearest page, at least one.
	for _, c := range []struct {
		in       string
		distinct int
		want     int
	}{{"10%", 1000, 100}, {"1%", 250, 3}, {"1%", 249, 2}, {"0.01%", 10, 1}, {"100%", 337, 337}} {
		z, _ := ParseSize(c.in)
		if got := z.Resolve(c.distinct); got != c.want {
			t.Errorf("%s of %d = %d, want %d", c.in, c.distinct, got, c.want)
		}
	}
	sizes, err := ParseSizes("1%,2%,64MB,10")
	if err != nil || len(sizes) != 4 || sizes[2].Slots != 8192 {
		t.Errorf("ParseSizes: %+v %v", sizes, err)
	}
}

// TestParsePolicy: names as the registry has them, parameters in the form
// Replacement.Name() prints (so a label copied from a report parses back
// to the same policy), and clear errors.
func TestParsePolicy(t *testing.T) {
	for _, in := range []string{"clock-sweep", "CLOCK-SWEEP", "clock-sweep()", "clock-sweep(max_usage_count=5)"} {
		p, err := ParsePolicy(in)
		if err != nil || p.Name != "clock-sweep" {
			t.Errorf("%q: %q %v", in, p.Name, err)
		}
	}
	p, err := ParsePolicy(" clock-sweep( max_usage_count = 3 , correlated_reference_period=3s ) ")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "clock-sweep(max_usage_count=3,correlated_reference_period=3s)" {
		t.Errorf("label %q", p.Name)
	}
	cp := p.Params.(*policies.ClockSweepParams)
	if cp.MaxUsageCount != 3 || cp.CorrelatedReferencePeriod != 3e9 {
		t.Errorf("params %+v", cp)
	}
	// The label parses back to the same policy.
	q, err := ParsePolicy(p.Name)
	if err != nil || q.Name != p.Name || *q.Params.(*policies.ClockSweepParams) != *cp {
		t.Errorf("round trip: %q %v", q.Name, err)
	}
	bad := map[string]string{
		"":                                   "expected NAME",
		"clocks":                             `unknown replacement policy "clocks"`,
		"clock-sweep(max_usage_count=20)":    "max_usage_count: 20 is out of range [1, 15]",
		"clock-sweep(max_usage=3)":           `unknown key (did you mean "max_usage_count"?)`,
		"clock-sweep(max_usage_count)":       "is not key=value",
		"clock-sweep(max_usage_count=3":      "missing closing parenthesis",
		"lru(x=1)":                           "lru takes no parameters",
		"clock-sweep(max_usage_count=a:b)":   "a value may hold only",
		"clock-sweep(max_usage_count=three)": `policy "clock-sweep(max_usage_count=three)": max_usage_count:`,
		"clock-sweep(correlated_reference_period=-1s)": "must not be negative",
	}
	for in, want := range bad {
		if _, err := ParsePolicy(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to mention %q", in, err, want)
		}
	}
	if got := SplitPolicies("clock-sweep(a=1,b=2), lru ,opt"); strings.Join(got, "|") != "clock-sweep(a=1,b=2)|lru|opt" {
		t.Errorf("SplitPolicies: %q", got)
	}
}

// TestPolicySet applies -param style overrides on top of parenthesised ones.
func TestPolicySet(t *testing.T) {
	p := mustPolicy(t, "clock-sweep(max_usage_count=3)")
	if !p.HasParam("correlated_reference_period") || p.HasParam("nope") {
		t.Error("HasParam")
	}
	if err := p.Set([][2]string{{"correlated_reference_period", "500ms"}}, "-param x"); err != nil {
		t.Fatal(err)
	}
	if p.Name != "clock-sweep(max_usage_count=3,correlated_reference_period=500ms)" {
		t.Errorf("label %q", p.Name)
	}
	err := p.Set([][2]string{{"max_usage_count", "0"}}, "-param max_usage_count=0")
	if err == nil || !strings.HasPrefix(err.Error(), "-param max_usage_count=0: max_usage_count: 0 is out of range") {
		t.Errorf("error %v", err)
	}
}

// TestReportPage: the chart's axis choice and the method descriptions.
func TestReportPage(t *testing.T) {
	r := &report{traceName: "x", format: "csv", slots: []int{10, 100, 1000}}
	for _, c := range []struct {
		xaxis string
		slots []int
		want  string
	}{{"auto", []int{10, 100, 1000}, "log"}, {"auto", []int{100, 1000}, "value"}, {"value", []int{10, 1000}, "value"}, {"log", []int{10}, "log"}} {
		r.xaxis, r.slots = c.xaxis, c.slots
		if got := r.axis(); got != c.want {
			t.Errorf("axis %s over %v = %s, want %s", c.xaxis, c.slots, got, c.want)
		}
	}
	r.slots = []int{10, 100}
	r.curves = []Curve{
		{Policy: "lru", Points: []Result{{Slots: 10, Method: shardsMethod(0.01)}, {Slots: 100, Method: shardsMethod(0.01)}}},
		{Policy: "clock-sweep", Points: []Result{{Slots: 10, Method: MethodReplay}, {Slots: 100, Method: MethodReplay}}},
		{Policy: "sieve", Points: []Result{{Slots: 10, Method: MethodReplay}, {Slots: 100, Method: MethodReplay}}},
	}
	p := r.page()
	how := p.Sections[1].Text
	if !strings.Contains(how, "lru: estimated from a spatially hashed sample of the pages, shards(rate=0.01)") ||
		!strings.Contains(how, "clock-sweep, sieve: replayed request by request") {
		t.Errorf("methods text:\n%s", how)
	}
	if got := csvField(`clock-sweep(a=1,b=2)`); got != `"clock-sweep(a=1,b=2)"` {
		t.Errorf("csvField %s", got)
	}
}

// libCacheSim's size forms: a fraction of the distinct pages (0.05 is
// 5 %), and auto, log-spaced fractions from 0.01 % to 30 %.
func TestParseSizeLibCacheSimForms(t *testing.T) {
	z, err := ParseSize("0.05")
	if err != nil || !z.IsPercent || z.Percent != 5 || z.Resolve(1000) != 50 {
		t.Errorf("0.05: %+v %v, want 5 %% (50 of 1000 pages)", z, err)
	}
	if z, err := ParseSize("1.0"); err != nil || z.Resolve(300) != 300 {
		t.Errorf("1.0: %+v %v, want every page", z, err)
	}
	for in, want := range map[string]string{"1.5": "at most 1", "0.0": "above 0", ".": "above 0"} {
		if _, err := ParseSize(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	zs, err := ParseSizes("auto,64")
	if err != nil || len(zs) != len(AutoSizes)+1 || zs[len(zs)-1].Slots != 64 {
		t.Fatalf("auto,64: %v %v", zs, err)
	}
	if got := zs[len(AutoSizes)-1].Resolve(1_000_000); got != 300_000 {
		t.Errorf("auto's largest size is %d of 1 M pages, want 30 %%", got)
	}
}
