package policies

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// StateEncoder is a policy whose state can be written to a file and read
// back: a prewarm kept on disk across runs (simulate -prewarm-cache,
// model/prewarmcache.go) holds the pool's policy state in this form. A
// policy read back must behave exactly as the one written would have.
type StateEncoder interface {
	// EncodeState writes the state after Init and the references since.
	EncodeState(w *StateWriter)
	// DecodeState replaces the state of an initialised policy of the same
	// name and slot count with what EncodeState wrote.
	DecodeState(r *StateReader) error
}

// StateWriter writes a policy's (or a pool's) state as little-endian
// fixed-size values and length-prefixed slices, remembering the first
// error.
type StateWriter struct {
	w   io.Writer
	err error
}

// NewStateWriter returns a writer to w.
func NewStateWriter(w io.Writer) *StateWriter { return &StateWriter{w: w} }

// Err is the first write error, if any.
func (s *StateWriter) Err() error { return s.err }

// Put writes v: a fixed-size value (an integer, a bool, a float) or a
// slice of them, a slice with its length first.
func (s *StateWriter) Put(vs ...any) {
	for _, v := range vs {
		if s.err != nil {
			return
		}
		if n, ok := sliceLen(v); ok {
			s.err = binary.Write(s.w, binary.LittleEndian, int64(n))
			if s.err != nil {
				return
			}
		}
		s.err = binary.Write(s.w, binary.LittleEndian, v)
	}
}

// PutString writes a string with its length first.
func (s *StateWriter) PutString(v string) { s.Put([]byte(v)) }

// StateReader reads what a StateWriter wrote, remembering the first error;
// a slice longer than its limit is an error, so a damaged file cannot make
// it allocate without bound.
type StateReader struct {
	r   io.Reader
	err error
}

// NewStateReader returns a reader from r.
func NewStateReader(r io.Reader) *StateReader { return &StateReader{r: r} }

// Err is the first read error, if any.
func (s *StateReader) Err() error { return s.err }

// Fail records err unless an error came first.
func (s *StateReader) Fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// Get reads into each pointer: a fixed-size value, or a slice (*[]T) of at
// most max elements, allocated to the length written.
func (s *StateReader) Get(max int64, ps ...any) {
	for _, p := range ps {
		if s.err != nil {
			return
		}
		switch q := p.(type) {
		case *[]uint8:
			*q = getSlice[uint8](s, max)
		case *[]bool:
			*q = getSlice[bool](s, max)
		case *[]int32:
			*q = getSlice[int32](s, max)
		case *[]int64:
			*q = getSlice[int64](s, max)
		case *[]uint64:
			*q = getSlice[uint64](s, max)
		default:
			s.err = binary.Read(s.r, binary.LittleEndian, p)
		}
	}
}

// GetString reads a string of at most max bytes.
func (s *StateReader) GetString(max int64) string {
	var b []byte
	s.Get(max, &b)
	return string(b)
}

func getSlice[T uint8 | bool | int32 | int64 | uint64](s *StateReader, max int64) []T {
	var n int64
	if s.err = binary.Read(s.r, binary.LittleEndian, &n); s.err != nil {
		return nil
	}
	if n < 0 || n > max {
		s.err = fmt.Errorf("a list of %d values where at most %d fit", n, max)
		return nil
	}
	v := make([]T, n)
	s.err = binary.Read(s.r, binary.LittleEndian, v)
	return v
}

func sliceLen(v any) (int, bool) {
	switch q := v.(type) {
	case []uint8:
		return len(q), true
	case []bool:
		return len(q), true
	case []int32:
		return len(q), true
	case []int64:
		return len(q), true
	case []uint64:
		return len(q), true
	}
	return 0, false
}

// errStateMismatch is the error of a state read into a policy it does not
// fit.
var errStateMismatch = errors.New("the saved state is of another policy or pool size")

// EncodeState implements StateEncoder.
func (c *ClockSweep) EncodeState(w *StateWriter) {
	w.PutString(c.name)
	w.Put(c.usage, c.occupied, c.lastBump, c.hand, c.passes, c.steps)
}

