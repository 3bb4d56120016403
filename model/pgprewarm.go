package model

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
)

// pg_prewarm (contrib/pg_prewarm/pg_prewarm.c, function pg_prewarm): a
// statement that loads a relation's blocks, first_block to last_block of
// its main fork, in one of three modes.
//
//   - buffer: each block into shared buffers and released at once. Up to
//     16 one ReadBufferExtended(RBM_NORMAL) with no buffer access
//     strategy per block — no ring: a relation larger than shared buffers
//     evicts everything else, and its own first blocks — each a hit or a
//     read in every statistic, a fresh pin raising usage_count as any
//     other. From 17 a read stream (READ_STREAM_FULL: its distance starts
//     at io_combine_limit, so reads are 128 kB from the first; from 18
//     also READ_STREAM_MAINTENANCE: maintenance_io_concurrency reads in
//     flight with asynchronous I/O).
//   - read: each block read with smgrread into a private buffer: through
//     the OS page cache (and the kernel's readahead), not into shared
//     buffers, and counted in no buffer statistic.
//   - prefetch: each block that is not in shared buffers advised to the
//     kernel (PrefetchBuffer -> smgrprefetch -> posix_fadvise WILLNEED):
//     the kernel starts reading it into the page cache and the statement
//     does not wait for it.
//
// The statement returns the number of blocks done. A first_block or
// last_block outside the relation is an error (the model stops the run
// with PostgreSQL's message: pgbench would abort the client).

// prewarmMode is pg_prewarm's mode argument.
type prewarmMode uint8

const (
	prewarmBuffer prewarmMode = iota
	prewarmRead
	prewarmPrefetch
)

var prewarmModes = map[string]prewarmMode{"buffer": prewarmBuffer, "read": prewarmRead, "prefetch": prewarmPrefetch}

// nullBlock is pg_prewarm's NULL first_block or last_block: the
// relation's first or last block.
const nullBlock = math.MinInt64

// pgPrewarm runs SELECT pg_prewarm(o.t, o.mode, 'main', o.key, o.n).
func (b *backend) pgPrewarm(o *op) bool {
	e := b.e
	t := o.t
	if b.sub == 1 {
		b.planFirstRun(opPrewarm, pathNone)
		// RelationGetNumberOfBlocksInFork, then the range checks.
		nblocks := int64(t.heap.NBlocks())
		first, last := o.key, o.n
		if first == nullBlock {
			first = 0
		} else if first < 0 || first >= nblocks {
			e.fail(fmt.Errorf("pg_prewarm(%q, first_block => %d): ERROR: starting block number must be between 0 and %d (the table has %d blocks then; pgbench aborts the client)", t.name, first, nblocks-1, nblocks))
			return false
		}
		if last == nullBlock {
			last = nblocks - 1
		} else if last < 0 || last >= nblocks {
			e.fail(fmt.Errorf("pg_prewarm(%q, last_block => %d): ERROR: ending block number must be between 0 and %d (the table has %d blocks then; pgbench aborts the client)", t.name, last, nblocks-1, nblocks))
			return false
		}
		b.blk, b.scanEnd = int32(first), int32(max(last+1, first))
		if o.mode == prewarmBuffer && e.usesReadStream() {
			b.streamBegin(t, nil, streamPrewarm, b.blk)
		}
		b.sub = 2
	}
	for b.blk < b.scanEnd {
		blk := b.blk
		if b.sub == 2 {
			// CHECK_FOR_INTERRUPTS: where the backend gives up its core
			// once it has run a time slice.
			if b.yield() {
				return false
			}
			b.sub = 3
		}
		gid := e.cat.GID(t.rel, blk)
		switch o.mode {
		case prewarmBuffer:
			var slot int32
			var ok bool
			if e.usesReadStream() {
				slot, _, ok = b.streamNextBlock(t, blk, false, "pg_prewarm")
			} else {
				slot, ok = b.readBuffer(gid, nil, false, false)
			}
			if !ok {
				return false
			}
			b.releaseBuffer(slot)
		case prewarmRead:
			if b.sub == 3 {
				// smgrread -> mdread: one pread through the backend's
				// descriptor (its readahead state), the copy charged as
				// any read from the page cache.
				b.sub = 4
				b.smgrGid = gid
				b.cpu += e.costs.OSRead
				b.block(wSmgrRead)
				return false
			}
		case prewarmPrefetch:
			// PrefetchSharedBuffer: a buffer-mapping lookup (priced as
			// a hit: the model does not price the pin apart), and for a
			// block not in shared buffers the posix_fadvise call, priced
			// as the pread it stands for.
			b.cpu += e.costs.BufferHit
			if e.pool.Lookup(gid) < 0 {
				b.cpu += e.costs.OSRead
				e.os.Prefetch(gid)
			}
		}
		b.sub = 2
		b.blk++
	}
	// read_stream_end, relation_close.
	b.releaseAll()
	return true
}

