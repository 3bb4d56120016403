package trace

import (
	"bytes"
	"strings"
)

// lcsCSVReader reads libCacheSim-style csv traces: the object id in one
// column (1-based), optionally an operation in another; other columns
// (time, size, ...) are ignored.
type lcsCSVReader struct {
	lr      *lineReader
	sp      splitter
	idCol   int
	opCol   int
	header  bool // the first line is a header to skip
	started bool
	strings *stringIDs
}

// newLCSCSVReader sets up the reader; first is the file's first line (for
// delimiter and header detection).
func newLCSCSVReader(lr *lineReader, opt Options, first []byte) (*lcsCSVReader, error) {
	r := &lcsCSVReader{lr: lr, idCol: opt.idColumn(), opCol: opt.OpColumn}
	if opt.StringIDs {
		r.strings = newStringIDs()
	}
	if opt.Delimiter != "" {
		r.sp.delim = opt.Delimiter[0]
	} else {
		d, ok := detectDelimiter(first)
		if !ok {
			return nil, &Error{File: lr.name, Line: 1, Msg: "cannot detect the csv delimiter (none of tab , | : on the first line); give -csv-delimiter, or use -format lcs-txt for one id per line"}
		}
		r.sp.delim = d
	}
	switch strings.ToLower(opt.Header) {
	case HeaderYes:
		r.header = true
	case HeaderNo:
		r.header = false
	default:
		r.header = detectHeader(first)
	}
	return r, nil
}

// detectDelimiter follows libCacheSim's csv_detect_delimiter: count tab,
// comma, '|' and ':' on the first line, weighted 4, 3, 2, 1 for how common
// each is, and take the largest.
func detectDelimiter(first []byte) (byte, bool) {
	best, bestN := byte(0), 0
	for i, d := range []byte{'\t', ',', '|', ':'} {
		if n := bytes.Count(first, []byte{d}) * (4 - i); n > bestN {
			best, bestN = d, n
		}
	}
	return best, bestN > 0
}

// detectHeader follows libCacheSim's csv_detect_header, which starts from
// "header", clears it when the first line has more digits than letters, and
// otherwise sets it (its second test, fewer digits than non-hex letters,
// can only confirm the initial guess). So: a header unless digits outnumber
// letters.
func detectHeader(first []byte) bool {
	digits, letters := 0, 0
	for _, c := range first {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters++
		}
	}
	return digits <= letters
}

func (r *lcsCSVReader) Next() (Ref, error) { return nextOf(r) }

func (r *lcsCSVReader) ReadRefs(dst []Ref) (int, error) {
	n := 0
	for n < len(dst) {
		line, err := r.lr.next()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if !r.started {
			r.started = true
			if r.header {
				continue
			}
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ref, err := r.parse(line)
		if err != nil {
			r.lr.err = err
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		dst[n] = ref
		n++
	}
	return n, nil
}

func (r *lcsCSVReader) parse(line []byte) (Ref, error) {
	f, err := r.sp.split(line)
	if err != nil {
		return Ref{}, r.lr.errorf("%v", err)
	}
	if r.idCol > len(f) {
		return Ref{}, r.lr.errorf("%d field(s) split at %q, but the object id is in column %d (set -csv-id-column or -csv-delimiter)", len(f), r.sp.delim, r.idCol)
	}
	id := f[r.idCol-1]
	var key uint64
	if r.strings != nil {
		key = r.strings.id(id)
	} else {
		v, ok := parseAnyBase(id)
		if !ok {
			return Ref{}, r.lr.errorf("object id %s in column %d is not an integer (for string ids use -string-ids; is the header detected? see -csv-header)", show(id), r.idCol)
		}
		key = v
	}
	write := false
	if r.opCol > 0 {
		if r.opCol > len(f) {
			return Ref{}, r.lr.errorf("%d field(s), but the op is in column %d", len(f), r.opCol)
		}
		op := f[r.opCol-1]
		write = len(op) > 0 && (op[0] == 'w' || op[0] == 'W') || bytes.EqualFold(op, []byte("set"))
	}
	return Ref{Key: key, Write: write}, nil
}