// DecodeState implements StateEncoder.
func (c *ClockSweep) DecodeState(r *StateReader) error {
	n := int64(len(c.usage))
	if r.GetString(1<<16) != c.name {
		r.Fail(errStateMismatch)
	}
	var usage []uint8
	var occupied []bool
	var lastBump []int64
	var hand int32
	var passes, steps int64
	r.Get(n, &usage, &occupied, &lastBump, &hand, &passes, &steps)
	if err := r.Err(); err != nil {
		return err
	}
	if int64(len(usage)) != n || int64(len(occupied)) != n || (c.lastBump == nil) != (len(lastBump) == 0) || hand < 0 || int64(hand) >= max(n, 1) {
		return errStateMismatch
	}
	for _, u := range usage {
		if u > c.max {
			return errStateMismatch
		}
	}
	c.usage, c.occupied, c.hand, c.passes, c.steps = usage, occupied, hand, passes, steps
	if c.lastBump != nil {
		c.lastBump = lastBump
	}
	return nil
}

// putLinks and putList write a policy's slot lists; getLinks and getList
// read them back for n slots, checking that every link names a slot.
func putLinks(w *StateWriter, k links) { w.Put(k.prev, k.next) }

func putList(w *StateWriter, l slotList) { w.Put(l.head, l.tail, int64(l.n)) }

func getLinks(r *StateReader, n int64) links {
	var k links
	r.Get(n, &k.prev, &k.next)
	if r.Err() != nil {
		return k
	}
	if int64(len(k.prev)) != n || int64(len(k.next)) != n {
		r.Fail(errStateMismatch)
		return k
	}
	for i := range k.prev {
		if !slotOrNone(k.prev[i], n) || !slotOrNone(k.next[i], n) {
			r.Fail(errStateMismatch)
			return k
		}
	}
	return k
}

func getList(r *StateReader, n int64) slotList {
	var l slotList
	var count int64
	r.Get(0, &l.head, &l.tail, &count)
	if r.Err() == nil && (!slotOrNone(l.head, n) || !slotOrNone(l.tail, n) || count < 0 || count > n) {
		r.Fail(errStateMismatch)
	}
	l.n = int(count)
	return l
}

func slotOrNone(s int32, n int64) bool { return s == noSlot || (s >= 0 && int64(s) < n) }

// getExactly reads a slice of exactly n values, one per slot.
func getExactly[T uint8 | bool | int32 | int64 | uint64](r *StateReader, n int64) []T {
	if r.err != nil {
		return nil
	}
	v := getSlice[T](r, n)
	if r.err == nil && int64(len(v)) != n {
		r.Fail(errStateMismatch)
	}
	return v
}

// EncodeState implements StateEncoder.
func (c *Clock) EncodeState(w *StateWriter) {
	putLinks(w, c.k)
	putList(w, c.empty)
	putList(w, c.queue)
	w.Put(c.occupied, c.ref)
}

// DecodeState implements StateEncoder.
func (c *Clock) DecodeState(r *StateReader) error {
	n := int64(len(c.occupied))
	k, empty, queue := getLinks(r, n), getList(r, n), getList(r, n)
	occupied, ref := getExactly[bool](r, n), getExactly[bool](r, n)
	if err := r.Err(); err != nil {
		return err
	}
	c.k, c.empty, c.queue, c.occupied, c.ref = k, empty, queue, occupied, ref
	return nil
}

// EncodeState implements StateEncoder.
func (l *LRU) EncodeState(w *StateWriter) {
	putLinks(w, l.k)
	putList(w, l.order)
	w.Put(l.occupied, int64(l.resident))
}

// DecodeState implements StateEncoder.
func (l *LRU) DecodeState(r *StateReader) error {
	n := int64(len(l.occupied))
	k, order, occupied := getLinks(r, n), getList(r, n), getExactly[bool](r, n)
	var resident int64
	r.Get(0, &resident)
	if err := r.Err(); err != nil {
		return err
	}
	if resident < 0 || resident > n {
		return errStateMismatch
	}
	l.k, l.order, l.occupied, l.resident = k, order, occupied, int(resident)
	return nil
}

// EncodeState implements StateEncoder.
func (f *FIFO) EncodeState(w *StateWriter) {
	putLinks(w, f.k)
	putList(w, f.order)
	w.Put(f.occupied)
}

// DecodeState implements StateEncoder.
func (f *FIFO) DecodeState(r *StateReader) error {
	n := int64(len(f.occupied))
	k, order, occupied := getLinks(r, n), getList(r, n), getExactly[bool](r, n)
	if err := r.Err(); err != nil {
		return err
	}
	f.k, f.order, f.occupied = k, order, occupied
	return nil
}

// EncodeState implements StateEncoder.
func (v *Sieve) EncodeState(w *StateWriter) {
	putLinks(w, v.k)
	putList(w, v.empty)
	putList(w, v.queue)
	w.Put(v.occupied, v.visited, v.hand)
}

