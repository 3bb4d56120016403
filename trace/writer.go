package trace

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Access is one page reference as a simulated run sees it.
type Access struct {
	// Time is the simulated time in nanoseconds (oracleGeneral keeps whole
	// seconds in clock_time; csv does not record it).
	Time int64
	// Relation names the relation (table or index); any non-empty string.
	// The Writer does not keep it beyond the call.
	Relation string
	// Block is the block number within the relation.
	Block uint32
	// Write marks a reference that dirties the page (csv only:
	// oracleGeneral has no op field).
	Write bool
}

// pageSize is the obj_size written to oracleGeneral records: PostgreSQL's
// BLCKSZ.
const pageSize = 8192

// Writer writes a page-reference trace as csv (`relation,block,op`,
// streamed) or oracleGeneral (buffered; next_access_vtime is computed by a
// backward pass in Close). In both, relations are numbered in order of
// first appearance and a page's key is relation<<32 | block, so reading
// back either file gives the same keys.
type Writer struct {
	format string
	bw     *bufio.Writer
	rels   map[string]uint32
	count  int64
	err    error

	// oracleGeneral buffers: dense page id and clock time per reference.
	in    Interner
	ids   []uint32
	times []uint32

	// set by Create
	file    *os.File
	tmpPath string
	path    string
	comp    io.WriteCloser
}

// NewWriter returns a Writer of the given format (FormatCSV or
// FormatOracleGeneral) to w. Close flushes it; it does not close w.
func NewWriter(w io.Writer, format string) (*Writer, error) {
	f, err := ParseFormat(format)
	if err != nil {
		return nil, err
	}
	if f != FormatCSV && f != FormatOracleGeneral {
		return nil, fmt.Errorf("trace: can write csv or oracleGeneral, not %q", format)
	}
	return &Writer{format: f, bw: bufio.NewWriterSize(w, 256<<10), rels: map[string]uint32{}}, nil
}

// Create writes a trace file at path. The format is format or, if that is
// "" or auto, taken from the name (".csv", or "oracleGeneral" in it); a
// ".gz" or ".zst" suffix compresses with gzip or zstd. The file appears
// under its name only when Close succeeds; Abort discards it.
func Create(path, format string) (*Writer, error) {
	base := baseName(path)
	f, err := ParseFormat(format)
	if err != nil {
		return nil, err
	}
	if f == FormatAuto {
		switch {
		case strings.Contains(base, "oraclegeneral"):
			f = FormatOracleGeneral
		case strings.HasSuffix(base, ".csv"):
			f = FormatCSV
		default:
			return nil, fmt.Errorf("trace: cannot tell the format to write from %q; name it *.csv or *.oracleGeneral (optionally .gz or .zst), or give the format", path)
		}
	}
	// Like -out, the trace's directory is created if missing, so the
	// documented `-write-trace out/run.oracleGeneral.zst` works in a fresh
	// checkout.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	file, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	var out io.Writer = file
	var comp io.WriteCloser
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".gz"):
		comp = gzip.NewWriter(file)
	case strings.HasSuffix(lower, ".zst"), strings.HasSuffix(lower, ".zstd"):
		zw, err := zstd.NewWriter(file, zstd.WithEncoderConcurrency(1))
		if err != nil {
			file.Close()
			os.Remove(file.Name())
			return nil, fmt.Errorf("trace: %w", err)
		}
		comp = zw
	}
	if comp != nil {
		out = comp
	}
	w, err := NewWriter(out, f)
	if err != nil {
		file.Close()
		os.Remove(file.Name())
		return nil, err
	}
	w.file, w.tmpPath, w.path, w.comp = file, file.Name(), path, comp
	return w, nil
}

// Format is the format being written.
func (w *Writer) Format() string { return w.format }

// Count is the number of references written so far.
func (w *Writer) Count() int64 { return w.count }

// Write adds one reference.
func (w *Writer) Write(a Access) error {
	if w.err != nil {
		return w.err
	}
	if a.Relation == "" {
		return fmt.Errorf("trace: reference %d has an empty relation name", w.count+1)
	}
	if w.format == FormatCSV {
		w.writeCSV(a)
	} else {
		w.buffer(a)
	}
	if w.err == nil {
		w.count++
	}
	return w.err
}

