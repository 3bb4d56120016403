package outdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func refused(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !IsRefusal(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a refusal containing %q", err, want)
	}
}

// Only new, empty, or earlier pgbufsim outputs of the same kind holding
// nothing else may be written to (the data-loss bugs of -out).
func TestCheck(t *testing.T) {
	tmp := t.TempDir()
	if err := Check(filepath.Join(tmp, "new"), Run); err != nil {
		t.Errorf("a new directory: %v", err)
	}
	if err := os.Mkdir(filepath.Join(tmp, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Check(filepath.Join(tmp, "empty"), Run); err != nil {
		t.Errorf("an empty directory: %v", err)
	}
	write(t, filepath.Join(tmp, "d", "keep"), "x")
	refused(t, Check(filepath.Join(tmp, "d"), Run), `pgbufsim did not write (it holds "keep")`)
	write(t, filepath.Join(tmp, "README.md"), "x")
	refused(t, Check(filepath.Join(tmp, "README.md"), Run), "is a file, not a directory")
	refused(t, Check(filepath.Join(tmp, "README.md", "sub"), Run), "is a file, so no directory can be made under it")
	if err := os.Symlink(filepath.Join(tmp, "empty"), filepath.Join(tmp, "link")); err != nil {
		t.Fatal(err)
	}
	refused(t, Check(filepath.Join(tmp, "link"), Run), "symbolic link")

	// An earlier run output, marked or (older versions) recognised by its
	// files, may be replaced; not once a user's file sits in it.
	prev := filepath.Join(tmp, "prev")
	write(t, filepath.Join(prev, "summary.json"), "{}")
	write(t, filepath.Join(prev, "report.html"), "<html>")
	if err := Check(prev, Run); err != nil {
		t.Errorf("an unmarked earlier run: %v", err)
	}
	if err := WriteMarker(prev, Run); err != nil {
		t.Fatal(err)
	}
	if err := Check(prev, Run); err != nil {
		t.Errorf("a marked earlier run: %v", err)
	}
	refused(t, Check(prev, Sweep), "holds a pgbufsim run output, not a sweep output")
	// pgbench log files (PREFIX.PID[.THREAD] with the model's pseudo
	// pids) are a run's too; other dotted numbers are not.
	write(t, filepath.Join(prev, "pgbench_log.10001"), "0 1 2 0 3 4\n")
	write(t, filepath.Join(prev, "my.log.10001.3"), "0 1 2 0 3 4\n")
	if err := Check(prev, Run); err != nil {
		t.Errorf("a run with pgbench logs: %v", err)
	}
	write(t, filepath.Join(prev, "data.2024"), "mine")
	refused(t, Check(prev, Run), `also "data.2024", which pgbufsim did not write`)
	os.Remove(filepath.Join(prev, "data.2024"))
	write(t, filepath.Join(prev, "notes.txt"), "mine")
	refused(t, Check(prev, Run), `also "notes.txt", which pgbufsim did not write`)

	// A sweep directory: its runs must be run outputs too.
	sw := filepath.Join(tmp, "sweep")
	write(t, filepath.Join(sw, "sweep-plan.json"), "{}")
	write(t, filepath.Join(sw, "runs", "p0-a=1", "r0", "summary.json"), "{}")
	if err := Check(sw, Sweep); err != nil {
		t.Errorf("an earlier sweep: %v", err)
	}
	write(t, filepath.Join(sw, "runs", "p0-a=1", "r0", "mine.txt"), "x")
	refused(t, Check(sw, Sweep), `"mine.txt"`)
}

// The working directory, its parents and the root are never outputs.
func TestCheckRefusesWorkingDirectory(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".", "..", "/", wd, filepath.Dir(wd)} {
		if err := Check(d, Run); err == nil {
			t.Errorf("%s accepted as an output directory", d)
		}
	}
}

func TestCheckFile(t *testing.T) {
	tmp := t.TempDir()
	ours := func(p string) bool {
		b, _ := os.ReadFile(p)
		return string(b) == "ours"
	}
	if err := CheckFile(filepath.Join(tmp, "t.csv"), "a trace", ours); err != nil {
		t.Errorf("a new file: %v", err)
	}
	write(t, filepath.Join(tmp, "ours.csv"), "ours")
	if err := CheckFile(filepath.Join(tmp, "ours.csv"), "a trace", ours); err != nil {
		t.Errorf("our own file: %v", err)
	}
	write(t, filepath.Join(tmp, "theirs.csv"), "theirs")
	refused(t, CheckFile(filepath.Join(tmp, "theirs.csv"), "a trace", ours), "exists and is not a trace pgbufsim wrote")
	refused(t, CheckFile(tmp, "a trace", ours), "is a directory")
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"quickstart": "quickstart", "../src": "_src", "a/b": "a_b", ".hidden": "hidden",
		"": "unnamed", "..": "unnamed", "x y:z": "x_y_z", "seed-002.v2": "seed-002.v2",
	} {
		if got := SafeName(in); got != want {
			t.Errorf("SafeName(%q) = %q, want %q", in, got, want)
		}
	}
}
