package policies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// driver is a minimal buffer pool for tests: a page->slot map, per-slot
// pins, free slots handed out lowest first, then Victim. It checks the
// policy's answers against the contract (a victim is never pinned and,
// once the pool is full, always holds a page) and feeds Clairvoyant
// policies the next use of every reference.
type driver struct {
	pol    Replacement
	clair  Clairvoyant
	frames Frames
	slotOf map[uint64]int32
	pageOf []uint64
	full   []bool
	free   []int32
	now    int64
	hits   int
	misses int
	steps  int
}

func newDriver(pol Replacement, slots int) *driver {
	d := &driver{
		pol:    pol,
		frames: Frames{Pins: make([]int32, slots)},
		slotOf: make(map[uint64]int32, slots),
		pageOf: make([]uint64, slots),
		full:   make([]bool, slots),
	}
	for s := range int32(slots) {
		d.free = append(d.free, s)
	}
	d.clair, _ = pol.(Clairvoyant)
	pol.Init(&d.frames)
	return d
}

// access references page; next is its next reference time (for OPT).
func (d *driver) access(page uint64, next int64) (hit bool, err error) {
	d.now++
	if s, ok := d.slotOf[page]; ok {
		d.pol.Accessed(s, d.now, false)
		if d.clair != nil {
			d.clair.NextUse(s, next)
		}
		d.hits++
		return true, nil
	}
	d.misses++
	var s int32
	if len(d.free) > 0 {
		s, d.free = d.free[0], d.free[1:]
	} else {
		v, steps := d.pol.Victim(d.now)
		d.steps += steps
		if v < 0 {
			return false, fmt.Errorf("request %d: no victim (steps %d)", d.now, steps)
		}
		if d.frames.Pins[v] > 0 {
			return false, fmt.Errorf("request %d: victim slot %d is pinned", d.now, v)
		}
		if !d.full[v] {
			return false, fmt.Errorf("request %d: victim slot %d is empty although the pool has no free slot", d.now, v)
		}
		delete(d.slotOf, d.pageOf[v])
		s = v
	}
	d.slotOf[page] = s
	d.pageOf[s] = page
	d.full[s] = true
	d.pol.Loaded(s, page, d.now, false)
	if d.clair != nil {
		d.clair.NextUse(s, next)
	}
	return false, nil
}

// remove invalidates page (relation drop) if cached.
func (d *driver) remove(page uint64) {
	s, ok := d.slotOf[page]
	if !ok {
		return
	}
	d.pol.Removed(s)
	delete(d.slotOf, page)
	d.full[s] = false
	d.free = append(d.free, s)
}

// replay runs a whole trace and returns the hit and miss counts.
func replay(t testing.TB, pol Replacement, slots int, trace []uint64) (hits, misses int) {
	t.Helper()
	d := newDriver(pol, slots)
	next := nextUses(trace)
	for i, p := range trace {
		if _, err := d.access(p, next[i]); err != nil {
			t.Fatalf("%s: %v", pol.Name(), err)
		}
	}
	if err := pol.Check(); err != nil {
		t.Fatalf("%s: %v", pol.Name(), err)
	}
	return d.hits, d.misses
}

// nextUses gives, for each position, the driver time (position+1, since
// the driver counts requests from 1) of the next reference to the same
// page, or NeverAgain.
func nextUses(trace []uint64) []int64 {
	next := make([]int64, len(trace))
	last := make(map[uint64]int64, 1024)
	for i := len(trace) - 1; i >= 0; i-- {
		if j, ok := last[trace[i]]; ok {
			next[i] = j
		} else {
			next[i] = NeverAgain
		}
		last[trace[i]] = int64(i + 1)
	}
	return next
}

// newPolicy builds a registered policy with its defaults.
func newPolicy(t testing.TB, name string) Replacement {
	t.Helper()
	spec, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	pol, err := spec.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

func policyNames() []string {
	var names []string
	for _, s := range All() {
		names = append(names, s.Name)
	}
	return names
}

// Trace generators. Every one takes its own seeded PCG stream.

func seededRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func uniformTrace(r *rand.Rand, pages, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(r.IntN(pages))
	}
	return out
}

// zipf is the independent reference model with P(rank k) proportional to
// k^-alpha, k = 1..n, for any alpha >= 0 (math/rand/v2's Zipf needs s > 1),
// sampled by inverting the cumulative distribution.
type zipf struct {
	p, cdf []float64
}

func newZipf(n int, alpha float64) *zipf {
	z := &zipf{p: make([]float64, n), cdf: make([]float64, n)}
	sum := 0.0
	for k := range n {
		z.p[k] = math.Pow(float64(k+1), -alpha)
		sum += z.p[k]
	}
	acc := 0.0
	for k := range n {
		z.p[k] /= sum
		acc += z.p[k]
		z.cdf[k] = acc
	}
	z.cdf[n-1] = 1
	return z
}

// draw returns a rank, 0 = most popular.
func (z *zipf) draw(r *rand.Rand) int {
	i := sort.SearchFloat64s(z.cdf, r.Float64())
	return min(i, len(z.cdf)-1)
}

// zipfTrace draws n references; rank k is page perm[k] so that popular
// pages are scattered over the id space, as in perfkit's tracegen.
func zipfTrace(r *rand.Rand, pages int, alpha float64, n int) []uint64 {
	z := newZipf(pages, alpha)
	perm := r.Perm(pages)
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(perm[z.draw(r)])
	}
	return out
}

// loopTrace scans pages 0..pages-1 over and over.
func loopTrace(pages, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = uint64(i % pages)
	}
	return out
}
