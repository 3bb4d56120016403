package sweep

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
)

func writeTiny(t *testing.T, extra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(p, []byte(tinyBase+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The CLI: a sweep block plus -sweep flags, -replicates and -duration;
// the table on stdout, one plain line per run on stderr (not a terminal),
// the outputs listed; exit 0.
func TestMainRunsSweep(t *testing.T) {
	cfg := writeTiny(t, "sweep:\n  axes:\n    policies.replacement.name: [clock-sweep, lru]\n  metrics: [tps, buffers.hit_ratio]\n")
	out := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	code := Main([]string{"-config", cfg, "-sweep", "server.cpus=1,2", "-replicates", "2", "-duration", "1s", "-parallel", "2", "-out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"║ name        │ cpus │ runs │ tps", "paired difference (same replicates): policies.replacement.name = lru minus clock-sweep",
		"paired difference (same replicates): server.cpus = 2 minus 1"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != 10 || lines[0] != "sweep: 8 runs" || !strings.HasPrefix(lines[9], "wrote "+filepath.Join(out, SweepCSVFile)) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	for _, l := range lines[1:9] {
		if !strings.HasPrefix(l, "sweep: [") || !strings.Contains(l, ": tps ") || !strings.Contains(l, ", buffers.hit_ratio ") {
			t.Errorf("progress line %q", l)
		}
	}
	// -duration reached every point: 1 s of the rate-limited 200 tps phase.
	csv, err := os.ReadFile(filepath.Join(out, SweepCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	recs := strings.Split(strings.TrimSpace(string(csv)), "\n")
	col := slices.Index(strings.Split(recs[0], ","), "transactions")
	for _, l := range recs[1:] {
		f := strings.Split(l, ",")
		if n := f[col]; len(n) != 3 || n[0] != '1' && n[0] != '2' {
			t.Errorf("transactions %s for a 1 s phase at 200 tps (%s)", n, l)
		}
	}

	// The same command again resumes: nothing to run.
	stderr.Reset()
	if code := Main([]string{"-config", cfg, "-sweep", "server.cpus=1,2", "-replicates", "2", "-duration", "1s", "-out", out, "-q"}, &stdout, &stderr); code != 0 ||
		!strings.HasPrefix(stderr.String(), "sweep: 8 runs, 8 already finished (resuming)\n") {
		t.Errorf("re-run: exit %d, %s", code, stderr.String())
	}
	// Changing the configuration is refused with exit 1.
	stderr.Reset()
	if code := Main([]string{"-config", cfg, "-sweep", "server.cpus=1,2", "-replicates", "2", "-out", out, "-q"}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "holds runs of a different sweep") || !strings.Contains(stderr.String(), "-force") {
		t.Errorf("changed config: exit %d, %s", code, stderr.String())
	}
}

// Bad flags, configurations and axes exit 1 and write nothing.
func TestMainConfigErrors(t *testing.T) {
	cfg := writeTiny(t, "sweep:\n  axes:\n    server.shared_buffers: [1MB, 2XB]\n")
	good := writeTiny(t, "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-config", cfg}, `tiny.yaml:13: server.shared_buffers: invalid size "2XB"`},
		{[]string{"-config", good, "-sweep", "server.cpu=1,2"}, `-sweep server.cpu=1,2: server.cpu: unknown key (did you mean "cpus"?)`},
		{[]string{"-config", good, "-shard", "2/2"}, "-shard 2/2: expected i/n"},
		{[]string{"-config", good, "-duration", "5 parsecs"}, "-duration 5 parsecs:"},
		{[]string{"-config", good, "extra"}, `unexpected argument "extra"`},
		{[]string{"-nope"}, "flag provided but not defined: -nope"},
		{[]string{}, "-config FILE is required"},
	}
	for _, c := range cases {
		out := filepath.Join(t.TempDir(), "out")
		var stdout, stderr bytes.Buffer
		code := Main(append(c.args, "-out", out), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %s\nwant %s", c.args, code, stderr.String(), c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", c.args, out)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "simulate merge") {
		t.Errorf("-h: exit %d", code)
	}
	if code := MergeMain(nil, &stdout, &stderr); code != 1 {
		t.Errorf("merge without dirs: exit %d", code)
	}
	if code := MergeMain([]string{t.TempDir()}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "not a sweep directory") {
		t.Errorf("merge of a non-sweep dir: exit %d %s", code, stderr.String())
	}
}

// The sweep file shipped with the docs loads: 4 sizes x 2 periods.
func TestDocsSweepFileLoads(t *testing.T) {
	plan, err := configs.LoadSweep("../docs/examples/clock-sweep-period.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Points) != 8 || plan.Replicates != 3 || len(plan.Metrics) != 6 || !configs.IsSweep("../docs/examples/clock-sweep-period.yaml") {
		t.Errorf("%d points, %d replicates, metrics %v", len(plan.Points), plan.Replicates, plan.Metrics)
	}
}

// On a terminal the progress is one bar redrawn in place, ending with a
// newline when the last run is done.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, tty: true}
	pt := &configs.SweepPoint{ID: "p0"}
	p.event(Event{Total: 2})
	p.event(Event{Done: 1, Total: 2, Point: pt, Row: &Row{}})
	p.event(Event{Done: 2, Total: 2, Point: pt, Replicate: 1, Row: &Row{}})
	out := b.String()
	if !strings.HasPrefix(out, "sweep: 2 runs\n\r[###############---------------] 1/2 runs · ETA ") ||
		!strings.HasSuffix(out, "\r[##############################] 2/2 runs · ETA 0:00\033[K\n") {
		t.Errorf("bar output %q", out)
	}
}
