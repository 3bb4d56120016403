// Package heap models a PostgreSQL heap relation at page granularity,
// without one object per tuple:
//
//   - each page holds a few tuple groups: tuples with the same xmin, xmax
//     and hint bits (t_infomask HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID,
//     HEAP_XMAX_COMMITTED, HEAP_XMAX_INVALID; frozen = both xmin bits),
//     and a count;
//   - pages never changed since the table was loaded share one implicit
//     state (the table's base group), so a 500-million-row table costs a
//     few bytes per page;
//   - PD_ALL_VISIBLE is a bit per page (the visibility map's all-visible
//     bit is always equal to it: PostgreSQL sets and clears both together,
//     heapam.c heap_insert/heap_update/heap_delete, vacuumlazy.c);
//   - how many tuples fit (tuple width and fillfactor, as heap_insert and
//     RelationGetBufferForTuple fill pages), on-access pruning of dead
//     versions (heap_page_prune_opt), HOT updates (the new version stays on
//     the page when it fits and no indexed column changed), and non-HOT
//     updates, whose new version goes where the caller places it (the
//     model's RelationGetBufferForTuple).
//
// Rows are numbered 1..Rows by key; row r starts on block (r-1)/RowsPerPage
// when the load was in key order, else at its load position (order.go). A version written by an UPDATE or DELETE of a row is a
// group of its own tagged with the row (Group.Row), so the page itself says
// which tuple is the row's; the blocks of rows moved by non-HOT updates
// are kept in chunks of 1024 rows, allocated when a row of the chunk first
// moves. When VACUUM finds a page all-visible, its live tuples are
// visible to every transaction now and later, so they are folded into one
// frozen group and the page costs a few bytes again (Collapse): long runs
// reach a steady state instead of growing with every transaction.
package heap

import (
	"fmt"
	"slices"
)

const (
	pageBytes   = 8192
	headerBytes = 24 // PageHeaderData
)

// Hint bits (htup_details.h t_infomask).
const (
	XminCommitted uint8 = 1 << iota
	XminInvalid
	XmaxCommitted
	XmaxInvalid
	// Frozen is HEAP_XMIN_FROZEN (both xmin bits, 9.4+).
	Frozen = XminCommitted | XminInvalid
)

// Group is a run of tuples on one page with the same header state.
//
// It is 16 bytes: a long run keeps one for every row version an UPDATE
// or DELETE wrote that no VACUUM has reached yet (a simulated week of
// pgbench at scale 5000 holds about a hundred million). The tuple count
// and the row share a field: a row's version is one tuple, and loaded and
// inserted tuples belong to no row (tag 0, lo the count); tags 1-253 hold
// a row's version, the row's number (tag-1)<<32 | lo (below 2^40: a run
// addresses at most 2^31 pages of at most 291 tuples); an aborted
// update's versions (tagAborted, tagAbortedHOT) keep a count.
type Group struct {
	Xmin, Xmax uint32 // Xmax 0: not deleted or updated
	lo         uint32
	// Cmd is the command of its inserting transaction that wrote the
	// tuples, where it matters: an UPDATE's new versions, which the
	// statement's own scan must not update again (HeapTupleSatisfiesMVCC:
	// a tuple whose cmin is not before the snapshot's curcid was
	// "inserted after scan started"); 0 otherwise.
	Cmd   uint16
	Hints uint8
	tag   uint8
}

const (
	tagAbortedHOT = 254
	tagAborted    = 255
	maxRowTag     = 253
)

// Untagged returns a group of n tuples that no key names (a load's, an
// INSERT's or COPY's).
func Untagged(xmin, xmax uint32, n uint16, hints uint8) Group {
	return Group{Xmin: xmin, Xmax: xmax, lo: uint32(n), Hints: hints}
}

// Version returns row's version (one tuple) written or ended by an UPDATE
// or DELETE; row may be Aborted or AbortedHOT.
func Version(xmin, xmax uint32, hints uint8, row int64) Group {
	g := Group{Xmin: xmin, Xmax: xmax, Hints: hints}
	g.setRow(row)
	return g
}

// N is the number of tuples.
func (g Group) N() uint16 {
	if g.tagged() {
		return 1
	}
	return uint16(g.lo)
}

// SetN sets the number of tuples of a group that is no row's version (a
// row's version is one tuple).
func (g *Group) SetN(n uint16) {
	if g.tagged() {
		panic("heap: SetN on a row's version")
	}
	g.lo = uint32(n)
}

// Row is the row a version written by an UPDATE or DELETE belongs to (its
// N is 1); 0 for loaded and inserted tuples, which no key names
// individually, and Aborted or AbortedHOT for the versions of an update
// that rolled back.
func (g Group) Row() int64 {
	switch g.tag {
	case 0:
		return 0
	case tagAborted:
		return Aborted
	case tagAbortedHOT:
		return AbortedHOT
	}
	return int64(g.tag-1)<<32 | int64(g.lo)
}

// setRow tags g with row (keeping the count of an aborted version).
func (g *Group) setRow(row int64) {
	switch {
	case row == Aborted:
		if g.tagged() {
			g.lo = 1
		}
		g.tag = tagAborted
	case row == AbortedHOT:
		if g.tagged() {
			g.lo = 1
		}
		g.tag = tagAbortedHOT
	case row > 0 && row < maxRowTag<<32:
		g.tag, g.lo = uint8(row>>32)+1, uint32(row)
	default:
		panic(fmt.Sprintf("heap: row %d cannot be a version's (1 to %d)", row, int64(maxRowTag)<<32-1))
	}
}

// one is g as a single tuple.
func (g Group) one() Group {
	if !g.tagged() {
		g.lo = 1
	}
	return g
}

// rowTag is the (tag, lo) of row's versions, row > 0.
func rowTag(row int64) (uint8, uint32) { return uint8(row>>32) + 1, uint32(row) }

// tagged reports whether g is a row's version (Row() > 0).
func (g Group) tagged() bool { return g.tag-1 < maxRowTag }

// Aborted tags the version an aborted update left behind on another page
// than the row's: garbage, no longer any row's, the root of a chain of
// its own (it has its own index entry), so pruning leaves its line pointer
// LP_DEAD. AbortedHOT tags one an aborted HOT update left on the row's own
// page: a heap-only tuple, whose line pointer pruning frees at once.
const (
	Aborted    = -1
	AbortedHOT = -2
)

// FrozenXid is FrozenTransactionId, the xmin of the tuples Collapse folds.
const FrozenXid = 2

