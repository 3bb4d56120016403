package main

import (
	"os"
	"path/filepath"
	"testing"
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
