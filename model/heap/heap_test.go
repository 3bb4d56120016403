package heap

import (
	"testing"
	"unsafe"
)

var frozen = Group{Xmin: 2, Hints: Frozen}

// pgbench_accounts: 121-byte tuples MAXALIGNed to 128 plus a 4-byte line
// pointer give 61 rows per 8 kB page and 1639.34 pages per 100000 rows
// (docs/model.md: 1640 pages at scale 1, 16394 at scale 10).
func TestPGBenchAccountsLayout(t *testing.T) {
	for _, c := range []struct {
		rows   int64
		blocks int32
	}{{100000, 1640}, {1000000, 16394}} {
		tb, err := New("accounts", c.rows, 132, 100, frozen, true)
		if err != nil {
			t.Fatal(err)
		}
		if tb.RowsPerPage != 61 {
			t.Fatalf("rows per page %d, want 61", tb.RowsPerPage)
		}
		if tb.NBlocks() != c.blocks {
			t.Errorf("%d rows: %d blocks, want %d", c.rows, tb.NBlocks(), c.blocks)
		}
	}
	// (int, ~70-char text) rows as in seed 001: 24-byte header + 4 + 71
	// (1-byte varlena header) = 99, MAXALIGNed to 104, + 4-byte line
	// pointer = 108 bytes: 75 rows per page.
	per, _, _ := Layout(4+71, 100)
	if per != 75 {
		t.Errorf("int + 70-char text: %d rows per page, want 75", per)
	}
}

// With fillfactor 100 the first update of a row on a full page cannot be
// HOT; once the page has been pruned, later updates are HOT
// (docs/model.md "Side effect to model").
func TestHOTAfterPrune(t *testing.T) {
	tb, _ := New("accounts", 61*3, 132, 100, frozen, true)
	b := tb.BlockOf(5)
	if tb.Free(b) != 0 {
		t.Fatalf("loaded page has %d free slots", tb.Free(b))
	}
	tb.DeleteRow(5, b, 100) // old version of the update
	if tb.AllVisible(b) {
		t.Error("an update left PD_ALL_VISIBLE set")
	}
	blk := tb.NBlocks()
	tb.Extended(blk)
	tb.InsertVersion(blk, 100, 5)
	if g := tb.RowGroup(5, tb.BlockOf(5)); tb.BlockOf(5) != 3 || g.Xmin != 100 || g.Row() != 5 {
		t.Fatalf("moved row: block %d version %+v", tb.BlockOf(5), g)
	}
	// Once xid 100 is committed and older than every snapshot, pruning
	// frees the old version's slot and the next update is HOT.
	dead := func(g Group) bool { return g.Xmax == 100 }
	// The row's newer version is on another page: its line pointer
	// becomes dead, no redirect (kept 0).
	if n, kept := tb.Prune(b, dead); n != 1 || kept != 0 || tb.Free(b) != 1 {
		t.Fatalf("prune removed %d (kept %d), free %d", n, kept, tb.Free(b))
	}
	tb.DeleteRow(7, b, 101)
	if tb.Free(b) != 1 {
		t.Fatalf("free %d after delete", tb.Free(b))
	}
	tb.InsertVersion(b, 101, 7)
	if tb.BlockOf(7) != b || tb.Free(b) != 0 {
		t.Fatalf("HOT update: block %d free %d", tb.BlockOf(7), tb.Free(b))
	}
	g := tb.RowGroup(7, b)
	if g.Xmin != 101 || g.Xmax != 0 {
		t.Errorf("row 7's version: %+v", g)
	}
	// Pruning row 7's old version keeps its newer one on the page: a HOT
	// chain whose root becomes a redirect (kept 1).
	if n, kept := tb.Prune(b, func(g Group) bool { return g.Xmax == 101 }); n != 1 || kept != 1 {
		t.Errorf("prune of a HOT-updated row's old version: removed %d, kept %d; want 1, 1", n, kept)
	}
}

