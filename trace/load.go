package trace

import (
	"fmt"
	"io"
	"math"
	"sync"
)

// Trace is a whole trace in memory, compactly: each reference is a dense
// 32-bit id (0, 1, 2, ... in order of first appearance), so 10 million
// references take 40 MB plus 8 bytes per distinct page. A Trace is
// read-only once loaded and safe to replay from many goroutines.
type Trace struct {
	// Name is the trace's file name, for labels.
	Name string
	// IDs holds the dense id of each reference.
	IDs []uint32
	// Keys maps a dense id back to the key it was read as.
	Keys []uint64

	writes   []uint64 // bitset of write references; nil if none
	next     []int64  // next-use positions (1-based), computed by NextUse
	nextOnce sync.Once
}

// Load reads r to the end into a Trace. Next-use positions in the input
// (oracleGeneral's next_access_vtime) are not kept: NextUse recomputes them
// exactly from the ids, which costs one backward pass and no memory until
// asked for.
func Load(r Reader, name string) (*Trace, error) { return LoadMax(r, name, math.MaxInt32) }

// LoadMax is Load that refuses, with an error naming the limit, a trace of
// more than maxRefs references (the caller's bound on memory: 4 bytes per
// reference).
func LoadMax(r Reader, name string, maxRefs int64) (*Trace, error) {
	maxRefs = min(maxRefs, math.MaxInt32)
	br := Batched(r)
	t := &Trace{Name: name}
	in := &Interner{}
	if f, ok := r.(*File); ok && f.sizeHint > 0 {
		// An uncompressed oracleGeneral file says how many references
		// it holds: no append growth, no garbage.
		t.IDs = make([]uint32, 0, f.sizeHint)
	}
	buf := make([]Ref, 4096)
	for {
		n, err := br.ReadRefs(buf)
		for _, ref := range buf[:n] {
			id, _, ok := in.Intern(ref.Key)
			if !ok {
				return nil, fmt.Errorf("%s: more than %d distinct pages", name, MaxInterned)
			}
			if int64(len(t.IDs)) == maxRefs {
				return nil, &Error{File: name, Msg: fmt.Sprintf("more than %d references, more than a replay of several policies or sizes can hold in memory here (4 bytes each, 12 with opt); replay one policy at one cache size in pages (streamed), or cut the trace", maxRefs)}
			}
			i := len(t.IDs)
			t.IDs = append(t.IDs, id)
			if ref.Write {
				for len(t.writes) <= i/64 {
					t.writes = append(t.writes, 0)
				}
				t.writes[i/64] |= 1 << (i % 64)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	t.Keys = in.Keys()
	return t, nil
}

// computeNextUse is the backward pass: next[i] is the 1-based position of
// the next reference to ids[i], or Never.
func computeNextUse(ids []uint32) []int64 {
	next := make([]int64, len(ids))
	distinct := uint32(0)
	for _, id := range ids {
		distinct = max(distinct, id+1)
	}
	last := make([]int64, distinct)
	for i := range last {
		last[i] = Never
	}
	for i := len(ids) - 1; i >= 0; i-- {
		id := ids[i]
		next[i] = last[id]
		last[id] = int64(i) + 1
	}
	return next
}

// Len is the number of references.
func (t *Trace) Len() int { return len(t.IDs) }

// Distinct is the number of distinct pages.
func (t *Trace) Distinct() int { return len(t.Keys) }

// Write reports whether reference i (0-based) is a write.
func (t *Trace) Write(i int) bool {
	return i/64 < len(t.writes) && t.writes[i/64]&(1<<(i%64)) != 0
}

// NextUse returns the 1-based position of the next reference to the same
// page for every reference (Never if none), computed on the first call
// with a backward pass. Safe for concurrent use.
func (t *Trace) NextUse() []int64 {
	t.nextOnce.Do(func() {
		t.next = computeNextUse(t.IDs)
	})
	return t.next
}

// Reader returns a reader over the trace whose keys are the dense ids
// (a replay then needs no hash table) and whose NextUse is set when withNext
// is true.
func (t *Trace) Reader(withNext bool) *TraceReader {
	r := &TraceReader{t: t}
	if withNext {
		r.next = t.NextUse()
	}
	return r
}

// TraceReader reads a Trace.
type TraceReader struct {
	t    *Trace
	next []int64
	pos  int
}

// Next implements Reader.
func (r *TraceReader) Next() (Ref, error) { return nextOf(r) }

// ReadRefs implements BatchReader.
func (r *TraceReader) ReadRefs(dst []Ref) (int, error) {
	ids := r.t.IDs
	if r.pos >= len(ids) {
		return 0, io.EOF
	}
	n := min(len(dst), len(ids)-r.pos)
	for i := range dst[:n] {
		p := r.pos + i
		ref := Ref{Key: uint64(ids[p]), Write: r.t.Write(p)}
		if r.next != nil {
			ref.NextUse = r.next[p]
		}
		dst[i] = ref
	}
	r.pos += n
	return n, nil
}
