package model

// Index-only scans (nodeIndexonlyscan.c IndexOnlyNext). A lookup or range
// whose SELECT list reads only the key (count(*), the key itself) is
// answered from the index where the visibility map says the heap page is
// all-visible: visibilitymap_get_status on the scan's pinned visibility-
// map buffer (one access each time the heap block's map page changes,
// kept pinned to the scan's end), and index_fetch_heap only for the
// entries on other pages, as an index scan fetches them (their
// kill_prior_tuple included). The visibility map's accesses count in the
// table's pg_statio_user_tables heap blocks, as every fork's do.

// indexOnlyVisible is VM_ALL_VISIBLE for heap block blk of t through the
// scan's pinned map page; ok false: b blocked reading it (call again).
func (b *backend) indexOnlyVisible(t *table, blk int32) (visible, ok bool) {
	e, k := b.e, &b.k
	vmBlk := blk / e.db.heapPerVM
	if vmBlk >= e.cat.Rel(t.vm).NBlocks {
		// No map page yet (no VACUUM has made the fork): vm_readbuf
		// reads nothing and the page counts as not all-visible.
		return false, true
	}
	if !k.vmPinned || k.vmPinBlk != vmBlk {
		if k.vmPinned {
			b.releaseBuffer(k.vmPinSlot)
			k.vmPinned = false
		}
		slot, ok := b.readBuffer(e.cat.GID(t.vm, vmBlk), nil, false, false)
		if !ok {
			return false, false
		}
		k.vmPinned, k.vmPinBlk, k.vmPinSlot = true, vmBlk, slot
	}
	b.cpu += e.costs.VMTest
	return t.heap.AllVisible(blk), true
}

// nextEntry is a keyed statement's next index entry: from the index alone
// when an index-only scan finds its heap page all-visible (costs
// index_only_tuple), else index_fetch_heap (fetchEntry, costs
// tuple_fetch).
func (b *backend) nextEntry(t *table, row int64) bool {
	k := &b.k
	if k.indexOnly {
		visible, ok := b.indexOnlyVisible(t, k.entries[k.ei])
		if !ok {
			return false
		}
		if visible {
			b.cpu += b.e.costs.IndexOnlyTuple
			k.found = true
			k.ei++
			return true
		}
	}
	return b.fetchEntry(t, row)
}
