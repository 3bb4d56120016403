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
