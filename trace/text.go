package trace

import (
	"bytes"
	"io"
)

// textReader reads one page id per line: the text format (decimal ids,
// '#' comments) or libCacheSim's txt (strtoull base 0, or string ids).
type textReader struct {
	lr      *lineReader
	lcs     bool
	strings *stringIDs // non-nil: ids are opaque strings
}

func (t *textReader) Next() (Ref, error) { return nextOf(t) }

func (t *textReader) ReadRefs(dst []Ref) (int, error) {
	n := 0
	for n < len(dst) {
		line, err := t.lr.next()
		if err != nil {
			if n > 0 && err == io.EOF {
				return n, nil
			}
			if n > 0 {
				return n, nil // the sticky error comes back next call
			}
			return 0, err
		}
		if t.lcs {
			// libCacheSim skips empty lines only (txt_read_one_req).
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
		} else if skippable(line) {
			continue
		}
		var key uint64
		switch {
		case t.strings != nil:
			key = t.strings.id(line)
		case t.lcs:
			f := bytes.TrimSpace(line)
			v, ok := parseAnyBase(f)
			if !ok {
				t.lr.err = t.lr.errorf("object id %s is not an integer (for string ids use -string-ids)", show(f))
				if n > 0 {
					return n, nil
				}
				return 0, t.lr.err
			}
			key = v
		default:
			f := bytes.TrimSpace(line)
			v, ok := parseDecimal(f)
			if !ok {
				t.lr.err = t.lr.errorf("page id %s is not a non-negative decimal integer", show(f))
				if n > 0 {
					return n, nil
				}
				return 0, t.lr.err
			}
			key = v
		}
		dst[n] = Ref{Key: key}
		n++
	}
	return n, nil
}

// nextOf implements Next with a one-element ReadRefs.
func nextOf(b BatchReader) (Ref, error) {
	var one [1]Ref
	for {
		n, err := b.ReadRefs(one[:])
		if n == 1 {
			return one[0], nil
		}
		if err != nil {
			return Ref{}, err
		}
	}
}

// stringIDs numbers opaque string ids from 1 in order of first appearance,
// as libCacheSim's g_quark_from_string does.
type stringIDs struct {
	ids map[string]uint64
}

func newStringIDs() *stringIDs { return &stringIDs{ids: map[string]uint64{}} }

func (s *stringIDs) id(b []byte) uint64 {
	if v, ok := s.ids[string(b)]; ok {
		return v
	}
	v := uint64(len(s.ids) + 1)
	s.ids[string(b)] = v
	return v
}
