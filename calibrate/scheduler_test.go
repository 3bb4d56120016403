package calibrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKernelEEVDF(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want bool
	}{
		{"6.18.44-fc-v1300\n", true}, {"6.6.0", true}, {"6.5.13-generic", false},
		{"5.15.0-91-generic", false}, {"7.0.1", true}, {"6.10rc1", true},
	} {
		got, err := kernelEEVDF(c.rel)
		if err != nil || got != c.want {
			t.Errorf("kernelEEVDF(%q) = %v, %v; want %v", c.rel, got, err, c.want)
		}
	}
	if _, err := kernelEEVDF("linux"); err == nil {
		t.Error(`kernelEEVDF("linux") gave no error`)
	}
}

// Linux's boot-time base slice (update_sysctl): 0.7 ms x (1 + ilog2 of
// the CPUs, capped at 8).
func TestDefaultBaseSlice(t *testing.T) {
	for cpus, want := range map[int]int64{1: 700_000, 2: 1_400_000, 3: 1_400_000, 4: 2_100_000, 8: 2_800_000, 64: 2_800_000} {
		if got := defaultBaseSlice(cpus); got != want {
			t.Errorf("defaultBaseSlice(%d) = %d, want %d", cpus, got, want)
		}
	}
}

func TestSchedGroup(t *testing.T) {
	dir := t.TempDir()
	old := procRoot
	procRoot = dir
	defer func() { procRoot = old }()
	write := func(pid, name, text string) {
		os.MkdirAll(filepath.Join(dir, pid), 0o755)
		if err := os.WriteFile(filepath.Join(dir, pid, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// cgroup v1 with the cpu controller at the root: the autogroup counts.
	write("10", "cgroup", "9:name=systemd:/\n2:cpuacct:/\n1:cpu:/\n0::/\n")
	write("10", "autogroup", "/autogroup-49907 nice 0\n")
	if g := schedGroup("10", false, true); g != "/autogroup-49907" {
		t.Errorf("root cpu cgroup, autogroup on: %q", g)
	}
	if g := schedGroup("10", false, false); g != "" {
		t.Errorf("autogroup off: %q, want the root group", g)
	}
	// A service's cpu cgroup (v1 cpu,cpuacct) wins over the autogroup.
	write("11", "cgroup", "4:cpu,cpuacct:/system.slice/postgresql.service\n0::/\n")
	write("11", "autogroup", "/autogroup-7 nice 0\n")
	if g := schedGroup("11", false, true); g != "cgroup /system.slice/postgresql.service" {
		t.Errorf("v1 cpu cgroup: %q", g)
	}
	// cgroup v2: the unified path counts only where the cpu controller is on.
	write("12", "cgroup", "0::/user.slice/session-3.scope\n")
	write("12", "autogroup", "/autogroup-9 nice 0\n")
	if g := schedGroup("12", true, true); g != "cgroup /user.slice/session-3.scope" {
		t.Errorf("v2 with cpu: %q", g)
	}
	if g := schedGroup("12", false, true); g != "/autogroup-9" {
		t.Errorf("v2 without cpu: %q", g)
	}
}

// -cpu-scheduler takes fifo or fair; anything else is refused before any
// connection is tried.
func TestCPUSchedulerFlag(t *testing.T) {
	var out, errs strings.Builder
	code := Main([]string{"-dsn", "host=/nonexistent", "-cpu-scheduler", "rr", "-out", filepath.Join(t.TempDir(), "c.yaml")}, &out, &errs)
	if code != 1 || !strings.Contains(errs.String(), `-cpu-scheduler "rr": fifo or fair`) {
		t.Errorf("exit %d, stderr %q; want 1 and the flag named", code, errs.String())
	}
}
