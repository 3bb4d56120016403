package policies

import "fmt"

// opt: Belady's MIN, L. A. Belady, "A study of replacement algorithms for
// a virtual-storage computer", IBM Systems Journal 5(2), 1966: evict the
// page whose next reference is farthest in the future. It needs the future,
// so it is offline (Spec.Offline): the trace replay driver tells it each
// page's next reference through NextUse (the Clairvoyant interface).
//
// The resident pages sit in a binary max-heap keyed by next use (ties go to
// the lower slot number, so runs are reproducible), giving O(log n) per
// request. If the top is pinned, a best-first walk of the heap finds the
// unpinned page with the farthest next use, inspecting only the pinned
// pages that outrank it and their children.

var optSpec = Spec{
	BytesPerSlot: 32,
	Name:         "opt",
	Summary:      "Belady's MIN: evict the page referenced farthest in the future (trace replay only)",
	Reference:    "L. A. Belady, A study of replacement algorithms for a virtual-storage computer, IBM Systems Journal 5(2), 1966",
	Offline:      true,
	New: func(params any) (Replacement, error) {
		if params != nil {
			return nil, fmt.Errorf("opt: takes no parameters, got %T", params)
		}
		return NewOPT(), nil
	},
}

// OPT is Belady's MIN. It implements Clairvoyant.
type OPT struct {
	pins     []int32
	k        links
	empty    slotList // FIFO of empty slots
	next     []int64  // next reference time per occupied slot
	heap     []int32  // occupied slots; heap[0] is the best victim
	pos      []int32  // slot -> index in heap, -1 if empty
	frontier []int32  // scratch for the pinned-top search (heap indices)
	bad      contract
}

// NewOPT returns an uninitialised OPT policy.
func NewOPT() *OPT { return &OPT{} }

// Name implements Replacement.
func (o *OPT) Name() string { return "opt" }

// Init implements Replacement.
func (o *OPT) Init(f *Frames) {
	n := len(f.Pins)
	o.pins = f.Pins
	o.k = newLinks(n)
	o.empty = newSlotList()
	o.next = make([]int64, n)
	o.heap = make([]int32, 0, n)
	o.pos = make([]int32, n)
	for s := range int32(n) {
		o.pos[s] = -1
		o.empty.pushTail(&o.k, s)
	}
}

// better reports whether slot a is a better victim than slot b.
func (o *OPT) better(a, b int32) bool {
	if o.next[a] != o.next[b] {
		return o.next[a] > o.next[b]
	}
	return a < b
}

func (o *OPT) swap(i, j int) {
	o.heap[i], o.heap[j] = o.heap[j], o.heap[i]
	o.pos[o.heap[i]] = int32(i)
	o.pos[o.heap[j]] = int32(j)
}

func (o *OPT) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !o.better(o.heap[i], o.heap[p]) {
			return
		}
		o.swap(i, p)
		i = p
	}
}

func (o *OPT) down(i int) {
	n := len(o.heap)
	for {
		best := i
		if l := 2*i + 1; l < n && o.better(o.heap[l], o.heap[best]) {
			best = l
		}
		if r := 2*i + 2; r < n && o.better(o.heap[r], o.heap[best]) {
			best = r
		}
		if best == i {
			return
		}
		o.swap(i, best)
		i = best
	}
}

func (o *OPT) heapRemove(slot int32) {
	i := int(o.pos[slot])
	last := len(o.heap) - 1
	if i != last {
		o.swap(i, last)
	}
	o.heap = o.heap[:last]
	o.pos[slot] = -1
	if i != last {
		o.down(i)
		o.up(i)
	}
}

// Loaded adds the page with no known next use (NeverAgain) until the
// replay driver's NextUse for the same request.
func (o *OPT) Loaded(slot int32, page uint64, now int64, ring bool) {
	if o.pos[slot] >= 0 {
		o.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
		o.heapRemove(slot)
	} else {
		o.empty.remove(&o.k, slot)
	}
	o.next[slot] = NeverAgain
	o.pos[slot] = int32(len(o.heap))
	o.heap = append(o.heap, slot)
	o.up(len(o.heap) - 1)
}

