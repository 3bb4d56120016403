package model

import (
	"cmp"
	"slices"
)

// Bitmap heap scans: the plan the planner takes for a range of keys whose
// rows are scattered over the heap (a table loaded in random order) when
// the range is too large for an index scan's random reads and too small
// for a sequential scan (rangeCosts). The scan reads as PostgreSQL's does:
//
//   - the Bitmap Index Scan (nodeBitmapIndexscan.c MultiExecBitmapIndexScan
//     -> nbtree.c btgetbitmap) descends to lo's leaf (_bt_first) and takes
//     every item of the range into the bitmap, reading each further leaf
//     once (_bt_next -> _bt_readnextpage). It touches no heap page and, with
//     no kill_prior_tuple, marks no item dead: the entries older versions
//     left behind stay in the bitmap;
//   - the Bitmap Heap Scan (nodeBitmapHeapscan.c BitmapHeapNext) visits
//     the bitmap's pages once each, in block order (tbm_iterate), with no
//     buffer access strategy (table_beginscan_bm asks for none): it prunes
//     the page (heap_page_prune_opt) and checks each of its items' HOT
//     chains (heap_hot_search_buffer);
//   - before 18 it reads each page with ReadBuffer, and advises the kernel
//     of the pages ahead of it (BitmapPrefetch -> PrefetchBuffer ->
//     posix_fadvise(WILLNEED) for a page not in shared buffers), up to
//     effective_io_concurrency pages ahead (prefetch_maximum; 1 by default
//     before 18), with a target that starts at -1 and grows after each
//     page and each tuple returned (BitmapAdjustPrefetchTarget; the
//     "continuing in previously obtained page" increment);
//   - from 18 it reads the pages through a read stream (heapam.c
//     heap_beginscan with bitmapheap_stream_read_next as its callback,
//     READ_STREAM_DEFAULT: effective_io_concurrency reads in flight,
//     neighbouring pages combined into one read, advice for the jumps with
//     io_method sync), and has no prefetching of its own.
//
// The bitmap stays exact: a range whose pages exceed what work_mem holds
// (bitmapMaxEntries, about 65536 pages at 4 MB) is priced lossy by the
// planner, but the scan still checks only the range's tuples.

// bmEntry is one item of the bitmap: a heap block and the row (key) whose
// index entry points there.
type bmEntry struct {
	blk int32
	row int64
}

// bitmapState is a bitmap heap scan's progress.
type bitmapState struct {
	entries []bmEntry // the bitmap, in block order once built
	blocks  []int32   // its distinct blocks, ascending
	next    int       // the next entry to check
	page    int       // the next block of blocks to visit
	// BitmapPrefetch's state (before 18): the prefetch iterator's next
	// block (an index into blocks), the pages it is ahead of the scan,
	// and its target distance.
	pfNext, pfPages, pfTarget int
	adjusted                  bool // BitmapAdjustPrefetchIterator ran for the page being read
}

// bitmapUsesStream reports whether bitmap heap scans read through a read
// stream: from 18.
func (e *engine) bitmapUsesStream() bool { return e.ver >= 1800 }

// execBitmapScan runs a range SELECT planned as a bitmap heap scan, from
// sub-step 20 (execRange's plan choice sends it there).
func (b *backend) execBitmapScan(o *op) bool {
	e, t, k, bm := b.e, o.t, &b.k, &b.bm
	hi := min(o.n, t.heap.Rows)
	if b.sub == 20 { // btgetbitmap: _bt_first
		found, ok := b.btFirst(o)
		if !ok {
			return false
		}
		if !found {
			return true
		}
		bm.entries = bm.entries[:0]
		b.sub = 21
	}
	for b.sub == 21 || b.sub == 22 {
		if b.sub == 21 {
			// _bt_readpage: the leaf's items of the range (tbm_add_tuples).
			for {
				k.entries = t.indexEntries(k.rangeKey, k.entries[:0])
				e.countIndexTuples(t, len(k.entries))
				for _, blk := range k.entries {
					bm.entries = append(bm.entries, bmEntry{blk: blk, row: k.rangeKey})
				}
				if k.rangeKey >= hi {
					b.sub = 23
					break
				}
				if t.pkey.bt.Leaf(k.rangeKey+1) != k.rangeLeaf {
					b.sub = 22
					break
				}
				k.rangeKey++
			}
			continue
		}
		// _bt_next -> _bt_readnextpage: the right sibling.
		if !b.btReadNextPage(t) {
			return false
		}
		b.sub = 21
	}
	if b.sub == 23 {
		// tbm_begin_iterate: the pages in block order, each page's items
		// in offset order (the model's: by row).
		slices.SortFunc(bm.entries, func(x, y bmEntry) int {
			if c := cmp.Compare(x.blk, y.blk); c != 0 {
				return c
			}
			return cmp.Compare(x.row, y.row)
		})
		bm.blocks = bm.blocks[:0]
		for _, en := range bm.entries {
			if n := len(bm.blocks); n == 0 || bm.blocks[n-1] != en.blk {
				bm.blocks = append(bm.blocks, en.blk)
			}
		}
		bm.next, bm.page = 0, 0
		bm.pfNext, bm.pfPages, bm.pfTarget, bm.adjusted = 0, 0, -1, false
		if e.bitmapUsesStream() && len(bm.blocks) > 0 {
			b.scanEnd = bm.blocks[len(bm.blocks)-1] + 1
			b.streamBegin(t, nil, streamBitmap, bm.blocks[0])
		}
		b.sub = 24
	}
	if o.kind.rowChange() != opNone {
		return b.bitmapChangePages(o)
	}
	for bm.page < len(bm.blocks) {
		blk := bm.blocks[bm.page]
		gid := e.cat.GID(t.rel, blk)
		slot, ok := b.bitmapReadPage(t, blk)
		if !ok {
			return false
		}
		for bm.next < len(bm.entries) && bm.entries[bm.next].blk == blk {
			k.chain = b.chain(t, bm.entries[bm.next].row, blk)
			b.cpu += e.costs.TupleFetch
			if len(k.chain) > 0 && b.checkPage(t, blk, slot, gid, k.chain) > 0 {
				b.chargeIndexRow()
				b.bitmapReturned(t)
				k.returned++
			}
			bm.next++
			if k.limited(o.limit) {
				// A LIMIT met: ExecLimit asks for no more rows.
				bm.next, bm.page = len(bm.entries), len(bm.blocks)-1
			}
		}
		b.releaseBuffer(slot)
		bm.page++
	}
	b.releaseAll()
	return true
}

