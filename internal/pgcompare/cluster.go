package pgcompare

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// BenchDB is the database that Start creates and that Conn and Pgbench use.
const BenchDB = "bench"

// superuser is the bootstrap role name; fixed with initdb -U so that the
// connection string does not depend on which OS user ran initdb.
const superuser = "postgres"

// extensions are created in BenchDB by Start.
var extensions = []string{"pg_buffercache", "pg_visibility", "pg_stat_statements"}

// ErrClosed is returned by methods of a Cluster after Close.
var ErrClosed = errors.New("pgcompare: cluster is closed")

// Cluster is a private PostgreSQL server in a temporary directory. Create it
// with Start and always defer Close. Its methods are safe for concurrent use.
type Cluster struct {
	bindir  string
	version string
	major   int
	owner   owner

	root    string // temp dir: socket and log live here, data in root/data
	dataDir string
	logFile string
	port    int

	mu       sync.Mutex
	settings Settings // caller's settings as currently written
	baseConf string   // postgresql.conf as initdb wrote it
	closed   bool
}

// Start creates a fresh cluster in a new temp dir (initdb --no-sync -E UTF8
// --locale=C), writes postgresql.conf from s plus the harness settings
// (listen_addresses=127.0.0.1, a free port, unix_socket_directories=<temp
// dir>, shared_preload_libraries=pg_stat_statements, track_io_timing=on),
// starts the server with pg_ctl -w logging to <temp dir>/server.log, and
// creates database "bench" with the extensions pg_buffercache, pg_visibility
// and pg_stat_statements. On error everything is cleaned up again. On
// success the caller must defer Close.
func Start(ctx context.Context, s Settings) (_ *Cluster, err error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	bindir, version, err := Find()
	if err != nil {
		return nil, err
	}
	major, err := majorVersion(version)
	if err != nil {
		return nil, err
	}
	o, err := lookupOwner()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "pgcompare-")
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	c := &Cluster{
		bindir: bindir, version: version, major: major, owner: o,
		root: root, dataDir: filepath.Join(root, "data"), logFile: filepath.Join(root, "server.log"),
		settings: s.merge(nil),
	}
	defer func() {
		if err != nil {
			// Close never fails in a way that matters more than err.
			_ = c.Close()
		}
	}()
	if err := o.chown(root); err != nil {
		return nil, err
	}
	if err := c.initdb(ctx); err != nil {
		return nil, err
	}
	if err := c.startServer(ctx); err != nil {
		return nil, err
	}
	if err := c.createBench(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// initdb creates the data directory and remembers initdb's postgresql.conf.
func (c *Cluster) initdb(ctx context.Context) error {
	_, err := run(ctx, c.owner, runOpts{
		path: filepath.Join(c.bindir, "initdb"),
		args: []string{"-D", c.dataDir, "--no-sync", "-E", "UTF8", "--locale=C",
			"-U", superuser, "--auth=trust"},
		dir:   c.root,
		asSrv: true,
	})
	if err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	base, err := os.ReadFile(filepath.Join(c.dataDir, "postgresql.conf"))
	if err != nil {
		return fmt.Errorf("read initdb's postgresql.conf: %w", err)
	}
	c.baseConf = string(base)
	return nil
}

// createBench creates the bench database and its extensions.
func (c *Cluster) createBench(ctx context.Context) error {
	admin, err := pgx.Connect(ctx, c.connString("postgres"))
	if err != nil {
		return fmt.Errorf("connect to maintenance db: %w; log: %s", err, c.LogTail(10))
	}
	_, err = admin.Exec(ctx, "CREATE DATABASE "+BenchDB)
	// A failed Close of a connection we are done with changes nothing.
	_ = admin.Close(ctx)
	if err != nil {
		return fmt.Errorf("create database %s: %w", BenchDB, err)
	}
	conn, err := c.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(ctx) }()
	for _, ext := range extensions {
		if _, err := conn.Exec(ctx, "CREATE EXTENSION "+ext); err != nil {
			return fmt.Errorf("create extension %s: %w", ext, err)
		}
	}
	// CREATE EXTENSION leaves dead row versions in pg_attribute and
	// pg_proc; the experiments' first catalog lookups after a restart
	// would prune them (heap_page_prune_opt, with a full-page image), WAL
	// that is the harness's, not the experiment's (the model's catalogs
	// hold no dead rows). VACUUM of those two removes them now; a
	// database-wide VACUUM would also give every catalog a visibility map
	// and free space map, whose files' readahead after an OS cache drop
	// added 600 device reads to seqscan-ring's cold scan.
	if _, err := conn.Exec(ctx, "VACUUM pg_attribute, pg_proc"); err != nil {
		return fmt.Errorf("vacuum the catalogs after creating the extensions: %w", err)
	}
	return nil
}

// Version returns the server version, for example "15.18".
func (c *Cluster) Version() string { return c.version }

// Major returns the server major version, for example 15.
func (c *Cluster) Major() int { return c.major }

// Dir returns the cluster's temp dir (data in Dir()/data, log in
// Dir()/server.log). It is removed by Close.
func (c *Cluster) Dir() string { return c.root }

// ConnString returns a keyword/value connection string for database bench
// over the cluster's unix socket.
func (c *Cluster) ConnString() string { return c.connString(BenchDB) }

func (c *Cluster) connString(db string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable application_name=pgcompare",
		quoteConnValue(c.root), c.port, superuser, db)
}

// quoteConnValue quotes a value for a keyword/value connection string.
func quoteConnValue(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	return "'" + strings.ReplaceAll(v, "'", `\'`) + "'"
}

// Conn opens a new session to database bench. The caller closes it.
func (c *Cluster) Conn(ctx context.Context) (*pgx.Conn, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	conn, err := pgx.Connect(ctx, c.ConnString())
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", BenchDB, err)
	}
	return conn, nil
}

// Close stops the server (fast shutdown, falling back to immediate shutdown
// and finally SIGKILL of this cluster's own postmaster) and removes the temp
// dir. It is idempotent: later calls return nil. Callers must defer it right
// after Start so that it also runs on errors and panics.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	// The caller's context may already be cancelled; cleanup must still run.
	ctx, cancel := context.WithTimeout(context.Background(), 3*stopTimeout)
	defer cancel()
	var errs []error
	if err := c.stopServer(ctx); err != nil && !errors.Is(err, errNotRunning) {
		errs = append(errs, err)
	}
	if err := os.RemoveAll(c.root); err != nil {
		errs = append(errs, fmt.Errorf("remove %s: %w", c.root, err))
	}
	return errors.Join(errs...)
}