// Autoprewarm (contrib/pg_prewarm/autoprewarm.c), with pg_prewarm in
// shared_preload_libraries and pg_prewarm.autoprewarm on (its default):
//
//   - at shutdown apw_dump_now writes the block of every valid buffer of a
//     permanent relation to autoprewarm.blocks (the model's restarts are
//     clean shutdowns, so the dump is the shutdown's, whatever
//     autoprewarm_interval: the periodic dumps matter after a crash);
//   - after the restart the leader sorts them (database, tablespace,
//     relation, fork, block: the model's relation order and block) and a
//     background worker per database loads them with ReadBufferExtended
//     and no strategy, one at a time, while clients run; it stops when
//     the buffer free list is empty (apw_load_buffers: "if
//     (!have_free_buffer()) break"), so it never evicts what clients have
//     read meanwhile.
//
// The worker's reads count in pg_statio and in pg_stat_io's "background
// worker" row, not in the clients' pgBufferUsage.

// autoprewarmDump is apw_dump_now at the shutdown of a restart.
func (e *engine) autoprewarmDump() {
	p := e.pool
	e.apwBlocks = e.apwBlocks[:0]
	for s := int32(0); s < p.N; s++ {
		if p.Tag[s] >= 0 && p.Flags[s]&bufpool.Valid != 0 {
			e.apwBlocks = append(e.apwBlocks, p.Tag[s])
		}
	}
	slices.SortFunc(e.apwBlocks, func(a, b int32) int {
		ra, ba := e.cat.Locate(a)
		rb, bb := e.cat.Locate(b)
		if ra != rb {
			return cmp.Compare(ra, rb)
		}
		return cmp.Compare(ba, bb)
	})
}

// startAutoprewarm starts the worker that loads the dump after a restart.
func (e *engine) startAutoprewarm() {
	if !e.sc.Server.Autoprewarm || len(e.apwBlocks) == 0 {
		return
	}
	b := &backend{e: e, id: int32(len(e.backends)), nextWait: -1, vmSlot: -1, vmHeld: -1, apw: true}
	e.backends = append(e.backends, b)
	e.procs = append(e.procs, b)
	b.ops = append(b.ops, op{kind: opAutoprewarm})
	b.inTxn = true
	b.advance()
}

// autoprewarmLoad is autoprewarm_database_main's loop over the dump.
func (b *backend) autoprewarmLoad() bool {
	e := b.e
	if b.sub == 1 {
		b.blk, b.sub = 0, 2
	}
	for int(b.blk) < len(e.apwBlocks) {
		if b.sub == 2 {
			if b.yield() {
				return false
			}
			if !e.pool.HaveFreeBuffer() {
				break
			}
			b.sub = 3
		}
		slot, ok := b.readBuffer(e.apwBlocks[b.blk], nil, false, false)
		if !ok {
			return false
		}
		b.releaseBuffer(slot)
		b.blk++
		b.sub = 2
	}
	e.apwBlocks = e.apwBlocks[:0]
	b.releaseAll()
	return true
}
