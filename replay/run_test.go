package replay

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/trace"
)

var testSizes = []int{1, 2, 7, 16, 64, 200, 1000}

// TestRunMatchesNaive replays the small trace through LRU, PostgreSQL's
// clock sweep (caps 5 and 1), SIEVE and OPT and compares hits with the
// naive reference implementations at every size.
func TestRunMatchesNaive(t *testing.T) {
	tr := loadSmall(t)
	keys := keysOf(tr)
	cases := []struct {
		policy string
		naive  func([]uint64, int) int64
	}{
		{"lru", naiveLRU},
		{"clock-sweep", func(k []uint64, c int) int64 { return naiveClock(k, c, 5) }},
		{"clock-sweep(max_usage_count=1)", func(k []uint64, c int) int64 { return naiveClock(k, c, 1) }},
		{"sieve", naiveSieve},
		{"opt", naiveOPT},
	}
	for _, c := range cases {
		p := mustPolicy(t, c.policy)
		for _, size := range testSizes {
			res := runChecked(t, openSmall(t, "small.oracleGeneral"), p, size)
			if want := c.naive(keys, size); res.Hits != want {
				t.Errorf("%s at %d: %d hits, naive %d", c.policy, size, res.Hits, want)
			}
			if res.Distinct != int64(tr.Distinct()) || res.Requests != int64(tr.Len()) {
				t.Errorf("%s at %d: %d requests, %d distinct", c.policy, size, res.Requests, res.Distinct)
			}
			if want := res.Misses - min(int64(size), res.Distinct); res.Evictions != want {
				t.Errorf("%s at %d: %d evictions, want misses - filled slots = %d", c.policy, size, res.Evictions, want)
			}
		}
	}
}

// TestFormatsReplayAlike: every test file (all formats, compressed or not)
// gives the same results, streaming, for every policy; OPT takes next-use
// positions from oracleGeneral and computes them for the other formats.
func TestFormatsReplayAlike(t *testing.T) {
	files := []string{"small.oracleGeneral", "small.oracleGeneral.zst", "small.csv", "small.csv.gz",
		"small.text.zst", "small.lcs.csv", "small.lcs.txt.gz"}
	for _, name := range allPolicies() {
		p := mustPolicy(t, name)
		var want Result
		for i, file := range files {
			got := runChecked(t, openSmall(t, file), p, 48)
			if i == 0 {
				want = got
			} else if got != want {
				t.Errorf("%s on %s: %+v, on %s: %+v", name, file, got, files[0], want)
			}
		}
	}
}

// TestOPTIsOptimal: Belady's MIN misses no more than any other policy, at
// every size, on the small trace and on random Zipf traces.
func TestOPTIsOptimal(t *testing.T) {
	traces := [][]uint64{keysOf(loadSmall(t))}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, alpha := range []float64{0.6, 1.0} {
		traces = append(traces, zipfKeys(rng, 500, alpha, 20000))
	}
	for ti, keys := range traces {
		tr := loadKeys(t, keys)
		var pols []Policy
		for _, name := range allPolicies() {
			pols = append(pols, mustPolicy(t, name))
		}
		cs, err := Curves(tr, pols, testSizes, CurveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var opt []Result
		for _, c := range cs {
			if c.Policy == "opt" {
				opt = c.Points
			}
		}
		for _, c := range cs {
			for j, r := range c.Points {
				if opt[j].Misses > r.Misses {
					t.Errorf("trace %d, %d slots: opt %d misses > %s %d", ti, r.Slots, opt[j].Misses, c.Policy, r.Misses)
				}
			}
		}
	}
}

// TestUniformHitRatio is an analytic check: under the independent
// reference model with uniform popularity, every page is equally likely
// next whatever a policy keeps, so any online policy's steady-state hit
// ratio is cache/pages. 300k references over 1000 pages, a cache of 100:
// the expected 0.1 with a binomial standard error of 0.0006; allow 0.005.
func TestUniformHitRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := make([]uint64, 300000)
	for i := range keys {
		keys[i] = uint64(rng.IntN(1000))
	}
	// Skip the first 10k references (cold start) by measuring the
	// difference of two replays.
	for _, name := range allPolicies() {
		if name == "opt" {
			continue
		}
		p := mustPolicy(t, name)
		full := runChecked(t, trace.NewSliceReader(refsOf(keys)), p, 100)
		warm := runChecked(t, trace.NewSliceReader(refsOf(keys[:10000])), p, 100)
		ratio := float64(full.Hits-warm.Hits) / float64(len(keys)-10000)
		if ratio < 0.095 || ratio > 0.105 {
			t.Errorf("%s: steady-state hit ratio %.4f, want 0.1 ± 0.005", name, ratio)
		}
	}
}

