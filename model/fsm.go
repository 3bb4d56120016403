package model

import (
	"github.com/pgbufsim/pgbufsim/model/catalog"
)

// The free space map (src/backend/storage/freespace/freespace.c) as real
// pages of each table's fsm fork in shared buffers:
//
//   - a leaf page per fsmSlotsPerPage (4069) heap blocks holds each block's
//     recorded free space; above the leaves one internal level and the root
//     (FSM_TREE_DEPTH 3 for 8 kB pages), numbered depth first
//     (fsm_logical_to_physical): root 0, internal 1, leaves 2..4070, ...;
//   - a search (fsm_search) reads the root and, if it shows enough space,
//     the internal page and the leaf below it; when the leaf has less than
//     its parent claimed, the parent is corrected and the search restarts;
//   - backends record space only at leaves (RecordAndGetPageWithFreeSpace,
//     when they give up on a full target page); VACUUM records every page it
//     scans (RecordPageWithFreeSpace) and then propagates the leaves' values
//     up (FreeSpaceMapVacuumRange). So after a VACUUM inserts find the space
//     it freed, while space noted by backends stays invisible to searches;
//   - the fork is created on first need (fsm_extend); a search of a table
//     without one reads nothing.
//
// Space is counted in tuple slots of the table's rows (PostgreSQL keeps
// 32-byte categories): a request is for one tuple.

// fsmSlotsPerPage is SlotsPerFSMPage for 8 kB pages.
const fsmSlotsPerPage = 4069

// fsmMap is one table's free space map.
type fsmMap struct {
	rel    catalog.RelID
	exists bool
	avail  []uint16 // per heap block: the free tuple slots recorded at its leaf
	upper  []uint16 // per leaf page: the space the root and internal page show for it
	next   int32    // fp_next_slot: where searches start, so inserters spread
}

// fsmLeafBlock and fsmInnerBlock are fsm_logical_to_physical for the leaf
// page number leaf and the internal page above leaf.
func fsmLeafBlock(leaf int32) int32 {
	return leaf + leaf/fsmSlotsPerPage + 2
}

func fsmInnerBlock(leaf int32) int32 {
	m := leaf / fsmSlotsPerPage
	return m*fsmSlotsPerPage + m + 1
}

// fsmGIDs appends the gids of the fsm pages at blocks.
func (e *engine) fsmGIDs(m *fsmMap, out []int32, blocks ...int32) []int32 {
	for _, blk := range blocks {
		out = append(out, e.cat.GID(m.rel, blk))
	}
	return out
}

// fsmEnsure creates the fork, or extends it, so that it has the leaf of
// heap block blk (fsm_readbuf with extend). Up to 15 fsm_extend writes the
// new pages with smgrextend, through the OS, counted in buffers_backend as
// every mdextend is, and the caller then reads them. From 16 fsm_extend is
// ExtendBufferedRelTo (freespace.c): one smgrzeroextend, and every new page
// valid in shared buffers (bufmgr.c ExtendBufferedRelShared), the leaf's
// returned pinned; fsmEnsure then appends the new pages' gids to out, for
// the caller to touch first (each an extension, forkExtended), and the
// caller does not access the leaf again.
func (e *engine) fsmEnsure(m *fsmMap, blk int32, out []int32) []int32 {
	m.exists = true
	leaf := blk / fsmSlotsPerPage
	for int32(len(m.upper)) <= leaf {
		m.upper = append(m.upper, 0)
	}
	first := true
	for e.cat.Rel(m.rel).NBlocks <= fsmLeafBlock(leaf) {
		_, gid, ok := e.extend(m.rel)
		if !ok {
			return out
		}
		if e.ver >= 1600 {
			e.forkExtended = append(e.forkExtended, forkPage{gid: gid, first: first})
			first = false
			out = append(out, gid)
			continue
		}
		e.os.Write(gid, nil, 0)
		e.bufWrites.backend++
		e.bufWrites.extends++
		e.bufWrites.zeroed++
		e.noteWrite(gid)
	}
	return out
}

