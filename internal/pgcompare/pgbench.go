package pgcompare

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// connFlags are pgbench options that Pgbench sets itself; passing them would
// point pgbench at some other server.
var connFlags = []string{"-h", "-p", "-U", "--host", "--port", "--username"}

// Pgbench runs pgbench against database bench of this cluster, adding the
// connection options (-h <socket dir> -p <port> -U postgres) and the database
// name, and returns pgbench's stdout verbatim. args must not contain
// connection options or a database name. pgbench runs as the current user
// (it is only a client), so -f files just need to be readable by it.
func (c *Cluster) Pgbench(ctx context.Context, args ...string) (string, error) {
	out, _, err := c.PgbenchStderr(ctx, args...)
	return out, err
}

// PgbenchStderr is Pgbench returning pgbench's stderr too (its progress
// lines under -P).
func (c *Cluster) PgbenchStderr(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	for _, a := range args {
		for _, f := range connFlags {
			if a == f || (strings.HasPrefix(a, f) && len(f) == 2) || strings.HasPrefix(a, f+"=") {
				return "", "", fmt.Errorf("pgbench: option %q is set by pgcompare", a)
			}
		}
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return "", "", ErrClosed
	}
	full := append([]string{"-h", c.root, "-p", strconv.Itoa(c.port), "-U", superuser}, args...)
	full = append(full, BenchDB)
	wd, err := os.Getwd()
	if err != nil {
		wd = c.root
	}
	out, err := run(ctx, c.owner, runOpts{path: filepath.Join(c.bindir, "pgbench"), args: full, dir: wd, stderr: &stderr})
	if err != nil {
		return out, stderr, fmt.Errorf("pgbench: %w", err)
	}
	return out, stderr, nil
}

// txRE matches pgbench's summary line; with -t the value is "done/planned".
var txRE = regexp.MustCompile(`number of transactions actually processed: (\d+)`)

// ParseTransactions returns the "number of transactions actually processed"
// from pgbench output, or 0 if the line is absent (for example pgbench -i).
func ParseTransactions(out string) int64 {
	m := txRE.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0
	}
	return n
}