func TestGroupsMergeAndHints(t *testing.T) {
	tb := NewPerPage("t", 0, 100, 100, Group{}, false)
	tb.Extended(0)
	tb.Insert(0, 10, 40)
	tb.Insert(0, 10, 20)
	var buf [1]Group
	if gs := tb.Groups(0, &buf); len(gs) != 1 || gs[0].N() != 60 {
		t.Fatalf("groups %+v", gs)
	}
	tb.SetHints(0, 10, XminCommitted, 0)
	if gs := tb.Groups(0, &buf); gs[0].Hints != XminCommitted {
		t.Fatalf("hints %+v", gs)
	}
	n := tb.DeleteAll(0, 11, func(Group) bool { return true })
	if n != 60 {
		t.Fatalf("deleted %d", n)
	}
	gs := tb.Groups(0, &buf)
	if len(gs) != 1 || gs[0].Xmax != 11 || gs[0].Hints != XminCommitted {
		t.Fatalf("after delete %+v", gs)
	}
}

func TestFillfactorLeavesRoomForHOT(t *testing.T) {
	tb, _ := New("accounts", 1000, 132, 90, frozen, false)
	if tb.RowsPerPage >= tb.MaxRows || tb.Free(0) == 0 {
		t.Fatalf("fillfactor 90: %d rows per page of %d", tb.RowsPerPage, tb.MaxRows)
	}
}

// An aborted update leaves its version as garbage; the row's current
// version is again the old one, whose xmax is the aborted xid.
func TestAbortedUpdate(t *testing.T) {
	tb, _ := New("accounts", 61*3, 132, 100, frozen, true)
	b := tb.BlockOf(5)
	tb.DeleteRow(5, b, 100)
	blk := tb.NBlocks()
	tb.Extended(blk)
	tb.InsertVersion(blk, 100, 5)
	tb.AbortVersion(5, b, blk, 100)
	if tb.BlockOf(5) != b {
		t.Fatalf("row 5 on block %d after the abort, want %d", tb.BlockOf(5), b)
	}
	if g := tb.RowGroup(5, b); g.Xmax != 100 || g.Row() != 5 || g.Xmin != frozen.Xmin {
		t.Fatalf("row 5's version after the abort: %+v", g)
	}
	var buf [1]Group
	for _, g := range tb.Groups(blk, &buf) {
		if g.Xmin == 100 && g.Row() != Aborted {
			t.Fatalf("the aborted version still belongs to a row: %+v", g)
		}
	}
	// A second update of the row takes the old version again.
	tb.DeleteRow(5, b, 101)
	if g := tb.RowGroup(5, b); g.Xmax != 101 {
		t.Fatalf("second update: %+v", g)
	}
}

// Collapse folds an all-visible page's versions into one frozen group: the
// page costs one group again, and rows whose version lived there still find
// one (the frozen group).
func TestCollapse(t *testing.T) {
	tb, _ := New("accounts", 61*3, 132, 100, frozen, true)
	b := int32(1)
	for row := int64(62); row < 62+10; row++ {
		tb.DeleteRow(row, b, uint32(row+100))
	}
	// Prune the old versions (committed, older than everyone).
	tb.Prune(b, func(g Group) bool { return g.Xmax != 0 })
	for row := int64(62); row < 62+10; row++ {
		tb.InsertVersion(b, uint32(row+200), row)
	}
	tb.SetGroupHints(b, func(g Group) uint8 { return XminCommitted })
	var buf [1]Group
	if n := len(tb.Groups(b, &buf)); n != 11 {
		t.Fatalf("%d groups before the collapse, want 11", n)
	}
	tb.Collapse(b)
	gs := tb.Groups(b, &buf)
	if len(gs) != 1 || gs[0].N() != 61 || gs[0].Xmin != FrozenXid || gs[0].Hints != Frozen {
		t.Fatalf("after the collapse: %+v", gs)
	}
	if g := tb.RowGroup(65, b); g.Xmin != FrozenXid || g.N() != 1 {
		t.Fatalf("row 65 after the collapse: %+v", g)
	}
	tb.DeleteRow(65, b, 500)
	if g := tb.RowGroup(65, b); g.Xmax != 500 || g.Row() != 65 {
		t.Fatalf("row 65 updated after the collapse: %+v", g)
	}
	if tb.Tuples(b) != 61 {
		t.Fatalf("%d tuples, want 61", tb.Tuples(b))
	}
}

