package heap

import "testing"

// pgbench_accounts: 121-byte tuples MAXALIGNed to 128 plus a 4-byte line
// pointer give 61 rows per 8 kB page and 1639.34 pages per 100000 rows
// (pg-buffers-facts.md §6.2: 1640 pages at scale 1, 16394 at scale 10).
func TestPGBenchAccountsLayout(t *testing.T) {
	for _, c := range []struct {
		rows   int64
		blocks int32
	}{{100000, 1640}, {1000000, 16394}} {
		tb, err := New("accounts", c.rows, 132, 100)
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
}

// With fillfactor 100 the first update of a row on a full page cannot be
// HOT; once the page has been pruned, later updates are HOT
// (pg-buffers-facts.md §6.2 "Side effect to model").
func TestHOTAfterPrune(t *testing.T) {
	tb, _ := New("accounts", 61*3, 132, 100)
	if tb.NBlocks() != 3 {
		t.Fatalf("%d blocks", tb.NBlocks())
	}
	b := tb.BlockOf(5)
	if _, hot := tb.Update(b); hot {
		t.Fatal("first update of a full page was HOT")
	}
	blk, ext := tb.PlaceNew()
	if !ext || blk != 3 {
		t.Fatalf("PlaceNew = %d, %v; want extension to block 3", blk, ext)
	}
	tb.Extended(blk)
	tb.Insert(blk)
	tb.Move(5, blk)
	if tb.BlockOf(5) != 3 {
		t.Fatal("moved row not found on its new block")
	}
	// Second update of another row on block 0: prune reclaims the dead
	// version, the update is HOT.
	pruned, hot := tb.Update(b)
	if !pruned || !hot {
		t.Fatalf("second update: pruned=%v hot=%v, want both", pruned, hot)
	}
	// The next new tuple goes to the target block, which still has room.
	if blk2, ext2 := tb.PlaceNew(); ext2 || blk2 != 3 {
		t.Fatalf("PlaceNew = %d, %v; want target 3", blk2, ext2)
	}
}

func TestFillfactorLeavesRoomForHOT(t *testing.T) {
	tb, _ := New("accounts", 1000, 132, 90)
	if tb.RowsPerPage >= tb.MaxRows {
		t.Fatalf("fillfactor 90: %d rows per page of %d", tb.RowsPerPage, tb.MaxRows)
	}
	if _, hot := tb.Update(0); !hot {
		t.Fatal("update on a page with fillfactor slack was not HOT")
	}
}
