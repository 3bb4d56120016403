package model

import "slices"

// B-tree paths (src/backend/access/nbtree), as the buffer manager sees them:
//
//   - _bt_search descends from the root (the metapage is cached in the
//     relcache, rd_amcache): one ReadBuffer per level, each a fresh pin
//     (_bt_relandgetbuf releases the parent first), so every level's
//     usage_count rises on every lookup;
//   - an equality scan reads the matching items of the leaf and drops the
//     leaf's pin before fetching heap tuples (_bt_drop_lock_and_maybe_pin);
//     every entry of the key is followed, in heap-TID order, including the
//     entries of older versions that non-HOT updates left behind; an entry
//     whose whole HOT chain is dead to every transaction is marked LP_DEAD
//     (kill_prior_tuple), which _bt_killitems does by reading the leaf again
//     — unless the leaf changed meanwhile (its LSN moved: the statement's own
//     index insertion), when the hints are given up;
//   - _bt_doinsert tries the cached rightmost leaf first (the fastpath, for
//     indexes of 3 levels or more, when the new key sorts after that leaf's
//     first key) and otherwise descends from the root; _bt_check_unique
//     then fetches the heap tuple of every live entry with the same key,
//     marking LP_DEAD those whose tuples are dead to all.
//
// The tree's shape is model/btree's: built by sorting, keys 1..Keys; keys
// inserted after them in ascending order grow its right edge by rightmost
// splits. Duplicates of existing keys (the entries of new versions) go to
// the key's leaf without splitting it (leaf growth from them is not
// modelled).

// btFastpathMinLevels is BTREE_FASTPATH_MIN_LEVEL + 1: the fastpath is used
// only when the root is at level 2 or higher.
const btFastpathMinLevels = 3

// btPath appends the gids of the pages a descent to key reads, root first.
func (e *engine) btPath(ix *index, key int64, out []int32) []int32 {
	var buf [8]int32
	for _, blk := range ix.bt.Path(key, buf[:0]) {
		out = append(out, e.cat.GID(ix.rel, blk))
	}
	return out
}

// btDescend reads the pages from the root to key's leaf, releasing each
// (the search for a scan). It resumes where it blocked (b.touched).
func (b *backend) btDescend(ix *index, key int64) bool {
	if b.touched == 0 {
		b.btgids = b.e.btPath(ix, key, b.btgids[:0])
	}
	return b.touchPages(b.btgids, b.e.costs.IndexLevel)
}

// indexEntries appends the heap blocks the index entries of row point to,
// in TID order: the entries older versions left behind (not yet marked
// dead) and the current version's.
func (t *table) indexEntries(row int64, out []int32) []int32 {
	out = t.oldEntries.appendTo(row, out)
	cur := t.heap.BlockOf(row)
	if !slices.Contains(out, cur) {
		out = append(out, cur)
	}
	slices.Sort(out)
	return out
}

// addOldEntry records that row's entry for block blk stays in the index
// after a non-HOT update moved the row away from it.
func (t *table) addOldEntry(row int64, blk int32) { t.oldEntries.add(row, blk) }

// killEntry marks row's entry for block blk LP_DEAD: scans skip it.
func (t *table) killEntry(row int64, blk int32) { t.oldEntries.remove(row, blk) }

// oldEntryMap holds, per row, the blocks of the index entries its older
// versions left behind. Most rows have one (a row updated once since
// the last VACUUM of a large table): it is an entry of a packed table
// (rowBlocks: 11 to 21 bytes a row), and only rows with more keep a list
// in a map. A table that autovacuum does not reach keeps an entry per
// non-HOT update; a list per row had cost about 60 bytes each, a Go map's
// entry 19 to 39.
type oldEntryMap struct {
	one  rowBlocks
	more map[int64][]int32 // two or more, in the order they were added
}

// appendTo appends row's blocks to out.
func (m *oldEntryMap) appendTo(row int64, out []int32) []int32 {
	if blk, ok := m.one.get(row); ok {
		return append(out, blk)
	}
	if len(m.more) == 0 {
		return out
	}
	return append(out, m.more[row]...)
}

