package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsExamples runs the examples of docs/traces.md: the quick-start
// command must print the table the page shows, and the configuration file
// shown must load and run.
func TestDocsExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "traces.md"))
	if err != nil {
		t.Skip("docs/traces.md not found")
	}
	text := string(doc)

	// Quick start: the table printed after the command.
	code, out, errs := runMain(t, "-trace", small, "-policy", "clock-sweep", "-cache", "64")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, "policy ") || strings.HasPrefix(line, "clock-sweep ") {
			if !strings.Contains(text, "    "+line+"\n") {
				t.Errorf("docs/traces.md does not show the table line %q", line)
			}
		}
	}

	// The configuration example, placed one directory below a tree that
	// has trace/testdata, as the relative path in it expects.
	start := strings.Index(text, "```yaml\n")
	end := strings.Index(text[start+8:], "```")
	if start < 0 || end < 0 {
		t.Fatal("no yaml example in docs/traces.md")
	}
	dir := t.TempDir()
	abs, _ := filepath.Abs(filepath.Join("..", "trace"))
	os.Symlink(abs, filepath.Join(dir, "trace"))
	os.Mkdir(filepath.Join(dir, "configs"), 0o755)
	cfg := filepath.Join(dir, "configs", "my-trace.yaml")
	os.WriteFile(cfg, []byte(text[start+8:start+8+end]), 0o644)
	code, out, errs = runMain(t, "-config", cfg, "-out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("the documented configuration: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "small.csv.gz clock-sweep(correlated_reference_period=100ns) cache") {
		t.Errorf("unexpected output:\n%s", out)
	}
}