// The blocks of moved rows survive a chunk's switch from a sorted list to an
// array, and rows moved back home are forgotten.
func TestMovedRowsSparseAndDense(t *testing.T) {
	tb := NewPerPage("t", 4*movedChunk, 10, 10, Group{}, false)
	want := map[int64]int32{}
	for i := int64(0); i < 2*movedDense; i++ {
		row := 1 + (i*37)%movedChunk // one chunk, scattered offsets
		blk := int32(300 + i)
		tb.setBlock(row, blk)
		want[row] = blk
	}
	tb.setBlock(2*movedChunk+5, 7) // another chunk, sparse
	want[2*movedChunk+5] = 7
	for row, blk := range want {
		if got := tb.BlockOf(row); got != blk {
			t.Fatalf("row %d on block %d, want %d", row, got, blk)
		}
	}
	if tb.moved[0].dense == nil || tb.moved[2].dense != nil {
		t.Error("chunk representations")
	}
	if tb.Moved() != len(want) {
		t.Errorf("%d moved rows, want %d", tb.Moved(), len(want))
	}
	tb.setBlock(38, tb.home(38)) // back home
	if tb.BlockOf(38) != tb.home(38) || tb.Moved() != len(want)-1 {
		t.Errorf("row 38 moved home: block %d, %d moved", tb.BlockOf(38), tb.Moved())
	}
}

// A transaction that took its xid early (at an earlier write) and then
// waited for a row's lock writes a newer version with a smaller xmin than
// the version it replaces. The row's chain follows xmax to xmin, as
// heap_update's t_ctid links do, not xmin order: the newest version is the
// one the last update wrote, and the next update replaces that one.
func TestChainFollowsXmaxNotXminOrder(t *testing.T) {
	tb, _ := New("branches", 61, 132, 100, frozen, true)
	b := tb.BlockOf(1)
	for _, xid := range []uint32{6, 10, 4, 14, 12} { // 4 and 12 updated after 10 and 14
		tb.DeleteRow(1, b, xid)
		tb.InsertVersion(b, xid, 1)
	}
	ch := tb.RowChain(1, b, nil)
	want := []struct{ xmin, xmax uint32 }{{frozen.Xmin, 6}, {6, 10}, {10, 4}, {4, 14}, {14, 12}, {12, 0}}
	if len(ch) != len(want) {
		t.Fatalf("chain %+v, want %d versions", ch, len(want))
	}
	for i, w := range want {
		if ch[i].Xmin != w.xmin || ch[i].Xmax != w.xmax {
			t.Fatalf("chain[%d] = %+v, want xmin %d xmax %d (chain %+v)", i, ch[i], w.xmin, w.xmax, ch)
		}
	}
	if g := tb.RowGroup(1, b); g.Xmin != 12 || g.Xmax != 0 {
		t.Fatalf("current version %+v, want the one xid 12 wrote", g)
	}
	// A transaction updating the row twice: both its versions have its
	// xid as xmin, the first its xid as xmax too.
	tb.DeleteRow(1, b, 20)
	tb.InsertVersion(b, 20, 1)
	tb.DeleteRow(1, b, 20)
	tb.InsertVersion(b, 20, 1)
	ch = tb.RowChain(1, b, nil)
	n := len(ch)
	if ch[n-3].Xmin != 12 || ch[n-3].Xmax != 20 || ch[n-2].Xmin != 20 || ch[n-2].Xmax != 20 || ch[n-1].Xmin != 20 || ch[n-1].Xmax != 0 {
		t.Fatalf("own double update: chain tail %+v", ch[n-3:])
	}
}

