package replay

import (
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"

	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/trace"
)

// testdata is the trace package's generated test traces.
var testdata = filepath.Join("..", "trace", "testdata")

// openSmall opens one of the small test traces.
func openSmall(t testing.TB, name string) *trace.File {
	t.Helper()
	f, err := trace.Open(filepath.Join(testdata, name), trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// loadSmall loads the small test trace.
func loadSmall(t testing.TB) *trace.Trace {
	t.Helper()
	f := openSmall(t, "small.oracleGeneral")
	tr, err := trace.Load(f, f.Name)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// keysOf returns the original keys of a loaded trace, one per reference.
func keysOf(tr *trace.Trace) []uint64 {
	out := make([]uint64, tr.Len())
	for i, id := range tr.IDs {
		out[i] = tr.Keys[id]
	}
	return out
}

// refsOf wraps keys as references.
func refsOf(keys []uint64) []trace.Ref {
	out := make([]trace.Ref, len(keys))
	for i, k := range keys {
		out[i] = trace.Ref{Key: k}
	}
	return out
}

// zipfKeys draws n page ids 0..pages-1 with Zipf(alpha) popularity (alpha
// < 1 allowed: inverse CDF by binary search, as perfkit's tracegen and
// libCacheSim's data_gen.py do), hot pages scattered by a permutation.
func zipfKeys(rng *rand.Rand, pages int, alpha float64, n int) []uint64 {
	cdf := make([]float64, pages)
	sum := 0.0
	for k := 1; k <= pages; k++ {
		sum += math.Pow(float64(k), -alpha)
		cdf[k-1] = sum
	}
	for i := range cdf {
		cdf[i] /= sum
	}
	perm := rng.Perm(pages)
	out := make([]uint64, n)
	for i := range out {
		r := min(sort.SearchFloat64s(cdf, rng.Float64()), pages-1)
		out[i] = uint64(perm[r])
	}
	return out
}

// loadKeys builds an in-memory trace from keys.
func loadKeys(t testing.TB, keys []uint64) *trace.Trace {
	t.Helper()
	tr, err := trace.Load(trace.NewSliceReader(refsOf(keys)), "keys")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// mustPolicy parses a policy or fails.
func mustPolicy(t testing.TB, s string) Policy {
	t.Helper()
	p, err := ParsePolicy(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runChecked replays refs through a new instance of p and checks the
// policy's invariants afterwards.
func runChecked(t testing.TB, refs trace.Reader, p Policy, slots int) Result {
	t.Helper()
	pol, err := p.New()
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunPolicy(refs, pol, slots)
	if err != nil {
		t.Fatalf("%s at %d: %v", p.Name, slots, err)
	}
	if err := pol.Check(); err != nil {
		t.Fatalf("%s at %d: Check: %v", p.Name, slots, err)
	}
	if res.Hits+res.Misses != res.Requests {
		t.Fatalf("%s at %d: hits %d + misses %d != requests %d", p.Name, slots, res.Hits, res.Misses, res.Requests)
	}
	return res
}

// allPolicies lists every registered policy by name.
func allPolicies() []string {
	var out []string
	for _, s := range policies.All() {
		out = append(out, s.Name)
	}
	return out
}

// drainAll reads a reader to the end.
func drainAll(r trace.BatchReader) ([]trace.Ref, error) {
	var out []trace.Ref
	buf := make([]trace.Ref, 512)
	for {
		n, err := r.ReadRefs(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}
