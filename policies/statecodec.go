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

// getFlags reads a slice of n bools.
func getFlags(r *StateReader, n int64) []bool {
	var v []bool
	r.Get(n, &v)
	if r.Err() == nil && int64(len(v)) != n {
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
	occupied, ref := getFlags(r, n), getFlags(r, n)
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
	k, order, occupied := getLinks(r, n), getList(r, n), getFlags(r, n)
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
	k, order, occupied := getLinks(r, n), getList(r, n), getFlags(r, n)
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
	occupied, visited := getFlags(r, n), getFlags(r, n)
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
