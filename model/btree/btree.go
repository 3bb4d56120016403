// Package btree models the page structure of a PostgreSQL B-tree index
// built by sorting (CREATE INDEX / pgbench -i), as nbtree's nbtsort.c lays
// it out: block 0 is the metapage, the leaves follow in key order, then
// each upper level, the root last. Leaves are filled to the index
// fillfactor (90 %, BTREE_DEFAULT_FILLFACTOR), internal pages to 70 %
// (BTREE_NONLEAF_FILLFACTOR). A lookup pins the root, every internal
// level and one leaf (_bt_search); the metapage is cached in the relcache
// (_bt_getroot uses rd_amcache) and not pinned per lookup.
//
// Keys are the integers 1..N in order, as pgbench's aid/tid/bid are.
package btree

// Page geometry for an int4 or int8 key: an index tuple is an 8-byte
// header plus the key, MAXALIGNed to 16 bytes, plus a 4-byte line pointer.
const (
	pageBytes    = 8192
	headerBytes  = 24 // PageHeaderData
	specialBytes = 16 // BTPageOpaqueData
	itemBytes    = 16 + 4
	// MaxItems is how many index tuples fit on a page.
	MaxItems = (pageBytes - headerBytes - specialBytes) / itemBytes
	// LeafItems is the 90 % leaf fill of a sorted build (366 per leaf,
	// which gives pgbench_accounts_pkey its measured ~274.2 pages per
	// scale factor: docs/model.md).
	LeafItems = MaxItems * 90 / 100
	// InnerItems is the 70 % fill of internal pages.
	InnerItems = MaxItems * 70 / 100
)

// Index is a B-tree over keys 1..Keys.
type Index struct {
	Keys int64
	// Levels[0] is the leaf level; Levels[len-1] is the root (one page).
	Levels []Level
}

// Level is a contiguous run of blocks at one tree level.
type Level struct {
	First int32 // block number of the level's first page
	Pages int32
	Span  int64 // keys covered by one page at this level
}

// New lays out a sorted-build index over n keys.
func New(n int64) *Index {
	if n < 1 {
		n = 1
	}
	x := &Index{Keys: n}
	block := int32(1) // block 0 is the metapage
	span := int64(LeafItems)
	pages := int32((n + span - 1) / span)
	for {
		x.Levels = append(x.Levels, Level{First: block, Pages: pages, Span: span})
		block += pages
		if pages == 1 {
			break
		}
		span *= InnerItems
		pages = int32((n + span - 1) / span)
	}
	return x
}

// NBlocks is the index size in blocks, metapage included.
func (x *Index) NBlocks() int32 {
	top := x.Levels[len(x.Levels)-1]
	return top.First + top.Pages
}

// Height is the number of levels a lookup visits (root to leaf).
func (x *Index) Height() int { return len(x.Levels) }

// Path appends the blocks a lookup of key pins, root first, leaf last.
func (x *Index) Path(key int64, out []int32) []int32 {
	if key < 1 {
		key = 1
	}
	if key > x.Keys {
		key = x.Keys
	}
	for l := len(x.Levels) - 1; l >= 0; l-- {
		lv := x.Levels[l]
		out = append(out, lv.First+int32((key-1)/lv.Span))
	}
	return out
}

// Leaf returns the leaf block holding key.
func (x *Index) Leaf(key int64) int32 {
	lv := x.Levels[0]
	if key < 1 {
		key = 1
	}
	if key > x.Keys {
		key = x.Keys
	}
	return lv.First + int32((key-1)/lv.Span)
}