// A hot row's page holds many versions before pruning; the chain order
// holds for all of them.
func TestLongChainOrder(t *testing.T) {
	tb, _ := New("branches", 61, 132, 100, frozen, true)
	b := tb.BlockOf(1)
	xids := make([]uint32, 200)
	for i := range xids {
		// pairs swapped: 101, 100, 103, 102, ... each pair's later updater has
		// the smaller xid
		xids[i] = uint32(100 + i + 1 - 2*(i%2))
	}
	for _, xid := range xids {
		tb.DeleteRow(1, b, xid)
		tb.InsertVersion(b, xid, 1)
	}
	ch := tb.RowChain(1, b, nil)
	if len(ch) != len(xids)+1 {
		t.Fatalf("%d versions, want %d", len(ch), len(xids)+1)
	}
	for i := 1; i < len(ch); i++ {
		if ch[i].Xmin != xids[i-1] || ch[i-1].Xmax != ch[i].Xmin {
			t.Fatalf("chain[%d] = %+v after %+v, want xmin %d", i, ch[i], ch[i-1], xids[i-1])
		}
	}
}

// A deleted row whose version is pruned away is gone: the page's untagged
// group, which stands for the rows loaded there and never changed, no
// longer stands for it (before, the row came back as its loaded version
// and a second DELETE deleted it again). A row moved by an update and then
// deleted is gone too, and stops counting as moved; an updated row whose
// old version is pruned is not gone. Gone rows survive the chunk's change
// to the dense representation.
func TestDeletedRowGoneAfterPrune(t *testing.T) {
	tb, _ := New("accounts", 61*20, 132, 100, frozen, true)
	b := tb.BlockOf(5)
	tb.DeleteRow(5, b, 100)
	if ch := tb.RowChain(5, b, nil); len(ch) != 1 || ch[0].Xmax != 100 {
		t.Fatalf("row 5 before the prune: %+v", ch)
	}
	if n, _ := tb.Prune(b, func(g Group) bool { return g.Xmax == 100 }); n != 1 {
		t.Fatalf("pruned %d", n)
	}
	if ch := tb.RowChain(5, b, nil); len(ch) != 0 || !tb.Gone(5) {
		t.Fatalf("row 5 after the prune: chain %+v, gone %v", ch, tb.Gone(5))
	}
	if ch := tb.RowChain(6, b, nil); len(ch) != 1 || ch[0].Xmax != 0 || tb.Gone(6) {
		t.Fatalf("row 6, loaded on the same page: %+v", ch)
	}
	// Row 70 (second page) is moved by a non-HOT update, then deleted.
	old := tb.BlockOf(70)
	tb.DeleteRow(70, old, 101)
	nb := tb.NBlocks()
	tb.Extended(nb)
	tb.InsertVersion(nb, 101, 70)
	tb.Prune(old, func(g Group) bool { return g.Xmax == 101 })
	if tb.Gone(70) || tb.Moved() != 1 {
		t.Fatalf("an updated row's old version pruned: gone %v, %d moved", tb.Gone(70), tb.Moved())
	}
	tb.DeleteRow(70, nb, 102)
	tb.Prune(nb, func(g Group) bool { return g.Xmax == 102 })
	if !tb.Gone(70) || tb.Moved() != 0 || len(tb.RowChain(70, tb.BlockOf(70), nil)) != 0 {
		t.Fatalf("moved then deleted: gone %v, %d moved", tb.Gone(70), tb.Moved())
	}
	// Many moved rows in row 5's chunk make it dense; 5 stays gone.
	for row := int64(100); row < 100+movedDense+10; row++ { // all in chunk 0 (rows 1..1024)
		tb.setBlock(row, nb)
	}
	if tb.moved[0].dense == nil || !tb.Gone(5) || !tb.Gone(70) || tb.BlockOf(5) != b {
		t.Errorf("after the chunk went dense: dense %v, gone %v %v, block %d", tb.moved[0].dense != nil, tb.Gone(5), tb.Gone(70), tb.BlockOf(5))
	}
}

