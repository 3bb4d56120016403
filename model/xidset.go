package model

import "slices"

// xidSet is an immutable set of the xids running when a snapshot was
// taken (its xip), shared by every snapshot taken while the proc array
// did not change. With many xids close together (hundreds of clients) it
// is a bitset, so that a visibility check's lookup is a bit test instead
// of a binary search (that search was a quarter of a 512-client run's
// time); with few, or spread thin (a long transaction among short ones,
// where a bitset would cost more to copy than the searches it saves), a
// sorted list.
type xidSet struct {
	lo   uint32   // the oldest xid (0 when n is 0)
	n    int      // how many
	xids []uint32 // ascending, when bits is nil
	base uint32   // the xid of bits' first bit (a multiple of 64)
	bits []uint64
}

// newXidSet makes the set of the sorted running xids, a bitset when there
// are more than 16 within 4 words of bitset each.
func newXidSet(running []uint32) *xidSet {
	n := len(running)
	s := &xidSet{n: n}
	if n == 0 {
		return s
	}
	s.lo = running[0]
	if n > 16 {
		base := running[0] &^ 63
		if words := int(running[n-1]-base)/64 + 1; words <= 4*n {
			s.base, s.bits = base, make([]uint64, words)
			for _, x := range running {
				d := x - base
				s.bits[d>>6] |= 1 << (d & 63)
			}
			return s
		}
	}
	s.xids = slices.Clone(running)
	return s
}

func (s *xidSet) has(xid uint32) bool {
	if s.bits != nil {
		d := xid - s.base // wraps to a large value below the first
		return int(d>>6) < len(s.bits) && s.bits[d>>6]&(1<<(d&63)) != 0
	}
	if len(s.xids) <= 16 {
		return slices.Contains(s.xids, xid) // faster than a search for a few
	}
	_, ok := slices.BinarySearch(s.xids, xid)
	return ok
}

// liveXids is the running xids as a bitset over [base, base + 64 *
// len(words)), kept up to date as xids start and end, so that a new
// snapshot's set is a copy of the few words its xids span instead of a
// pass over every running xid: under hundreds of clients the proc array
// changes between nearly every two snapshots, and building each set anew
// grew with the clients (GetSnapshotData's copy of the xids is
// PostgreSQL's cost, charged as costs.procarray_per_proc; this is the
// simulator's own). While the running xids are few (16 or fewer) or
// spread too thin for a bitset (a long transaction among short ones) it
// is dropped (valid false) and the sets are lists again; it is rebuilt
// from the list when they are many and close together again.
type liveXids struct {
	base  uint32 // a multiple of 64
	words []uint64
	valid bool
}

// dense reports whether running (ascending) is many xids close enough
// together for a bitset: newXidSet's test, with room for a word either
// side. A few are left to lists (at 8 clients keeping the bitset cost
// more than it saved).
func dense(running []uint32) bool {
	n := len(running)
	return n > 16 && int(running[n-1]-running[0])/64+1 <= 4*n+2
}

// add records that xid, the newest, started; running includes it.
func (l *liveXids) add(xid uint32, running []uint32) {
	if !l.valid {
		if dense(running) {
			l.rebuild(running)
		}
		return
	}
	d := xid - l.base
	for int(d>>6) >= len(l.words) {
		l.words = append(l.words, 0)
	}
	l.words[d>>6] |= 1 << (d & 63)
	if !dense(running) {
		l.valid, l.words = false, nil
	}
}

// remove records that xid ended; running no longer includes it. Words
// wholly below the oldest running xid are dropped as they accumulate.
func (l *liveXids) remove(xid uint32, running []uint32) {
	if !l.valid {
		if dense(running) {
			l.rebuild(running)
		}
		return
	}
	d := xid - l.base
	l.words[d>>6] &^= 1 << (d & 63)
	if !dense(running) {
		l.valid, l.words = false, nil
		return
	}
	if k := int((running[0] - l.base) / 64); k > 0 && 2*k >= len(l.words) {
		l.words = l.words[:copy(l.words, l.words[k:])]
		l.base += 64 * uint32(k)
	}
}

// rebuild makes the bitset of running anew.
func (l *liveXids) rebuild(running []uint32) {
	l.valid, l.words = true, l.words[:0]
	l.base = running[0] &^ 63
	for _, x := range running {
		d := x - l.base
		for int(d>>6) >= len(l.words) {
			l.words = append(l.words, 0)
		}
		l.words[d>>6] |= 1 << (d & 63)
	}
}

// set is the xidSet of running (ascending), which l holds as a bitset
// when it is valid: newXidSet's set, its bitset copied from l's words
// instead of made one xid at a time.
func (l *liveXids) set(running []uint32) *xidSet {
	n := len(running)
	if !l.valid || n <= 16 {
		return newXidSet(running)
	}
	w0, w1 := int((running[0]-l.base)/64), int((running[n-1]-l.base)/64)
	if w1-w0+1 > 4*n {
		return newXidSet(running)
	}
	return &xidSet{lo: running[0], n: n, base: l.base + 64*uint32(w0), bits: slices.Clone(l.words[w0 : w1+1])}
}