// add records blk for row unless it is there.
func (m *oldEntryMap) add(row int64, blk int32) {
	if m.more == nil {
		m.more = map[int64][]int32{}
	}
	if first, ok := m.one.get(row); ok {
		if first != blk {
			m.one.del(row)
			m.more[row] = []int32{first, blk}
		}
		return
	}
	if es, ok := m.more[row]; ok {
		if !slices.Contains(es, blk) {
			m.more[row] = append(es, blk)
		}
		return
	}
	m.one.put(row, blk)
}

// remove drops blk from row's blocks.
func (m *oldEntryMap) remove(row int64, blk int32) {
	if first, ok := m.one.get(row); ok {
		if first == blk {
			m.one.del(row)
		}
		return
	}
	if len(m.more) == 0 {
		return
	}
	m.set(row, slices.DeleteFunc(m.more[row], func(b int32) bool { return b == blk }))
}

// set replaces row's blocks with es (which may be row's own list).
func (m *oldEntryMap) set(row int64, es []int32) {
	switch len(es) {
	case 0:
		m.one.del(row)
		delete(m.more, row)
	case 1:
		delete(m.more, row)
		m.one.put(row, es[0])
	default:
		m.one.del(row)
		m.more[row] = es
	}
}

// filter keeps, for every row, the blocks keep accepts. The rows are
// visited in no particular order: keep must not depend on it.
func (m *oldEntryMap) filter(keep func(row int64, blk int32) bool) {
	m.one.filter(keep)
	for row, es := range m.more {
		m.set(row, slices.DeleteFunc(es, func(b int32) bool { return !keep(row, b) }))
	}
}

// indexTarget is the rightmost leaf b cached for ix (the fastpath's
// RelationGetTargetBlock), or -1.
func (b *backend) indexTarget(ix *index) int32 {
	for _, x := range b.idxTargets {
		if x.ix == ix {
			return x.blk
		}
	}
	return -1
}

func (b *backend) setIndexTarget(ix *index, blk int32) {
	for i := range b.idxTargets {
		if b.idxTargets[i].ix == ix {
			b.idxTargets[i].blk = blk
			return
		}
	}
	b.idxTargets = append(b.idxTargets, idxTarget{ix: ix, blk: blk})
}

type idxTarget struct {
	ix  *index
	blk int32
}