// An aborted update's version is pruned to an unused line pointer when it
// was a HOT update (a heap-only tuple on the row's own page) and to an
// LP_DEAD one when it went to another page (the root of a chain of its
// own, with an index entry that VACUUM must remove first): heapam.c
// heap_prune_chain.
func TestPruneAbortedVersions(t *testing.T) {
	tb, _ := New("accounts", 61*3, 132, 100, frozen, true)
	b := tb.BlockOf(5)
	dead := func(g Group) bool { return g.Xmin == 100 || g.Xmin == 101 }
	// A full page: first make room (row 5's update to another page,
	// committed and pruned: one LP_DEAD).
	tb.DeleteRow(5, b, 90)
	nb := tb.NBlocks()
	tb.Extended(nb)
	tb.InsertVersion(nb, 90, 5)
	tb.Prune(b, func(g Group) bool { return g.Xmax == 90 })
	base := tb.DeadItems(b)
	// A HOT update of row 7 on its own page, rolled back.
	tb.DeleteRow(7, b, 100)
	tb.InsertVersion(b, 100, 7)
	tb.AbortVersion(7, b, b, 100)
	if n, _ := tb.Prune(b, dead); n != 1 || tb.DeadItems(b) != base {
		t.Errorf("aborted HOT version: pruned %d, dead items %d -> %d; want 1 pruned and no new LP_DEAD", n, base, tb.DeadItems(b))
	}
	// An update of row 8 to the new page, rolled back: its version there
	// leaves an LP_DEAD item.
	tb.DeleteRow(8, b, 101)
	tb.InsertVersion(nb, 101, 8)
	tb.AbortVersion(8, b, nb, 101)
	if n, _ := tb.Prune(nb, dead); n != 1 || tb.DeadItems(nb) != 1 {
		t.Errorf("aborted version on another page: pruned %d, dead items %d; want 1 and 1", n, tb.DeadItems(nb))
	}
}

// A row's version is a group of its own (N = 1, tagged with the row),
// whatever else its page holds: an untagged insert of the same xid merges
// with its like, a row's new version never does (add's fast path).
func TestRowVersionsStayTheirOwnGroups(t *testing.T) {
	tb := NewPerPage("t", 0, 100, 100, Group{}, false)
	tb.Extended(0)
	tb.Insert(0, 10, 5)
	tb.InsertVersion(0, 10, 7)
	tb.InsertVersion(0, 10, 8)
	tb.Insert(0, 10, 3)
	var buf [1]Group
	gs := tb.Groups(0, &buf)
	var untagged, tagged int
	for _, g := range gs {
		switch {
		case g.Row() == 0:
			untagged++
			if g.N() != 8 {
				t.Errorf("the inserts' group has %d tuples, want 8", g.N())
			}
		case g.N() != 1:
			t.Errorf("row %d's version is a group of %d", g.Row(), g.N())
		default:
			tagged++
		}
	}
	if untagged != 1 || tagged != 2 {
		t.Fatalf("groups %+v: want one untagged group and two versions", gs)
	}
}

// SetHintSets leaves a page as SetGroupHints does with the same decision
// per group (hs.Bits), and counts the tuples it hinted: pages of loaded,
// inserted and updated tuples, some hinted already, with committed and
// aborted xids on either side.
func TestSetHintSetsIsSetGroupHints(t *testing.T) {
	for seed := uint32(0); seed < 200; seed++ {
		r := seed*2654435761 + 1
		next := func(n uint32) uint32 { r = r*1103515245 + 12345; return (r >> 8) % n }
		a, _ := New("t", 40, 132, 100, frozen, true)
		b, _ := New("t", 40, 132, 100, frozen, true)
		for _, tb := range []*Table{a, b} {
			r = seed*2654435761 + 1
			for i := 0; i < 30; i++ {
				xid := 10 + next(8)
				switch next(3) {
				case 0:
					tb.Insert(0, xid, 1+int(next(3)))
				case 1:
					row := int64(1 + next(30))
					tb.DeleteRow(row, tb.BlockOf(row), xid)
					if tb.Free(0) > 0 {
						tb.InsertVersion(0, xid, row)
					}
				default:
					tb.SetHints(0, 10+next(8), XminCommitted, XmaxCommitted)
				}
			}
		}
		hs := &HintSets{}
		for i := 0; i < 2; i++ {
			hs.Committed[i] = []uint32{10 + next(8), 10 + next(8)}
			hs.Invalid[i] = []uint32{10 + next(8)}
		}
		want := 0
		var buf [1]Group
		for _, g := range a.Groups(0, &buf) {
			if hs.Bits(g) != 0 {
				want += int(g.N())
			}
		}
		a.SetGroupHints(0, hs.Bits)
		if got := b.SetHintSets(0, hs); got != want {
			t.Fatalf("seed %d: %d tuples hinted, want %d", seed, got, want)
		}
		ga, gb := a.Groups(0, &buf), b.Groups(0, &[1]Group{})
		if len(ga) != len(gb) {
			t.Fatalf("seed %d: %d groups, want %d", seed, len(gb), len(ga))
		}
		for i := range ga {
			if ga[i] != gb[i] {
				t.Fatalf("seed %d: group %d %+v, want %+v", seed, i, gb[i], ga[i])
			}
		}
	}
}

