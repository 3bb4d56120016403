package heap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refChainOrder is chainOrder as first written (an insertion sort by xmin
// and a walk with binary searches over the groups): the faster chainOrder
// and its memo (orderChain) must give exactly its order.
func refChainOrder(vs []Group) {
	n := len(vs)
	if n < 2 {
		return
	}
	for i := 1; i < n; i++ {
		for j := i; j > 0 && vs[j].Xmin < vs[j-1].Xmin; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
	var xmax []uint32
	for _, g := range vs {
		if g.Xmax != 0 {
			xmax = append(xmax, g.Xmax)
		}
	}
	slices.Sort(xmax)
	used := make([]bool, n)
	var out []Group
	firstWithXmin := func(x uint32) int {
		for i, g := range vs {
			if g.Xmin >= x {
				return i
			}
		}
		return n
	}
	led := func(i int) bool {
		x := vs[i].Xmin
		c, self := 0, 0
		for _, m := range xmax {
			if m == x {
				c++
			}
		}
		if vs[i].Xmax == x {
			self = 1
		}
		return c > self
	}
	for pass := 0; pass < 2 && len(out) < n; pass++ {
		for start := 0; start < n; start++ {
			if used[start] || (pass == 0 && led(start)) {
				continue
			}
			for i := start; i >= 0; {
				used[i] = true
				out = append(out, vs[i])
				x, next := vs[i].Xmax, -1
				if x != 0 {
					for j := firstWithXmin(x); j < n && vs[j].Xmin == x; j++ {
						if !used[j] && (next < 0 || chainRank(vs[j], x) < chainRank(vs[next], x)) {
							next = j
						}
					}
				}
				i = next
			}
		}
	}
	copy(vs, out)
}

// refHasSuccessor and refRowVersion are rowVersion's first form: a scan of
// the page per version.
func refHasSuccessor(gs []Group, row int64, i int) bool {
	x := gs[i].Xmax
	for j, g := range gs {
		if j != i && x != 0 && g.Row() == row && g.Xmin == x {
			return true
		}
	}
	return false
}

func refRowVersion(gs []Group, row int64) int {
	best, newest := -1, -1
	for i, g := range gs {
		if g.Row() != row {
			continue
		}
		if g.Xmax == 0 {
			return i
		}
		if newest < 0 || g.Xmin > gs[newest].Xmin {
			newest = i
		}
		if !refHasSuccessor(gs, row, i) && (best < 0 || g.Xmin > gs[best].Xmin) {
			best = i
		}
	}
	if best < 0 {
		best = newest
	}
	return best
}

// randomChain makes a row's versions on a page as concurrent updaters leave
// them: mostly a chain in page order whose xids are not in order (an xid
// is taken at the first write), with updates by aborted transactions
// (their version stays, unreached), a transaction updating its own
// version, duplicate xmins, and a gap where pruning took versions.
func randomChain(r *rand.Rand, n int) []Group {
	var vs []Group
	xid := uint32(1000)
	cur := Version(uint32(r.IntN(900)+3), 0, 0, 7)
	for len(vs) < n {
		x := xid + uint32(r.IntN(40)) - 20
		xid += 3
		switch r.IntN(10) {
		case 0: // aborted updater: its version stays, the old one is updated again
			vs = append(vs, Version(x, 0, 0, 7))
			continue
		case 1: // the same transaction updates its own version
			cur.Xmax = cur.Xmin
			vs = append(vs, cur)
			cur = Version(cur.Xmin, 0, 0, 7)
			continue
		case 2: // pruned away
			cur = Version(x, 0, 0, 7)
			continue
		}
		cur.Xmax = x
		vs = append(vs, cur)
		cur = Version(x, 0, 0, 7)
	}
	vs[len(vs)-1].Xmax = 0
	return vs
}

// TestChainOrderMatchesReference checks chainOrder, orderChain (its memo,
// asked twice, and again after the page changed) and rowVersion against
// their first forms on random chains of 1 to 300 versions.
func TestChainOrderMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tb := &Table{}
	for iter := range 3000 {
		n := 1 + r.IntN(300)
		if iter%3 == 0 {
			n = 1 + r.IntN(12)
		}
		vs := randomChain(r, n)
		r.Shuffle(len(vs), func(i, j int) {
			if r.IntN(8) == 0 { // page order is mostly chain order
				vs[i], vs[j] = vs[j], vs[i]
			}
		})
		if got, want := tb.rowVersion(vs, 7), refRowVersion(vs, 7); got != want {
			t.Fatalf("iteration %d: rowVersion %d, want %d", iter, got, want)
		}
		want := slices.Clone(vs)
		refChainOrder(want)
		for round := range 2 {
			got := slices.Clone(vs)
			tb.orderChain(7, int32(iter%5), got)
			if !slices.Equal(got, want) {
				t.Fatalf("iteration %d, call %d: orderChain\n%v\nwant\n%v", iter, round, got, want)
			}
		}
		got := slices.Clone(vs)
		tb.chainOrder(got)
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d: chainOrder\n%v\nwant\n%v", iter, got, want)
		}
	}
}