// DecodeState implements StateEncoder.
func (v *Sieve) DecodeState(r *StateReader) error {
	n := int64(len(v.occupied))
	k, empty, queue := getLinks(r, n), getList(r, n), getList(r, n)
	occupied, visited := getExactly[bool](r, n), getExactly[bool](r, n)
	var hand int32
	r.Get(0, &hand)
	if err := r.Err(); err != nil {
		return err
	}
	if !slotOrNone(hand, n) {
		return errStateMismatch
	}
	v.k, v.empty, v.queue, v.occupied, v.visited, v.hand = k, empty, queue, occupied, visited, hand
	return nil
}

// ghostLimit bounds a ghost arena read back for n slots: ghost lists
// remember at most a few times as many pages as there are slots.
func ghostLimit(n int64) int64 { return 8*n + 1024 }

func (g *ghosts) encode(w *StateWriter) {
	w.Put(g.key, g.prev, g.next, g.list, g.free, int64(len(g.lists)))
	for _, l := range g.lists {
		w.Put(l.head, l.tail, int64(l.n))
	}
}

// decodeGhosts reads ghosts of nlists lists for n slots and rebuilds
// their index by walking the lists.
func decodeGhosts(r *StateReader, n int64, nlists int) ghosts {
	g := newGhosts(nlists, 0)
	max := ghostLimit(n)
	var count int64
	r.Get(max, &g.key, &g.prev, &g.next, &g.list, &g.free)
	r.Get(0, &count)
	if r.Err() != nil {
		return g
	}
	m := int64(len(g.key))
	if int64(len(g.prev)) != m || int64(len(g.next)) != m || int64(len(g.list)) != m || count != int64(nlists) {
		r.Fail(errStateMismatch)
		return g
	}
	for i := range g.lists {
		var head, tail int32
		var ln int64
		r.Get(0, &head, &tail, &ln)
		if r.Err() != nil || !slotOrNone(head, m) || !slotOrNone(tail, m) || ln < 0 || ln > m {
			r.Fail(errStateMismatch)
			return g
		}
		g.lists[i] = ghostList{head: head, tail: tail, n: int(ln)}
		steps := int64(0)
		for x := head; x != noSlot; x = g.next[x] {
			if steps++; steps > m || !slotOrNone(g.next[x], m) {
				r.Fail(errStateMismatch)
				return g
			}
			g.index[g.key[x]] = x
		}
	}
	return g
}

func (g *ghostFIFO) encode(w *StateWriter) {
	w.Put(int64(g.cap), g.key, g.prev, g.next, g.head, g.tail, g.free)
}

// decodeGhostFIFO reads a ghost queue for n slots and rebuilds its index
// by walking it.
func decodeGhostFIFO(r *StateReader, n int64) ghostFIFO {
	var capacity int64
	r.Get(0, &capacity)
	if r.Err() == nil && (capacity < 0 || capacity > ghostLimit(n)) {
		r.Fail(errStateMismatch)
	}
	g := newGhostFIFO(int(max(capacity, 0)))
	r.Get(ghostLimit(n), &g.key, &g.prev, &g.next, &g.head, &g.tail, &g.free)
	if r.Err() != nil {
		return g
	}
	m := int64(len(g.key))
	if int64(len(g.prev)) != m || int64(len(g.next)) != m || !slotOrNone(g.head, m) || !slotOrNone(g.tail, m) {
		r.Fail(errStateMismatch)
		return g
	}
	steps := int64(0)
	for x := g.head; x != noSlot; x = g.next[x] {
		if steps++; steps > m || !slotOrNone(g.next[x], m) {
			r.Fail(errStateMismatch)
			return g
		}
		g.pos[g.key[x]] = x
	}
	return g
}

// EncodeState implements StateEncoder.
func (q *TwoQ) EncodeState(w *StateWriter) {
	w.PutString(q.name)
	putLinks(w, q.k)
	putList(w, q.empty)
	putList(w, q.a1in)
	putList(w, q.am)
	w.Put(q.where, q.page, q.outPaged)
	q.a1out.encode(w)
}

// DecodeState implements StateEncoder.
func (q *TwoQ) DecodeState(r *StateReader) error {
	n := int64(len(q.where))
	if r.GetString(1<<16) != q.name {
		r.Fail(errStateMismatch)
	}
	k, empty, a1in, am := getLinks(r, n), getList(r, n), getList(r, n), getList(r, n)
	where, page := getExactly[uint8](r, n), getExactly[uint64](r, n)
	var outPaged bool
	r.Get(0, &outPaged)
	a1out := decodeGhosts(r, n, len(q.a1out.lists))
	if err := r.Err(); err != nil {
		return err
	}
	q.k, q.empty, q.a1in, q.am, q.where, q.page, q.outPaged, q.a1out = k, empty, a1in, am, where, page, outPaged, a1out
	return nil
}

