// Package heap models the space inside a PostgreSQL heap relation at page
// granularity: how many tuples a page holds (from the tuple width and the
// fillfactor, as heap_insert / RelationGetBufferForTuple fill pages), dead
// tuple versions left by updates, on-access pruning (heap_page_prune_opt)
// that turns them back into free space, HOT updates (heap_update keeps the
// new version on the same page when it fits and no indexed column changed)
// and non-HOT updates, whose new version goes to the relation's insertion
// target (rd_targblock) or a newly extended page, with a new index entry.
//
// Rows are numbered 1..Rows in load order, so row r starts on block
// (r-1)/RowsPerPage; rows moved by non-HOT updates are remembered in a
// sparse map.
package heap

import "fmt"

const (
	pageBytes   = 8192
	headerBytes = 24 // PageHeaderData
)

// Table is one heap relation's page-level space state.
type Table struct {
	Name string
	// RowsPerPage is how many rows the initial load put on each page;
	// MaxRows how many fit physically (fillfactor only limits inserts).
	RowsPerPage int
	MaxRows     int
	Rows        int64

	free   []uint8 // free tuple slots per block
	dead   []uint8 // dead, unpruned tuple versions per block
	moved  map[int64]int32
	target int32 // insertion target block (rd_targblock), -1 if none

	Stats Stats
}

// Stats count heap operations.
type Stats struct {
	HOTUpdates, Updates, Inserts, Prunes, Extends uint64
}

// New creates a table of rows tuples, each tupleBytes wide including its
// 4-byte line pointer, loaded at the given fillfactor (10..100).
func New(name string, rows int64, tupleBytes, fillfactor int) (*Table, error) {
	if tupleBytes < 8 || tupleBytes > pageBytes-headerBytes {
		return nil, fmt.Errorf("table %s: tuple width %d bytes is outside [8, %d]", name, tupleBytes, pageBytes-headerBytes)
	}
	maxRows := (pageBytes - headerBytes) / tupleBytes
	// Inserts stop once free space would drop below (100-ff)% of the page
	// (RelationGetTargetPageFreeSpace).
	reserve := pageBytes * (100 - fillfactor) / 100
	perPage := (pageBytes - headerBytes - reserve) / tupleBytes
	perPage = max(perPage, 1)
	return NewPerPage(name, rows, perPage, maxRows), nil
}

// NewPerPage creates a table with an explicit layout.
func NewPerPage(name string, rows int64, perPage, maxRows int) *Table {
	maxRows = max(maxRows, perPage)
	t := &Table{Name: name, RowsPerPage: perPage, MaxRows: min(maxRows, 255), Rows: rows, target: -1}
	n := t.initialBlocks()
	t.free = make([]uint8, n)
	t.dead = make([]uint8, n)
	slack := uint8(t.MaxRows - perPage)
	for b := range t.free {
		t.free[b] = slack
	}
	if n > 0 {
		last := rows - int64(n-1)*int64(perPage)
		t.free[n-1] = uint8(t.MaxRows - int(last))
		t.target = int32(n - 1)
	}
	return t
}

func (t *Table) initialBlocks() int {
	return int((t.Rows + int64(t.RowsPerPage) - 1) / int64(t.RowsPerPage))
}

// NBlocks is the current relation size.
func (t *Table) NBlocks() int32 { return int32(len(t.free)) }

// BlockOf returns the block holding the current version of row.
func (t *Table) BlockOf(row int64) int32 {
	if t.moved != nil {
		if b, ok := t.moved[row]; ok {
			return b
		}
	}
	return int32((row - 1) / int64(t.RowsPerPage))
}

// Update applies heap_update to a row whose current version is on block b:
// prune the page first if it has dead versions and no free slot, then
// keep the new version on the page (HOT) if a slot is free. It reports
// whether it pruned and whether the update was HOT. A non-HOT caller must
// then place the new version with PlaceNew and Move the row.
func (t *Table) Update(b int32) (pruned, hot bool) {
	t.Stats.Updates++
	if t.free[b] == 0 && t.dead[b] > 0 {
		t.free[b] += t.dead[b]
		t.dead[b] = 0
		t.Stats.Prunes++
		pruned = true
	}
	t.dead[b]++
	if t.free[b] > 0 {
		t.free[b]--
		t.Stats.HOTUpdates++
		return pruned, true
	}
	return pruned, false
}

// PlaceNew finds a block for a new tuple (RelationGetBufferForTuple without
// a free space map: the insertion target if it has room, else a new page).
// extend reports that the relation must grow by one block, which the
// caller does (smgrextend) before calling Extended.
func (t *Table) PlaceNew() (block int32, extend bool) {
	if t.target >= 0 && t.free[t.target] > 0 {
		return t.target, false
	}
	return int32(len(t.free)), true
}

// Extended records that block was added to the relation.
func (t *Table) Extended(block int32) {
	for int32(len(t.free)) <= block {
		t.free = append(t.free, uint8(t.MaxRows))
		t.dead = append(t.dead, 0)
	}
	t.target = block
	t.Stats.Extends++
}

// Insert takes a free slot on block (heap_insert or the new version of a
// non-HOT update).
func (t *Table) Insert(block int32) {
	if t.free[block] > 0 {
		t.free[block]--
	}
	t.Stats.Inserts++
}

// Move records that row's current version now lives on block.
func (t *Table) Move(row int64, block int32) {
	if t.moved == nil {
		t.moved = make(map[int64]int32)
	}
	t.moved[row] = block
}

// Moved returns how many rows live away from their load position.
func (t *Table) Moved() int { return len(t.moved) }
