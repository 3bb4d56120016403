package model

import (
	"fmt"
	"math"
	"slices"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/oscache"
	"github.com/pgbufsim/pgbufsim/sim"
)

// prewarm replays the page references of n transactions of the first
// phase's script through the buffer pool and the OS page cache, without
// time passing for any process and without I/O or writes: buffers are
// loaded clean, the replacement policy sees every access (at the times the
// transactions would have run, gap apart), and the OS cache keeps the pages
// that missed shared buffers. The run then starts at the prewarm's end.
// Keys come from a stream of their own, so the measured run's draws are the
// same with or without prewarming.
//
// It returns false if the run was interrupted meanwhile.
func (e *engine) prewarm(n int64) bool {
	if n <= 0 || len(e.phases) == 0 {
		return true
	}
	if !e.prewarmReferences(n) {
		return false
	}
	e.prewarmDone(n)
	return true
}

// prewarmGap is the simulated time between two prewarm transactions: the
// first phase's rate, or a millisecond.
func (e *engine) prewarmGap() int64 {
	if r := e.phases[0].cfg.Rate; r > 0 {
		return int64(float64(sim.Second) / r)
	}
	return int64(sim.Millisecond)
}

// prewarmReferences is the prewarm's work: it replays the references
// through the pool and leaves the page cache holding what missed it, with
// the counters at zero. Only the pool, its policy and the page cache
// change (prewarmshare.go copies exactly those).
func (e *engine) prewarmReferences(n int64) bool {
	ph := e.phases[0]
	gap := e.prewarmGap()
	rng := sim.NewStream(uint64(e.sc.Seed), e.sc.Replicate, "prewarm/keys")
	b := &backend{e: e, id: -1, client: &client{phase: ph, keys: rng, extra: rng, script: ph.mix.scripts[0], vals: make([]int64, ph.mix.maxVars)}}
	choose := rng
	if len(ph.mix.scripts) > 1 {
		choose = sim.NewStream(uint64(e.sc.Seed), e.sc.Replicate, "prewarm/choose")
	}
	p := e.pool
	// Pages read from the kernel, in order; the page cache applies them at
	// once at the end (oscache.WarmAll: the same final LRU, far fewer random
	// memory accesses). Nothing else uses the page cache during a prewarm.
	// Only the order of the last reads of the most recent CapacityPages
	// distinct pages decides the page cache's final state (an LRU): when
	// the list grows past twice that, it keeps just those, so a long
	// prewarm's memory stays bounded by the cache's size. It is allocated
	// at once (at most that bound, about two misses per transaction
	// before): growing it by doubling copied it over and over.
	keep := int(max(e.os.Config().CapacityPages, 1))
	reads := make([]int32, 0, min(2*keep+1<<16, int(min(n, 1<<26))*2+1<<12))
	var seen []uint64 // LastDistinct's scratch
	touch := func(gid int32, now int64) {
		if s := p.Lookup(gid); s >= 0 {
			// A shared-buffer hit never reaches the kernel: the page
			// cache's recency is that of the last read from it.
			p.Pin(s, now, false)
			p.Unpin(s)
			return
		}
		s, _ := p.GetVictim(nil, now)
		if s < 0 {
			return
		}
		p.Assign(s, gid, now, false)
		p.ReadDone(s)
		p.Unpin(s)
		reads = append(reads, gid)
		if len(reads) >= 2*keep+1<<16 {
			reads, seen = oscache.LastDistinct(reads, keep, seen)
		}
	}
	// The server has been running the workload: its connections have read
	// the system catalogs (syscatalog.go), which then sit in the page
	// cache and, unless evicted since, in shared buffers.
	if e.sc.Server.SystemCatalogs {
		for _, rel := range []catalog.RelID{e.db.sysGlobal, e.db.sysCatalog} {
			for blk := range e.cat.Rel(rel).NBlocks {
				touch(e.cat.GID(rel, blk), 0)
			}
		}
	}
	var path, heapBlocks []int32
	// With -P the prewarm reports its own progress, every tenth of it.
	report := e.opt.ProgressLine != nil && e.sc.Output.Progress > 0
	for i := int64(0); i < n; i++ {
		if i%4096 == 0 && e.opt.Interrupted != nil && e.opt.Interrupted() {
			return false
		}
		if report && i > 0 && i%max(n/10, 1) == 0 {
			e.opt.ProgressLine(fmt.Sprintf("prewarm: %d of %d transactions (%d%%)", i, n, i*100/n))
		}
		now := i * gap
		sc := ph.mix.scripts[ph.mix.choose(choose)]
		b.client.lists = b.client.lists[:0]
		b.ops = sc.txn(b, rng, b.client.vals, b.ops[:0])
		for _, o := range b.ops {
			if o.t == nil {
				continue
			}
			if e.scanByIndexOnly(&o) {
				o = o.allKeysRange()
			}
			switch o.kind {
			case opFetch, opUpdate, opDeleteKey:
				if o.t.pkey != nil {
					path = o.t.pkey.bt.Path(o.key, path[:0])
					for _, blk := range path {
						touch(e.cat.GID(o.t.pkey.rel, blk), now)
					}
				}
				if o.t.hasRow(o.key) {
					touch(e.cat.GID(o.t.rel, o.t.heap.BlockOf(o.key)), now)
				}
			case opSeqscan:
				for blk := int32(0); blk <= seqScanLastBlock(o.t, &o); blk++ {
					touch(e.cat.GID(o.t.rel, blk), now)
				}
			case opList, opUpdateList, opDeleteList:
				// Each key's descent and heap page (listscan.go), a
				// bitmap's or an index scan's alike.
				for _, key := range b.listKeysOf(&o) {
					path = o.t.pkey.bt.Path(key, path[:0])
					for _, blk := range path {
						touch(e.cat.GID(o.t.pkey.rel, blk), now)
					}
					if o.t.hasRow(key) {
						touch(e.cat.GID(o.t.rel, o.t.heap.BlockOf(key)), now)
					}
				}
			case opRange, opUpdateRange, opDeleteRange:
				// The index scan's pages (rangescan.go), the bitmap
				// heap scan's (bitmapscan.go: the leaves, then the heap
				// pages in block order), or every page when the planner
				// scans the table.
				plan := e.planRange(&o)
				if plan == planSeqScan {
					seq := op{kind: opSeqscan, t: o.t, key: max(o.key, 1), n: min(o.n, o.t.heap.Rows), limit: o.limit}
					for blk := int32(0); blk <= seqScanLastBlock(o.t, &seq); blk++ {
						touch(e.cat.GID(o.t.rel, blk), now)
					}
					break
				}
				// The keys in the order the scan reads them: up from
				// the first, or down from the last (ORDER BY the key
				// DESC), stopping at the LIMIT.
				first, last := max(o.key, 1), min(o.n, o.t.heap.Rows)
				if o.limit > 0 && plan != planBitmapScan {
					if o.desc {
						first = max(first, last-o.limit+1)
					} else {
						last = min(last, first+o.limit-1)
					}
				}
				start := first
				if o.desc && plan != planBitmapScan {
					start = max(last, 1)
				}
				path = o.t.pkey.bt.Path(start, path[:0])
				for _, blk := range path {
					touch(e.cat.GID(o.t.pkey.rel, blk), now)
				}
				lastLeaf, lastBlk, lastVM := path[len(path)-1], int32(-1), int32(-1)
				heapBlocks = heapBlocks[:0]
				for i := int64(0); i <= last-first; i++ {
					key := first + i
					if o.desc && plan != planBitmapScan {
						key = last - i
					}
					if leaf := o.t.pkey.bt.Leaf(key); leaf != lastLeaf {
						touch(e.cat.GID(o.t.pkey.rel, leaf), now)
						lastLeaf = leaf
					}
					if blk := o.t.heap.BlockOf(key); plan == planBitmapScan {
						heapBlocks = append(heapBlocks, blk)
					} else if plan == planIndexOnlyScan && o.t.heap.AllVisible(blk) {
						// The visibility map's page instead, pinned once
						// while the scan stays on it (indexonly.go).
						if vmBlk := blk / e.db.heapPerVM; vmBlk != lastVM && vmBlk < e.cat.Rel(o.t.vm).NBlocks {
							touch(e.cat.GID(o.t.vm, vmBlk), now)
							lastVM = vmBlk
						}
					} else if blk != lastBlk {
						touch(e.cat.GID(o.t.rel, blk), now)
						lastBlk = blk
					}
				}
				slices.Sort(heapBlocks)
				for i, blk := range heapBlocks {
					if i == 0 || heapBlocks[i-1] != blk {
						touch(e.cat.GID(o.t.rel, blk), now)
					}
				}
			}
		}
	}
	e.os.WarmAll(reads)
	// The counters describe the run, not the prewarm.
	p.Stats = bufpool.Stats{}
	e.stats = pgStats{}
	e.os.Stats.Hits, e.os.Stats.Misses, e.os.Stats.Evictions = 0, 0, 0
	return true
}

