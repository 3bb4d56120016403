package policies

import (
	"fmt"
	"math"
	"slices"
)

// 2q: the full version of 2Q, Johnson and Shasha, "2Q: A Low Overhead High
// Performance Buffer Management Replacement Algorithm", VLDB 1994, section
// 2.2 (the version with A1in, A1out and Am). PostgreSQL 8.0.x shipped a
// 2Q-style manager as a stop-gap when ARC was dropped (docs/model.md).
//
// The paper's routine, per reference to page X:
//
//	X in Am     -> move X to the head of Am
//	X in A1out  -> reclaimfor(X); add X to the head of Am
//	X in A1in   -> do nothing (correlated references stay in the FIFO)
//	otherwise   -> reclaimfor(X); add X to the head of A1in
//	reclaimfor:  a free slot if any; else if |A1in| > Kin, page out the
//	             tail of A1in and put its id at the head of A1out (dropping
//	             the tail of A1out beyond Kout); else page out the tail of
//	             Am, remembering nothing.
//
// reclaimfor does not depend on X, so the split interface maps onto it
// exactly: Victim is reclaimfor, Loaded does the A1out test and the
// insertion. One detail keeps the order of the paper: X's membership in
// A1out is decided before reclaimfor trims A1out, so Victim leaves A1out
// one id over Kout and Loaded, having looked X up, trims it (the dropped
// tail may be X itself, which still goes to Am, as in the paper).
//
// A pinned tail is passed over for the next unpinned slot of the same
// queue, and if that queue has none, the other queue gives the victim.

// TwoQParams are 2Q's parameters, as fractions of the number of slots.
type TwoQParams struct {
	Kin  float64 `yaml:"kin" range:"0,1" doc:"size of the A1in FIFO (first-time pages) as a fraction of the slots; the paper recommends 0.25"`
	Kout float64 `yaml:"kout" range:"0,4" doc:"size of the A1out ghost FIFO (page ids only) as a fraction of the slots; the paper recommends 0.5"`
}

// DefaultTwoQParams are the paper's recommended settings.
func DefaultTwoQParams() TwoQParams { return TwoQParams{Kin: 0.25, Kout: 0.5} }

var twoQSpec = Spec{
	BytesPerSlot: 48,
	Name:         "2q",
	Summary:      "2Q (full version): A1in FIFO, A1out ghost FIFO, Am LRU",
	Reference:    "T. Johnson, D. Shasha, 2Q: A Low Overhead High Performance Buffer Management Replacement Algorithm, VLDB 1994",
	Params: func() any {
		p := DefaultTwoQParams()
		return &p
	},
	New: func(params any) (Replacement, error) {
		p, err := paramsOf("2q", params, DefaultTwoQParams())
		if err != nil {
			return nil, err
		}
		return NewTwoQ(p)
	},
}

// Slot membership in TwoQ.where.
const (
	twoQEmpty uint8 = iota
	twoQA1in
	twoQAm
)

// TwoQ is the full 2Q policy.
type TwoQ struct {
	name      string
	p         TwoQParams
	kin, kout int // absolute sizes, set by Init
	pins      []int32
	k         links
	empty     slotList // FIFO of empty slots
	a1in      slotList // head = newest
	am        slotList // head = most recently used
	where     []uint8
	page      []uint64
	a1out     ghosts // one list, head = most recently paged out
	outPaged  bool   // Victim added to A1out; the next Loaded trims it
	bad       contract
}

// NewTwoQ validates p and returns an uninitialised policy.
func NewTwoQ(p TwoQParams) (*TwoQ, error) {
	if err := checkRanges("2q", &p); err != nil {
		return nil, err
	}
	def := DefaultTwoQParams()
	return &TwoQ{name: label("2q", &p, &def), p: p}, nil
}

// Name implements Replacement.
func (q *TwoQ) Name() string { return q.name }

// Init implements Replacement.
func (q *TwoQ) Init(f *Frames) {
	n := len(f.Pins)
	q.pins = f.Pins
	q.kin = int(math.Round(q.p.Kin * float64(n)))
	q.kout = int(math.Round(q.p.Kout * float64(n)))
	q.k = newLinks(n)
	q.empty, q.a1in, q.am = newSlotList(), newSlotList(), newSlotList()
	q.where = make([]uint8, n)
	q.page = make([]uint64, n)
	q.a1out = newGhosts(1, q.kout)
	for s := range int32(n) {
		q.empty.pushTail(&q.k, s)
	}
}

// Loaded admits the page: into Am if A1out remembers it (its second
// reference came after it had left A1in, so it is not merely correlated),
// else at the head of A1in.
func (q *TwoQ) Loaded(slot int32, page uint64, now int64, ring bool) {
	q.detach(slot, true)
	q.page[slot] = page
	_, remembered := q.a1out.find(page)
	for q.a1out.len(0) > q.kout {
		q.a1out.popTail(0)
	}
	q.outPaged = false
	if remembered {
		q.a1out.remove(page)
		q.where[slot] = twoQAm
		q.am.pushHead(&q.k, slot)
		return
	}
	q.where[slot] = twoQA1in
	q.a1in.pushHead(&q.k, slot)
}

