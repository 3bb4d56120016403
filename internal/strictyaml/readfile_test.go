package strictyaml

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// ReadFile never reads more than its limit: an endless device, a file
// over the limit and a directory are errors, not memory.
func TestReadFileLimits(t *testing.T) {
	var tl *TooLargeError
	if _, err := ReadFile("/dev/zero", 1<<20); !errors.As(err, &tl) || tl.Size != 0 {
		t.Fatalf("/dev/zero: %v", err)
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, 2000), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big, 1000); !errors.As(err, &tl) || tl.Size != 2000 || !strings.Contains(err.Error(), "2000 bytes") {
		t.Fatalf("a 2000-byte file with a limit of 1000: %v", err)
	}
	if data, err := ReadFile(big, 2000); err != nil || len(data) != 2000 {
		t.Fatalf("a file at the limit: %d bytes, %v", len(data), err)
	}
	if _, err := ReadFile(dir, 1000); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("a directory: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 1000); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a missing file: %v", err)
	}
}

// A pipe can be read once; the CLI looks at its configuration several
// times (a sweep? a trace replay? the scenario), and each look must see
// the same bytes.
func TestReadFilePipeReadOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "scenario.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString("name: piped\n")
		f.Close()
	}()
	for i := range 3 {
		data, err := ReadFile(fifo, 1000)
		if err != nil || string(data) != "name: piped\n" {
			t.Fatalf("read %d: %q, %v", i+1, data, err)
		}
	}
}
