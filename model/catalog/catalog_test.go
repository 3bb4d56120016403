package catalog

import "testing"

func TestGIDsAreDenseAndInvertible(t *testing.T) {
	c := New()
	a := c.Add("a", Heap, 2500)
	b := c.Add("b", BTree, 3)
	if got := c.Rel(a).NBlocks; got != 2500 {
		t.Fatalf("a has %d blocks", got)
	}
	seen := map[int32]bool{}
	for _, r := range []RelID{a, b} {
		for blk := int32(0); blk < c.Rel(r).NBlocks; blk++ {
			g := c.GID(r, blk)
			if seen[g] {
				t.Fatalf("gid %d reused", g)
			}
			seen[g] = true
			if g >= c.GIDSpace() {
				t.Fatalf("gid %d beyond space %d", g, c.GIDSpace())
			}
			rr, bb := c.Locate(g)
			if rr != r || bb != blk {
				t.Fatalf("Locate(%d) = %d/%d, want %d/%d", g, rr, bb, r, blk)
			}
		}
	}
	// Growing a relation after another one was created allocates a new
	// chunk at the end, leaving existing gids in place.
	before := c.GID(b, 0)
	for c.Rel(a).NBlocks < 3100 {
		blk, g := c.Extend(a)
		if c.GID(a, blk) != g {
			t.Fatalf("Extend returned gid %d, GID says %d", g, c.GID(a, blk))
		}
		if rr, bb := c.Locate(g); rr != a || bb != blk {
			t.Fatalf("Locate after extend = %d/%d", rr, bb)
		}
	}
	if c.GID(b, 0) != before {
		t.Fatal("extending a moved b's pages")
	}
}