// same reports whether two groups have the same header (and row).
func same(a, b Group) bool {
	return a.Xmin == b.Xmin && a.Xmax == b.Xmax && a.Hints == b.Hints && a.tag == b.tag && (!a.tagged() || a.lo == b.lo) && a.Cmd == b.Cmd
}

// Table is one heap relation's page-level state.
type Table struct {
	Name string
	// RowsPerPage is how many rows the initial load put on each page;
	// MaxRows how many fit physically (fillfactor only limits inserts).
	RowsPerPage int
	MaxRows     int
	Rows        int64 // rows loaded initially

	base    Group // state of every tuple on a never-changed page
	loaded  int32 // blocks holding loaded rows
	nblocks int32

	state   []int32   // per block: 0 = base state, > 0 index into pages, < 0 a collapsed page of -state frozen tuples
	pages   [][]Group // explicit page states; pages[0] unused
	ntup    []uint16  // tuples on each explicit page (the sum of its groups' N)
	pxid    []uint32  // pd_prune_xid of each explicit page: oldest xmax left to prune, 0 = none
	freeIdx []int32   // recycled indexes into pages
	allVis  []uint64  // PD_ALL_VISIBLE / VM all-visible bit per block

	// loadOrder is the load order when it is not the key's (order.go).
	loadOrder *Permutation

	moved  []movedRows // per chunk of rows: the blocks of rows not on their load block
	nmoved int         // rows not on their load block
	// prunedRows is Prune's scratch list of the tagged versions it removed.
	prunedRows []int64
	// dead counts each block's LP_DEAD line pointers: what pruning left
	// of the chains it removed whole, which stay until VACUUM has removed
	// the index entries pointing at them (its second heap pass).
	// (2 bytes a page, allocated up to the last page that had one.)
	dead []uint16
	// TrackDeadEntries makes Prune list, in PendingDead, what its LP_DEAD
	// items were (a table with an index: its entries for them wait for
	// VACUUM's index pass); the caller takes them after each Prune.
	TrackDeadEntries bool
	PendingDead      []DeadEntry

	chain  chainScratch // RowChain's working space
	hinted []Group      // SetHintSets' scratch list
	memo   map[chainKey]*chainMemo

	Stats Stats
}

// Stats count heap operations.
type Stats struct {
	HOTUpdates, Updates, Inserts, Deletes, Prunes, Extends uint64
	PrunedTuples, Collapses                                uint64
}

// Layout computes tuples per page for rows of width bytes of user data (a
// 23-byte tuple header MAXALIGNed to 24, the data MAXALIGNed, a 4-byte line
// pointer) at a fillfactor.
func Layout(width, fillfactor int) (perPage, maxRows int, err error) {
	if width < 0 || width > pageBytes-headerBytes-32 {
		return 0, 0, fmt.Errorf("row width %d bytes is outside [0, %d]", width, pageBytes-headerBytes-32)
	}
	tuple := 24 + (width+7)/8*8 + 4
	return LayoutTuple(tuple, fillfactor)
}

// LayoutTuple is Layout for a known on-page tuple size (line pointer
// included).
func LayoutTuple(tupleBytes, fillfactor int) (perPage, maxRows int, err error) {
	if tupleBytes < 8 || tupleBytes > pageBytes-headerBytes {
		return 0, 0, fmt.Errorf("tuple size %d bytes is outside [8, %d]", tupleBytes, pageBytes-headerBytes)
	}
	maxRows = min((pageBytes-headerBytes)/tupleBytes, 291) // MaxHeapTuplesPerPage
	// Inserts stop once free space would drop below (100-ff)% of the page
	// (RelationGetTargetPageFreeSpace).
	reserve := pageBytes * (100 - fillfactor) / 100
	perPage = max((pageBytes-headerBytes-reserve)/tupleBytes, 1)
	return min(perPage, maxRows), maxRows, nil
}

// New creates a table of rows tuples of tupleBytes each (line pointer
// included) loaded at fillfactor, every loaded tuple in state base.
func New(name string, rows int64, tupleBytes, fillfactor int, base Group, allVisible bool) (*Table, error) {
	perPage, maxRows, err := LayoutTuple(tupleBytes, fillfactor)
	if err != nil {
		return nil, fmt.Errorf("table %s: %v", name, err)
	}
	return NewPerPage(name, rows, perPage, maxRows, base, allVisible), nil
}

// NewPerPage creates a table with an explicit layout.
func NewPerPage(name string, rows int64, perPage, maxRows int, base Group, allVisible bool) *Table {
	maxRows = max(maxRows, perPage)
	t := &Table{Name: name, RowsPerPage: perPage, MaxRows: maxRows, Rows: rows, base: base}
	n := int32((rows + int64(perPage) - 1) / int64(perPage))
	t.loaded = n
	t.pages = [][]Group{nil}
	t.ntup = []uint16{0}
	t.pxid = []uint32{0}
	t.grow(n)
	if allVisible {
		for b := int32(0); b < n; b++ {
			t.setAllVisible(b, true)
		}
	}
	return t
}

func (t *Table) grow(n int32) {
	if t.nblocks == 0 && n > 1 {
		// The initial load: size the per-page slices once.
		t.state = make([]int32, 0, n)
		t.allVis = make([]uint64, 0, (n+63)/64)
	}
	for t.nblocks < n {
		t.state = append(t.state, 0)
		if int(t.nblocks)/64 >= len(t.allVis) {
			t.allVis = append(t.allVis, 0)
		}
		if t.nblocks >= t.loaded {
			// A new page starts empty: give it an explicit, empty state.
			t.state[t.nblocks] = t.newState(nil)
		}
		t.nblocks++
	}
}

func (t *Table) newState(g []Group) int32 {
	n := uint16(0)
	for _, x := range g {
		n += x.N()
	}
	if k := len(t.freeIdx); k > 0 {
		i := t.freeIdx[k-1]
		t.freeIdx = t.freeIdx[:k-1]
		t.pages[i], t.ntup[i], t.pxid[i] = g, n, 0
		return i
	}
	t.pages = append(t.pages, g)
	t.ntup = append(t.ntup, n)
	t.pxid = append(t.pxid, 0)
	return int32(len(t.pages) - 1)
}

// NBlocks is the current relation size.
func (t *Table) NBlocks() int32 { return t.nblocks }

// rowsOnLoaded is how many loaded rows block b (< loaded) holds.
func (t *Table) rowsOnLoaded(b int32) int {
	if b == t.loaded-1 {
		return int(t.Rows - int64(b)*int64(t.RowsPerPage))
	}
	return t.RowsPerPage
}