// Accessed needs no bookkeeping: NextUse follows.
func (o *OPT) Accessed(slot int32, now int64, ring bool) {
	if o.pos[slot] < 0 {
		o.bad.violate("Accessed(slot %d) while the slot is empty", slot)
	}
}

// NextUse implements Clairvoyant.
func (o *OPT) NextUse(slot int32, next int64) {
	i := o.pos[slot]
	if i < 0 {
		o.bad.violate("NextUse(slot %d) while the slot is empty", slot)
		return
	}
	old := o.next[slot]
	o.next[slot] = next
	if next > old {
		o.up(int(i))
	} else {
		o.down(int(i))
	}
}

// Victim returns an empty slot if any, else the unpinned page referenced
// farthest in the future.
func (o *OPT) Victim(now int64) (int32, int) {
	s, steps := o.empty.firstUnpinned(&o.k, o.pins)
	if s != noSlot {
		return s, steps
	}
	if len(o.heap) == 0 {
		return -1, steps
	}
	// Best-first walk: the frontier (itself a small heap of heap indices)
	// holds the children of pinned pages; its best is the next candidate.
	o.frontier = append(o.frontier[:0], 0)
	victim := noSlot
	for len(o.frontier) > 0 {
		i := o.popFrontier()
		steps++
		if s := o.heap[i]; o.pins[s] == 0 {
			victim = s
			break
		}
		if l := 2*i + 1; int(l) < len(o.heap) {
			o.pushFrontier(l)
		}
		if r := 2*i + 2; int(r) < len(o.heap) {
			o.pushFrontier(r)
		}
	}
	if victim == noSlot {
		return -1, steps
	}
	o.heapRemove(victim)
	o.empty.pushTail(&o.k, victim)
	return victim, steps
}

// frontierBetter orders frontier entries (heap indices) like better.
func (o *OPT) frontierBetter(i, j int) bool {
	return o.better(o.heap[o.frontier[i]], o.heap[o.frontier[j]])
}

func (o *OPT) pushFrontier(hi int32) {
	o.frontier = append(o.frontier, hi)
	for i := len(o.frontier) - 1; i > 0; {
		p := (i - 1) / 2
		if !o.frontierBetter(i, p) {
			break
		}
		o.frontier[i], o.frontier[p] = o.frontier[p], o.frontier[i]
		i = p
	}
}

func (o *OPT) popFrontier() int32 {
	f := o.frontier
	top := f[0]
	last := len(f) - 1
	f[0] = f[last]
	o.frontier = f[:last]
	for i := 0; ; {
		best := i
		if l := 2*i + 1; l < last && o.frontierBetter(l, best) {
			best = l
		}
		if r := 2*i + 2; r < last && o.frontierBetter(r, best) {
			best = r
		}
		if best == i {
			break
		}
		o.frontier[i], o.frontier[best] = o.frontier[best], o.frontier[i]
		i = best
	}
	return top
}

// Removed forgets the page.
func (o *OPT) Removed(slot int32) {
	if o.pos[slot] < 0 {
		return
	}
	o.heapRemove(slot)
	o.empty.pushTail(&o.k, slot)
}

// Check implements Replacement.
func (o *OPT) Check() error {
	if err := o.bad.err(); err != nil {
		return fmt.Errorf("opt: %w", err)
	}
	n := len(o.pos)
	if err := o.empty.verify(&o.k, "empty", func(s int32) bool { return o.pos[s] < 0 }); err != nil {
		return fmt.Errorf("opt: %w", err)
	}
	if o.empty.n+len(o.heap) != n {
		return fmt.Errorf("opt: %d empty + %d resident slots, pool has %d", o.empty.n, len(o.heap), n)
	}
	for i, s := range o.heap {
		if o.pos[s] != int32(i) {
			return fmt.Errorf("opt: heap[%d] = slot %d but pos says %d", i, s, o.pos[s])
		}
		if i > 0 && o.better(s, o.heap[(i-1)/2]) {
			return fmt.Errorf("opt: heap order broken at index %d", i)
		}
	}
	return nil
}