// EncodeState implements StateEncoder.
func (a *ARC) EncodeState(w *StateWriter) {
	w.Put(int64(a.c), a.p, int64(a.lastGhost))
	putLinks(w, a.k)
	putList(w, a.empty)
	putList(w, a.t1)
	putList(w, a.t2)
	w.Put(a.where, a.page)
	a.b.encode(w)
}

// DecodeState implements StateEncoder.
func (a *ARC) DecodeState(r *StateReader) error {
	n := int64(len(a.where))
	var c, lastGhost int64
	var p float64
	r.Get(0, &c, &p, &lastGhost)
	if r.Err() == nil && c != int64(a.c) {
		r.Fail(errStateMismatch)
	}
	k, empty, t1, t2 := getLinks(r, n), getList(r, n), getList(r, n), getList(r, n)
	where, page := getExactly[uint8](r, n), getExactly[uint64](r, n)
	b := decodeGhosts(r, n, len(a.b.lists))
	if err := r.Err(); err != nil {
		return err
	}
	a.p, a.lastGhost, a.k, a.empty, a.t1, a.t2, a.where, a.page, a.b = p, int(lastGhost), k, empty, t1, t2, where, page, b
	return nil
}

// EncodeState implements StateEncoder.
func (q *S3FIFO) EncodeState(w *StateWriter) {
	w.Put(int64(q.smallCap))
	putLinks(w, q.k)
	putList(w, q.empty)
	putList(w, q.small)
	putList(w, q.main)
	w.Put(q.where, q.freq, q.page)
	q.ghost.encode(w)
}

// DecodeState implements StateEncoder.
func (q *S3FIFO) DecodeState(r *StateReader) error {
	n := int64(len(q.where))
	var smallCap int64
	r.Get(0, &smallCap)
	if r.Err() == nil && smallCap != int64(q.smallCap) {
		r.Fail(errStateMismatch)
	}
	k, empty, small, main := getLinks(r, n), getList(r, n), getList(r, n), getList(r, n)
	where, freq, page := getExactly[uint8](r, n), getExactly[uint8](r, n), getExactly[uint64](r, n)
	ghost := decodeGhostFIFO(r, n)
	if err := r.Err(); err != nil {
		return err
	}
	q.k, q.empty, q.small, q.main, q.where, q.freq, q.page, q.ghost = k, empty, small, main, where, freq, page, ghost
	return nil
}

// EncodeState implements StateEncoder.
func (l *LFU) EncodeState(w *StateWriter) {
	putLinks(w, l.k)
	putList(w, l.empty)
	w.Put(int64(len(l.buckets)))
	for _, b := range l.buckets {
		w.Put(b.count, b.prev, b.next)
		putList(w, b.pages)
	}
	w.Put(l.free, l.lowest, l.bucketOf)
}

// DecodeState implements StateEncoder.
func (l *LFU) DecodeState(r *StateReader) error {
	n := int64(len(l.bucketOf))
	k, empty := getLinks(r, n), getList(r, n)
	var nb int64
	r.Get(0, &nb)
	if r.Err() == nil && (nb < 0 || nb > 2*n+2) {
		r.Fail(errStateMismatch)
	}
	buckets := make([]lfuBucket, 0, max(min(nb, 2*n+2), 0))
	for i := int64(0); i < nb && r.Err() == nil; i++ {
		var b lfuBucket
		r.Get(0, &b.count, &b.prev, &b.next)
		b.pages = getList(r, n)
		if r.Err() == nil && (!slotOrNone(b.prev, nb) || !slotOrNone(b.next, nb)) {
			r.Fail(errStateMismatch)
		}
		buckets = append(buckets, b)
	}
	var free, bucketOf []int32
	var lowest int32
	r.Get(nb, &free)
	r.Get(0, &lowest)
	r.Get(n, &bucketOf)
	if err := r.Err(); err != nil {
		return err
	}
	if int64(len(bucketOf)) != n || !slotOrNone(lowest, nb) {
		return errStateMismatch
	}
	for _, x := range bucketOf {
		if !slotOrNone(x, nb) {
			return errStateMismatch
		}
	}
	l.k, l.empty, l.buckets, l.free, l.lowest, l.bucketOf = k, empty, buckets, free, lowest, bucketOf
	return nil
}