// forkPage is a page a fork's ExtendBufferedRelTo added (16+), waiting for
// its buffer (engine.forkExtended); first marks the first page of the
// call, which counts the call's one smgrzeroextend.
type forkPage struct {
	gid   int32
	first bool
}

// extendedForkPage says whether gid is a page a fork's ExtendBufferedRelTo
// added and whose buffer is not allocated yet; if so it is taken off the
// list, and for the first page of a call the call's smgrzeroextend is
// counted (one extend operation and one register_dirty_segment, as
// RelationAddBlocks' are: hio.go).
func (b *backend) extendedForkPage(gid int32) bool {
	e := b.e
	for i, f := range e.forkExtended {
		if f.gid != gid {
			continue
		}
		e.forkExtended = append(e.forkExtended[:i], e.forkExtended[i+1:]...)
		if f.first {
			e.bufWrites.backend++
			e.bufWrites.extends++
			e.stats.io[b.backendType()][ctxNormal].extendOps++
		}
		return true
	}
	return false
}

func (m *fsmMap) grow(blk int32) {
	for int32(len(m.avail)) <= blk {
		m.avail = append(m.avail, 0)
	}
}

// search is fsm_search for one tuple: it returns the fsm pages read, in
// order, and the heap block found (-1 if none).
func (e *engine) fsmSearch(m *fsmMap, out []int32) ([]int32, int32) {
	if !m.exists {
		return out, -1 // GetPageWithFreeSpace: no fork, nothing read
	}
	for restarts := 0; restarts < 4; restarts++ {
		out = e.fsmGIDs(m, out, 0)
		leaf := m.bestLeaf()
		if leaf < 0 {
			return out, -1
		}
		out = e.fsmGIDs(m, out, fsmInnerBlock(leaf), fsmLeafBlock(leaf))
		if blk := m.inLeaf(leaf); blk >= 0 {
			m.next = blk + 1
			return out, blk
		}
		// The leaf has less than its parent claims: fix the parent and
		// start again from the root.
		m.upper[leaf] = m.leafMax(leaf)
	}
	return out, -1
}

// bestLeaf picks the leaf a search descends to: the first, from
// fp_next_slot's leaf on (wrapping), whose upper-level value shows space.
func (m *fsmMap) bestLeaf() int32 {
	n := int32(len(m.upper))
	if n == 0 {
		return -1
	}
	start := min(m.next/fsmSlotsPerPage, n-1)
	for i := int32(0); i < n; i++ {
		if l := (start + i) % n; m.upper[l] > 0 {
			return l
		}
	}
	return -1
}

// inLeaf finds a block with recorded space in leaf page leaf, from
// fp_next_slot on.
func (m *fsmMap) inLeaf(leaf int32) int32 {
	lo := leaf * fsmSlotsPerPage
	hi := min(lo+fsmSlotsPerPage, int32(len(m.avail)))
	start := max(lo, min(m.next, hi))
	for b := start; b < hi; b++ {
		if m.avail[b] > 0 {
			return b
		}
	}
	for b := lo; b < start; b++ {
		if m.avail[b] > 0 {
			return b
		}
	}
	return -1
}

func (m *fsmMap) leafMax(leaf int32) uint16 {
	lo := leaf * fsmSlotsPerPage
	hi := min(lo+fsmSlotsPerPage, int32(len(m.avail)))
	var mx uint16
	for b := lo; b < hi; b++ {
		mx = max(mx, m.avail[b])
	}
	return mx
}

// fsmRecordAndGet is RecordAndGetPageWithFreeSpace: a backend found block
// old too full and records its free space at old's leaf, searching that
// leaf first and then from the root. It returns the pages read and the
// block found (-1: extend the relation).
func (e *engine) fsmRecordAndGet(m *fsmMap, old int32, free int, out []int32) ([]int32, int32) {
	n0 := len(out)
	out = e.fsmEnsure(m, old, out)
	m.grow(old)
	m.avail[old] = uint16(max(free, 0))
	leaf := old / fsmSlotsPerPage
	if len(out) == n0 { // the leaf existed: fsm_readbuf reads it
		out = e.fsmGIDs(m, out, fsmLeafBlock(leaf))
	}
	if blk := m.inLeaf(leaf); blk >= 0 {
		m.next = blk + 1
		return out, blk
	}
	return e.fsmSearch(m, out)
}