// TestDenseAndHashedKeysAgree: the same reference string with small keys
// (direct indexing), with huge keys (the hash table from the start) and
// with a huge key appearing half-way (switching mid-replay) replays
// identically.
func TestDenseAndHashedKeysAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	small := zipfKeys(rng, 3000, 0.8, 40000)
	huge := make([]uint64, len(small))
	mixed := make([]uint64, len(small))
	for i, k := range small {
		huge[i] = k*0x9E3779B97F4A7C15 + 1<<63 // distinct, scattered, > 2^63
		mixed[i] = k
		if i >= len(small)/2 && k%2 == 1 {
			mixed[i] = k<<40 | 5
		}
	}
	// mixed relabels odd pages from half-way on: a different reference
	// string. Compare it with the same relabelling kept small.
	mixedSmall := make([]uint64, len(small))
	for i, k := range small {
		mixedSmall[i] = k
		if i >= len(small)/2 && k%2 == 1 {
			mixedSmall[i] = k + 3000
		}
	}
	for _, name := range allPolicies() {
		p := mustPolicy(t, name)
		for _, size := range []int{10, 300, 5000} {
			a := runChecked(t, trace.NewSliceReader(refsOf(small)), p, size)
			b := runChecked(t, trace.NewSliceReader(refsOf(huge)), p, size)
			if a != b {
				t.Errorf("%s at %d: small keys %+v, huge keys %+v", name, size, a, b)
			}
			c := runChecked(t, trace.NewSliceReader(refsOf(mixed)), p, size)
			d := runChecked(t, trace.NewSliceReader(refsOf(mixedSmall)), p, size)
			if c != d {
				t.Errorf("%s at %d: switch to hashing mid-replay %+v, dense %+v", name, size, c, d)
			}
		}
	}
}

// hidden hides a policy's concrete type, forcing the generic loop.
type hidden struct{ policies.Replacement }

// TestClockSweepFastPath: the devirtualised clock-sweep loop gives exactly
// what the generic loop gives.
func TestClockSweepFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	keys := zipfKeys(rng, 2000, 0.9, 50000)
	for _, params := range []string{"clock-sweep", "clock-sweep(max_usage_count=2)"} {
		p := mustPolicy(t, params)
		for _, size := range []int{1, 50, 400, 3000} {
			fast := runChecked(t, trace.NewSliceReader(refsOf(keys)), p, size)
			pol, _ := p.New()
			slow, err := RunPolicy(trace.NewSliceReader(refsOf(keys)), hidden{pol}, size)
			if err != nil {
				t.Fatal(err)
			}
			if fast != slow {
				t.Errorf("%s at %d: fast %+v, generic %+v", params, size, fast, slow)
			}
		}
	}
}

// TestOPTNextUseSources: OPT given oracleGeneral's next-use positions
// streaming, and OPT on a format without them (loaded and computed), agree
// with each other and with the naive MIN.
func TestOPTNextUseSources(t *testing.T) {
	p := mustPolicy(t, "opt")
	naive := naiveOPT(keysOf(loadSmall(t)), 30)
	for _, file := range []string{"small.oracleGeneral", "small.text"} {
		res := runChecked(t, openSmall(t, file), p, 30)
		if res.Hits != naive {
			t.Errorf("opt on %s: %d hits, naive %d", file, res.Hits, naive)
		}
	}
	// A stream that loses its next-use positions half-way is refused.
	refs, _ := drainAll(openSmall(t, "small.oracleGeneral"))
	for i := len(refs) / 2; i < len(refs); i++ {
		refs[i].NextUse = 0
	}
	pol, _ := p.New()
	if _, err := RunPolicy(trace.NewSliceReader(refs), pol, 30); err == nil ||
		!strings.Contains(err.Error(), "has no next-use position") {
		t.Errorf("mixed next-use: %v", err)
	}
}

// TestRunErrors: sizes out of range and an empty trace.
func TestRunErrors(t *testing.T) {
	spec, _ := policies.Lookup("lru")
	for _, slots := range []int{0, -1, maxSlots + 1} {
		if _, err := Run(trace.NewSliceReader(nil), spec, nil, slots); err == nil {
			t.Errorf("%d slots accepted", slots)
		}
	}
	res, err := Run(trace.NewSliceReader(nil), spec, nil, 10)
	if err != nil || res.Requests != 0 || res.MissRatio != 0 {
		t.Errorf("empty trace: %+v %v", res, err)
	}
	opt, _ := policies.Lookup("opt")
	if res, err := Run(trace.NewSliceReader(nil), opt, nil, 10); err != nil || res.Requests != 0 {
		t.Errorf("empty trace, opt: %+v %v", res, err)
	}
	// A reader error is passed on.
	f, _ := trace.NewReader(strings.NewReader("1\n2\nbad\n"), "bad.txt", trace.Options{Format: trace.FormatText})
	if _, err := Run(f, spec, nil, 10); err == nil || !strings.Contains(err.Error(), "bad.txt:3:") {
		t.Errorf("reader error: %v", err)
	}
}
