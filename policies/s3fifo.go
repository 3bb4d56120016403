package policies

import (
	"fmt"
	"slices"
)

// s3fifo: S3-FIFO, J. Yang, Y. Zhang, Z. Qiu, Y. Yue, K. V. Rashmi, "FIFO
// queues are all you need for cache eviction", SOSP 2023 (Algorithm 1),
// with the defaults of the authors' libCacheSim implementation: a small
// FIFO S of 10 % of the cache, a main FIFO M of the rest and a ghost FIFO
// G remembering the keys of as many pages as 90 % of the cache. A new page
// enters S, or M if its key is in G (the key then leaves G). A reference
// counts (freq, at most 3 once in M). To evict: from M if M holds more
// than its share or S is empty, else from S. Evicting from S takes its
// oldest page: referenced at least twice it moves to M (with freq 0) and
// the next oldest is tried, otherwise it leaves and its key enters G.
// Evicting from M takes its oldest page: with freq > 0 it goes back to
// M's newest end with freq - 1 (CLOCK with a 2-bit counter), otherwise it
// leaves.
//
// Pins: a pinned page at the oldest end of S or M goes back to that
// queue's newest end untouched; after every page of both queues was found
// pinned in a row, Victim gives up with -1.

var s3fifoSpec = Spec{
	BytesPerSlot: 72,
	Name:         "s3-fifo",
	Summary:      "S3-FIFO: small FIFO (10 %), main FIFO with reinsertion, ghost FIFO of evicted keys",
	Reference:    "J. Yang, Y. Zhang, Z. Qiu, Y. Yue, K. V. Rashmi, FIFO queues are all you need for cache eviction, SOSP 2023",
	New: func(params any) (Replacement, error) {
		if params != nil {
			return nil, fmt.Errorf("s3-fifo: takes no parameters, got %T", params)
		}
		return NewS3FIFO(), nil
	},
}

// Queue membership of a slot.
const (
	s3Empty uint8 = iota
	s3Small
	s3Main
)

// s3MoveToMain is libCacheSim's move_to_main_threshold: references in S
// needed to move to M.
const s3MoveToMain = 2

// S3FIFO is the S3-FIFO policy over slots.
type S3FIFO struct {
	pins        []int32
	k           links
	empty       slotList
	small, main slotList // head = newest
	where       []uint8
	freq        []uint8
	page        []uint64
	smallCap    int
	ghost       ghostFIFO
	bad         contract
}

// NewS3FIFO returns an uninitialised S3-FIFO policy.
func NewS3FIFO() *S3FIFO { return &S3FIFO{} }

// Name implements Replacement.
func (q *S3FIFO) Name() string { return "s3-fifo" }

// Init implements Replacement.
func (q *S3FIFO) Init(f *Frames) {
	n := len(f.Pins)
	q.pins = f.Pins
	q.k = newLinks(n)
	q.empty, q.small, q.main = newSlotList(), newSlotList(), newSlotList()
	q.where = make([]uint8, n)
	q.freq = make([]uint8, n)
	q.page = make([]uint64, n)
	q.smallCap = max(n/10, 1)
	q.ghost = newGhostFIFO(n * 9 / 10)
	for s := range int32(n) {
		q.empty.pushTail(&q.k, s)
	}
}

// Loaded inserts the page into S, or into M when G remembers it.
func (q *S3FIFO) Loaded(slot int32, page uint64, now int64, ring bool) {
	if q.where[slot] != s3Empty {
		q.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
		q.unlink(slot)
	} else {
		q.empty.remove(&q.k, slot)
	}
	q.page[slot], q.freq[slot] = page, 0
	if q.ghost.remove(page) {
		q.where[slot] = s3Main
		q.main.pushHead(&q.k, slot)
		return
	}
	q.where[slot] = s3Small
	q.small.pushHead(&q.k, slot)
}

// Accessed counts a reference (capped: the counter is two bits).
func (q *S3FIFO) Accessed(slot int32, now int64, ring bool) {
	if q.where[slot] == s3Empty {
		q.bad.violate("Accessed(slot %d) while the slot is empty", slot)
		return
	}
	if q.freq[slot] < 255 {
		q.freq[slot]++
	}
}

// Victim returns an empty slot if any, else evicts from M or S.
func (q *S3FIFO) Victim(now int64) (int32, int) {
	s, steps := q.empty.firstUnpinned(&q.k, q.pins)
	if s != noSlot {
		return s, steps
	}
	// pinnedRun counts consecutive pinned pages of the queue being
	// evicted from: a whole queue of them sends the search to the other
	// queue once, then gives up.
	pinnedRun, switched := 0, false
	// As libCacheSim's S3FIFO_evict: the queue is chosen once, and an
	// eviction from S goes on moving pages to M until one leaves (M may
	// then hold more than its share: the next eviction takes from M).
	fromMain := q.main.n > len(q.where)-q.smallCap || q.small.n == 0
	for q.small.n+q.main.n > 0 {
		steps++
		if !fromMain && q.small.n == 0 {
			fromMain = true
		}
		if fromMain {
			s = q.main.tail
		} else {
			s = q.small.tail
		}
		cur, other := &q.small, &q.main
		if fromMain {
			cur, other = other, cur
		}
		switch {
		case q.pins[s] > 0:
			cur.moveToHead(&q.k, s)
			if pinnedRun++; pinnedRun >= cur.n {
				if switched || other.n == 0 {
					return -1, steps
				}
				fromMain, switched, pinnedRun = !fromMain, true, 0
			}
			continue
		case fromMain && q.freq[s] > 0:
			q.freq[s] = min(q.freq[s], 3) - 1
			q.main.moveToHead(&q.k, s)
			pinnedRun = 0
			continue
		case !fromMain && q.freq[s] >= s3MoveToMain:
			q.small.remove(&q.k, s)
			q.where[s], q.freq[s] = s3Main, 0
			q.main.pushHead(&q.k, s)
			pinnedRun = 0
			continue
		case !fromMain:
			q.ghost.add(q.page[s])
		}
		q.unlink(s)
		q.where[s] = s3Empty
		q.empty.pushTail(&q.k, s)
		return s, steps
	}
	return -1, steps
}