// TestChainMemoFollowsUpdates updates one row again and again, as
// InsertVersion and DeleteRow leave its page (the live version gets the
// updater's xid as xmax, the new version is appended), with xids out of
// order, an update of a version by its own transaction now and then, and
// pruning of old versions: after every change orderChain must give
// refChainOrder's order, and after a plain update its memo must extend
// itself rather than order the chain anew.
func TestChainMemoFollowsUpdates(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tb := &Table{}
	vs := []Group{Version(500, 0, 0, 7)}
	extended := 0
	for step := range 3000 {
		live := len(vs) - 1
		// Unique xids, each pair's later updater with the smaller one.
		x := uint32(1000 + step + 1 - 2*(step%2))
		plain := true
		switch {
		case r.IntN(20) == 0: // the updater updates its own version
			x, plain = vs[live].Xmin, false
		case len(vs) > 60 && r.IntN(10) == 0: // pruning takes the oldest versions
			vs = slices.Clone(vs[40:])
			continue
		}
		old := slices.Clone(vs)
		vs[live].Xmax = x
		vs = append(vs, Version(x, 0, 0, 7))
		if m := tb.memo[chainKey{7, 0}]; plain && m != nil && len(m.ids) == len(old) && len(vs) >= memoMin {
			// The memo was made for the chain before this update.
			same := true
			for i, g := range old {
				same = same && m.ids[i] == uint64(g.Xmin)<<32|uint64(g.Xmax)
			}
			if same {
				c := &chainMemo{ids: slices.Clone(m.ids), perm: slices.Clone(m.perm)}
				if !c.extend(vs) {
					t.Fatalf("step %d: the memo did not extend itself for a plain update", step)
				}
				extended++
			}
		}
		want := slices.Clone(vs)
		refChainOrder(want)
		got := slices.Clone(vs)
		tb.orderChain(7, 0, got)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: orderChain\n%v\nwant\n%v", step, got, want)
		}
	}
	if extended < 1000 {
		t.Errorf("only %d plain updates checked", extended)
	}
}

// A memo extended by plain updates holds its two slices with different
// capacities (append grows a []uint64 and a []uint16 by different steps):
// ordering a longer chain anew must grow whichever is short.
func TestChainMemoRegrowsBothSlices(t *testing.T) {
	tb := &Table{memo: map[chainKey]*chainMemo{
		{7, 0}: {ids: make([]uint64, 1, 64), perm: make([]uint16, 1, 2)},
	}}
	vs := randomChain(rand.New(rand.NewPCG(5, 6)), 40)
	want := slices.Clone(vs)
	refChainOrder(want)
	tb.orderChain(7, 0, vs)
	if !slices.Equal(vs, want) {
		t.Fatalf("orderChain\n%v\nwant\n%v", vs, want)
	}
}

// TestRowVersionOnMixedPages checks rowVersion against its first form on
// pages that mix the row's versions with other rows' versions and with
// untagged groups: the load's (which stands for a row never changed), a
// frozen one (a collapsed or folded page's), others' inserts and deleted
// ones. A row with no version of its own is found in the load's group,
// else in the frozen one, else nowhere.
func TestRowVersionOnMixedPages(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tb := &Table{base: Untagged(5, 0, 40, XminCommitted)}
	ref := func(gs []Group, row int64) int {
		if i := refRowVersion(gs, row); i >= 0 {
			return i
		}
		for i, g := range gs {
			if g.tag == 0 && g.Xmax == 0 && g.Xmin == tb.base.Xmin && g.Hints == tb.base.Hints {
				return i
			}
		}
		for i, g := range gs {
			if g.tag == 0 && g.Xmax == 0 && g.Xmin == FrozenXid {
				return i
			}
		}
		return -1
	}
	kinds := [3]int{}
	for iter := range 5000 {
		var gs []Group
		if r.IntN(3) > 0 {
			gs = append(gs, randomChain(r, 1+r.IntN(6))...) // row 7's versions
		}
		for range r.IntN(8) {
			switch r.IntN(6) {
			case 0:
				gs = append(gs, tb.base)
			case 1:
				gs = append(gs, Untagged(FrozenXid, 0, uint16(1+r.IntN(5)), XminCommitted|XmaxInvalid))
			case 2:
				gs = append(gs, Untagged(uint32(3+r.IntN(50)), 0, uint16(1+r.IntN(5)), 0))
			case 3:
				gs = append(gs, Untagged(tb.base.Xmin, uint32(60+r.IntN(9)), 1, tb.base.Hints))
			case 4:
				gs = append(gs, Version(uint32(70+r.IntN(9)), 0, 0, 8)) // another row's
			default:
				gs = append(gs, Untagged(FrozenXid, uint32(80+r.IntN(9)), 1, XminCommitted))
			}
		}
		r.Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })
		got, want := tb.rowVersion(gs, 7), ref(gs, 7)
		if got != want {
			t.Fatalf("iteration %d: rowVersion %d, want %d on %v", iter, got, want, gs)
		}
		switch {
		case want < 0:
			kinds[0]++
		case gs[want].tagged():
			kinds[1]++
		default:
			kinds[2]++
		}
	}
	if kinds[0] == 0 || kinds[1] == 0 || kinds[2] == 0 {
		t.Errorf("cases none / the row's version / an untagged group: %v, want each", kinds)
	}
}
