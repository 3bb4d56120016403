package replay

// Deliberately naive reference policies for cross-checks. They share no
// code with package policies or with the replay loop: slices searched
// linearly, no slot bookkeeping. Each returns the number of hits of a
// cache of c pages on keys.

// naiveLRU keeps pages most recent first.
func naiveLRU(keys []uint64, c int) int64 {
	var stack []uint64
	hits := int64(0)
	for _, k := range keys {
		pos := -1
		for i, p := range stack {
			if p == k {
				pos = i
				break
			}
		}
		if pos >= 0 {
			hits++
			stack = append(stack[:pos], stack[pos+1:]...)
		} else if len(stack) == c {
			stack = stack[:c-1]
		}
		stack = append([]uint64{k}, stack...)
	}
	return hits
}

// naiveClock is PostgreSQL's clock sweep (freelist.c StrategyGetBuffer,
// bufmgr.c PinBuffer): a new page enters with usage 1, a hit adds 1 up to
// max, and the hand decrements usage counts until it finds a 0, evicting
// that page. Until the pool is full, pages take the next free buffer in
// order.
func naiveClock(keys []uint64, c, max int) int64 {
	page := make([]uint64, 0, c)
	usage := make([]int, 0, c)
	hand := 0
	hits := int64(0)
	for _, k := range keys {
		found := -1
		for i, p := range page {
			if p == k {
				found = i
				break
			}
		}
		if found >= 0 {
			hits++
			if usage[found] < max {
				usage[found]++
			}
			continue
		}
		if len(page) < c {
			page = append(page, k)
			usage = append(usage, 1)
			continue
		}
		for usage[hand] > 0 {
			usage[hand]--
			hand = (hand + 1) % c
		}
		page[hand], usage[hand] = k, 1
		hand = (hand + 1) % c
	}
	return hits
}

// naiveSieve is SIEVE (Zhang et al., NSDI 2024, Algorithm 1): a FIFO queue,
// newest at the end, with visited bits; the hand moves from the oldest
// toward the newest, clearing visited bits, evicts the first unvisited page
// and stays at its position (now the next newer page); past the newest it
// wraps to the oldest.
func naiveSieve(keys []uint64, c int) int64 {
	var queue []uint64 // index 0 = oldest
	var visited []bool
	hand := 0
	hits := int64(0)
	for _, k := range keys {
		found := -1
		for i, p := range queue {
			if p == k {
				found = i
				break
			}
		}
		if found >= 0 {
			hits++
			visited[found] = true
			continue
		}
		if len(queue) == c {
			for visited[hand] {
				visited[hand] = false
				hand++
				if hand == len(queue) {
					hand = 0
				}
			}
			queue = append(queue[:hand], queue[hand+1:]...)
			visited = append(visited[:hand], visited[hand+1:]...)
			// The hand now points at the next newer page (same index);
			// past the newest it goes back to the oldest, before the new
			// page is appended after it.
			if hand == len(queue) {
				hand = 0
			}
		}
		queue = append(queue, k)
		visited = append(visited, false)
	}
	return hits
}

// naiveOPT is Belady's MIN: on a miss with a full cache, evict the resident
// page whose next reference is farthest away (never is farthest). The next
// references come from a backward scan with a map; the residents are a
// plain slice searched linearly.
func naiveOPT(keys []uint64, c int) int64 {
	next := make([]int, len(keys))
	seen := map[uint64]int{}
	for i := len(keys) - 1; i >= 0; i-- {
		next[i] = len(keys) // never again
		if j, ok := seen[keys[i]]; ok {
			next[i] = j
		}
		seen[keys[i]] = i
	}
	type page struct {
		key  uint64
		next int
	}
	var res []page
	hits := int64(0)
	for i, k := range keys {
		found := -1
		for j, p := range res {
			if p.key == k {
				found = j
				break
			}
		}
		if found >= 0 {
			hits++
			res[found].next = next[i]
			continue
		}
		if len(res) == c {
			victim := 0
			for j, p := range res {
				if p.next > res[victim].next {
					victim = j
				}
			}
			res = append(res[:victim], res[victim+1:]...)
		}
		res = append(res, page{k, next[i]})
	}
	return hits
}
