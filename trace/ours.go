package trace

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"regexp"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// csvLine is the shape of every line Writer writes in csv: relation,block,op.
var csvLine = regexp.MustCompile(`^("(?:[^"]|"")*"|[^,"\r\n]+),[0-9]+,[rw]$`)

// WrittenHere reports whether path holds a trace this package's Writer
// wrote (its first record has the Writer's form: a csv line
// relation,block,r|w, or an oracleGeneral record of obj_size 8192), so
// that `simulate -write-trace` may replace it. Any other file, including
// a trace from another tool, is not ours to overwrite.
func WrittenHere(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	br := bufio.NewReader(f)
	magic, _ := br.Peek(4)
	var r io.Reader = br
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return false
		}
		defer zr.Close()
		r = zr
	case bytes.HasPrefix(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return false
		}
		defer zr.Close()
		r = zr
	}
	head := make([]byte, 4096)
	n, _ := io.ReadFull(r, head)
	head = head[:n]
	if len(head) >= recordSize && bytes.IndexByte(head, 0) >= 0 {
		return binary.LittleEndian.Uint32(head[12:16]) == pageSize
	}
	line, _, _ := bytes.Cut(head, []byte{'\n'})
	return csvLine.Match(line)
}
