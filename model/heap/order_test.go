package heap

import "testing"

// A load-order permutation is a bijection of 1..n whose inverse is Row,
// and it scatters neighbouring keys: the keys 1..n/10 land on about as
// many distinct pages as the balls-in-bins expectation, not on n/10/RowsPerPage.
func TestPermutationIsABijection(t *testing.T) {
	for _, n := range []int64{1, 2, 3, 5, 17, 1000, 4097} {
		p := NewPermutation(n, 42)
		seen := make([]bool, n+1)
		for r := int64(1); r <= n; r++ {
			pos := p.Position(r)
			if pos < 1 || pos > n || seen[pos] {
				t.Fatalf("n=%d: row %d at position %d (out of range or taken)", n, r, pos)
			}
			seen[pos] = true
			if back := p.Row(pos); back != r {
				t.Fatalf("n=%d: Row(Position(%d)) = %d", n, r, back)
			}
		}
		if p.Position(n+1) != n+1 || p.Row(0) != 0 {
			t.Fatalf("n=%d: rows outside 1..n must keep their number", n)
		}
	}
}

func TestRandomOrderSpreadsAKeyRange(t *testing.T) {
	const rows, perPage = 200000, 61
	tb := NewPerPage("t", rows, perPage, perPage, Group{}, true)
	tb.SetLoadOrder(NewPermutation(rows, 7))
	pages := map[int32]bool{}
	for r := int64(1000); r < 1000+3000; r++ {
		pages[tb.BlockOf(r)] = true
	}
	// 3000 keys over 3279 pages: 3279 x (1 - (1 - 1/3279)^3000) = 1968.
	if n := len(pages); n < 1900 || n > 2040 {
		t.Fatalf("3000 keys in random order on %d pages, want about 1968", n)
	}
	// The first row on block 0 is a row the permutation put there.
	if b := tb.BlockOf(tb.FirstRowOn(5)); b != 5 {
		t.Fatalf("FirstRowOn(5) is on block %d", b)
	}
	tb.SetLoadOrder(nil)
	if b := tb.BlockOf(1000 + 3000 - 1); b != (3999-1)/perPage {
		t.Fatalf("key order: block %d", b)
	}
}
