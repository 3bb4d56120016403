// Package sysmem tells how much memory this process may use: the smaller
// of the kernel's estimate of available memory (/proc/meminfo MemAvailable)
// and the cgroup's limit (cgroup v2 memory.max, or v1
// memory.limit_in_bytes), so that pgbufsim can refuse a run that would
// exhaust it instead of dying with Go's "out of memory".
package sysmem

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Available returns the bytes this process may still allocate, and false
// when the machine does not say (not Linux, or /proc unreadable).
func Available() (int64, bool) {
	avail, ok := memAvailable()
	if lim, lok := cgroupLimit(); lok && (!ok || lim < avail) {
		avail, ok = lim, true
	}
	return avail, ok
}

func memAvailable() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemAvailable" {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0, false
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, false
		}
		return kb << 10, true
	}
	return 0, false
}

func cgroupLimit() (int64, bool) {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		if s == "max" {
			return 0, false
		}
		v, err := strconv.ParseInt(s, 10, 64)
		// cgroup v1 reports "no limit" as a huge page-aligned number.
		if err != nil || v <= 0 || v >= 1<<62 {
			return 0, false
		}
		return v, true
	}
	return 0, false
}
