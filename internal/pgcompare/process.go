package pgcompare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// serverUser is the OS account that runs initdb and the server when this
// process is root, because PostgreSQL refuses to run as root.
const serverUser = "postgres"

// owner is the OS identity that owns the cluster's files and runs its server.
// cred is nil when no identity switch is needed (not running as root).
type owner struct {
	uid, gid int
	cred     *syscall.Credential
}

// lookupOwner decides who runs the server: the postgres user when we are
// root, otherwise ourselves.
func lookupOwner() (owner, error) {
	if os.Geteuid() != 0 {
		return owner{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		return owner{}, fmt.Errorf("running as root needs OS user %q to run the server: %w", serverUser, err)
	}
	uid, err := strconv.Atoi(u.Uid)
	if err != nil {
		return owner{}, fmt.Errorf("uid of %s: %w", serverUser, err)
	}
	gid, err := strconv.Atoi(u.Gid)
	if err != nil {
		return owner{}, fmt.Errorf("gid of %s: %w", serverUser, err)
	}
	// An empty Groups list drops root's supplementary groups.
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	return owner{uid: uid, gid: gid, cred: cred}, nil
}

// chown gives path to the server owner; a no-op when not switching users.
func (o owner) chown(path string) error {
	if o.cred == nil {
		return nil
	}
	if err := os.Chown(path, o.uid, o.gid); err != nil {
		return fmt.Errorf("chown %s to %s: %w", path, serverUser, err)
	}
	return nil
}

// writeFile writes data to path and hands it to the server owner, since the
// server must be able to read files that root writes into its data dir.
func (o owner) writeFile(path string, data []byte) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return o.chown(path)
}

// cleanEnv returns the environment without PG* variables, so that a PGHOST,
// PGPORT or PGDATA of the caller can never point a tool at another cluster.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") {
			env = append(env, kv)
		}
	}
	return append(env, "LC_ALL=C")
}

// runOpts describes one invocation of a PostgreSQL program.
type runOpts struct {
	path  string   // program to run
	args  []string // its arguments
	dir   string   // working directory (must be accessible to the owner)
	asSrv bool     // run as the server owner instead of the current user
	// stderr, if set, receives the program's stderr (pgbench's progress
	// lines).
	stderr *string
}

// run executes a program and returns its stdout. On failure the error
// carries the exit status and the tail of stderr (or stdout), because the
// PostgreSQL tools explain their failures there.
func run(ctx context.Context, o owner, r runOpts) (string, error) {
	cmd := exec.CommandContext(ctx, r.path, r.args...)
	cmd.Dir = r.dir
	cmd.Env = cleanEnv()
	// Own process group: a Ctrl-C on the terminal must not reach the
	// postmaster that pg_ctl forks; Close stops it in an orderly way.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if r.asSrv {
		cmd.SysProcAttr.Credential = o.cred
	}
	// If some child ever kept our pipes open, do not wait for it forever.
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if r.stderr != nil {
		*r.stderr = stderr.String()
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		return stdout.String(), fmt.Errorf("%s %s: %w: %s", r.path, strings.Join(r.args, " "), err, lastLines(msg, 15))
	}
	return stdout.String(), nil
}

// lastLines returns at most n trailing lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// errNotRunning reports that no postmaster.pid exists.
var errNotRunning = errors.New("server not running")