func (w *Writer) writeCSV(a Access) {
	var line []byte
	line = appendRelation(w.bw.AvailableBuffer(), a.Relation)
	line = append(line, ',')
	line = strconv.AppendUint(line, uint64(a.Block), 10)
	if a.Write {
		line = append(line, ",w\n"...)
	} else {
		line = append(line, ",r\n"...)
	}
	if _, err := w.bw.Write(line); err != nil {
		w.err = err
	}
}

// appendRelation writes a relation name, quoted when the csv reader would
// otherwise misread it.
func appendRelation(b []byte, rel string) []byte {
	if !strings.ContainsAny(rel, ",\"\r\n") && rel == strings.TrimSpace(rel) && rel[0] != '#' {
		return append(b, rel...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(rel, `"`, `""`)...)
	return append(b, '"')
}

func (w *Writer) buffer(a Access) {
	rel, ok := w.rels[a.Relation]
	if !ok {
		if len(w.rels) == math.MaxUint32 {
			w.err = fmt.Errorf("trace: more than %d relations", uint64(math.MaxUint32))
			return
		}
		rel = uint32(len(w.rels))
		// Clone: the caller may reuse the name's memory after the call.
		w.rels[strings.Clone(a.Relation)] = rel
	}
	id, _, ok := w.in.Intern(uint64(rel)<<32 | uint64(a.Block))
	if !ok {
		w.err = fmt.Errorf("trace: more than %d distinct pages", MaxInterned)
		return
	}
	w.ids = append(w.ids, id)
	w.times = append(w.times, clockSeconds(a.Time))
}

// clockSeconds converts simulated nanoseconds to oracleGeneral's uint32
// seconds, saturating.
func clockSeconds(ns int64) uint32 {
	switch s := ns / 1e9; {
	case s < 0:
		return 0
	case s > math.MaxUint32:
		return math.MaxUint32
	default:
		return uint32(s)
	}
}

// Close finishes the trace: for oracleGeneral it computes every record's
// next_access_vtime and writes the records; then it flushes. With Create,
// it also closes the file and moves it into place.
func (w *Writer) Close() error {
	if w.err == nil && w.format == FormatOracleGeneral {
		w.flushOracle()
	}
	if w.err == nil {
		w.err = w.bw.Flush()
	}
	if w.file == nil {
		if w.err != nil {
			return w.err
		}
		w.err = errClosed
		return nil
	}
	if w.comp != nil {
		if err := w.comp.Close(); err != nil && w.err == nil {
			w.err = err
		}
	}
	if err := w.file.Close(); err != nil && w.err == nil {
		w.err = err
	}
	if w.err == nil {
		w.err = os.Rename(w.tmpPath, w.path)
	}
	if w.err != nil {
		os.Remove(w.tmpPath)
		return fmt.Errorf("trace: writing %s: %w", w.path, w.err)
	}
	w.file = nil
	w.err = errClosed
	return nil
}

var errClosed = fmt.Errorf("trace: writer is closed")

// Abort discards a trace started with Create (nothing is left behind); for
// NewWriter it only stops the Writer.
func (w *Writer) Abort() {
	if w.file != nil {
		if w.comp != nil {
			w.comp.Close()
		}
		w.file.Close()
		os.Remove(w.tmpPath)
		w.file = nil
	}
	w.err = errClosed
}

func (w *Writer) flushOracle() {
	next := computeNextUse(w.ids)
	keys := w.in.Keys()
	var rec [recordSize]byte
	for i, id := range w.ids {
		binary.LittleEndian.PutUint32(rec[0:], w.times[i])
		binary.LittleEndian.PutUint64(rec[4:], keys[id])
		binary.LittleEndian.PutUint32(rec[12:], pageSize)
		nx := next[i]
		if nx == Never {
			nx = -1 // libCacheSim's and tracegen's "no next access"
		}
		binary.LittleEndian.PutUint64(rec[16:], uint64(nx))
		if _, err := w.bw.Write(rec[:]); err != nil {
			w.err = err
			return
		}
	}
	w.ids, w.times = nil, nil
}