// Groups returns block b's tuple groups. For a never-changed page it
// returns a one-element view into buf; callers must not keep it.
func (t *Table) Groups(b int32, buf *[1]Group) []Group {
	if s := t.state[b]; s > 0 {
		return t.pages[s]
	} else if s < 0 {
		buf[0] = Untagged(FrozenXid, 0, uint16(-s), Frozen)
		return buf[:]
	}
	buf[0] = t.base
	buf[0].SetN(uint16(t.rowsOnLoaded(b)))
	return buf[:]
}

// Explicit reports whether block b has its own state (has changed since load).
func (t *Table) Explicit(b int32) bool { return t.state[b] != 0 }

// mut returns block b's groups for modification, materialising the base
// state if needed.
func (t *Table) mut(b int32) *[]Group {
	switch s := t.state[b]; {
	case s == 0:
		g := t.base
		g.SetN(uint16(t.rowsOnLoaded(b)))
		t.state[b] = t.newState([]Group{g})
	case s < 0:
		t.state[b] = t.newState([]Group{Untagged(FrozenXid, 0, uint16(-s), Frozen)})
	}
	return &t.pages[t.state[b]]
}

// SetHints ORs hint bits into every group of block b matching xid as xmin
// (xminBits) or xmax (xmaxBits), merging groups that become identical.
func (t *Table) SetHints(b int32, xid uint32, xminBits, xmaxBits uint8) {
	t.SetGroupHints(b, func(g Group) uint8 {
		var bits uint8
		if xminBits != 0 && g.Xmin == xid {
			bits |= xminBits
		}
		if xmaxBits != 0 && g.Xmax == xid && g.Xmax != 0 {
			bits |= xmaxBits
		}
		return bits
	})
}

// SetGroupHints sets hint bits on every group of block b as decided by fn,
// which returns the bits to OR in for a group (0 for none).
func (t *Table) SetGroupHints(b int32, fn func(g Group) uint8) {
	gs := t.mut(b)
	var changed []Group
	a := *gs
	// Groups that keep their hints stay in order, moved down over the
	// changed ones; until the first change each is already in place, so
	// a page whose hints are all set (most visits) is only read.
	n := 0
	for i, g := range a {
		if bits := fn(g); bits != 0 && g.Hints|bits != g.Hints {
			g.Hints |= bits
			changed = append(changed, g)
			continue
		}
		if n != i {
			a[n] = g
		}
		n++
	}
	if len(changed) == 0 {
		return
	}
	clear(a[n:])
	*gs = a[:n]
	for _, g := range changed {
		t.add(gs, g)
	}
}

// HintSets are the xids a visibility check found committed or aborted
// whose tuples get hint bits (SetHintBits), by side: [0] as xmin, [1] as
// xmax.
type HintSets struct {
	Committed, Invalid [2][]uint32
}

// Bits are the hint bits hs sets on g's tuples: for each side whose bits
// are both unset, COMMITTED or INVALID where its xid is in that set.
func (hs *HintSets) Bits(g Group) uint8 {
	var bits uint8
	if g.Hints&(XminCommitted|XminInvalid) == 0 {
		if slices.Contains(hs.Committed[0], g.Xmin) {
			bits |= XminCommitted
		}
		if slices.Contains(hs.Invalid[0], g.Xmin) {
			bits |= XminInvalid
		}
	}
	if g.Xmax != 0 && g.Hints&(XmaxCommitted|XmaxInvalid) == 0 {
		if slices.Contains(hs.Committed[1], g.Xmax) {
			bits |= XmaxCommitted
		}
		if slices.Contains(hs.Invalid[1], g.Xmax) {
			bits |= XmaxInvalid
		}
	}
	return bits
}

// SetHintSets is SetGroupHints with hs.Bits, the tuples of a page's
// visibility check: it returns how many tuples got bits. Groups whose
// hints are all set (most of a page's, most visits) are passed over
// without a call.
func (t *Table) SetHintSets(b int32, hs *HintSets) (tuples int) {
	gs := t.mut(b)
	a := *gs
	changed := t.hinted[:0]
	n := 0
	for i, g := range a {
		if g.Hints&(XminCommitted|XminInvalid) == 0 || g.Xmax != 0 && g.Hints&(XmaxCommitted|XmaxInvalid) == 0 {
			if bits := hs.Bits(g); bits != 0 {
				g.Hints |= bits
				tuples += int(g.N())
				changed = append(changed, g)
				continue
			}
		}
		if n != i {
			a[n] = g
		}
		n++
	}
	t.hinted = changed[:0]
	if len(changed) == 0 {
		return 0
	}
	clear(a[n:])
	*gs = a[:n]
	for _, g := range changed {
		t.add(gs, g)
	}
	return tuples
}

// HintGroup ORs bits into the tuples of block b whose header is g's (xmin,
// xmax and hints; g.N is ignored), merging with an identical group.
func (t *Table) HintGroup(b int32, g Group, bits uint8) {
	gs := t.mut(b)
	for i := range *gs {
		o := (*gs)[i]
		if same(o, g) {
			last := len(*gs) - 1
			(*gs)[i] = (*gs)[last]
			*gs = (*gs)[:last]
			o.Hints |= bits
			t.add(gs, o)
			return
		}
	}
}

// add puts g into the groups, joining an identical group if there is one.
func (t *Table) add(gs *[]Group, g Group) {
	if g.N() == 0 {
		return
	}
	if g.tagged() {
		// A row's version is a group of its own: no other group has its
		// row and header (the row's other versions differ in xmin or
		// xmax), so there is nothing to merge it with.
		t.push(gs, g)
		return
	}
	for i := range *gs {
		if o := &(*gs)[i]; same(*o, g) {
			o.lo += uint32(g.N())
			return
		}
	}
	t.push(gs, g)
}

// push appends g. A full list grows by a quarter (at least one place),
// not by doubling as append does: a long run keeps millions of pages'
// lists that stop growing at a few groups to a few tens (a week of
// pgbench at scale 5000 leaves about ten on each accounts page: the
// versions of its rows' HOT updates, which doubling gave sixteen
// places), and 16-byte groups fill Go's size classes exactly up to
// sixteen places. A page holds at most MaxRows tuples, so at most that
// many groups: the list never grows past MaxRows (a page of inserts, one
// group per inserting transaction, once took 256 places for its 157
// tuples).
func (t *Table) push(gs *[]Group, g Group) {
	a := *gs
	if n := len(a); n == cap(a) {
		c := n + n/4 + 1
		if c > t.MaxRows {
			c = max(t.MaxRows, n+1)
		}
		b := make([]Group, n, c)
		copy(b, a)
		a = b
	}
	*gs = append(a, g)
}