// fsmRecord is RecordPageWithFreeSpace (VACUUM): it returns the leaf page
// read.
func (e *engine) fsmRecord(m *fsmMap, blk int32, free int, out []int32) []int32 {
	n0 := len(out)
	out = e.fsmEnsure(m, blk, out)
	m.grow(blk)
	m.avail[blk] = uint16(max(free, 0))
	if len(out) > n0 {
		return out // extended: the leaf is the last new page
	}
	return e.fsmGIDs(m, out, fsmLeafBlock(blk/fsmSlotsPerPage))
}

// fsmVacuum is FreeSpaceMapVacuumRange over the whole table: it reads the
// root, the internal pages and every leaf, and makes the upper levels show
// what the leaves hold.
func (e *engine) fsmVacuum(m *fsmMap, out []int32) []int32 {
	if !m.exists {
		return out
	}
	out = e.fsmGIDs(m, out, 0)
	for leaf := int32(0); leaf < int32(len(m.upper)); leaf++ {
		if leaf%fsmSlotsPerPage == 0 {
			out = e.fsmGIDs(m, out, fsmInnerBlock(leaf))
		}
		out = e.fsmGIDs(m, out, fsmLeafBlock(leaf))
		m.upper[leaf] = m.leafMax(leaf)
	}
	return out
}

// fsmVacuumRange is FreeSpaceMapVacuumRange(start, end): it reads the
// root, the internal page and the leaves covering heap blocks [start, end)
// and makes the upper levels show what those leaves hold.
func (e *engine) fsmVacuumRange(m *fsmMap, start, end int32, out []int32) []int32 {
	if !m.exists || end <= start {
		return out
	}
	out = e.fsmGIDs(m, out, 0)
	first, last := start/fsmSlotsPerPage, (end-1)/fsmSlotsPerPage
	for leaf := first; leaf <= last && leaf < int32(len(m.upper)); leaf++ {
		if leaf == first || leaf%fsmSlotsPerPage == 0 {
			out = e.fsmGIDs(m, out, fsmInnerBlock(leaf))
		}
		out = e.fsmGIDs(m, out, fsmLeafBlock(leaf))
		m.upper[leaf] = m.leafMax(leaf)
	}
	return out
}

// fsmTruncate forgets the map (TRUNCATE drops the fork).
func (m *fsmMap) truncate() {
	m.exists, m.avail, m.upper, m.next = false, m.avail[:0], m.upper[:0], 0
}

// newFSM sets up t's free space map as the table's load left it: VACUUMed
// tables (pgbench -i; state vacuumed) have one recording every page's free
// space, propagated to the upper levels; a table filled by INSERT (fresh,
// hinted) has the space of every page it left behind recorded at the leaves
// only (RecordAndGetPageWithFreeSpace) and upper levels that show nothing;
// an empty table has no fork.
func (e *engine) newFSM(t *table, vacuumed bool) {
	m := &fsmMap{}
	t.fsm = m
	n := t.heap.NBlocks()
	blocks := int32(0)
	if n > 1 || n == 1 && vacuumed {
		blocks = fsmLeafBlock((n-1)/fsmSlotsPerPage) + 1
	}
	m.rel = e.cat.Add(t.name+"_fsm", catalog.FSM, blocks)
	if blocks == 0 {
		return
	}
	m.exists = true
	m.avail = make([]uint16, n)
	m.upper = make([]uint16, (n-1)/fsmSlotsPerPage+1)
	for b := int32(0); b < n; b++ {
		if vacuumed || b < n-1 {
			m.avail[b] = uint16(t.heap.Free(b))
		}
	}
	if vacuumed {
		for l := range m.upper {
			m.upper[l] = m.leafMax(int32(l))
		}
	}
}
