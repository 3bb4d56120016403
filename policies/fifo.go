package policies

import (
	"fmt"
	"slices"
)

// fifo: first in, first out. Pages leave in the order they came in,
// whatever their references since (Belady, "A study of replacement
// algorithms for a virtual-storage computer", IBM Systems Journal 5(2),
// 1966; libCacheSim's FIFO). The baseline that every recency- or
// frequency-aware policy must beat. One list holds every slot: occupied
// slots from the newest at the head, empty slots at the tail, so an
// unfilled pool hands out its empty slots first; a pinned oldest page is
// passed over for the next oldest.

var fifoSpec = Spec{
	BytesPerSlot: 9,
	Name:         "fifo",
	Summary:      "FIFO: evict the page that came in first (references are ignored)",
	Reference:    "L. A. Belady, A study of replacement algorithms for a virtual-storage computer, IBM Systems Journal 5(2), 1966",
	New: func(params any) (Replacement, error) {
		if params != nil {
			return nil, fmt.Errorf("fifo: takes no parameters, got %T", params)
		}
		return NewFIFO(), nil
	},
}

// FIFO is first-in first-out replacement over slots.
type FIFO struct {
	pins     []int32
	k        links
	order    slotList // head = newest; empty slots at the tail
	occupied []bool
	bad      contract
}

// NewFIFO returns an uninitialised FIFO policy.
func NewFIFO() *FIFO { return &FIFO{} }

// Name implements Replacement.
func (f *FIFO) Name() string { return "fifo" }

// Init implements Replacement.
func (f *FIFO) Init(fr *Frames) {
	n := len(fr.Pins)
	f.pins = fr.Pins
	f.k = newLinks(n)
	f.order = newSlotList()
	f.occupied = make([]bool, n)
	for s := range int32(n) {
		f.order.pushHead(&f.k, s)
	}
}

// Loaded puts the page at the newest end.
func (f *FIFO) Loaded(slot int32, page uint64, now int64, ring bool) {
	if f.occupied[slot] {
		f.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
	}
	f.occupied[slot] = true
	f.order.moveToHead(&f.k, slot)
}

// Accessed changes nothing: FIFO ignores references.
func (f *FIFO) Accessed(slot int32, now int64, ring bool) {
	if !f.occupied[slot] {
		f.bad.violate("Accessed(slot %d) while the slot is empty", slot)
	}
}

// Victim returns the unpinned slot nearest the tail: an empty one if any,
// else the oldest page.
func (f *FIFO) Victim(now int64) (int32, int) {
	s, steps := f.order.lastUnpinned(&f.k, f.pins)
	if s == noSlot {
		return -1, steps
	}
	f.empty(s)
	return s, steps
}

// Removed forgets the page; the slot joins the empty end.
func (f *FIFO) Removed(slot int32) {
	if f.occupied[slot] {
		f.empty(slot)
	}
}

func (f *FIFO) empty(s int32) {
	f.occupied[s] = false
	f.order.remove(&f.k, s)
	f.order.pushTail(&f.k, s)
}

// Check implements Replacement.
func (f *FIFO) Check() error {
	if err := f.bad.err(); err != nil {
		return fmt.Errorf("fifo: %w", err)
	}
	if err := f.order.verify(&f.k, "fifo list", func(int32) bool { return true }); err != nil {
		return fmt.Errorf("fifo: %w", err)
	}
	if f.order.n != len(f.occupied) {
		return fmt.Errorf("fifo: list holds %d of %d slots", f.order.n, len(f.occupied))
	}
	seenEmpty := false
	for s := f.order.head; s != noSlot; s = f.k.next[s] {
		if f.occupied[s] && seenEmpty {
			return fmt.Errorf("fifo: occupied slot %d behind an empty slot", s)
		}
		seenEmpty = seenEmpty || !f.occupied[s]
	}
	return nil
}

// CopyStateFrom implements StateCopier.
func (f *FIFO) CopyStateFrom(src Replacement) error {
	s, ok := src.(*FIFO)
	if !ok || len(s.occupied) != len(f.occupied) {
		return copyMismatch(f, src)
	}
	pins := f.pins
	*f = *s
	f.pins = pins
	f.k = s.k.clone()
	f.occupied = slices.Clone(s.occupied)
	return nil
}