// A page's list of groups grows by a quarter, not by doubling, and never
// past the page's capacity in tuples: ten groups take at most eleven
// places (doubling gave sixteen), and a page of single-row inserts, one
// group per inserting transaction (pgbench_history's), keeps at most
// MaxRows places (doubling once took 256 for 157).
func TestGroupListStopsAtThePagesCapacity(t *testing.T) {
	tb := NewPerPage("history", 0, 157, 157, Group{}, false)
	tb.Extended(0)
	for xid := uint32(10); xid < 10+157; xid++ {
		tb.Insert(0, xid, 1)
	}
	gs := tb.pages[tb.state[0]]
	if len(gs) != 157 {
		t.Fatalf("%d groups, want one per inserting transaction, 157", len(gs))
	}
	if c := cap(gs); c > 157 {
		t.Errorf("the page's groups take %d places for 157 tuples, want at most 157 (MaxRows)", c)
	}
	tb.Extended(1)
	for xid := uint32(500); xid < 510; xid++ {
		tb.Insert(1, xid, 1)
	}
	if gs := tb.pages[tb.state[1]]; len(gs) != 10 || cap(gs) > 11 {
		t.Errorf("ten groups take %d places, want at most 11", cap(gs))
	}
}

// FoldSettled folds untagged, undeleted tuples hinted committed before the
// horizon (and any frozen ones) into one frozen group where the first of
// them was; everything else keeps its place: the loaded rows' group, a
// row's versions, deleted tuples, unhinted ones, those inserted at or
// after the horizon. A page of single inserts gives back its places.
func TestFoldSettled(t *testing.T) {
	base := Group{Xmin: 1, Hints: XminCommitted}
	tb := NewPerPage("h", 10, 5, 200, base, false)
	// Block 1: loaded rows; block 2: a new page of one insert per xid.
	tb.DeleteRow(7, 1, 40) // row 7's old version: tagged, with xmax
	for xid := uint32(50); xid < 150; xid++ {
		tb.Extended(2)
		tb.Insert(2, xid, 1)
		if xid%10 != 3 {
			tb.SetHints(2, xid, XminCommitted, 0)
		}
	}
	tb.Insert(1, 60, 2)
	tb.SetHints(1, 60, XminCommitted, 0)
	tb.Insert(1, 61, 1)
	tb.SetHints(1, 61, XminCommitted, 0)
	tb.Insert(1, 200, 1)
	tb.SetHints(1, 200, XminCommitted, 0)
	var buf [1]Group
	before := append([]Group(nil), tb.Groups(1, &buf)...)
	if got := tb.FoldSettled(1, 100); got != 1 {
		t.Fatalf("block 1: %d groups folded, want 1 (xids 60 and 61)", got)
	}
	after := tb.Groups(1, &buf)
	var want []Group
	for _, g := range before {
		switch g.Xmin {
		case 60:
			want = append(want, Untagged(FrozenXid, 0, 3, Frozen))
		case 61:
		default:
			want = append(want, g)
		}
	}
	if len(after) != len(want) {
		t.Fatalf("block 1 after folding: %v, want %v", after, want)
	}
	for i := range want {
		if after[i] != want[i] {
			t.Errorf("block 1 group %d: %+v, want %+v", i, after[i], want[i])
		}
	}
	if tb.Tuples(1) != 5+3+1 {
		t.Errorf("block 1 holds %d tuples, want 9", tb.Tuples(1))
	}
	// Block 2: xids 50-99 hinted fold (but 53, 63, ... unhinted stay);
	// 100-149 are at or after the horizon.
	if !tb.MayFold(2) {
		t.Fatal("MayFold(2) is false")
	}
	got := tb.FoldSettled(2, 100)
	if got != 45-1 {
		t.Errorf("block 2: %d groups folded, want 44", got)
	}
	gs := tb.Groups(2, &buf)
	if len(gs) != 1+5+50 || gs[0] != Untagged(FrozenXid, 0, 45, Frozen) {
		t.Errorf("block 2: %d groups, the first %+v; want 56, the first 45 frozen tuples", len(gs), gs[0])
	}
	if tb.FoldSettled(2, 100) != 0 || tb.FoldSettled(1, 100) != 0 {
		t.Error("folding again found more to fold")
	}
	// Block 3: a full page of settled single inserts keeps two places.
	for xid := uint32(300); xid < 400; xid++ {
		tb.Extended(3)
		tb.Insert(3, xid, 1)
		tb.SetHints(3, xid, XminCommitted, 0)
	}
	if got := tb.FoldSettled(3, 1000); got != 99 {
		t.Errorf("block 3: %d groups folded, want 99", got)
	}
	if s := tb.pages[tb.state[3]]; len(s) != 1 || cap(s) > 2 {
		t.Errorf("block 3 keeps %d places for %d groups", cap(s), len(s))
	}
}