// Accessed moves an Am page to the head of Am; an A1in hit changes nothing.
func (q *TwoQ) Accessed(slot int32, now int64, ring bool) {
	switch q.where[slot] {
	case twoQAm:
		q.am.moveToHead(&q.k, slot)
	case twoQEmpty:
		q.bad.violate("Accessed(slot %d) while the slot is empty", slot)
	}
}

// Victim is reclaimfor: an empty slot if any, else the tail of A1in when
// A1in is over its target Kin (remembered in A1out), else the tail of Am.
func (q *TwoQ) Victim(now int64) (int32, int) {
	s, steps := q.empty.firstUnpinned(&q.k, q.pins)
	if s != noSlot {
		return s, steps
	}
	first, second := &q.am, &q.a1in
	if q.a1in.n > q.kin {
		first, second = &q.a1in, &q.am
	}
	s, n1 := first.lastUnpinned(&q.k, q.pins)
	steps += n1
	if s == noSlot {
		var n2 int
		s, n2 = second.lastUnpinned(&q.k, q.pins)
		steps += n2
		if s == noSlot {
			return -1, steps
		}
	}
	if q.where[s] == twoQA1in {
		// Loaded trims A1out back to Kout once it has looked up its page;
		// a second Victim before that (concurrent misses) trims here.
		q.a1out.pushHead(0, q.page[s])
		for q.a1out.len(0) > q.kout+1 {
			q.a1out.popTail(0)
		}
		q.outPaged = true
	}
	q.detach(s, false)
	q.where[s] = twoQEmpty
	q.empty.pushTail(&q.k, s)
	return s, steps
}

// Removed forgets the page without remembering it in A1out: the page was
// invalidated, not paged out for lack of room.
func (q *TwoQ) Removed(slot int32) {
	if q.where[slot] == twoQEmpty {
		return
	}
	q.detach(slot, false)
	q.where[slot] = twoQEmpty
	q.empty.pushTail(&q.k, slot)
}

// detach unlinks slot from whichever list holds it. loading reports a
// Loaded call, for which an occupied slot is a protocol violation.
func (q *TwoQ) detach(slot int32, loading bool) {
	switch q.where[slot] {
	case twoQEmpty:
		q.empty.remove(&q.k, slot)
	case twoQA1in:
		if loading {
			q.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
		}
		q.a1in.remove(&q.k, slot)
	case twoQAm:
		if loading {
			q.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
		}
		q.am.remove(&q.k, slot)
	}
}

// Check implements Replacement.
func (q *TwoQ) Check() error {
	if err := q.bad.err(); err != nil {
		return fmt.Errorf("%s: %w", q.name, err)
	}
	n := len(q.where)
	for _, c := range []struct {
		l    *slotList
		name string
		w    uint8
	}{{&q.empty, "empty", twoQEmpty}, {&q.a1in, "A1in", twoQA1in}, {&q.am, "Am", twoQAm}} {
		w := c.w
		if err := c.l.verify(&q.k, c.name, func(s int32) bool { return q.where[s] == w }); err != nil {
			return fmt.Errorf("%s: %w", q.name, err)
		}
	}
	if q.empty.n+q.a1in.n+q.am.n != n {
		return fmt.Errorf("%s: lists hold %d+%d+%d slots, pool has %d", q.name, q.empty.n, q.a1in.n, q.am.n, n)
	}
	if err := q.a1out.verify("A1out"); err != nil {
		return fmt.Errorf("%s: %w", q.name, err)
	}
	limit := q.kout
	if q.outPaged {
		limit++ // Loaded has not trimmed yet
	}
	if q.a1out.len(0) > limit {
		return fmt.Errorf("%s: A1out holds %d ids, limit %d (Kout %d)", q.name, q.a1out.len(0), limit, q.kout)
	}
	// A page is either cached or remembered in A1out, never both.
	for _, l := range []*slotList{&q.a1in, &q.am} {
		for s := l.head; s != noSlot; s = q.k.next[s] {
			if _, ok := q.a1out.find(q.page[s]); ok {
				return fmt.Errorf("%s: page %d is both cached (slot %d) and in A1out", q.name, q.page[s], s)
			}
		}
	}
	return nil
}

// CopyStateFrom implements StateCopier.
func (q *TwoQ) CopyStateFrom(src Replacement) error {
	s, ok := src.(*TwoQ)
	if !ok || s.name != q.name || len(s.where) != len(q.where) {
		return copyMismatch(q, src)
	}
	pins := q.pins
	*q = *s
	q.pins = pins
	q.k = s.k.clone()
	q.where = slices.Clone(s.where)
	q.page = slices.Clone(s.page)
	q.a1out = s.a1out.clone()
	return nil
}
