package pgcompare

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// dropCachesPath is the kernel knob; writing "1" frees clean page-cache pages.
const dropCachesPath = "/proc/sys/vm/drop_caches"

var (
	dropOnce    sync.Once
	dropAllowed bool
)

// CanDropCaches reports whether this process may drop the OS page cache. The
// only reliable test is to try, so the first call really drops the cache
// (after a sync); the answer is remembered for the life of the process.
func CanDropCaches() bool {
	dropOnce.Do(func() { dropAllowed = dropCaches() == nil })
	return dropAllowed
}

// DropCaches syncs dirty data and drops the OS page cache, so that the next
// reads of relation files come from disk rather than from kernel memory. If
// dropping is not allowed here (not root, read-only /proc in a container) it
// does nothing and returns nil: check CanDropCaches to know whether it had an
// effect. An error means dropping was allowed before but failed now.
func DropCaches() error {
	if !CanDropCaches() {
		return nil
	}
	if err := dropCaches(); err != nil {
		return fmt.Errorf("drop OS page cache: %w", err)
	}
	return nil
}

func dropCaches() error {
	// Dirty pages cannot be dropped; flush them first so the drop is complete.
	syscall.Sync()
	f, err := os.OpenFile(dropCachesPath, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, werr := f.WriteString("1")
	return errors.Join(werr, f.Close())
}
