package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/report"
)

// simulate index DIR lists every run output under DIR with the keys that
// differ between them, in a sortable table whose run names link to the
// reports; it replaces only an index it wrote, and refuses a directory
// without runs.
func TestWriteIndex(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, sb string }{{"a", "16MB"}, {"b/deep", "32MB"}} {
		_, files := quick(t, "server.shared_buffers="+tc.sb, "workload.phases.warmup.duration=1s", "workload.phases.run.duration=1s")
		if err := report.WriteDir(filepath.Join(dir, tc.name), files); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A run's own directory is not indexed (an index.html there would
	// make the next run into it refuse the directory), nor the root.
	if _, err := report.WriteIndex(filepath.Join(dir, "a")); err == nil || !strings.Contains(err.Error(), "is a pgbufsim run output itself") {
		t.Errorf("WriteIndex of a run directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", report.IndexFile)); err == nil {
		t.Errorf("an index was written into a run's directory")
	}
	if _, err := report.WriteIndex("/"); err == nil || !strings.Contains(err.Error(), "root") {
		t.Errorf("WriteIndex(/): %v", err)
	}
	n, err := report.WriteIndex(dir)
	if err != nil || n != 2 {
		t.Fatalf("WriteIndex: %d runs, %v", n, err)
	}
	page, err := os.ReadFile(filepath.Join(dir, report.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, want := range []string{`<table class="sortable">`, `href="a/report.html"`, `href="b/deep/report.html"`,
		"server.shared_buffers=16MB", "server.shared_buffers=32MB", "2 runs"} {
		if !strings.Contains(html, want) {
			t.Errorf("the index lacks %q", want)
		}
	}
	if strings.Contains(html, "workload.phases.run.clients=") {
		t.Error("the index lists a key that is the same in every run")
	}
	// Again: it replaces its own index.
	if _, err := report.WriteIndex(dir); err != nil {
		t.Errorf("rewriting the index: %v", err)
	}
	// A foreign index.html is never replaced.
	foreign := t.TempDir()
	if err := report.WriteDir(filepath.Join(foreign, "r"), mustFiles(t)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(foreign, report.IndexFile), []byte("<html>mine</html>"), 0o644)
	if _, err := report.WriteIndex(foreign); err == nil || !strings.Contains(err.Error(), "not a runs index pgbufsim wrote") {
		t.Errorf("a foreign index.html: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(foreign, report.IndexFile)); string(b) != "<html>mine</html>" {
		t.Error("a foreign index.html was changed")
	}
	if _, err := report.WriteIndex(t.TempDir()); err == nil || !strings.Contains(err.Error(), "holds no pgbufsim run output") {
		t.Errorf("an empty directory: %v", err)
	}
}

func mustFiles(t *testing.T) report.Files {
	_, files := quick(t, "workload.phases.warmup.duration=1s", "workload.phases.run.duration=1s")
	return files
}