// A Group is 16 bytes, and its shared field gives back what went in: a
// row's version is one tuple of its row (up to the largest row a run can
// address, 2^31 pages of 291 tuples), an aborted update's versions keep
// their count, and untagged tuples their count and no row.
func TestGroupPacking(t *testing.T) {
	if s := unsafe.Sizeof(Group{}); s != 16 {
		t.Errorf("a Group is %d bytes, want 16", s)
	}
	for _, row := range []int64{1, 2, 1<<32 - 1, 1 << 32, 1<<32 + 5, 291 << 31, int64(maxRowTag)<<32 - 1} {
		g := Version(10, 20, XminCommitted, row)
		if g.Row() != row || g.N() != 1 || !g.tagged() || g.Xmin != 10 || g.Xmax != 20 || g.Hints != XminCommitted {
			t.Errorf("row %d: got row %d, %d tuples, %+v", row, g.Row(), g.N(), g)
		}
		if rt, rl := rowTag(row); g.tag != rt || g.lo != rl {
			t.Errorf("row %d: rowTag gives (%d, %d), the group (%d, %d)", row, rt, rl, g.tag, g.lo)
		}
		g.setRow(Aborted)
		if g.Row() != Aborted || g.N() != 1 || g.tagged() {
			t.Errorf("row %d aborted: row %d, %d tuples", row, g.Row(), g.N())
		}
	}
	a := Version(5, 0, 0, AbortedHOT)
	a.SetN(3)
	if a.Row() != AbortedHOT || a.N() != 3 {
		t.Errorf("an aborted HOT version's group: row %d, %d tuples", a.Row(), a.N())
	}
	u := Untagged(7, 0, 291, Frozen)
	if u.Row() != 0 || u.N() != 291 || u.tagged() {
		t.Errorf("untagged: row %d, %d tuples", u.Row(), u.N())
	}
	if same(Version(1, 2, 0, 5), Version(1, 2, 0, 6)) || !same(Untagged(1, 0, 3, 0), Untagged(1, 0, 9, 0)) || same(Version(1, 0, 0, Aborted), Version(1, 0, 0, AbortedHOT)) {
		t.Error("same() compares rows, not counts")
	}
	defer func() {
		if recover() == nil {
			t.Error("a row past the packing's range was accepted")
		}
	}()
	Version(1, 0, 0, int64(maxRowTag)<<32)
}
