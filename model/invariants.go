package model

import (
	"fmt"
	"slices"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
)

// checkInvariants verifies, once at the end of every run, the conservation
// laws the model must obey whatever the scenario: a violation is a bug in
// pgbufsim (never a user error), so the run fails with exit 2 and a message
// naming the law. It costs one pass over the buffer pool and the policy's
// own Check.
func (e *engine) checkInvariants(r *Result) error {
	fail := func(law, format string, args ...any) error {
		return fmt.Errorf("internal consistency check %q failed at the end of the run (a pgbufsim bug; please report it with the scenario): %s",
			law, fmt.Sprintf(format, args...))
	}
	p := e.pool
	st := p.Stats

	// Every buffer is free, valid, or in I/O, and the page map agrees.
	var dirty int32
	for s := int32(0); s < p.N; s++ {
		f, tag := p.Flags[s], p.Tag[s]
		if p.Frames.Pins[s] < 0 {
			return fail("buffer states", "buffer %d has pin count %d", s, p.Frames.Pins[s])
		}
		if f&bufpool.Dirty != 0 {
			dirty++
		}
		if tag < 0 {
			if f&(bufpool.Valid|bufpool.Dirty|bufpool.IOInProgress) != 0 {
				return fail("buffer states", "buffer %d holds no page but has flags %#x", s, f)
			}
			continue
		}
		if f&(bufpool.Valid|bufpool.IOInProgress) == 0 {
			return fail("buffer states", "buffer %d holds page %d but is neither valid nor in I/O (flags %#x)", s, tag, f)
		}
		if got := p.Lookup(tag); got != s {
			return fail("buffer states", "buffer %d holds page %d, which the buffer mapping places in buffer %d", s, tag, got)
		}
		if f&bufpool.Evicting != 0 && p.Frames.Pins[s] == 0 {
			return fail("buffer states", "buffer %d is marked as a victim being evicted but nobody pins it", s)
		}
	}
	if dirty != p.DirtyCount() {
		return fail("dirty buffers", "%d buffers are dirty but the pool counts %d", dirty, p.DirtyCount())
	}

	// The cached oldest-xmin horizon is what a full scan gives, and the
	// running xids are in order (snapshots share them sorted).
	if e.x.horizonOK {
		if got, want := e.x.horizon, e.computeOldestXmin(); got != want {
			return fail("xmin horizon", "the cached horizon is %d, a scan of the proc array gives %d", got, want)
		}
	}
	if !slices.IsSorted(e.x.running) {
		return fail("running xids", "the running xids are out of order: %v", e.x.running)
	}

	// No heap page holds more tuples than fit (RelationGetBufferForTuple
	// checks the space of the page it returns).
	for _, t := range e.db.tables {
		for blk := range t.heap.NBlocks() {
			if t.heap.Free(blk) < 0 {
				return fail("page space", "%s block %d holds %d tuples, more than the %d that fit", t.name, blk, t.heap.Tuples(blk), t.heap.MaxRows)
			}
		}
	}

	// Every allocation came from the free list or the replacement policy.
	if st.Alloc != st.FreeListPops+st.SweepVictims {
		return fail("buffers_alloc", "buffers_alloc %d != free-list pops %d + victims chosen by the policy %d", st.Alloc, st.FreeListPops, st.SweepVictims)
	}
	// Every access is exactly one hit, read or extension once its outcome
	// is known; one still waiting when the run ends (a background
	// process's read in flight: the run ends with its last client) has
	// none yet.
	var inflight int
	var unissued uint64 // writes counted, still behind their CPU burst (block)
	for _, b := range e.backends {
		// A read or an extension is counted when its I/O starts
		// (pinStep): one waiting for it has its outcome already.
		if b.ps != psNone && b.ps != psRead && b.ps != psExtendWritten {
			inflight++
		}
		if b.blocked && b.pending == wOSWrite && b.inCPU {
			unissued++
		}
	}
	if st.Hits+st.Reads+st.Extends+uint64(inflight) != e.accesses {
		return fail("accesses", "hits %d + reads %d + extensions %d + %d unfinished != %d buffer accesses", st.Hits, st.Reads, st.Extends, inflight, e.accesses)
	}
	// Writes by backends, the background writer and the checkpointer (plus
	// clog pages) are the writes that reached the OS.
	w := e.bufWrites
	if got, want := e.os.Stats.Writes+unissued, w.backend-w.extends+w.zeroed+w.clean+w.checkpoint+uint64(e.vis.clogWrites); got != want {
		return fail("buffer writes", "the OS received %d page writes (and %d are not issued yet) but backends wrote %d victims and %d zeroed extension pages, the bgwriter %d, the checkpointer %d and clog %d",
			got-unissued, unissued, w.backend-w.extends, w.zeroed, w.clean, w.checkpoint, e.vis.clogWrites)
	}
	// The checkpoints listed account for every checkpoint write.
	var listed int64
	for _, c := range r.Checkpoints {
		listed += c.Written
	}
	if listed != int64(w.checkpoint) {
		return fail("checkpoint writes", "checkpoints[] list %d buffers written, the checkpointer wrote %d", listed, w.checkpoint)
	}
	if err := p.Policy.Check(); err != nil {
		return fail("replacement policy", "%s: %v", e.policy, err)
	}
	return nil
}
