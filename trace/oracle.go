package trace

import (
	"encoding/binary"
	"fmt"
	"io"
)

// recordSize is the size of one oracleGeneral record.
const recordSize = 24

// oracleChunk is how many bytes the reader asks for at once: 8192 records,
// large enough that reads are cheap and small enough to stay in L2.
const oracleChunk = recordSize * 8192

// oracleReader decodes oracleGeneral records (libCacheSim
// customizedReader/oracle/oracleGeneralBin.h):
//
//	offset 0  uint32 clock_time
//	offset 4  uint64 obj_id
//	offset 12 uint32 obj_size
//	offset 16 int64  next_access_vtime  (1-based; -1 or INT64_MAX: never)
//
// Unlike libCacheSim it keeps records of size 0: a page trace has no sizes.
type oracleReader struct {
	r    io.Reader
	name string
	buf  []byte
	off  int   // next undecoded byte in buf
	end  int   // bytes of buf filled
	rec  int64 // records decoded so far
	err  error // sticky: returned once buf is drained
}

func newOracleReader(r io.Reader, name string) *oracleReader {
	return &oracleReader{r: r, name: name, buf: make([]byte, oracleChunk)}
}

func (o *oracleReader) Next() (Ref, error) { return nextOf(o) }

// fill tops the buffer up so that it holds at least one whole record, or
// records why it cannot.
func (o *oracleReader) fill() {
	if o.off > 0 {
		o.end = copy(o.buf, o.buf[o.off:o.end])
		o.off = 0
	}
	for o.end < recordSize && o.err == nil {
		n, err := o.r.Read(o.buf[o.end:])
		o.end += n
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("%s: %w", o.name, err)
			} else if o.end%recordSize != 0 {
				err = &Error{File: o.name, Record: o.rec + int64(o.end/recordSize) + 1,
					Msg: fmt.Sprintf("truncated record (%d of %d bytes; is this really an oracleGeneral trace?)", o.end%recordSize, recordSize)}
			}
			o.err = err
		}
	}
}

// ReadRefs implements BatchReader.
func (o *oracleReader) ReadRefs(dst []Ref) (int, error) {
	if o.end-o.off < recordSize {
		o.fill()
		if o.end-o.off < recordSize {
			return 0, o.err
		}
	}
	n := min(len(dst), (o.end-o.off)/recordSize)
	b := o.buf[o.off : o.off+n*recordSize]
	base := o.rec
	for i := range dst[:n] {
		r := b[i*recordSize : i*recordSize+recordSize]
		next := int64(binary.LittleEndian.Uint64(r[16:]))
		if next == -1 {
			next = Never
		} else if pos := base + int64(i) + 1; next <= pos {
			o.rec = pos - 1
			o.off += i * recordSize
			o.end = o.off // drop the rest: the error is sticky
			o.err = &Error{File: o.name, Record: pos,
				Msg: fmt.Sprintf("next_access_vtime %d is not after the record itself (the trace is corrupt, or not oracleGeneral)", next)}
			if i > 0 {
				return i, nil
			}
			return 0, o.err
		}
		dst[i] = Ref{Key: binary.LittleEndian.Uint64(r[4:]), NextUse: next}
	}
	o.rec += int64(n)
	o.off += n * recordSize
	return n, nil
}
