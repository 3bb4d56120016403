package trace

import (
	"bytes"
	"math"
)

// csvReader reads pgbufsim's own `relation,block[,op]` lines. Relations are
// numbered 0, 1, 2, ... in order of first appearance (whether written as a
// name or a number) and a page's key is relation<<32 | block.
type csvReader struct {
	lr       *lineReader
	sp       splitter
	rels     map[string]uint32
	sawFirst bool
}

func newCSVReader(lr *lineReader) *csvReader {
	return &csvReader{lr: lr, sp: splitter{delim: ','}, rels: map[string]uint32{}}
}

func (c *csvReader) Next() (Ref, error) { return nextOf(c) }

func (c *csvReader) ReadRefs(dst []Ref) (int, error) {
	n := 0
	for n < len(dst) {
		line, err := c.lr.next()
		if err != nil {
			if n > 0 {
				return n, nil // io.EOF or a sticky error comes back next call
			}
			return 0, err
		}
		if skippable(line) {
			continue
		}
		ref, skip, err := c.parse(line)
		if err != nil {
			c.lr.err = err
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if skip {
			continue
		}
		dst[n] = ref
		n++
	}
	return n, nil
}

// parse decodes one non-comment line; skip reports a header line.
func (c *csvReader) parse(line []byte) (Ref, bool, error) {
	first := !c.sawFirst
	c.sawFirst = true
	f, err := c.sp.split(line)
	if err != nil {
		return Ref{}, false, c.lr.errorf("%v", err)
	}
	if len(f) < 2 || len(f) > 3 {
		return Ref{}, false, c.lr.errorf("expected relation,block[,op], got %d field(s) (for libCacheSim's csv use -format lcs-csv)", len(f))
	}
	block, ok := parseDecimal(f[1])
	if !ok {
		if first && !isNumber(f[1]) {
			return Ref{}, true, nil // a header such as "relation,block,op"
		}
		return Ref{}, false, c.lr.errorf("block %s is not a block number (0..%d)", show(f[1]), uint64(math.MaxUint32-1))
	}
	if block >= math.MaxUint32 { // InvalidBlockNumber and above
		return Ref{}, false, c.lr.errorf("block %s is not a block number (0..%d)", show(f[1]), uint64(math.MaxUint32-1))
	}
	if len(f[0]) == 0 {
		return Ref{}, false, c.lr.errorf("empty relation")
	}
	write := false
	if len(f) == 3 {
		w, ok := parseOp(f[2])
		if !ok {
			return Ref{}, false, c.lr.errorf("op %s is not r or w", show(f[2]))
		}
		write = w
	}
	rel, ok := c.rels[string(f[0])]
	if !ok {
		if len(c.rels) == math.MaxUint32 {
			return Ref{}, false, c.lr.errorf("more than %d relations", uint64(math.MaxUint32))
		}
		rel = uint32(len(c.rels))
		c.rels[string(f[0])] = rel
	}
	return Ref{Key: uint64(rel)<<32 | block, Write: write}, false, nil
}

// parseOp reads r/read or w/write (any case).
func parseOp(b []byte) (write bool, ok bool) {
	switch {
	case len(b) == 0:
		return false, true
	case bytes.EqualFold(b, []byte("r")), bytes.EqualFold(b, []byte("read")):
		return false, true
	case bytes.EqualFold(b, []byte("w")), bytes.EqualFold(b, []byte("write")):
		return true, true
	}
	return false, false
}

// isNumber reports whether b looks numeric (digits, sign, point, hex
// prefix), to tell a malformed number from a header word.
func isNumber(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
			return false
		}
	}
	return true
}
