package calibrate

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"strings"
)

// The server's CPU scheduler, for costs.cpu_slice and
// costs.cpu_client_group: on a server on this machine, calibration reads
// which scheduler the kernel runs and whether pgbench and the server's
// processes share the cores as two groups (docs/model.md "The cores'
// scheduler").

// procRoot is where /proc is read from (a test's fixture otherwise).
var procRoot = "/proc"

// sysRoot is where /sys is read from.
var sysRoot = "/sys"

// kernelEEVDF says whether a kernel release ("6.18.44-...") schedules
// with EEVDF: Linux 6.6 and later.
func kernelEEVDF(release string) (bool, error) {
	parts := strings.SplitN(strings.TrimSpace(release), ".", 3)
	if len(parts) < 2 {
		return false, fmt.Errorf("kernel release %q: want MAJOR.MINOR...", release)
	}
	major, err1 := strconv.Atoi(parts[0])
	minorText := parts[1]
	if i := strings.IndexFunc(minorText, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minorText = minorText[:i]
	}
	minor, err2 := strconv.Atoi(minorText)
	if err1 != nil || err2 != nil {
		return false, fmt.Errorf("kernel release %q: want MAJOR.MINOR...", release)
	}
	return major > 6 || major == 6 && minor >= 6, nil
}

// defaultBaseSlice is sysctl_sched_base_slice as Linux sets it at boot
// (kernel/sched/fair.c update_sysctl, get_update_sysctl_factor with the
// default logarithmic scaling): 0.7 ms times 1 + log2 of the CPU count,
// the count capped at 8.
func defaultBaseSlice(cpus int) int64 {
	n := uint(min(max(cpus, 1), 8))
	return 700_000 * int64(bits.Len(n)) // bits.Len(n) is 1 + log2(n)
}

// baseSlice is the running kernel's base slice: debugfs's
// sched/base_slice_ns where readable, else the boot-time default.
func baseSlice(cpus int) (int64, string) {
	if b, err := os.ReadFile(sysRoot + "/kernel/debug/sched/base_slice_ns"); err == nil {
		if ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && ns > 0 {
			return ns, "read from /sys/kernel/debug/sched/base_slice_ns"
		}
	}
	return defaultBaseSlice(cpus), fmt.Sprintf("Linux's default for %d CPUs (0.7 ms times 1 + log2 of the CPUs, up to 8; /sys/kernel/debug/sched/base_slice_ns not readable)", cpus)
}

// cpuCgroup is the path of a process's cgroup that the cpu controller
// governs (cgroup v1: the hierarchy listing "cpu"; v2: the unified one,
// when the root delegates the cpu controller), "" when none does.
func cpuCgroup(cgroupFile string, v2CPU bool) string {
	for _, line := range strings.Split(cgroupFile, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			if v2CPU {
				return f[2]
			}
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			if c == "cpu" {
				return f[2]
			}
		}
	}
	return ""
}

// schedGroup returns a process's scheduling group as the fair scheduler
// sees it: its cpu cgroup when not the root one, else its autogroup
// (kernel/sched/autogroup.c: one per session, while
// kernel.sched_autogroup_enabled is 1), else "" (the root group).
func schedGroup(pid string, v2CPU, autogroup bool) string {
	if b, err := os.ReadFile(procRoot + "/" + pid + "/cgroup"); err == nil {
		if cg := cpuCgroup(string(b), v2CPU); cg != "" && cg != "/" {
			return "cgroup " + cg
		}
	}
	if autogroup {
		if b, err := os.ReadFile(procRoot + "/" + pid + "/autogroup"); err == nil {
			if f := strings.Fields(string(b)); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}

// scheduler decides costs.cpu_slice and costs.cpu_client_group for a
// server on this machine with cpus cores: the slice when the kernel
// schedules with EEVDF (0 otherwise), and whether pgbench's threads (this
// process's children, in its session and cgroup) and the server's
// processes (serverPID's) are in different scheduling groups. The
// strings say why, for the costs file.
func scheduler(ctx context.Context, s *Server, cpus int) (slice int64, sliceWhy string, group bool, groupWhy string) {
	rel, err := os.ReadFile(procRoot + "/sys/kernel/osrelease")
	if err != nil {
		return 0, "not set: the kernel's release could not be read (" + err.Error() + "): the cores serve bursts in arrival order", false, ""
	}
	eevdf, err := kernelEEVDF(string(rel))
	if err != nil || !eevdf {
		return 0, fmt.Sprintf("not set: Linux %s schedules with CFS, not EEVDF (6.6 and later), which the model does not follow: the cores serve bursts in arrival order", strings.TrimSpace(string(rel))), false, ""
	}
	slice, how := baseSlice(cpus)
	sliceWhy = fmt.Sprintf("Linux %s's EEVDF scheduler: its base slice %s", strings.TrimSpace(string(rel)), how)
	pid, err := s.Int64(ctx, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")
	if err != nil {
		return slice, sliceWhy, false, "not set: the server's checkpointer was not found (" + err.Error() + ")"
	}
	auto := false
	if b, err := os.ReadFile(procRoot + "/sys/kernel/sched_autogroup_enabled"); err == nil && strings.TrimSpace(string(b)) == "1" {
		auto = true
	}
	v2CPU := false
	if b, err := os.ReadFile(sysRoot + "/fs/cgroup/cgroup.subtree_control"); err == nil {
		v2CPU = strings.Contains(" "+strings.TrimSpace(string(b))+" ", " cpu ")
	}
	server := schedGroup(strconv.FormatInt(pid, 10), v2CPU, auto)
	client := schedGroup("self", v2CPU, auto)
	switch {
	case server == "" && client == "":
		return slice, sliceWhy, false, "not set: pgbench and the server's processes are in the root scheduling group (no cpu cgroup, autogroup off)"
	case server == client:
		return slice, sliceWhy, false, "not set: pgbench and the server's processes are in one scheduling group (" + server + ")"
	}
	name := func(g string) string {
		if g == "" {
			return "the root group"
		}
		return g
	}
	return slice, sliceWhy, true, fmt.Sprintf("pgbench in %s, the server's processes in %s", name(client), name(server))
}