// btInsert is _bt_doinsert for key (its heap tuple just written): the
// fastpath or a descent, the leaf pinned and changed with a WAL record.
// It leaves the leaf's slot in b.btLeaf (held) for _bt_check_unique; the
// caller releases it. Resumes where it blocked (b.bt).
func (b *backend) btInsert(ix *index, key int64) bool {
	e := b.e
	st := &b.bt
	bt := ix.bt
	leaf := bt.Leaf(key)
	rightmost := leaf == bt.Levels[0].First+bt.Levels[0].Pages-1
	if st.stage == 0 {
		st.stage = 1
		b.touched = 0
		if tgt := b.indexTarget(ix); tgt >= 0 {
			// _bt_search_insert: read the cached leaf; usable if key
			// sorts after its first key (it is the rightmost leaf).
			st.stage = 2
		}
	}
	if st.stage == 2 {
		slot, ok := b.readBuffer(e.cat.GID(ix.rel, b.indexTarget(ix)), nil, false, true)
		if !ok {
			return false
		}
		b.cpu += e.costs.IndexLevel
		// Usable if it is still the rightmost leaf, key sorts after its
		// first key, and it has room (no split needed).
		if rightmost && leaf == b.indexTarget(ix) && key > bt.Keys+bt.Appended && !bt.Full(leaf) {
			bt.Append(key)
			st.leafSlot = slot
			st.stage = 4
		} else {
			b.releaseBuffer(slot)
			b.setIndexTarget(ix, -1)
			b.touched = 0
			st.stage = 1
		}
	}
	if st.stage == 1 { // descend from the root; keep the leaf
		if b.touched == 0 {
			b.btgids = e.btPath(ix, key, b.btgids[:0])
		}
		if !b.touchPages(b.btgids[:len(b.btgids)-1], e.costs.IndexLevel) {
			return false
		}
		slot, ok := b.readBuffer(b.btgids[len(b.btgids)-1], nil, false, true)
		if !ok {
			return false
		}
		b.cpu += e.costs.IndexLevel
		st.leafSlot = slot
		st.stage = 3
		if key > bt.Keys+bt.Appended {
			// A key after every other: it goes to the rightmost leaf,
			// which may split (_bt_split: a new page at the relation's
			// end, P_NEW), each split adding a downlink to the parent,
			// read again from the descent's stack (_bt_getstackbuf).
			st.split = bt.Append(key)
			st.ns = 0
			b.touched = 0
		}
	}
	if st.stage == 3 {
		for st.ns < len(st.split) {
			blk := st.split[st.ns]
			for e.cat.Rel(ix.rel).NBlocks <= blk {
				_, gid, ok := e.extend(ix.rel)
				if !ok {
					return false
				}
				// _bt_split registers the new right page with
				// REGBUF_WILL_INIT: its record rebuilds it, no full-page
				// image.
				e.fpiCycle[gid] = e.cycle
			}
			slot, ok := b.readBuffer(e.cat.GID(ix.rel, blk), nil, true, true)
			if !ok {
				return false
			}
			b.cpu += e.costs.IndexInsert
			b.modify(slot, e.pool.Tag[slot], e.walIndexInsertRecord())
			b.releaseBuffer(slot)
			st.ns++
		}
		// The parents that received the downlinks (not a new root).
		if parents := min(len(st.split), len(b.btgids)-1); parents > 0 && st.split != nil {
			if !b.touchPages(b.btgids[len(b.btgids)-1-parents:len(b.btgids)-1], e.costs.IndexInsert) {
				return false
			}
		}
		st.split = st.split[:0]
		st.stage = 4
	}
	if st.stage == 4 {
		b.cpu += e.costs.IndexInsert
		b.modify(st.leafSlot, e.pool.Tag[st.leafSlot], e.walIndexInsertRecord())
		// _bt_insertonpg caches the rightmost leaf of a tall enough tree
		// after an insertion that did not split it.
		if bt.Rightmost(key) && bt.Height() >= btFastpathMinLevels {
			b.setIndexTarget(ix, bt.Leaf(key))
		}
		st.stage = 5
	}
	return true
}

// btCheckUnique is _bt_check_unique after the insertion of key's new
// entry (pointing at block newBlk): it fetches the heap tuple of every
// other live entry of the key (table_index_fetch_tuple_check), marking
// LP_DEAD the entries whose tuples are dead to all, then releases the
// leaf. Resumes where it blocked (b.bt.ent).
func (b *backend) btCheckUnique(t *table, key int64, newBlk int32) bool {
	e := b.e
	st := &b.bt
	if st.stage == 5 {
		st.entries = t.indexEntries(key, st.entries[:0])
		st.ent = 0
		st.stage = 6
	}
	for st.ent < len(st.entries) {
		blk := st.entries[st.ent]
		if blk == newBlk {
			st.ent++
			continue
		}
		slot, ok := b.readBuffer(e.cat.GID(t.rel, blk), nil, false, false)
		if !ok {
			return false
		}
		chain := b.chain(t, key, blk)
		b.cpu += e.costs.TupleFetch
		b.checkPage(t, blk, slot, e.pool.Tag[slot], chain)
		if b.surelyDead(chain) && blk != t.heap.BlockOf(key) {
			t.killEntry(key, blk)
			b.markDirtyHint(st.leafSlot, e.pool.Tag[st.leafSlot])
		}
		b.releaseBuffer(slot)
		st.ent++
	}
	b.releaseBuffer(st.leafSlot)
	st.stage = 0
	return true
}

// btState is the progress of one index insertion.
type btState struct {
	stage    int
	leafSlot int32
	split    []int32 // pages a rightmost split allocated
	ns       int
	entries  []int32
	ent      int
}
