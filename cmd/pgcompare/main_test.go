package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/internal/pgcompare"
)

// -out never replaces a file pgcompare did not write: exit 1, the file
// unchanged, before any server is looked for.
func TestOutRefusesAForeignFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(f, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Args = []string{"pgcompare", "-out", f}
	if code := run(); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if data, _ := os.ReadFile(f); string(data) != "my notes\n" {
		t.Errorf("the file was changed: %q", data)
	}
}

// A page names the command that writes it again: docs/fidelity.md's by
// default, its own -out otherwise, with $PGBIN when that chose another
// release's binaries (docs/fidelity-18.md's).
func TestPageNamesItsCommand(t *testing.T) {
	for _, c := range []struct {
		out   string
		pgbin bool
		want  string
	}{
		{"", false, "go run ./cmd/pgcompare -out docs/fidelity.md"},
		{"docs/fidelity.md", false, "go run ./cmd/pgcompare -out docs/fidelity.md"},
		{"docs/fidelity-18.md", true, "PGBIN=<the bin directory of PostgreSQL 18.3> go run ./cmd/pgcompare -out docs/fidelity-18.md"},
	} {
		got := regenerateCommand(c.out, c.pgbin, "18.3")
		if got != c.want {
			t.Errorf("-out %q, PGBIN %v: %q, want %q", c.out, c.pgbin, got, c.want)
		}
		if md := pgcompare.Markdown("18.3", nil, got); !strings.Contains(md, "\n    "+got+"\n") {
			t.Errorf("the page does not name %q", got)
		}
	}
}
