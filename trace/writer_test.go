package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriterRoundTrip writes the generated trace as csv and oracleGeneral
// (plain, gzip, zstd) with Create and reads each back: the same keys in
// both, writes preserved in csv, next-use positions correct in
// oracleGeneral.
func TestWriterRoundTrip(t *testing.T) {
	gen := genSmall()
	keys := make([]uint64, len(gen))
	for i, r := range gen {
		keys[i] = r.key()
	}
	next := naiveNext(keys)
	dir := t.TempDir()
	for _, name := range []string{"run.csv", "run.csv.gz", "run.oracleGeneral", "run.oracleGeneral.zst"} {
		path := filepath.Join(dir, name)
		w, err := Create(path, "")
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: FormatCSV, false: FormatOracleGeneral}[strings.Contains(name, ".csv")]; w.Format() != want {
			t.Errorf("%s: writing %s", name, w.Format())
		}
		for i, r := range gen {
			if err := w.Write(Access{Time: int64(i) * 1e8, Relation: r.rel, Block: r.block, Write: r.write}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s exists before Close", name)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if w.Count() != int64(len(gen)) {
			t.Errorf("%s: count %d", name, w.Count())
		}
		f, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		refs, err := drain(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !equalKeys(keysOf(refs), keys) {
			t.Fatalf("%s: keys differ from the written trace", name)
		}
		for i, r := range refs {
			if f.Format == FormatCSV && r.Write != gen[i].write {
				t.Fatalf("%s: ref %d write %v", name, i+1, r.Write)
			}
			if f.Format == FormatOracleGeneral && r.NextUse != next[i] {
				t.Fatalf("%s: ref %d next %d, want %d", name, i+1, r.NextUse, next[i])
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("%d files in the directory, want 4 (temporary files left?)", len(entries))
	}
}

// TestWriterQuoting checks relation names the csv reader would misread.
func TestWriterQuoting(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, FormatCSV)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"plain", "with,comma", `with"quote`, " padded ", "#hash", "line\nbreak"}
	for i, n := range names {
		if err := w.Write(Access{Relation: n, Block: uint32(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Write(Access{Relation: ""}); err == nil {
		t.Error("empty relation accepted")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Lines with an embedded newline cannot be read back line by line;
	// check the others.
	text := buf.String()
	if !strings.HasPrefix(text, "plain,0,r\n\"with,comma\",1,r\n\"with\"\"quote\",2,r\n\" padded \",3,r\n\"#hash\",4,r\n") {
		t.Errorf("csv:\n%s", text)
	}
	cut := text[:strings.Index(text, "\"line")]
	f, _ := NewReader(strings.NewReader(cut), "q.csv", Options{Format: FormatCSV})
	refs, err := drain(f)
	if err != nil || len(refs) != 5 {
		t.Fatalf("read back: %d refs, %v", len(refs), err)
	}
	for i, r := range refs {
		if r.Key != uint64(i)<<32|uint64(i) {
			t.Errorf("ref %d key %#x: relation %q not read back as itself", i, r.Key, names[i])
		}
	}
	if err := w.Write(Access{Relation: "x"}); err == nil {
		t.Error("write after Close accepted")
	}
}

// TestCreateErrors: unknown format names, and Abort leaving nothing.
func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(filepath.Join(dir, "run.trace"), ""); err == nil {
		t.Error("no format accepted")
	}
	if _, err := Create(filepath.Join(dir, "run.x"), FormatText); err == nil {
		t.Error("text format accepted for writing")
	}
	w, err := Create(filepath.Join(dir, "run.x"), FormatOracleGeneral)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(Access{Relation: "r", Block: 1})
	w.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Abort left %d files", len(entries))
	}
}

// TestCreateMakesDirectory: like -out, -write-trace into a directory that
// does not exist yet creates it (the docs' `-write-trace out/x.zst` on a
// fresh checkout).
func TestCreateMakesDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", "sub", "run.oracleGeneral.zst")
	w, err := Create(path, "")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(Access{Relation: "r", Block: 1})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
}

// TestClockSeconds: oracleGeneral's uint32 seconds saturate.
func TestClockSeconds(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want uint32
	}{{-5, 0}, {0, 0}, {1999999999, 1}, {1 << 62, 1<<32 - 1}} {
		if got := clockSeconds(c.ns); got != c.want {
			t.Errorf("clockSeconds(%d) = %d, want %d", c.ns, got, c.want)
		}
	}
}
