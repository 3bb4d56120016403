package policies

import (
	"fmt"
	"slices"
)

// lfu: least frequently used, with the O(1) structure of K. Shah, A.
// Mitra, D. Matani, "An O(1) algorithm for implementing the LFU cache
// eviction scheme" (2010): pages are grouped by reference count into
// buckets kept in ascending order, each bucket a recency list. A new page
// has count 1; a reference moves it to the next count's bucket; the victim
// is the least recently used page of the lowest count that is not pinned.
// Counts never age: a page that was popular once stays, which is LFU's
// known weakness and why PostgreSQL's clock sweep caps its count at 5.

var lfuSpec = Spec{
	BytesPerSlot: 16,
	Name:         "lfu",
	Summary:      "LFU: evict the least frequently referenced page (ties: least recently used)",
	Reference:    "K. Shah, A. Mitra, D. Matani, An O(1) algorithm for implementing the LFU cache eviction scheme, 2010",
	New: func(params any) (Replacement, error) {
		if params != nil {
			return nil, fmt.Errorf("lfu: takes no parameters, got %T", params)
		}
		return NewLFU(), nil
	},
}

// lfuBucket holds the pages of one reference count.
type lfuBucket struct {
	count      uint64
	pages      slotList // head = most recently used
	prev, next int32    // neighbouring buckets by count
}

// LFU is least-frequently-used replacement over slots.
type LFU struct {
	pins     []int32
	k        links
	empty    slotList
	buckets  []lfuBucket
	free     []int32 // unused bucket nodes
	lowest   int32   // bucket of the lowest count, or noSlot
	bucketOf []int32 // slot -> bucket, noSlot if empty
	bad      contract
}

// NewLFU returns an uninitialised LFU policy.
func NewLFU() *LFU { return &LFU{lowest: noSlot} }

// Name implements Replacement.
func (l *LFU) Name() string { return "lfu" }

// Init implements Replacement.
func (l *LFU) Init(f *Frames) {
	n := len(f.Pins)
	l.pins = f.Pins
	l.k = newLinks(n)
	l.empty = newSlotList()
	l.bucketOf = make([]int32, n)
	for s := range int32(n) {
		l.bucketOf[s] = noSlot
		l.empty.pushTail(&l.k, s)
	}
}

// newBucket makes a bucket for count after bucket prev (noSlot: first).
func (l *LFU) newBucket(count uint64, prev int32) int32 {
	var b int32
	if len(l.free) > 0 {
		b, l.free = l.free[len(l.free)-1], l.free[:len(l.free)-1]
	} else {
		b = int32(len(l.buckets))
		l.buckets = append(l.buckets, lfuBucket{})
	}
	next := l.lowest
	if prev != noSlot {
		next = l.buckets[prev].next
		l.buckets[prev].next = b
	} else {
		l.lowest = b
	}
	if next != noSlot {
		l.buckets[next].prev = b
	}
	l.buckets[b] = lfuBucket{count: count, pages: newSlotList(), prev: prev, next: next}
	return b
}

// take removes slot from its bucket, dropping the bucket once empty; it
// returns the bucket the slot's next count belongs after.
func (l *LFU) take(s int32) (count uint64, after int32) {
	b := l.bucketOf[s]
	bk := &l.buckets[b]
	bk.pages.remove(&l.k, s)
	l.bucketOf[s] = noSlot
	count, after = bk.count, b
	if bk.pages.n == 0 {
		after = bk.prev
		if bk.prev != noSlot {
			l.buckets[bk.prev].next = bk.next
		} else {
			l.lowest = bk.next
		}
		if bk.next != noSlot {
			l.buckets[bk.next].prev = bk.prev
		}
		l.free = append(l.free, b)
	}
	return count, after
}

// put adds slot with count right after bucket after (or into it when it
// has that count).
func (l *LFU) put(s int32, count uint64, after int32) {
	var b int32
	switch {
	case after != noSlot && l.buckets[after].count == count:
		b = after
	case after == noSlot && l.lowest != noSlot && l.buckets[l.lowest].count == count:
		b = l.lowest
	case after != noSlot && l.buckets[after].next != noSlot && l.buckets[l.buckets[after].next].count == count:
		b = l.buckets[after].next
	default:
		b = l.newBucket(count, after)
	}
	l.buckets[b].pages.pushHead(&l.k, s)
	l.bucketOf[s] = b
}

// Loaded gives the page count 1.
func (l *LFU) Loaded(slot int32, page uint64, now int64, ring bool) {
	if l.bucketOf[slot] != noSlot {
		l.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
		l.take(slot)
	} else {
		l.empty.remove(&l.k, slot)
	}
	l.put(slot, 1, noSlot)
}

// Accessed moves the page to the next count.
func (l *LFU) Accessed(slot int32, now int64, ring bool) {
	if l.bucketOf[slot] == noSlot {
		l.bad.violate("Accessed(slot %d) while the slot is empty", slot)
		return
	}
	count, after := l.take(slot)
	l.put(slot, count+1, after)
}

// Victim returns an empty slot if any, else the least recently used
// unpinned page of the lowest count.
func (l *LFU) Victim(now int64) (int32, int) {
	s, steps := l.empty.firstUnpinned(&l.k, l.pins)
	if s != noSlot {
		return s, steps
	}
	for b := l.lowest; b != noSlot; b = l.buckets[b].next {
		v, n := l.buckets[b].pages.lastUnpinned(&l.k, l.pins)
		steps += n
		if v != noSlot {
			l.take(v)
			l.empty.pushTail(&l.k, v)
			return v, steps
		}
	}
	return -1, steps
}

// Removed forgets the page.
func (l *LFU) Removed(slot int32) {
	if l.bucketOf[slot] == noSlot {
		return
	}
	l.take(slot)
	l.empty.pushTail(&l.k, slot)
}

// Check implements Replacement.
func (l *LFU) Check() error {
	if err := l.bad.err(); err != nil {
		return fmt.Errorf("lfu: %w", err)
	}
	total := l.empty.n
	prev, last := noSlot, uint64(0)
	for b := l.lowest; b != noSlot; b = l.buckets[b].next {
		bk := &l.buckets[b]
		if bk.prev != prev || bk.count <= last || bk.pages.n == 0 {
			return fmt.Errorf("lfu: bucket %d (count %d, %d pages) out of order or empty", b, bk.count, bk.pages.n)
		}
		if err := bk.pages.verify(&l.k, fmt.Sprintf("lfu bucket %d", bk.count), func(s int32) bool { return l.bucketOf[s] == b }); err != nil {
			return fmt.Errorf("lfu: %w", err)
		}
		total += bk.pages.n
		prev, last = b, bk.count
	}
	if total != len(l.bucketOf) {
		return fmt.Errorf("lfu: %d slots in buckets and the empty list, capacity %d", total, len(l.bucketOf))
	}
	return nil
}

// CopyStateFrom implements StateCopier.
func (l *LFU) CopyStateFrom(src Replacement) error {
	s, ok := src.(*LFU)
	if !ok || len(s.bucketOf) != len(l.bucketOf) {
		return copyMismatch(l, src)
	}
	pins := l.pins
	*l = *s
	l.pins = pins
	l.k = s.k.clone()
	l.buckets = slices.Clone(s.buckets)
	l.free = slices.Clone(s.free)
	l.bucketOf = slices.Clone(s.bucketOf)
	return nil
}