// bitmapReadPage is BitmapHeapNext's next page, blk: the prefetch
// iterator adjusted, the page read (its read stream from 18) and pruned,
// the prefetch target adjusted and the prefetches issued. false: b
// blocked (call again: the adjustment is not made twice).
func (b *backend) bitmapReadPage(t *table, blk int32) (int32, bool) {
	e, bm := b.e, &b.bm
	gid := e.cat.GID(t.rel, blk)
	if !bm.adjusted {
		b.bitmapAdjustPrefetchIterator()
		bm.adjusted = true
	}
	slot, ok := b.scanReadBlock(t, blk, e.bitmapUsesStream(), nil, false, "a bitmap heap scan")
	if !ok {
		return 0, false
	}
	bm.adjusted = false
	b.maybePrune(t, blk, slot, gid)
	b.bitmapAdjustPrefetchTarget()
	b.bitmapPrefetch(t)
	return slot, true
}

// bitmapReturned is BitmapHeapNext returning a visible tuple of the
// current page: counted (idx_tup_fetch), and "continuing in previously
// obtained page", the next call raises the prefetch target by one.
func (b *backend) bitmapReturned(t *table) {
	bm := &b.bm
	b.e.countBitmapFetch(t)
	if bm.pfTarget < b.bitmapPrefetchMaximum() {
		bm.pfTarget++
	}
	b.bitmapPrefetch(t)
}

// bitmapPrefetchMaximum is BitmapHeapNext's prefetch_maximum before 18:
// the tablespace's effective_io_concurrency; 0 with a stream (18), which
// does its own look-ahead.
func (b *backend) bitmapPrefetchMaximum() int {
	if b.e.bitmapUsesStream() {
		return 0
	}
	return b.e.sc.Server.EffectiveIOConcurrency
}

// bitmapAdjustPrefetchIterator is BitmapAdjustPrefetchIterator: the scan
// takes the next page; the prefetch iterator, when it is ahead, is one
// page less ahead, and otherwise takes the same page.
func (b *backend) bitmapAdjustPrefetchIterator() {
	bm := &b.bm
	if b.bitmapPrefetchMaximum() <= 0 {
		return
	}
	if bm.pfPages > 0 {
		bm.pfPages--
	} else if bm.pfNext < len(bm.blocks) {
		bm.pfNext++
	}
}

// bitmapAdjustPrefetchTarget is BitmapAdjustPrefetchTarget, after each
// new page: -1 -> 0 -> 1 -> 2 -> 4 ..., to prefetch_maximum (at half of
// it, straight there).
func (b *backend) bitmapAdjustPrefetchTarget() {
	bm := &b.bm
	m := b.bitmapPrefetchMaximum()
	switch {
	case bm.pfTarget >= m:
	case bm.pfTarget >= m/2:
		bm.pfTarget = m
	case bm.pfTarget > 0:
		bm.pfTarget *= 2
	default:
		bm.pfTarget++
	}
}

// bitmapPrefetch is BitmapPrefetch: the prefetch iterator moves ahead
// until it is target pages ahead of the scan, and each page it passes that
// is not in shared buffers is advised to the kernel (PrefetchBuffer ->
// smgrprefetch -> posix_fadvise(WILLNEED), priced as the system call a
// read is; a page in shared buffers costs the lookup only).
func (b *backend) bitmapPrefetch(t *table) {
	e, bm := b.e, &b.bm
	if b.bitmapPrefetchMaximum() <= 0 {
		return
	}
	for bm.pfPages < bm.pfTarget && bm.pfNext < len(bm.blocks) {
		blk := bm.blocks[bm.pfNext]
		bm.pfNext++
		bm.pfPages++
		gid := e.cat.GID(t.rel, blk)
		b.cpu += e.costs.BufferHit
		if e.pool.Lookup(gid) < 0 {
			b.cpu += e.costs.OSRead
			e.os.Prefetch(gid)
		}
	}
}
