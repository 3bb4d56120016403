package policies

import "fmt"

// ghosts keeps the history lists of page keys that ARC (B1, B2) and 2Q
// (A1out) remember for pages no longer cached. Each list is ordered, head =
// most recently added. The nodes live in one arena with a free list and one
// index from page to node; the index is only ever probed, never iterated,
// so Go's randomised map order cannot leak into results.
type ghosts struct {
	key        []uint64
	prev, next []int32
	list       []uint8
	free       []int32
	index      map[uint64]int32
	lists      []ghostList
}

type ghostList struct {
	head, tail int32
	n          int
}

// newGhosts makes nlists empty lists; hint is the expected total size.
func newGhosts(nlists, hint int) ghosts {
	g := ghosts{index: make(map[uint64]int32, hint), lists: make([]ghostList, nlists)}
	for i := range g.lists {
		g.lists[i] = ghostList{head: noSlot, tail: noSlot}
	}
	return g
}

func (g *ghosts) len(list int) int { return g.lists[list].n }

// find reports which list holds page.
func (g *ghosts) find(page uint64) (list int, ok bool) {
	n, ok := g.index[page]
	if !ok {
		return 0, false
	}
	return int(g.list[n]), true
}

// pushHead adds page at the head of list. The page must not be present.
func (g *ghosts) pushHead(list int, page uint64) {
	var n int32
	if k := len(g.free); k > 0 {
		n = g.free[k-1]
		g.free = g.free[:k-1]
	} else {
		n = int32(len(g.key))
		g.key = append(g.key, 0)
		g.prev = append(g.prev, 0)
		g.next = append(g.next, 0)
		g.list = append(g.list, 0)
	}
	l := &g.lists[list]
	g.key[n], g.list[n] = page, uint8(list)
	g.prev[n], g.next[n] = noSlot, l.head
	if l.head != noSlot {
		g.prev[l.head] = n
	} else {
		l.tail = n
	}
	l.head = n
	l.n++
	g.index[page] = n
}

// remove forgets page and reports the list it was on.
func (g *ghosts) remove(page uint64) (list int, ok bool) {
	n, ok := g.index[page]
	if !ok {
		return 0, false
	}
	list = int(g.list[n])
	g.unlink(n)
	return list, true
}

// popTail forgets the oldest page of list.
func (g *ghosts) popTail(list int) (page uint64, ok bool) {
	n := g.lists[list].tail
	if n == noSlot {
		return 0, false
	}
	page = g.key[n]
	g.unlink(n)
	return page, true
}

func (g *ghosts) unlink(n int32) {
	l := &g.lists[g.list[n]]
	p, x := g.prev[n], g.next[n]
	if p != noSlot {
		g.next[p] = x
	} else {
		l.head = x
	}
	if x != noSlot {
		g.prev[x] = p
	} else {
		l.tail = p
	}
	l.n--
	delete(g.index, g.key[n])
	g.free = append(g.free, n)
}

// pages returns list from head to tail (tests and debugging).
func (g *ghosts) pages(list int) []uint64 {
	var out []uint64
	for n := g.lists[list].head; n != noSlot; n = g.next[n] {
		out = append(out, g.key[n])
	}
	return out
}

// verify checks every list's links and lengths, that each node is indexed
// under its key and that the index holds nothing else.
func (g *ghosts) verify(names ...string) error {
	total := 0
	for li := range g.lists {
		l := &g.lists[li]
		count, prev := 0, noSlot
		for n := l.head; n != noSlot; n = g.next[n] {
			if count++; count > len(g.key) {
				return fmt.Errorf("%s: cycle", names[li])
			}
			if g.prev[n] != prev {
				return fmt.Errorf("%s: node %d has prev %d, want %d", names[li], n, g.prev[n], prev)
			}
			if int(g.list[n]) != li {
				return fmt.Errorf("%s: node for page %d says list %d", names[li], g.key[n], g.list[n])
			}
			if m, ok := g.index[g.key[n]]; !ok || m != n {
				return fmt.Errorf("%s: page %d not indexed to its node", names[li], g.key[n])
			}
			prev = n
		}
		if prev != l.tail || count != l.n {
			return fmt.Errorf("%s: %d linked ending at %d, want %d ending at %d", names[li], count, prev, l.n, l.tail)
		}
		total += count
	}
	if total != len(g.index) {
		return fmt.Errorf("ghost index holds %d pages, lists hold %d", len(g.index), total)
	}
	return nil
}
