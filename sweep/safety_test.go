package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sweepCLI(args ...string) (int, string) {
	var stdout, stderr bytes.Buffer
	code := Main(args, &stdout, &stderr)
	return code, stderr.String()
}

// Flags are checked like the keys they set; a second -sweep on one axis is
// refused instead of silently winning.
func TestSweepFlagsChecked(t *testing.T) {
	cfg := writeTiny(t, "")
	out := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-seed", "-5"}, "-seed -5"},
		{[]string{"-replicates", "0"}, "-replicates 0"},
		{[]string{"-parallel", "-1"}, "-parallel -1"},
		{[]string{"-sweep", "server.cpus=1,2", "-sweep", "server.cpus=4"}, "already given by -sweep server.cpus=1,2"},
		{[]string{"-sweep", "server.cpus=1,2", "-max-memory", "1MB"}, "runs at once need up to"},
	} {
		args := append([]string{"-config", cfg, "-sweep", "server.shared_buffers=1MB,2MB", "-out", out}, c.args...)
		code, errs := sweepCLI(args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q (want %q)", c.args, code, errs, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused sweep wrote output")
	}
}

// A sweep, with or without -force, never writes into or empties a
// directory it did not write.
func TestSweepRefusesForeignDirectory(t *testing.T) {
	cfg := writeTiny(t, "")
	out := filepath.Join(t.TempDir(), "mine")
	os.MkdirAll(filepath.Join(out, "runs"), 0o755)
	os.WriteFile(filepath.Join(out, "runs", "thesis.tex"), []byte("x"), 0o644)
	for _, force := range [][]string{nil, {"-force"}} {
		args := append([]string{"-config", cfg, "-sweep", "server.cpus=1,2", "-duration", "1s", "-out", out}, force...)
		code, errs := sweepCLI(args...)
		if code != 1 || !strings.Contains(errs, "pgbufsim did not write") {
			t.Errorf("%v: exit %d %q", force, code, errs)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "runs", "thesis.tex")); err != nil || string(b) != "x" {
		t.Errorf("the user's file: %q %v", b, err)
	}
}

// A damaged journal line is reported as damage at file:line (exit 1), not
// as another sweep's runs; merge has the -force its messages offer.
func TestDamagedJournalAndMergeForce(t *testing.T) {
	cfg, out := tinySweep(t)
	j := filepath.Join(out, JournalFile)
	b, _ := os.ReadFile(j)
	os.WriteFile(j, append([]byte("{not json\n"), b...), 0o644)
	code, errs := sweepCLI("-config", cfg, "-sweep", "server.cpus=1,2", "-duration", "1s", "-out", out)
	if code != 1 || !strings.Contains(errs, JournalFile+":1: the sweep's journal is damaged") {
		t.Errorf("damaged journal: exit %d %q", code, errs)
	}
	// Another sweep merged into out: refused without -force, done with it.
	other := filepath.Join(t.TempDir(), "o")
	if code, errs := sweepCLI("-config", cfg, "-sweep", "server.cpus=3,4", "-duration", "1s", "-out", other); code != 0 {
		t.Fatalf("sweep: %d %s", code, errs)
	}
	var stdout, stderr bytes.Buffer
	if code := MergeMain([]string{"-out", out, other}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "use -force to replace it") {
		t.Errorf("merge over another sweep: exit %d %q", code, stderr.String())
	}
	stderr.Reset()
	if code := MergeMain([]string{"-force", "-out", out, other}, &stdout, &stderr); code != 0 {
		t.Errorf("merge -force: exit %d %q", code, stderr.String())
	}
}

// A damaged sweep-plan.json is bad input with the way out (exit 1), and a
// flag after merge's directories is named, not taken for a directory.
func TestDamagedPlanAndLateFlag(t *testing.T) {
	_, out := tinySweep(t)
	os.WriteFile(filepath.Join(out, PlanFile), []byte("{"), 0o644)
	var stdout, stderr bytes.Buffer
	if code := MergeMain([]string{"-out", filepath.Join(t.TempDir(), "m"), out}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "the sweep's plan is damaged") {
		t.Errorf("damaged plan: exit %d %q", code, stderr.String())
	}
	stderr.Reset()
	if code := MergeMain([]string{out, "-force"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "-force after the directories") {
		t.Errorf("late flag: exit %d %q", code, stderr.String())
	}
}

// A run whose summary.json is a link is not merged silently without it.
func TestMergeRefusesLinkedRunFiles(t *testing.T) {
	_, src := tinySweep(t)
	runs, _ := filepath.Glob(filepath.Join(src, "runs", "*", "*", "summary.json"))
	if len(runs) == 0 {
		t.Fatal("no run's summary.json found")
	}
	moved := runs[0] + ".real"
	os.Rename(runs[0], moved)
	os.Symlink(moved, runs[0])
	var stdout, stderr bytes.Buffer
	if code := MergeMain([]string{"-out", filepath.Join(t.TempDir(), "m"), src}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "is not a plain file") {
		t.Errorf("merge with a linked summary.json: exit %d %q", code, stderr.String())
	}
}

// tinySweep runs a two-point sweep of a tiny scenario and returns the
// scenario file and the sweep's directory.
func tinySweep(t *testing.T) (cfg, dir string) {
	t.Helper()
	cfg = writeTiny(t, "")
	dir = filepath.Join(t.TempDir(), "s")
	if code, errs := sweepCLI("-config", cfg, "-sweep", "server.cpus=1,2", "-duration", "1s", "-out", dir); code != 0 {
		t.Fatalf("sweep: %d %s", code, errs)
	}
	return cfg, dir
}
