package pgcompare

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// DeviceIO is what the block device under a directory read: completed read
// requests and 8 kB pages (sectors / 16), from /sys/dev/block/MAJ:MIN/stat
// (Documentation/block/stat.rst: fields 1 and 3). The counters are the
// whole device's: other processes' reads count too, so they are compared
// only for steps on a quiet machine right after the page cache was dropped.
type DeviceIO struct {
	Requests, Pages int64
}

// Minus returns a - b.
func (a DeviceIO) Minus(b DeviceIO) DeviceIO {
	return DeviceIO{Requests: a.Requests - b.Requests, Pages: a.Pages - b.Pages}
}

// blockDevDir returns /sys/dev/block/MAJ:MIN for the device holding path.
func blockDevDir(path string) (string, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return "", err
	}
	maj, min := unix.Major(st.Dev), unix.Minor(st.Dev)
	dir := fmt.Sprintf("/sys/dev/block/%d:%d", maj, min)
	if _, err := os.Stat(filepath.Join(dir, "stat")); err != nil {
		return "", fmt.Errorf("%s is on device %d:%d, which has no block statistics (%v): not a block device (tmpfs, overlay, a network file system)", path, maj, min, err)
	}
	return dir, nil
}

// ReadDeviceIO reads the read counters of the block device holding path.
func ReadDeviceIO(path string) (DeviceIO, error) {
	dir, err := blockDevDir(path)
	if err != nil {
		return DeviceIO{}, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return DeviceIO{}, err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return DeviceIO{}, fmt.Errorf("%s/stat: %d fields", dir, len(f))
	}
	req, err1 := strconv.ParseInt(f[0], 10, 64)
	sect, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil {
		return DeviceIO{}, fmt.Errorf("%s/stat: %q", dir, b)
	}
	return DeviceIO{Requests: req, Pages: sect / 16}, nil
}

// DeviceQueue is the request queue's settings of the block device holding
// a directory, in kB: read_ahead_kb and max_sectors_kb (a partition's are
// its disk's).
type DeviceQueue struct {
	ReadAheadKB, MaxSectorsKB int64
}

// QueueOf reads the queue settings of the device holding path.
func QueueOf(path string) (DeviceQueue, error) {
	dir, err := blockDevDir(path)
	if err != nil {
		return DeviceQueue{}, err
	}
	read := func(name string) (int64, error) {
		for _, q := range []string{filepath.Join(dir, "queue"), filepath.Join(dir, "..", "queue")} {
			if b, err := os.ReadFile(filepath.Join(q, name)); err == nil {
				return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			}
		}
		return 0, fmt.Errorf("%s: no queue/%s", dir, name)
	}
	var q DeviceQueue
	if q.ReadAheadKB, err = read("read_ahead_kb"); err != nil {
		return q, err
	}
	if q.MaxSectorsKB, err = read("max_sectors_kb"); err != nil {
		return q, err
	}
	return q, nil
}

var (
	machineQueueOnce sync.Once
	machineQueue     DeviceQueue
	machineQueueOK   bool
)

// scratchQueue is the queue settings of the device the clusters live on
// (the temp dir's), if it is a block device.
func scratchQueue() (DeviceQueue, bool) {
	machineQueueOnce.Do(func() {
		q, err := QueueOf(os.TempDir())
		machineQueue, machineQueueOK = q, err == nil
	})
	return machineQueue, machineQueueOK
}
