package pgcompare

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	// stopTimeout bounds one pg_ctl stop; a fast shutdown of a small test
	// cluster takes well under a second, but a checkpoint may be running.
	stopTimeout = 60 * time.Second
	// startTimeout bounds pg_ctl start -w (crash recovery may be needed
	// after an immediate stop).
	startTimeout = 120 * time.Second
	// startAttempts covers the race between picking a free port and the
	// postmaster binding it.
	startAttempts = 3
)

// Restart stops the server, merges s into the current settings, rewrites
// postgresql.conf and starts the server again. Shared buffers are empty
// afterwards; the OS page cache is kept (see DropCaches). Existing sessions
// are terminated by the restart.
func (c *Cluster) Restart(ctx context.Context, s Settings) error {
	if err := s.validate(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if err := c.stopServer(ctx); err != nil && !errors.Is(err, errNotRunning) {
		return fmt.Errorf("restart: %w", err)
	}
	c.settings = c.settings.merge(s)
	if err := c.startServer(ctx); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}

// startServer writes postgresql.conf and runs pg_ctl start -w, retrying with
// a new port if another process grabbed the one we picked.
func (c *Cluster) startServer(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < startAttempts; attempt++ {
		if c.port == 0 || attempt > 0 {
			if c.port, err = freePort(); err != nil {
				return err
			}
		}
		conf := renderConf(c.baseConf, c.settings, c.port, c.root)
		if err = c.owner.writeFile(filepath.Join(c.dataDir, "postgresql.conf"), []byte(conf)); err != nil {
			return err
		}
		_, err = c.pgctl(ctx, startTimeout, "-l", c.logFile, "start")
		if err == nil {
			return nil
		}
		if !strings.Contains(c.LogTail(20), "Address already in use") {
			break
		}
	}
	return fmt.Errorf("start server: %w; server log: %s", err, c.LogTail(20))
}

// stopServer stops the postmaster of this cluster: fast shutdown first, then
// immediate, then SIGKILL of the pid in our own postmaster.pid. It returns
// errNotRunning if there is no postmaster.pid.
func (c *Cluster) stopServer(ctx context.Context) error {
	if _, err := os.Stat(c.pidFile()); errors.Is(err, os.ErrNotExist) {
		return errNotRunning
	}
	_, fastErr := c.pgctl(ctx, stopTimeout, "-m", "fast", "stop")
	if fastErr == nil {
		return nil
	}
	if _, err := c.pgctl(ctx, stopTimeout, "-m", "immediate", "stop"); err == nil {
		return nil
	}
	if err := c.killPostmaster(); err != nil {
		return fmt.Errorf("stop server: %w (fast shutdown: %v)", err, fastErr)
	}
	return nil
}

// pgctl runs pg_ctl as the server owner against this cluster's data dir.
func (c *Cluster) pgctl(ctx context.Context, timeout time.Duration, args ...string) (string, error) {
	full := append([]string{"-D", c.dataDir, "-w", "-s", "-t", strconv.Itoa(int(timeout.Seconds()))}, args...)
	return run(ctx, c.owner, runOpts{path: filepath.Join(c.bindir, "pg_ctl"), args: full, dir: c.root, asSrv: true})
}

func (c *Cluster) pidFile() string { return filepath.Join(c.dataDir, "postmaster.pid") }

// killPostmaster is the last resort when pg_ctl cannot stop the server. It
// signals only the pid recorded in this cluster's own postmaster.pid; the
// backends exit by themselves once they notice the postmaster is gone.
func (c *Cluster) killPostmaster() error {
	data, err := os.ReadFile(c.pidFile())
	if err != nil {
		return fmt.Errorf("read postmaster.pid: %w", err)
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 1 {
		return fmt.Errorf("bad pid %q in postmaster.pid", first)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill postmaster %d: %w", pid, err)
	}
	return nil
}

// freePort asks the kernel for a free loopback TCP port. Another process may
// take it before the postmaster binds it; startServer retries in that case.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	addr, ok := l.Addr().(*net.TCPAddr)
	closeErr := l.Close()
	if !ok {
		return 0, fmt.Errorf("pick a free port: unexpected address %v", l.Addr())
	}
	if closeErr != nil {
		return 0, fmt.Errorf("release probe port: %w", closeErr)
	}
	return addr.Port, nil
}
