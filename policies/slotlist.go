package policies

import "fmt"

// Intrusive doubly linked lists over slot numbers, the dense-array form of
// the lists in LRU, 2Q, ARC and SIEVE: prev/next are slices indexed by
// slot, so list operations never allocate and a slot's membership is O(1)
// to change. All lists of one policy share one links value; a slot is on at
// most one list at a time.

// noSlot terminates a list and marks "no slot".
const noSlot = int32(-1)

// links holds the prev/next pointers of every slot.
type links struct {
	prev, next []int32
}

func newLinks(n int) links {
	l := links{prev: make([]int32, n), next: make([]int32, n)}
	for i := range l.prev {
		l.prev[i], l.next[i] = noSlot, noSlot
	}
	return l
}

// slotList is one list. head is the most recently inserted end (MRU for
// LRU-ordered lists), tail the oldest end.
type slotList struct {
	head, tail int32
	n          int
}

func newSlotList() slotList { return slotList{head: noSlot, tail: noSlot} }

func (l *slotList) pushHead(k *links, s int32) {
	k.prev[s] = noSlot
	k.next[s] = l.head
	if l.head != noSlot {
		k.prev[l.head] = s
	} else {
		l.tail = s
	}
	l.head = s
	l.n++
}

func (l *slotList) pushTail(k *links, s int32) {
	k.next[s] = noSlot
	k.prev[s] = l.tail
	if l.tail != noSlot {
		k.next[l.tail] = s
	} else {
		l.head = s
	}
	l.tail = s
	l.n++
}

func (l *slotList) remove(k *links, s int32) {
	p, n := k.prev[s], k.next[s]
	if p != noSlot {
		k.next[p] = n
	} else {
		l.head = n
	}
	if n != noSlot {
		k.prev[n] = p
	} else {
		l.tail = p
	}
	k.prev[s], k.next[s] = noSlot, noSlot
	l.n--
}

func (l *slotList) moveToHead(k *links, s int32) {
	if l.head == s {
		return
	}
	l.remove(k, s)
	l.pushHead(k, s)
}

// lastUnpinned walks from the tail toward the head and returns the first
// slot nobody has pinned, and how many slots it inspected. It returns
// noSlot if every slot on the list is pinned.
func (l *slotList) lastUnpinned(k *links, pins []int32) (int32, int) {
	steps := 0
	for s := l.tail; s != noSlot; s = k.prev[s] {
		steps++
		if pins[s] == 0 {
			return s, steps
		}
	}
	return noSlot, steps
}

// firstUnpinned is lastUnpinned walking from the head toward the tail.
func (l *slotList) firstUnpinned(k *links, pins []int32) (int32, int) {
	steps := 0
	for s := l.head; s != noSlot; s = k.next[s] {
		steps++
		if pins[s] == 0 {
			return s, steps
		}
	}
	return noSlot, steps
}

// verify walks the list from head to tail, checking that the back pointers
// agree, that the walk ends at tail after exactly n slots, and that every
// slot satisfies member (the policy's own record of which list the slot
// is on).
func (l *slotList) verify(k *links, name string, member func(s int32) bool) error {
	count := 0
	prev := noSlot
	for s := l.head; s != noSlot; s = k.next[s] {
		if s < 0 || int(s) >= len(k.next) {
			return fmt.Errorf("%s: slot %d out of range", name, s)
		}
		if count++; count > len(k.next) {
			return fmt.Errorf("%s: cycle (more than %d entries)", name, len(k.next))
		}
		if k.prev[s] != prev {
			return fmt.Errorf("%s: slot %d has prev %d, want %d", name, s, k.prev[s], prev)
		}
		if !member(s) {
			return fmt.Errorf("%s: slot %d is linked here but recorded elsewhere", name, s)
		}
		prev = s
	}
	if prev != l.tail {
		return fmt.Errorf("%s: walk ends at %d, tail is %d", name, prev, l.tail)
	}
	if count != l.n {
		return fmt.Errorf("%s: %d entries linked, length says %d", name, count, l.n)
	}
	return nil
}

// slots returns the list from head to tail (tests and debugging).
func (l *slotList) slots(k *links) []int32 {
	out := make([]int32, 0, l.n)
	for s := l.head; s != noSlot; s = k.next[s] {
		out = append(out, s)
	}
	return out
}

// contract records the first misuse of the Replacement protocol by the
// caller (an Accessed on an empty slot, a Loaded on an occupied one). The
// policy repairs its state and carries on; Check reports the violation so
// that a bug in the pool or the replay driver cannot go unnoticed.
type contract struct {
	first string
}

func (c *contract) violate(format string, args ...any) {
	if c.first == "" {
		c.first = fmt.Sprintf(format, args...)
	}
}

func (c *contract) err() error {
	if c.first == "" {
		return nil
	}
	return fmt.Errorf("caller broke the Replacement protocol: %s", c.first)
}
