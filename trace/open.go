package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// bufSize is the read buffer of a trace file; it also bounds a text line.
const bufSize = maxLine

// sniffSize is how much decompressed content format detection looks at.
const sniffSize = 64 << 10

// File is an open trace: a BatchReader over a file (or stream) with its
// detected compression and format.
type File struct {
	// Name is the file name used in error messages.
	Name string
	// Format is the format being read (never FormatAuto).
	Format string
	// Compression is "", "gzip" or "zstd".
	Compression string

	r        BatchReader
	closers  []func() error
	sizeHint int // expected number of references, 0 if unknown
}

// Open opens a trace file. Compression is detected from the magic bytes;
// the format is opt.Format or, for FormatAuto, detected from the file name
// and content. "-" reads standard input.
func Open(path string, opt Options) (*File, error) {
	if path == "-" {
		return NewReader(os.Stdin, "<stdin>", opt)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("trace: %s is a directory", path)
	}
	t, err := NewReader(f, path, opt)
	if err != nil {
		f.Close()
		return nil, err
	}
	t.closers = append(t.closers, f.Close)
	if st, err := f.Stat(); err == nil && t.Format == FormatOracleGeneral && t.Compression == "" {
		t.sizeHint = int(min(st.Size()/recordSize, 1<<31-1))
	}
	return t, nil
}

// NewReader reads a trace from r; name is used for format detection (by
// extension) and in error messages.
func NewReader(r io.Reader, name string, opt Options) (*File, error) {
	opt = opt.normalized()
	if err := opt.check(); err != nil {
		return nil, err
	}
	t := &File{Name: name}
	br := bufio.NewReaderSize(r, bufSize)
	magic, _ := br.Peek(4)
	var content io.Reader = br
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		t.Compression = "gzip"
		t.closers = append(t.closers, zr.Close)
		content = zr
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("%s: zstd: %w", name, err)
		}
		t.Compression = "zstd"
		t.closers = append(t.closers, func() error { zr.Close(); return nil })
		content = zr
	}
	cr := br
	if content != io.Reader(br) {
		cr = bufio.NewReaderSize(content, bufSize)
	}
	format, _ := ParseFormat(opt.Format)
	if format == FormatAuto {
		head, err := cr.Peek(sniffSize)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			t.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		format, err = detect(name, head)
		if err != nil {
			t.Close()
			return nil, err
		}
	}
	t.Format = format
	switch format {
	case FormatOracleGeneral:
		t.r = newOracleReader(cr, name)
	case FormatText, FormatLCSTxt:
		tr := &textReader{lr: newLineReader(cr, name), lcs: format == FormatLCSTxt}
		if opt.StringIDs {
			if format == FormatText {
				t.Close()
				return nil, fmt.Errorf("%s: string ids need -format lcs-txt (the text format has integer page ids)", name)
			}
			tr.strings = newStringIDs()
		}
		t.r = tr
	case FormatCSV:
		t.r = newCSVReader(newLineReader(cr, name))
	case FormatLCSCSV:
		first, err := firstLine(cr)
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		r, err := newLCSCSVReader(newLineReader(cr, name), opt, first)
		if err != nil {
			t.Close()
			return nil, err
		}
		t.r = r
	}
	return t, nil
}

// firstLine peeks at the first line without consuming it.
func firstLine(br *bufio.Reader) ([]byte, error) {
	head, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, err
	}
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return bytes.TrimSuffix(head, []byte{'\r'}), nil
}

// Next implements Reader.
func (t *File) Next() (Ref, error) { return t.r.Next() }

// ReadRefs implements BatchReader.
func (t *File) ReadRefs(dst []Ref) (int, error) { return t.r.ReadRefs(dst) }

// Close releases the decompressor and the file.
func (t *File) Close() error {
	var first error
	for i := len(t.closers) - 1; i >= 0; i-- {
		if err := t.closers[i](); err != nil && first == nil {
			first = err
		}
	}
	t.closers = nil
	return first
}

// baseName returns the lower-cased file name without compression suffixes.
func baseName(name string) string {
	b := strings.ToLower(filepath.Base(name))
	for _, s := range []string{".gz", ".gzip", ".zst", ".zstd"} {
		b = strings.TrimSuffix(b, s)
	}
	return b
}