// merge combines groups with identical headers.
func (t *Table) merge(gs *[]Group) {
	a := *gs
	out := a[:0]
	for _, g := range a {
		if g.N() == 0 {
			continue
		}
		found := false
		for j := range out {
			if !g.tagged() && same(out[j], g) {
				out[j].lo += uint32(g.N())
				found = true
				break
			}
		}
		if !found {
			out = append(out, g)
		}
	}
	*gs = out
}

// Tuples returns the number of tuples (live or dead, unpruned) on block b.
func (t *Table) Tuples(b int32) int {
	if s := t.state[b]; s > 0 {
		return int(t.ntup[s])
	} else if s < 0 {
		return int(-s)
	}
	return t.rowsOnLoaded(b)
}

// Free returns the tuple slots left on block b.
func (t *Table) Free(b int32) int { return t.MaxRows - t.Tuples(b) }

// AllVisible reports PD_ALL_VISIBLE of block b.
func (t *Table) AllVisible(b int32) bool { return t.allVis[b/64]>>(b%64)&1 != 0 }

// setAllVisible sets or clears PD_ALL_VISIBLE (and the VM bit).
func (t *Table) setAllVisible(b int32, v bool) {
	if v {
		t.allVis[b/64] |= 1 << (b % 64)
	} else {
		t.allVis[b/64] &^= 1 << (b % 64)
	}
}

// SetAllVisible is VACUUM's PageSetAllVisible + visibilitymap_set.
func (t *Table) SetAllVisible(b int32) { t.setAllVisible(b, true) }

// ClearAllVisible is PageClearAllVisible + visibilitymap_clear, done by
// every insert, update and delete on the page. It reports whether the bit
// was set (then the VM page must be updated too).
func (t *Table) ClearAllVisible(b int32) bool {
	was := t.AllVisible(b)
	t.setAllVisible(b, false)
	return was
}

// Prunable reports whether block b's pd_prune_xid is set: heap_delete and
// heap_update set it, so only such pages are pruned on access
// (heap_page_prune_opt); inserts, even aborted ones, do not.
func (t *Table) Prunable(b int32) bool { return t.PruneXid(b) != 0 }

// PruneXid is block b's pd_prune_xid: the oldest xmax among its versions
// not yet pruned (0 if none). Nothing can be pruned before that xid is
// older than every snapshot, so on-access pruning checks it first.
func (t *Table) PruneXid(b int32) uint32 {
	if s := t.state[b]; s > 0 {
		return t.pxid[s]
	}
	return 0
}

// markPrunable is PageSetPrunable: a version deleted by xid is now on the
// page (which already has its own state).
func (t *Table) markPrunable(b int32, xid uint32) {
	s := t.state[b]
	if t.pxid[s] == 0 || xid < t.pxid[s] {
		t.pxid[s] = xid
	}
}

// AllVisibleCount counts the all-visible pages.
func (t *Table) AllVisibleCount() int {
	n := 0
	for b := int32(0); b < t.nblocks; b++ {
		if t.AllVisible(b) {
			n++
		}
	}
	return n
}

// BlockOf returns the block holding the current version of row.
func (t *Table) BlockOf(row int64) int32 {
	if b := t.movedEntry(row); b >= 0 {
		return b
	}
	return t.home(row)
}

// movedEntry is row's entry in the moved chunks: its block, -1 (on its load
// block) or goneBlock.
func (t *Table) movedEntry(row int64) int32 {
	if c := (row - 1) >> movedShift; c < int64(len(t.moved)) {
		return t.moved[c].get(int32((row - 1) & (movedChunk - 1)))
	}
	return -1
}

// setMoved sets row's entry in the moved chunks (see movedEntry).
func (t *Table) setMoved(row int64, b int32) {
	c, off := (row-1)>>movedShift, int32((row-1)&(movedChunk-1))
	if c >= int64(len(t.moved)) {
		if b == -1 {
			return
		}
		t.moved = append(t.moved, make([]movedRows, int(c)+1-len(t.moved))...)
	}
	t.nmoved += t.moved[c].set(off, b)
}

// Moved rows are tracked in chunks of movedChunk rows: a sorted list of
// (row offset, block) while few of the chunk's rows have moved, an array of
// blocks once many have (so a huge table touched sparsely costs bytes per
// moved row, a heavily updated one 4 bytes per row).
const (
	movedShift = 10
	movedChunk = 1 << movedShift
	movedDense = 256 // entries from which a chunk becomes an array
)

type movedRows struct {
	sparse []uint64 // offset<<32 | block, sorted by offset
	dense  []int32  // block+1 per offset (0: on its load block), once dense
}

func (m *movedRows) get(off int32) int32 {
	if m.dense != nil {
		return m.dense[off] - 1
	}
	i, ok := m.find(off)
	if !ok {
		return -1
	}
	return int32(uint32(m.sparse[i]))
}

