package btree

import "testing"

// pgbench_accounts_pkey measured on PostgreSQL 15 (docs/model.md
// §6.2): 276 pages at scale 1, 2745 at scale 10, 27422 at scale 100, i.e.
// ~274.2 pages per scale factor; depth 2 at s=1 and 3 at s=100.
func TestPGBenchAccountsPkeySize(t *testing.T) {
	cases := []struct {
		scale  int64
		pages  int32
		height int
	}{{1, 276, 2}, {10, 2745, 3}, {100, 27422, 3}}
	for _, c := range cases {
		x := New(100000 * c.scale)
		got := x.NBlocks()
		// Within 0.5 %: the real build's page boundaries differ slightly.
		if d := float64(got-c.pages) / float64(c.pages); d > 0.005 || d < -0.005 {
			t.Errorf("scale %d: %d pages, measured %d", c.scale, got, c.pages)
		}
		if x.Height() != c.height {
			t.Errorf("scale %d: height %d, want %d", c.scale, x.Height(), c.height)
		}
	}
	if LeafItems != 366 {
		t.Errorf("LeafItems = %d, want 366 (16 B tuple + 4 B line pointer, 90 %% fill)", LeafItems)
	}
}

func TestPathVisitsEveryLevelOnce(t *testing.T) {
	x := New(500_000_000) // scale 5000
	if x.Height() != 4 {
		t.Fatalf("height %d, want 4 for 500M keys", x.Height())
	}
	p := x.Path(123_456_789, nil)
	if len(p) != x.Height() {
		t.Fatalf("path %v", p)
	}
	root := x.Levels[len(x.Levels)-1]
	if p[0] != root.First {
		t.Errorf("path starts at %d, root is %d", p[0], root.First)
	}
	if p[len(p)-1] != x.Leaf(123_456_789) {
		t.Errorf("path ends at %d, leaf is %d", p[len(p)-1], x.Leaf(123_456_789))
	}
	for i, b := range p {
		lv := x.Levels[len(x.Levels)-1-i]
		if b < lv.First || b >= lv.First+lv.Pages {
			t.Errorf("level %d block %d outside [%d,%d)", i, b, lv.First, lv.First+lv.Pages)
		}
	}
	// Neighbouring keys share a leaf; keys a leaf apart do not.
	if x.Leaf(1) != x.Leaf(LeafItems) || x.Leaf(1) == x.Leaf(LeafItems+1) {
		t.Error("leaf boundaries wrong")
	}
}

// Ascending inserts grow the tree at its right edge: the rightmost leaf
// fills to LeafItems, then a new page is added at the relation's end; when
// the root splits the tree gains a level. An empty index starts as one
// leaf, the root (nbtinsert.c rightmost splits, _bt_newroot).
func TestAppendGrowsTheRightEdge(t *testing.T) {
	x := New(0)
	if x.NBlocks() != 2 || x.Height() != 1 {
		t.Fatalf("empty index: %d blocks, height %d", x.NBlocks(), x.Height())
	}
	var allocated int
	for k := int64(1); k <= 100000; k++ {
		before := x.NBlocks()
		added := x.Append(k)
		for i, b := range added {
			if b != before+int32(i) {
				t.Fatalf("key %d: allocated block %d, want %d (the relation's end)", k, b, before+int32(i))
			}
		}
		if len(added) > 0 && x.Height() == 1 {
			t.Fatalf("key %d: a split without a new root", k)
		}
		allocated += len(added)
		if got := x.Leaf(k); got != x.Path(k, nil)[x.Height()-1] {
			t.Fatalf("key %d: leaf %d, path %v", k, got, x.Path(k, nil))
		}
	}
	leaves := (100000 + LeafItems - 1) / LeafItems
	if x.Height() != 2 {
		t.Errorf("100000 ascending keys: height %d, want 2 (%d leaves under one root)", x.Height(), leaves)
	}
	if int(x.NBlocks()) != 1+leaves+1 || allocated != leaves {
		t.Errorf("%d blocks (%d allocated), want meta + %d leaves + root", x.NBlocks(), allocated, leaves)
	}
	// Neighbours share a leaf; the first and last keys do not.
	if x.Leaf(1) == x.Leaf(100000) || x.Leaf(1) != x.Leaf(LeafItems) || x.Leaf(LeafItems) == x.Leaf(LeafItems+1) {
		t.Error("leaf boundaries of appended keys")
	}
	if !x.Rightmost(100000) || x.Rightmost(1) {
		t.Error("Rightmost")
	}
}
