package policies

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// Differential tests: each list policy against a naive reference written
// straight from its paper with plain slices (index 0 = LRU / oldest end)
// and linear search, sharing no code with the policy. The traces are
// random, so ghost hits, adaptation ratios and trims all occur many times.

func without(s []uint64, x uint64) []uint64 {
	i := slices.Index(s, x)
	return append(s[:i], s[i+1:]...)
}

type refLRUCache struct {
	c     int
	order []uint64
}

func (r *refLRUCache) request(x uint64) bool {
	if slices.Contains(r.order, x) {
		r.order = append(without(r.order, x), x)
		return true
	}
	if len(r.order) == r.c {
		r.order = r.order[1:]
	}
	r.order = append(r.order, x)
	return false
}

// ref2Q is Johnson and Shasha's full 2Q, section 2.2, literally.
type ref2Q struct {
	c, kin, kout    int
	a1in, am, a1out []uint64
}

func (r *ref2Q) reclaimfor() {
	if len(r.a1in)+len(r.am) < r.c {
		return
	}
	if len(r.a1in) > r.kin {
		y := r.a1in[0]
		r.a1in = r.a1in[1:]
		r.a1out = append(r.a1out, y)
		if len(r.a1out) > r.kout {
			r.a1out = r.a1out[1:]
		}
		return
	}
	r.am = r.am[1:]
}

func (r *ref2Q) request(x uint64) bool {
	switch {
	case slices.Contains(r.am, x):
		r.am = append(without(r.am, x), x)
		return true
	case slices.Contains(r.a1in, x):
		return true
	case slices.Contains(r.a1out, x):
		r.reclaimfor()
		if slices.Contains(r.a1out, x) {
			r.a1out = without(r.a1out, x)
		}
		r.am = append(r.am, x)
	default:
		r.reclaimfor()
		r.a1in = append(r.a1in, x)
	}
	return false
}

// refARC is ARC(c) of Megiddo and Modha, Figure 4. With split = false it
// is the paper's routine; with split = true, REPLACE runs first with the
// p of the previous requests and no "x in B2" tie-break, which is what the
// pool's Victim-then-Loaded order allows (see arc.go).
type refARC struct {
	c              int
	p              float64
	split          bool
	t1, t2, b1, b2 []uint64
}

func (r *refARC) replace(xInB2 bool) {
	if len(r.t1) >= 1 && (float64(len(r.t1)) > r.p || (xInB2 && float64(len(r.t1)) == r.p)) || len(r.t2) == 0 {
		y := r.t1[0]
		r.t1 = r.t1[1:]
		r.b1 = append(r.b1, y)
	} else {
		y := r.t2[0]
		r.t2 = r.t2[1:]
		r.b2 = append(r.b2, y)
	}
}

func (r *refARC) request(x uint64) bool {
	if slices.Contains(r.t1, x) {
		r.t1 = without(r.t1, x)
		r.t2 = append(r.t2, x)
		return true
	}
	if slices.Contains(r.t2, x) {
		r.t2 = append(without(r.t2, x), x)
		return true
	}
	full := len(r.t1)+len(r.t2) == r.c
	b1, b2 := float64(len(r.b1)), float64(len(r.b2))
	inB1, inB2 := slices.Contains(r.b1, x), slices.Contains(r.b2, x)
	if r.split && full {
		r.replace(false)
	}
	switch {
	case inB1:
		delta := 1.0
		if b1 < b2 {
			delta = b2 / b1
		}
		r.p = math.Min(float64(r.c), r.p+delta)
		if !r.split {
			r.replace(false)
		}
		r.b1 = without(r.b1, x)
		r.t2 = append(r.t2, x)
	case inB2:
		delta := 1.0
		if b2 < b1 {
			delta = b1 / b2
		}
		r.p = math.Max(0, r.p-delta)
		if !r.split {
			r.replace(true)
		}
		r.b2 = without(r.b2, x)
		r.t2 = append(r.t2, x)
	case r.split:
		r.t1 = append(r.t1, x)
		if len(r.t1)+len(r.b1) > r.c {
			r.b1 = r.b1[1:]
		} else if len(r.t1)+len(r.t2)+len(r.b1)+len(r.b2) > 2*r.c {
			r.b2 = r.b2[1:]
		}
	default:
		// Case IV as printed.
		if len(r.t1)+len(r.b1) == r.c {
			if len(r.t1) < r.c {
				r.b1 = r.b1[1:]
				r.replace(false)
			} else {
				r.t1 = r.t1[1:]
			}
		} else if total := len(r.t1) + len(r.t2) + len(r.b1) + len(r.b2); total >= r.c {
			if total == 2*r.c {
				r.b2 = r.b2[1:]
			}
			r.replace(false)
		}
		r.t1 = append(r.t1, x)
	}
	return false
}

// refSieve is SIEVE's Algorithm 1 over a slice (index 0 = tail, oldest).
type refSieve struct {
	c       int
	queue   []uint64
	visited map[uint64]bool
	hand    int // index into queue; -1 = start at the tail
}