func (m *movedRows) find(off int32) (int, bool) {
	lo, hi := 0, len(m.sparse)
	for lo < hi {
		mid := (lo + hi) / 2
		if int32(m.sparse[mid]>>32) < off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(m.sparse) && int32(m.sparse[lo]>>32) == off
}

// goneBlock marks a row deleted and pruned away: no version of it is left
// anywhere, so the untagged group of its load page must not stand for it.
const goneBlock = -2

// set records off's block (-1: back on its load block; goneBlock: gone) and
// reports whether the number of moved rows (those on a block of their own)
// changed by +1, -1 or 0.
func (m *movedRows) set(off, blk int32) int {
	before := m.get(off) >= 0
	m.store(off, blk)
	switch after := blk >= 0; {
	case after && !before:
		return 1
	case before && !after:
		return -1
	}
	return 0
}

func (m *movedRows) store(off, blk int32) {
	if m.dense != nil {
		m.dense[off] = blk + 1
		return
	}
	i, ok := m.find(off)
	switch {
	case ok && blk == -1:
		m.sparse = append(m.sparse[:i], m.sparse[i+1:]...)
		return
	case ok:
		m.sparse[i] = uint64(off)<<32 | uint64(uint32(blk))
		return
	case blk == -1:
		return
	}
	if len(m.sparse) >= movedDense {
		m.dense = make([]int32, movedChunk)
		for _, e := range m.sparse {
			m.dense[e>>32] = int32(uint32(e)) + 1
		}
		m.sparse = nil
		m.dense[off] = blk + 1
		return
	}
	m.sparse = append(m.sparse, 0)
	copy(m.sparse[i+1:], m.sparse[i:])
	m.sparse[i] = uint64(off)<<32 | uint64(uint32(blk))
}

// Gone reports whether row was deleted and its last version pruned away.
func (t *Table) Gone(row int64) bool { return t.movedEntry(row) == goneBlock }

// rowVersion returns the index in gs of row's current version: the last
// of the versions tagged with the row in update-chain order (the live one,
// else the one whose xmax starts no later version here: deleted, or moved
// to another page), or, for a row never changed since it was loaded or
// whose page was collapsed, an untagged live group (the load's, else the
// frozen one). It returns -1 if the page holds neither.
//
// The chain is followed by xmin and xmax, not ordered by xmin: xids are
// assigned at a transaction's first write, so a transaction that got its
// xid early and waited for the row's lock writes a newer version with a
// smaller xmin (heap_update links the versions by t_ctid; their xmin and
// xmax match, as heap_hot_search_buffer checks).
func (t *Table) rowVersion(gs []Group, row int64) int {
	best, newest := -1, -1
	// The xmins of row's versions, sorted, for successorIn's question
	// (is some other version's xmin this one's xmax?) in a binary search
	// instead of a scan of the page per version.
	xmins := t.chain.xmin[:0]
	rt, rl := rowTag(row)
	// The same pass finds the untagged live groups that stand for a row
	// with no version of its own here (the load's, else a frozen one):
	// most rows looked up have none, and then one pass answers.
	base, frozen := -1, -1
	for i, g := range gs {
		if g.tag != rt || g.lo != rl {
			if g.tag == 0 && g.Xmax == 0 && (base < 0 || frozen < 0) {
				switch {
				case base < 0 && g.Xmin == t.base.Xmin && g.Hints == t.base.Hints:
					base = i
				case frozen < 0 && g.Xmin == FrozenXid:
					frozen = i
				}
			}
			continue
		}
		if g.Xmax == 0 {
			t.chain.xmin = xmins
			return i
		}
		xmins = append(xmins, g.Xmin)
	}
	t.chain.xmin = xmins
	if len(xmins) == 0 {
		if base >= 0 {
			return base
		}
		return frozen
	}
	slices.Sort(xmins)
	for i, g := range gs {
		if g.tag != rt || g.lo != rl {
			continue
		}
		if newest < 0 || g.Xmin > gs[newest].Xmin {
			newest = i
		}
		if !successorIn(xmins, g) && (best < 0 || g.Xmin > gs[best].Xmin) {
			best = i
		}
	}
	if best < 0 {
		best = newest // a chain that loops (one transaction's own versions): its newest xmin
	}
	return best
}

// RowChain appends the versions of row on block b, oldest first: the
// versions tagged with the row (those an UPDATE or DELETE wrote or ended)
// and, when none of them is live, the untagged live tuple standing for a
// row never changed on this page (or folded by Collapse) if b is where the
// row lives. Each has N = 1. It is the HOT chain heap_hot_search_buffer
// walks from the index entry's line pointer.
func (t *Table) RowChain(row int64, b int32, out []Group) []Group {
	var buf [1]Group
	gs := t.Groups(b, &buf)
	n0 := len(out)
	live := false
	rt, rl := rowTag(row)
	for _, g := range gs {
		if g.tag == rt && g.lo == rl {
			out = append(out, g)
			live = live || g.Xmax == 0
		}
	}
	t.orderChain(row, b, out[n0:])
	if !live && len(out) == n0 && t.BlockOf(row) == b && !t.Gone(row) {
		if i := t.rowVersion(gs, row); i >= 0 {
			out = append(out, gs[i].one())
		}
	}
	return out
}

// Chains of at least memoMin versions have their order remembered
// (chainMemo), for at most memoMax chains per table.
const (
	memoMin = 8
	memoMax = 1 << 12
)

// chainKey names a row's chain on a page.
type chainKey struct {
	row int64
	blk int32
}

// chainMemo is the order chainOrder gave a row's chain on a page: the
// input's (xmin, xmax) pairs in page order, and for each output position
// the input position it came from. The order depends on nothing else, so
// while the pairs are the same the permutation is chainOrder's answer.
// Under many clients a hot row's page holds a hundred versions and every
// index fetch walks them between two changes of the page: sorting them
// anew each time was most of a 512-client run.
type chainMemo struct {
	ids  []uint64
	perm []uint16
}

// extend updates the memo for the most common change of a chain: one
// update since the memo was made, which gave the live version L an xmax X
// and appended the version X wrote (xmin X, live) at the end of the page.
// When no other version has xmin X or xmax X, chainOrder's walk reaches the
// new version right after L and nothing else moves: the permutation gains
// it there. Anything else returns false (the caller orders the chain anew).
func (m *chainMemo) extend(vs []Group) bool {
	n := len(vs)
	v := vs[n-1]
	x := v.Xmin
	if x == 0 || v.Xmax != 0 {
		return false
	}
	l := -1
	for i, g := range vs[:n-1] {
		id := uint64(g.Xmin)<<32 | uint64(g.Xmax)
		switch {
		case g.Xmin == x:
			return false
		case id == m.ids[i]:
			if g.Xmax == x {
				return false
			}
		case l < 0 && g.Xmax == x && m.ids[i] == uint64(g.Xmin)<<32:
			l = i
		default:
			return false
		}
	}
	if l < 0 {
		return false
	}
	p := slices.Index(m.perm, uint16(l))
	m.ids[l] = uint64(vs[l].Xmin)<<32 | uint64(x)
	m.ids = append(m.ids, uint64(x)<<32)
	m.perm = slices.Insert(m.perm, p+1, uint16(n-1))
	return true
}

// orderChain is chainOrder through the memo: vs is row's versions on
// block b in page order, each with N = 1.
func (t *Table) orderChain(row int64, b int32, vs []Group) {
	n := len(vs)
	if n < memoMin {
		t.chainOrder(vs)
		return
	}
	key := chainKey{row, b}
	if m, ok := t.memo[key]; ok && len(m.ids) == n {
		same := true
		for i, g := range vs {
			if m.ids[i] != uint64(g.Xmin)<<32|uint64(g.Xmax) {
				same = false
				break
			}
		}
		if same {
			sc := &t.chain
			sc.out = append(sc.out[:0], vs...)
			for i, p := range m.perm {
				vs[i] = sc.out[p]
			}
			return
		}
	} else if ok && len(m.ids) == n-1 && m.extend(vs) {
		sc := &t.chain
		sc.out = append(sc.out[:0], vs...)
		for i, p := range m.perm {
			vs[i] = sc.out[p]
		}
		return
	}
	// The row's low bits (lo: every one of vs is row's version) carry
	// the input position through chainOrder, which does not look at them.
	for i := range vs {
		vs[i].lo = uint32(i)
	}
	t.chainOrder(vs)
	if t.memo == nil || len(t.memo) >= memoMax {
		t.memo = map[chainKey]*chainMemo{} // forgetting changes no answer
	}
	m := t.memo[key]
	if m == nil {
		m = &chainMemo{}
		t.memo[key] = m
	}
	if cap(m.ids) < n || cap(m.perm) < n {
		m.ids, m.perm = make([]uint64, n), make([]uint16, n)
	}
	m.ids, m.perm = m.ids[:n], m.perm[:n]
	// The input order, rebuilt from the positions, gives the key.
	for i, g := range vs {
		m.ids[g.lo] = uint64(g.Xmin)<<32 | uint64(g.Xmax)
		m.perm[i] = uint16(g.lo)
		vs[i].lo = uint32(row)
	}
}

// hasVersion reports whether gs holds a version tagged with row.
func hasVersion(gs []Group, row int64) bool {
	rt, rl := rowTag(row)
	for _, g := range gs {
		if g.tag == rt && g.lo == rl {
			return true
		}
	}
	return false
}

// successorIn reports whether the page holds the version that g's update
// wrote: among the xmins of g's row's versions (sorted, g's own among
// them), another's is g's xmax.
func successorIn(xmins []uint32, g Group) bool {
	x := g.Xmax
	if x == 0 {
		return false
	}
	k, found := slices.BinarySearch(xmins, x)
	if !found {
		return false
	}
	c := 0
	for ; k < len(xmins) && xmins[k] == x; k++ {
		c++
	}
	if g.Xmin == x {
		c-- // g itself
	}
	return c > 0
}

// chainRank orders the candidates for the version after one whose xmax is
// x: one that x updated again (a transaction updating a row twice gives
// both versions its xid as xmin), then one updated by another, then the
// live one.
func chainRank(g Group, x uint32) int {
	switch {
	case g.Xmax == x:
		return 0
	case g.Xmax != 0:
		return 1
	}
	return 2
}

// chainScratch is chainOrder's working space, kept between calls (the
// engine is single-threaded): a hot row's page can hold a few hundred of
// its versions before pruning.
type chainScratch struct {
	xmin  []uint32 // rowVersion's
	keys  []uint64 // chainOrder's: (xmin, position) to sort
	xmins []uint32 // ... and the xmins in that order
	xmax  []uint32
	used  []bool
	out   []Group
}

// chainOrder sorts one row's versions on a page oldest first along its
// update chain: each version is followed by the one its xmax wrote (the
// t_ctid link heap_update sets). The chain starts at the version no other
// one leads to; versions the walk does not reach (a gap left by pruning)
// follow, each starting its own walk, in xmin order.
func (t *Table) chainOrder(vs []Group) {
	n := len(vs)
	if n < 2 {
		return
	}
	// xmin order (stable: versions of one xmin keep their page order): for
	// the binary searches below, and the order of several heads. Under many
	// clients a hot row's versions are far from xmin order (a transaction
	// takes its xid at its first write, not when it began), so this must
	// not be an insertion sort: at 512 clients that was two thirds of the
	// run.
	// Sorted as packed keys (xmin, then page position, which makes the
	// order stable) rather than as 16-byte structs.
	sc := &t.chain
	sc.keys = sc.keys[:0]
	for i, g := range vs {
		sc.keys = append(sc.keys, uint64(g.Xmin)<<32|uint64(i))
	}
	slices.Sort(sc.keys)
	sc.out = append(sc.out[:0], vs...)
	sc.xmins = sc.xmins[:0]
	for i, k := range sc.keys {
		vs[i] = sc.out[uint32(k)]
		sc.xmins = append(sc.xmins, uint32(k>>32))
	}
	sc.xmax = sc.xmax[:0]
	for _, g := range vs {
		if g.Xmax != 0 {
			sc.xmax = append(sc.xmax, g.Xmax)
		}
	}
	slices.Sort(sc.xmax)
	sc.used = sc.used[:0]
	for range n {
		sc.used = append(sc.used, false)
	}
	sc.out = sc.out[:0]
	firstWithXmin := func(x uint32) int {
		i, _ := slices.BinarySearch(sc.xmins, x)
		return i
	}
	// led reports whether some version's xmax is vs[i]'s xmin (a version
	// updated by its own transaction leads to itself only through another).
	led := func(i int) bool {
		x := vs[i].Xmin
		k, found := slices.BinarySearch(sc.xmax, x)
		if !found {
			return false
		}
		self := 0
		if vs[i].Xmax == x {
			self = 1
		}
		c := 0
		for ; k < len(sc.xmax) && sc.xmax[k] == x; k++ {
			c++
		}
		return c > self
	}
	for pass := 0; pass < 2 && len(sc.out) < n; pass++ {
		for start := 0; start < n; start++ {
			if sc.used[start] || (pass == 0 && led(start)) {
				continue
			}
			for i := start; i >= 0; {
				sc.used[i] = true
				sc.out = append(sc.out, vs[i])
				x, next := vs[i].Xmax, -1
				if x != 0 {
					for j := firstWithXmin(x); j < n && vs[j].Xmin == x; j++ {
						if !sc.used[j] && (next < 0 || chainRank(vs[j], x) < chainRank(vs[next], x)) {
							next = j
						}
					}
				}
				i = next
			}
		}
	}
	copy(vs, sc.out)
}

// RowGroup returns the header of row's current version on block b (N = 1),
// for a visibility check of that tuple.
func (t *Table) RowGroup(row int64, b int32) Group {
	var buf [1]Group
	gs := t.Groups(b, &buf)
	g := t.base
	if i := t.rowVersion(gs, row); i >= 0 {
		g = gs[i]
	}
	return g.one()
}

// Insert adds n tuples inserted by xid to block b (heap_insert), clearing
// PD_ALL_VISIBLE. The caller has checked Free.
func (t *Table) Insert(b int32, xid uint32, n int) { t.InsertCmd(b, xid, 0, n) }

// InsertCmd is Insert for tuples written by command cmd of xid (see
// Group.Cmd).
func (t *Table) InsertCmd(b int32, xid uint32, cmd uint16, n int) {
	g := Untagged(xid, 0, uint16(n), 0)
	g.Cmd = cmd
	t.add(t.mut(b), g)
	t.ntup[t.state[b]] += uint16(n)
	t.ClearAllVisible(b)
	t.Stats.Inserts += uint64(n)
}

// InsertVersion adds the new version of row written by xid to block b
// (heap_update's new tuple), clearing PD_ALL_VISIBLE, and records the
// row's block. The caller has checked Free.
func (t *Table) InsertVersion(b int32, xid uint32, row int64) { t.InsertVersionCmd(b, xid, 0, row) }

// InsertVersionCmd is InsertVersion for a version written by command cmd
// of xid (Group.Cmd): a statement that changes several rows must not
// change again a version it wrote itself (a sequential scan that reaches
// the page the version went to).
func (t *Table) InsertVersionCmd(b int32, xid uint32, cmd uint16, row int64) {
	g := Version(xid, 0, 0, row)
	g.Cmd = cmd
	t.add(t.mut(b), g)
	t.ntup[t.state[b]]++
	t.ClearAllVisible(b)
	t.Stats.Inserts++
	t.setBlock(row, b)
}

// setBlock records that row's current version is on block b.
func (t *Table) setBlock(row int64, b int32) {
	if b == t.home(row) {
		b = -1
	}
	t.setMoved(row, b)
}

// home is the block the load put row on.
func (t *Table) home(row int64) int32 {
	if t.loadOrder != nil {
		row = t.loadOrder.Position(row)
	}
	return int32((row - 1) / int64(t.RowsPerPage))
}

// DeleteRow marks row's current version on block b deleted by xid
// (heap_delete, or the old version of heap_update): the tuple leaves its
// group as a version of its own, tagged with the row.
func (t *Table) DeleteRow(row int64, b int32, xid uint32) {
	gs := t.mut(b)
	if i := t.rowVersion(*gs, row); i >= 0 {
		g := (*gs)[i]
		if g.N() == 1 {
			last := len(*gs) - 1
			(*gs)[i] = (*gs)[last]
			*gs = (*gs)[:last]
		} else {
			(*gs)[i].lo--
		}
		t.add(gs, Version(g.Xmin, xid, g.Hints&^(XmaxCommitted|XmaxInvalid), row))
	}
	t.ClearAllVisible(b)
	t.markPrunable(b, xid)
	t.Stats.Deletes++
}

// DeleteAll marks every tuple of block b that live() accepts deleted by
// xid (the deleter decides: a tuple not visible to it, or deleted by a
// transaction that did not abort, is left alone). It returns how many
// tuples it deleted.
func (t *Table) DeleteAll(b int32, xid uint32, live func(g Group) bool) int {
	gs := t.mut(b)
	n := 0
	for i := range *gs {
		g := &(*gs)[i]
		if live(*g) {
			g.Xmax = xid
			g.Hints &^= XmaxCommitted | XmaxInvalid
			n += int(g.N())
		}
	}
	t.merge(gs)
	if n > 0 {
		t.ClearAllVisible(b)
		t.markPrunable(b, xid)
	}
	t.Stats.Deletes += uint64(n)
	return n
}

// AbortVersion undoes, for the row's index and key lookups, an update by
// xid that rolled back: the version xid wrote on block newBlk is no longer
// the row's (it stays on the page as garbage for pruning, with its aborted
// xmin), and the row's current version is again the one on oldBlk, whose
// xmax is the aborted xid (as in PostgreSQL: a later reader hints it
// XMAX_INVALID).
func (t *Table) AbortVersion(row int64, oldBlk, newBlk int32, xid uint32) {
	if t.state[newBlk] > 0 {
		gs := &t.pages[t.state[newBlk]]
		for i, g := range *gs {
			if g.Row() == row && g.Xmin == xid {
				if newBlk == oldBlk {
					(*gs)[i].setRow(AbortedHOT)
				} else {
					(*gs)[i].setRow(Aborted)
				}
				break
			}
		}
	}
	t.setBlock(row, oldBlk)
}

// Prune removes dead tuples from block b (heap_page_prune): dead(g)
// decides, per group, whether its tuples are dead to every transaction; it
// is not asked about live versions with XMIN_COMMITTED set.
// It returns the number of tuples removed, and kept: the rows of which
// versions were removed and a newer one stays on the page (a HOT chain
// whose root line pointer becomes a redirect, heap_prune_chain). The
// other chains removed leave their root's line pointer LP_DEAD (a row
// moved away or deleted: one per row; an untagged tuple, or an aborted
// update's version on another page, is its own root), the rest (and an
// aborted HOT version) become unused; DeadItems counts the former.
func (t *Table) Prune(b int32, dead func(g Group) bool) (n, kept int) {
	if t.state[b] <= 0 {
		return 0, 0 // a never-changed or collapsed page has nothing to prune
	}
	lpdead := 0
	gs := &t.pages[t.state[b]]
	prunedRows := t.prunedRows[:0]
	// The groups before the first dead one stay where they are: find it
	// without rewriting them (most calls remove a few groups or none).
	// px becomes the page's new pd_prune_xid: the oldest xmax among the
	// groups kept, gathered as they are passed.
	px := uint32(0)
	first := 0
	for ; first < len(*gs); first++ {
		g := (*gs)[first]
		if (g.Xmax != 0 || g.Hints&XminCommitted == 0) && dead(g) {
			break
		}
		if g.Xmax != 0 && (px == 0 || g.Xmax < px) {
			px = g.Xmax
		}
	}
	out := (*gs)[:first]
	for i := first; i < len(*gs); i++ {
		g := (*gs)[i]
		// A live version whose inserter is known committed (hinted)
		// cannot be dead: skip the caller's check (the first dead group
		// was found above).
		if i == first || (g.Xmax != 0 || g.Hints&XminCommitted == 0) && dead(g) {
			n += int(g.N())
			if g.tagged() {
				prunedRows = append(prunedRows, g.Row())
			} else if g.tag != tagAbortedHOT {
				lpdead += int(g.N())
				if t.TrackDeadEntries {
					t.PendingDead = append(t.PendingDead, DeadEntry{Block: b, N: int32(g.N())})
				}
			}
			continue
		}
		if g.Xmax != 0 && (px == 0 || g.Xmax < px) {
			px = g.Xmax
		}
		out = append(out, g)
	}
	*gs = out
	// A row whose current page this is and of which no version is left
	// here was deleted (an updated row's newest version is live, or on
	// another page): it is gone, and the page's untagged group no longer
	// stands for it (RowChain).
	slices.Sort(prunedRows)
	for i, row := range prunedRows {
		if i > 0 && prunedRows[i-1] == row {
			continue // another version of the same row
		}
		if hasVersion(out, row) {
			kept++
			continue
		}
		lpdead++
		if t.TrackDeadEntries {
			t.PendingDead = append(t.PendingDead, DeadEntry{Row: row, Block: b, N: 1})
		}
		if t.BlockOf(row) == b {
			t.setMoved(row, goneBlock)
		}
	}
	t.prunedRows = prunedRows
	if lpdead > 0 {
		if int(b) >= len(t.dead) {
			t.dead = append(t.dead, make([]uint16, int(b)+1-len(t.dead))...)
		}
		t.dead[b] = uint16(min(int(t.dead[b])+lpdead, MaxHeapTuplesPerPage))
	}
	t.ntup[t.state[b]] -= uint16(n)
	t.pxid[t.state[b]] = px
	if n > 0 {
		t.Stats.Prunes++
		t.Stats.PrunedTuples += uint64(n)
	}
	return n, kept
}

// DeadEntry is what an LP_DEAD item stood for: a row's chain (Row > 0), or
// N untagged tuples of Block (loaded or inserted rows that no key names
// individually).
type DeadEntry struct {
	Row   int64
	Block int32
	N     int32
}

// MaxHeapTuplesPerPage bounds a heap page's line pointers (htup_details.h).
const MaxHeapTuplesPerPage = 291

// DeadItems returns block b's LP_DEAD line pointers.
func (t *Table) DeadItems(b int32) int {
	if int(b) < len(t.dead) {
		return int(t.dead[b])
	}
	return 0
}

// VacuumDeadItems marks block b's LP_DEAD line pointers unused
// (lazy_vacuum_heap_page) and returns how many there were.
func (t *Table) VacuumDeadItems(b int32) int {
	n := t.DeadItems(b)
	if n > 0 {
		t.dead[b] = 0
	}
	return n
}

// Collapse folds block b's live tuples into one frozen, untagged group once
// VACUUM has found the page all-visible: every live tuple's inserter is
// committed and older than every snapshot, and no tuple is deleted, so each
// is visible to every transaction now and later whatever its exact xmin,
// as a frozen tuple is (HeapTupleSatisfiesMVCC answers the same, at the
// same cost: one hinted test). Rows whose current version is on the page
// find it there (rowVersion), and the page's state shrinks to one group.
// The caller guarantees the condition (vacuumPage).
func (t *Table) Collapse(b int32) {
	s := t.state[b]
	if s <= 0 {
		return // never changed, or collapsed already
	}
	// The page's explicit state is released (its slot in pages is
	// recycled): a collapsed page is just its tuple count.
	n := t.ntup[s]
	t.pages[s], t.ntup[s], t.pxid[s] = nil, 0, 0
	t.freeIdx = append(t.freeIdx, s)
	t.state[b] = -int32(n)
	if n == 0 {
		// An empty page needs an explicit (empty) state: the base state
		// would give it the loaded rows.
		t.state[b] = t.newState(nil)
	}
	t.Stats.Collapses++
}

// FoldSettled folds block b's settled inserted tuples into one frozen
// group: untagged tuples (an INSERT's or COPY's, which no key names) whose
// inserter is hinted committed, that nobody deleted, inserted before
// horizon, which the caller guarantees is at or before every snapshot's
// xmin and every running VACUUM's horizon. Every visibility check now and
// later answers for them as for a frozen tuple, at the same cost (one
// hinted test: HeapTupleSatisfiesMVCC finds the xmin committed and before
// the snapshot's xmin), and VACUUM judges them alike (all visible), so
// the page's state need not keep one group per inserting transaction:
// an append-only table such as pgbench_history, where every transaction
// inserts a row of its own, otherwise costs a 16-byte group per
// transaction for as long as the run lasts (it never reaches autovacuum's
// threshold for updates, and before PostgreSQL 13 none for inserts).
// The other groups keep their order; the frozen group takes the place of
// the first of its members. The loaded rows' group (the table's base
// state) is left alone: rowVersion finds never-changed rows by it. It
// returns how many groups went.
func (t *Table) FoldSettled(b int32, horizon uint32) int {
	s := t.state[b]
	if s <= 0 {
		return 0 // never changed, or collapsed already
	}
	a := t.pages[s]
	member := func(g Group) bool { return t.foldMember(g, horizon) }
	members, first := 0, -1
	for i, g := range a {
		if member(g) {
			if first < 0 {
				first = i
			}
			members++
		}
	}
	if members < 2 {
		return 0
	}
	frozen := Untagged(FrozenXid, 0, 0, Frozen)
	n := 0
	for i, g := range a {
		switch {
		case i == first:
			frozen.lo = uint32(g.N())
			a[n] = frozen
			n++
		case member(g):
			a[first].lo += uint32(g.N())
		default:
			a[n] = g
			n++
		}
	}
	clear(a[n:])
	a = a[:n]
	if cap(a) >= 16 && n <= cap(a)/4 {
		// A full page of single inserts kept MaxRows places: give them back.
		a = append(make([]Group, 0, 2*n), a...)
	}
	t.pages[s] = a
	return members - 1
}

// foldMember reports whether g joins FoldSettled's frozen group.
func (t *Table) foldMember(g Group, horizon uint32) bool {
	if g.tag != 0 || g.Xmax != 0 {
		return false
	}
	if g.Xmin == FrozenXid && g.Hints == Frozen && g.Cmd == 0 {
		return true
	}
	return g.Hints&Frozen == XminCommitted && g.Xmin < horizon && g.Xmin != FrozenXid &&
		!(g.Xmin == t.base.Xmin && g.Hints == t.base.Hints)
}

// MayFold reports whether FoldSettled could fold anything on block b with
// the most favourable horizon: a pass over the page's groups, which lets
// callers skip working out the horizon.
func (t *Table) MayFold(b int32) bool {
	s := t.state[b]
	if s <= 0 {
		return false
	}
	members := 0
	for _, g := range t.pages[s] {
		if t.foldMember(g, ^uint32(0)) {
			if members++; members >= 2 {
				return true
			}
		}
	}
	return false
}

// Extended records that block was added to the relation.
func (t *Table) Extended(block int32) {
	t.grow(block + 1)
	t.Stats.Extends++
}

// Truncate empties the table (TRUNCATE, or VACUUM truncating empty pages
// at the end is not modelled): every block is dropped.
func (t *Table) Truncate() {
	t.state, t.allVis, t.pages, t.ntup, t.pxid, t.freeIdx = nil, nil, [][]Group{nil}, []uint16{0}, []uint32{0}, nil
	t.nblocks, t.loaded, t.Rows = 0, 0, 0
	t.moved, t.nmoved, t.loadOrder = nil, 0, nil
	t.dead, t.PendingDead = nil, nil
}

// Moved returns how many rows live away from their load position.
func (t *Table) Moved() int { return t.nmoved }

// ExplicitPages returns how many pages have their own state (for memory
// reporting).
func (t *Table) ExplicitPages() int { return len(t.pages) - 1 - len(t.freeIdx) }
