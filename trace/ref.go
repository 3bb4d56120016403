package trace

import (
	"io"
	"math"
)

// Ref is one page reference.
type Ref struct {
	// Key identifies the page (object). Its value is opaque: two refs are to
	// the same page iff their keys are equal.
	Key uint64
	// NextUse is the 1-based position in the trace of the next reference to
	// the same key, Never if there is none, or 0 if the format does not say
	// (only oracleGeneral carries it).
	NextUse int64
	// Write reports a reference that modifies the page (op w), when the
	// format records it.
	Write bool
}

// Never is the NextUse of a reference whose page is not referenced again.
// It equals policies.NeverAgain.
const Never = int64(math.MaxInt64)

// Reader yields references one at a time; Next returns io.EOF after the
// last one.
type Reader interface {
	Next() (Ref, error)
}

// BatchReader is a Reader that can also fill a slice at once, which saves
// an interface call per reference on hot replay paths. Every reader in this
// package implements it.
type BatchReader interface {
	Reader
	// ReadRefs fills dst with up to len(dst) references and returns how
	// many. At the end of the trace it returns 0, io.EOF; a decoding error
	// is returned after the references before it, with n = 0 on the next
	// call.
	ReadRefs(dst []Ref) (n int, err error)
}

// Batched returns r as a BatchReader, wrapping it if it is not one.
func Batched(r Reader) BatchReader {
	if b, ok := r.(BatchReader); ok {
		return b
	}
	return &batcher{r: r}
}

type batcher struct{ r Reader }

func (b *batcher) Next() (Ref, error) { return b.r.Next() }

func (b *batcher) ReadRefs(dst []Ref) (int, error) {
	for i := range dst {
		ref, err := b.r.Next()
		if err != nil {
			if i == 0 {
				return 0, err
			}
			// Deliver what was read now and the error on the next
			// call, whether or not the underlying reader repeats it.
			b.r = &failed{err: err}
			return i, nil
		}
		dst[i] = ref
	}
	return len(dst), nil
}

// failed is a Reader stuck on one error.
type failed struct{ err error }

func (f *failed) Next() (Ref, error) { return Ref{}, f.err }

// SliceReader reads references from a slice.
type SliceReader struct {
	refs []Ref
	pos  int
}

// NewSliceReader returns a reader over refs (not copied).
func NewSliceReader(refs []Ref) *SliceReader { return &SliceReader{refs: refs} }

// Next implements Reader.
func (s *SliceReader) Next() (Ref, error) {
	if s.pos >= len(s.refs) {
		return Ref{}, io.EOF
	}
	s.pos++
	return s.refs[s.pos-1], nil
}

// ReadRefs implements BatchReader.
func (s *SliceReader) ReadRefs(dst []Ref) (int, error) {
	if s.pos >= len(s.refs) {
		return 0, io.EOF
	}
	n := copy(dst, s.refs[s.pos:])
	s.pos += n
	return n, nil
}