// prewarmDone lets the prewarm's simulated time pass (no process has
// started yet), so the run starts at its end.
func (e *engine) prewarmDone(n int64) {
	e.k.RunUntil(n * e.prewarmGap())
}

// loadPageCache puts every relation's pages in the OS page cache, clean,
// in the order they were created (os.start: loaded): the system catalogs,
// then each table with its indexes and forks as the build made them; when
// they do not all fit, the cache keeps the last ones, as an LRU fed the
// load would. The counters start at 0 after it.
func (e *engine) loadPageCache() {
	// Every page is distinct: the cache keeps the last CapacityPages, so
	// only those are listed (walking back from the last relation).
	capacity := int(max(e.os.Config().CapacityPages, 0))
	gids := make([]int32, 0, min(capacity, 1<<20))
	for r := e.cat.NumRelations() - 1; r >= 0 && len(gids) < capacity; r-- {
		rel := catalog.RelID(r)
		for blk := e.cat.Rel(rel).NBlocks - 1; blk >= 0 && len(gids) < capacity; blk-- {
			gids = append(gids, e.cat.GID(rel, blk))
		}
	}
	slices.Reverse(gids)
	e.os.WarmAll(gids)
	e.os.Stats.Hits, e.os.Stats.Misses, e.os.Stats.Evictions = 0, 0, 0
}

// seqScanLastBlock is the last block sequential scan o reads: the table's
// last, or under a LIMIT the block holding the row that meets it
// (scanLimitPage), every loaded row taken as visible: in key order the
// LIMIT's row itself; in random order, where a range's rows are spread
// over the table, the load position at the LIMIT's share of them.
func seqScanLastBlock(t *table, o *op) int32 {
	last := t.heap.NBlocks() - 1
	if o.limit <= 0 {
		return last
	}
	h := t.heap
	pos := o.limit // no WHERE clause: the LIMIT's row is its position
	if o.n != math.MaxInt64 {
		lo, hi := max(o.key, 1), min(o.n, h.Rows)
		if hi-lo+1 <= o.limit {
			return last
		}
		pos = lo + o.limit - 1
		if h.RandomOrder() {
			pos = int64(math.Ceil(float64(o.limit) * float64(h.Rows) / float64(hi-lo+1)))
		}
	}
	if pos >= h.Rows {
		return last
	}
	return min(int32((pos-1)/int64(h.RowsPerPage)), last)
}