func (q *S3FIFO) unlink(s int32) {
	switch q.where[s] {
	case s3Small:
		q.small.remove(&q.k, s)
	case s3Main:
		q.main.remove(&q.k, s)
	}
}

// Removed forgets the page (its key does not enter G).
func (q *S3FIFO) Removed(slot int32) {
	if q.where[slot] == s3Empty {
		return
	}
	q.unlink(slot)
	q.where[slot] = s3Empty
	q.empty.pushTail(&q.k, slot)
}

// Check implements Replacement.
func (q *S3FIFO) Check() error {
	if err := q.bad.err(); err != nil {
		return fmt.Errorf("s3-fifo: %w", err)
	}
	for _, l := range []struct {
		name string
		list *slotList
		w    uint8
	}{{"small", &q.small, s3Small}, {"main", &q.main, s3Main}, {"empty", &q.empty, s3Empty}} {
		if err := l.list.verify(&q.k, "s3-fifo "+l.name+" queue", func(s int32) bool { return q.where[s] == l.w }); err != nil {
			return fmt.Errorf("s3-fifo: %w", err)
		}
	}
	if q.small.n+q.main.n+q.empty.n != len(q.where) {
		return fmt.Errorf("s3-fifo: %d + %d + %d slots, capacity %d", q.small.n, q.main.n, q.empty.n, len(q.where))
	}
	return q.ghost.check()
}

// ghostFIFO is a FIFO of page keys with membership (S3-FIFO's G): adding
// a key to a full G drops its oldest key; a key is in G at most once.
type ghostFIFO struct {
	cap        int
	pos        map[uint64]int32 // key -> node
	key        []uint64
	prev, next []int32
	head, tail int32 // head = newest
	free       []int32
}

func newGhostFIFO(capacity int) ghostFIFO {
	return ghostFIFO{cap: capacity, pos: make(map[uint64]int32, capacity), head: noSlot, tail: noSlot}
}

func (g *ghostFIFO) add(k uint64) {
	if g.cap == 0 {
		return
	}
	if _, ok := g.pos[k]; ok {
		return // already remembered (libCacheSim: a ghost hit changes nothing)
	}
	if len(g.pos) == g.cap {
		g.remove(g.key[g.tail])
	}
	var n int32
	if len(g.free) > 0 {
		n, g.free = g.free[len(g.free)-1], g.free[:len(g.free)-1]
	} else {
		n = int32(len(g.key))
		g.key, g.prev, g.next = append(g.key, 0), append(g.prev, noSlot), append(g.next, noSlot)
	}
	g.key[n], g.prev[n], g.next[n] = k, noSlot, g.head
	if g.head != noSlot {
		g.prev[g.head] = n
	} else {
		g.tail = n
	}
	g.head = n
	g.pos[k] = n
}

// remove forgets k and reports whether G remembered it.
func (g *ghostFIFO) remove(k uint64) bool {
	n, ok := g.pos[k]
	if !ok {
		return false
	}
	delete(g.pos, k)
	p, x := g.prev[n], g.next[n]
	if p != noSlot {
		g.next[p] = x
	} else {
		g.head = x
	}
	if x != noSlot {
		g.prev[x] = p
	} else {
		g.tail = p
	}
	g.free = append(g.free, n)
	return true
}

func (g *ghostFIFO) check() error {
	count := 0
	for n := g.head; n != noSlot; n = g.next[n] {
		if count++; count > g.cap {
			return fmt.Errorf("s3-fifo: ghost queue longer than its capacity %d", g.cap)
		}
		if g.pos[g.key[n]] != n {
			return fmt.Errorf("s3-fifo: ghost key %d not indexed at its node", g.key[n])
		}
	}
	if count != len(g.pos) {
		return fmt.Errorf("s3-fifo: ghost queue holds %d keys, index %d", count, len(g.pos))
	}
	return nil
}

// CopyStateFrom implements StateCopier.
func (q *S3FIFO) CopyStateFrom(src Replacement) error {
	s, ok := src.(*S3FIFO)
	if !ok || len(s.where) != len(q.where) {
		return copyMismatch(q, src)
	}
	pins := q.pins
	*q = *s
	q.pins = pins
	q.k = s.k.clone()
	q.where = slices.Clone(s.where)
	q.freq = slices.Clone(s.freq)
	q.page = slices.Clone(s.page)
	q.ghost = s.ghost.clone()
	return nil
}
