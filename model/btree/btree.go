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
// Keys inserted after the build in ascending order (N+1, N+2, ...) grow the
// tree at its right edge as nbtinsert.c's rightmost splits do: the
// rightmost leaf fills to the fillfactor, then a new page is allocated at
// the relation's end and a downlink added to the parent, splitting it in
// turn and, when the root splits, adding a level (Append).
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

// Index is a B-tree over keys 1..Keys, plus keys appended after the build.
type Index struct {
	Keys int64
	// Levels[0] is the leaf level; Levels[len-1] is the root (one page).
	Levels []Level
	// Appended counts keys Keys+1.. added by Append; blocks is the
	// relation's size in blocks.
	Appended int64
	blocks   int32
}

// Level is a contiguous run of blocks at one tree level, as the build laid
// it out, followed by the pages Append added at the level's right edge.
type Level struct {
	First int32 // block number of the level's first page
	Pages int32
	Span  int64 // keys covered by one page at this level
	// Grown are the pages Append added, in key order; the last built page
	// (if any) and then each grown page hold up to the level's capacity.
	Grown []Page
	// lastN is the number of entries on the level's rightmost page.
	lastN int
}

// Page is a page Append added: its block and the first key it covers.
type Page struct {
	Block    int32
	FirstKey int64
}

// New lays out a sorted-build index over n keys.
func New(n int64) *Index {
	n = max(n, 0) // an empty index is one empty leaf (the root)
	x := &Index{Keys: n}
	block := int32(1) // block 0 is the metapage
	span := int64(LeafItems)
	pages := max(int32((n+span-1)/span), 1)
	below := n // entries of the level below: keys for the leaves
	for {
		lastN := int(below - int64(pages-1)*int64(span/spanBelow(x)))
		x.Levels = append(x.Levels, Level{First: block, Pages: pages, Span: span, lastN: lastN})
		block += pages
		if pages == 1 {
			break
		}
		below = int64(pages)
		span *= InnerItems
		pages = max(int32((n+span-1)/span), 1)
	}
	x.blocks = block
	return x
}

// spanBelow is the span of the level under the one being laid out (1 for
// the leaves), so that lastN counts entries: keys on a leaf, downlinks on
// an internal page.
func spanBelow(x *Index) int64 {
	if len(x.Levels) == 0 {
		return 1
	}
	return x.Levels[len(x.Levels)-1].Span
}

// capacity is how many entries a page of level l holds before a rightmost
// split: the leaf fillfactor for leaves, BTREE_NONLEAF_FILLFACTOR above.
func capacity(l int) int {
	if l == 0 {
		return LeafItems
	}
	return InnerItems
}

// Append adds key (the largest so far: Keys+Appended+1) at the tree's
// right edge. It returns the blocks of the pages the insertion allocated
// (none usually; one per level that split, the new root last), numbered
// after the relation's current end, which the caller extends by them.
func (x *Index) Append(key int64) []int32 {
	x.Appended++
	var added []int32
	for l := 0; ; l++ {
		lv := &x.Levels[l]
		if lv.lastN < capacity(l) {
			lv.lastN++
			return added
		}
		// The rightmost page is full: a new page to its right takes the
		// key (or the downlink to the page below), and the parent gets a
		// downlink to it.
		blk := x.blocks
		x.blocks++
		added = append(added, blk)
		lv.Grown = append(lv.Grown, Page{Block: blk, FirstKey: key})
		lv.lastN = 1
		if l == len(x.Levels)-1 {
			// The root split: a new root above the two pages.
			root := x.blocks
			x.blocks++
			added = append(added, root)
			x.Levels = append(x.Levels, Level{Span: lv.Span * InnerItems, Grown: []Page{{Block: root, FirstKey: 1}}, lastN: 2})
			return added
		}
	}
}

// Full reports whether leaf is the rightmost leaf and full, so that the
// next Append splits it.
func (x *Index) Full(leaf int32) bool {
	return x.Leaf(x.Keys+x.Appended+1) == leaf && x.Levels[0].lastN >= capacity(0)
}

// pageFor returns the block of level l holding key.
func (x *Index) pageFor(l int, key int64) int32 {
	lv := x.Levels[l]
	if n := len(lv.Grown); n > 0 && key >= lv.Grown[0].FirstKey {
		i := n - 1
		for i > 0 && lv.Grown[i].FirstKey > key {
			i--
		}
		return lv.Grown[i].Block
	}
	if lv.Pages == 0 {
		return lv.Grown[0].Block
	}
	k := min(max(key, 1), x.Keys)
	return lv.First + min(int32((k-1)/lv.Span), lv.Pages-1)
}

// Rightmost reports whether key lies on the rightmost leaf.
func (x *Index) Rightmost(key int64) bool {
	lv := x.Levels[0]
	last := lv.First + lv.Pages - 1
	if n := len(lv.Grown); n > 0 {
		last = lv.Grown[n-1].Block
	}
	return x.pageFor(0, key) == last
}

// NBlocks is the index size in blocks, metapage included.
func (x *Index) NBlocks() int32 { return x.blocks }

// Height is the number of levels a lookup visits (root to leaf).
func (x *Index) Height() int { return len(x.Levels) }

// Path appends the blocks a lookup of key pins, root first, leaf last.
func (x *Index) Path(key int64, out []int32) []int32 {
	for l := len(x.Levels) - 1; l >= 0; l-- {
		out = append(out, x.pageFor(l, key))
	}
	return out
}

// Leaf returns the leaf block holding key.
func (x *Index) Leaf(key int64) int32 { return x.pageFor(0, key) }