func (r *refSieve) request(x uint64) bool {
	if slices.Contains(r.queue, x) {
		r.visited[x] = true
		return true
	}
	if len(r.queue) == r.c {
		i := r.hand
		if i < 0 {
			i = 0
		}
		for r.visited[r.queue[i]] {
			r.visited[r.queue[i]] = false
			if i++; i == len(r.queue) {
				i = 0
			}
		}
		delete(r.visited, r.queue[i])
		r.queue = append(r.queue[:i], r.queue[i+1:]...)
		r.hand = i // the next newer page slid into index i
		if i == len(r.queue) {
			r.hand = -1
		}
	}
	r.queue = append(r.queue, x)
	return false
}

type namedTrace struct {
	name  string
	trace []uint64
}

func differentialTraces() []namedTrace {
	return []namedTrace{
		{"zipf0.9", zipfTrace(seededRNG(21), 400, 0.9, 30000)},
		{"zipf0.6", zipfTrace(seededRNG(22), 300, 0.6, 30000)},
		{"uniform", uniformTrace(seededRNG(23), 90, 20000)},
		{"loop+hot", loopHotTrace(seededRNG(24), 45, 20000)},
	}
}

func compareWithReference(t *testing.T, pol Replacement, slots int, trace []uint64, ref func(uint64) bool, state func() string, refState func() string) {
	t.Helper()
	d := newDriver(pol, slots)
	for i, p := range trace {
		hit, err := d.access(p, NeverAgain)
		if err != nil {
			t.Fatal(err)
		}
		if want := ref(p); hit != want {
			t.Fatalf("%s, %d slots: reference %d (page %d): hit=%v, reference says %v", pol.Name(), slots, i, p, hit, want)
		}
		if state != nil {
			if got, want := state(), refState(); got != want {
				t.Fatalf("%s, %d slots: after reference %d: %s, reference has %s", pol.Name(), slots, i, got, want)
			}
		}
	}
	mustCheck(t, pol)
}

func TestDifferentialLRU(t *testing.T) {
	for _, nt := range differentialTraces() {
		name, tr := nt.name, nt.trace
		for _, c := range []int{1, 7, 32} {
			ref := &refLRUCache{c: c}
			t.Run(fmt.Sprintf("%s/c=%d", name, c), func(t *testing.T) { compareWithReference(t, NewLRU(), c, tr, ref.request, nil, nil) })
		}
	}
}

func TestDifferentialTwoQ(t *testing.T) {
	for _, nt := range differentialTraces() {
		name, tr := nt.name, nt.trace
		for _, c := range []int{4, 10, 40} {
			for _, p := range []TwoQParams{DefaultTwoQParams(), {Kin: 0.5, Kout: 1}, {Kin: 0, Kout: 0.25}} {
				q, err := NewTwoQ(p)
				if err != nil {
					t.Fatal(err)
				}
				ref := &ref2Q{c: c, kin: int(math.Round(p.Kin * float64(c))), kout: int(math.Round(p.Kout * float64(c)))}
				t.Run(fmt.Sprintf("%s/c=%d/%s", name, c, q.Name()), func(t *testing.T) { compareWithReference(t, q, c, tr, ref.request, nil, nil) })
			}
		}
	}
}

func TestDifferentialARC(t *testing.T) {
	for _, nt := range differentialTraces() {
		name, tr := nt.name, nt.trace
		for _, c := range []int{2, 9, 40} {
			a := NewARC()
			ref := &refARC{c: c, split: true}
			sizes := func() string {
				return formatSizes(a.t1.n, a.t2.n, a.b.len(arcB1), a.b.len(arcB2), a.p)
			}
			refSizes := func() string {
				return formatSizes(len(ref.t1), len(ref.t2), len(ref.b1), len(ref.b2), ref.p)
			}
			t.Run(fmt.Sprintf("%s/c=%d", name, c), func(t *testing.T) { compareWithReference(t, a, c, tr, ref.request, sizes, refSizes) })
		}
	}
}

func formatSizes(t1, t2, b1, b2 int, p float64) string {
	return fmt.Sprintf("|T1|,|T2|,|B1|,|B2|,p = %d,%d,%d,%d,%g", t1, t2, b1, b2, p)
}

// The split's one-request lag against the paper's routine: on skewed and
// uniform traces the hit ratios stay within half a percentage point.
func TestARCSplitCloseToPaper(t *testing.T) {
	for _, nt := range differentialTraces() {
		name, tr := nt.name, nt.trace
		for _, c := range []int{9, 40} {
			split, paper := &refARC{c: c, split: true}, &refARC{c: c}
			var hs, hp int
			for _, p := range tr {
				if split.request(p) {
					hs++
				}
				if paper.request(p) {
					hp++
				}
			}
			diff := math.Abs(float64(hs-hp)) / float64(len(tr))
			t.Logf("%s c=%d: split %d hits, paper %d hits", name, c, hs, hp)
			if diff > 0.005 {
				t.Errorf("%s c=%d: split ARC %d hits, paper's ARC %d: differ by %.4f of the references", name, c, hs, hp, diff)
			}
		}
	}
}

func TestDifferentialSieve(t *testing.T) {
	for _, nt := range differentialTraces() {
		name, tr := nt.name, nt.trace
		for _, c := range []int{1, 5, 33} {
			ref := &refSieve{c: c, visited: map[uint64]bool{}, hand: -1}
			t.Run(fmt.Sprintf("%s/c=%d", name, c), func(t *testing.T) { compareWithReference(t, NewSieve(), c, tr, ref.request, nil, nil) })
		}
	}
}
