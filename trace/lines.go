package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// maxLine bounds one line of a text trace; longer lines are an error
// rather than an unbounded allocation.
const maxLine = 1 << 20

// lineReader yields the lines of a text trace without allocating, counting
// them for error messages.
type lineReader struct {
	br   *bufio.Reader
	name string
	line int64
	err  error // sticky
}

func newLineReader(br *bufio.Reader, name string) *lineReader {
	return &lineReader{br: br, name: name}
}

// next returns the next line without its line terminator ("\n" or
// "\r\n"). The slice is valid until the following call. It returns io.EOF
// after the last line.
func (l *lineReader) next() ([]byte, error) {
	if l.err != nil {
		return nil, l.err
	}
	b, err := l.br.ReadSlice('\n')
	if err != nil {
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			l.line++
			l.err = l.errorf("line longer than %d bytes (is this a binary file? try -format oracleGeneral)", maxLine)
			return nil, l.err
		case err == io.EOF:
			if len(b) == 0 {
				l.err = io.EOF
				return nil, io.EOF
			}
			l.err = io.EOF // the last line has no newline
		default:
			l.err = fmt.Errorf("%s: %w", l.name, err)
			return nil, l.err
		}
	}
	l.line++
	b = bytes.TrimSuffix(b, []byte{'\n'})
	b = bytes.TrimSuffix(b, []byte{'\r'})
	return b, nil
}

// errorf builds an error at the current line.
func (l *lineReader) errorf(format string, args ...any) error {
	return &Error{File: l.name, Line: l.line, Msg: fmt.Sprintf(format, args...)}
}

// skippable reports a blank line or a '#' comment.
func skippable(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || b[0] == '#'
}

// parseDecimal parses an unsigned decimal integer without allocating.
func parseDecimal(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		d := uint64(c) - '0'
		if d > 9 {
			return 0, false
		}
		if v > (1<<64-1-d)/10 {
			return 0, false // overflow
		}
		v = v*10 + d
	}
	return v, true
}

// parseAnyBase parses an unsigned integer the way C's strtoull(s, NULL, 0)
// reads a whole field: decimal, 0x hex or leading-0 octal.
func parseAnyBase(b []byte) (uint64, bool) {
	if v, ok := parseDecimal(b); ok && (len(b) == 1 || b[0] != '0') {
		return v, true
	}
	v, err := strconv.ParseUint(string(b), 0, 64)
	return v, err == nil
}

// show quotes a field for an error message, shortened if long.
func show(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}

// splitter splits delimited lines into fields, honouring double-quoted
// fields ("" inside quotes is one quote) as RFC 4180 and libcsv do.
type splitter struct {
	delim   byte
	fields  [][]byte
	scratch []byte
}

// split returns the fields of line, each trimmed of surrounding spaces and
// tabs (unless the tab is the delimiter). The result is valid until the next
// call.
func (s *splitter) split(line []byte) ([][]byte, error) {
	s.fields = s.fields[:0]
	if bytes.IndexByte(line, '"') < 0 {
		for {
			i := bytes.IndexByte(line, s.delim)
			if i < 0 {
				s.fields = append(s.fields, s.trim(line))
				return s.fields, nil
			}
			s.fields = append(s.fields, s.trim(line[:i]))
			line = line[i+1:]
		}
	}
	s.scratch = s.scratch[:0]
	var starts []int // offsets into scratch; fields are cut after the loop
	i := 0
	for {
		for i < len(line) && line[i] != s.delim && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		starts = append(starts, len(s.scratch))
		if i < len(line) && line[i] == '"' {
			i++
			closed := false
			for i < len(line) {
				c := line[i]
				if c == '"' {
					if i+1 < len(line) && line[i+1] == '"' {
						s.scratch = append(s.scratch, '"')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				s.scratch = append(s.scratch, c)
				i++
			}
			if !closed {
				return nil, errors.New("unterminated quoted field")
			}
			for i < len(line) && line[i] != s.delim && (line[i] == ' ' || line[i] == '\t') {
				i++
			}
			if i < len(line) && line[i] != s.delim {
				return nil, fmt.Errorf("unexpected %q after a quoted field", line[i])
			}
		} else {
			j := i
			for j < len(line) && line[j] != s.delim {
				j++
			}
			s.scratch = append(s.scratch, s.trim(line[i:j])...)
			i = j
		}
		if i >= len(line) {
			break
		}
		i++ // the delimiter
	}
	for k, st := range starts {
		end := len(s.scratch)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		s.fields = append(s.fields, s.scratch[st:end])
	}
	return s.fields, nil
}

func (s *splitter) trim(b []byte) []byte {
	if s.delim == '\t' {
		return bytes.Trim(b, " ")
	}
	return bytes.Trim(b, " \t")
}
