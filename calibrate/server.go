package calibrate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Refusal is an error that stops calibration before it measures anything:
// what is missing and how to fix it (exit 1).
type Refusal struct{ Msg, Hint string }

func (r *Refusal) Error() string {
	if r.Hint == "" {
		return r.Msg
	}
	return r.Msg + " (" + r.Hint + ")"
}

// Server is the live server being measured: its connection settings, what
// it is, and the scratch database calibration works in.
type Server struct {
	cfg *pgx.ConnConfig
	// Version is server_version ("15.10 (Debian 15.10-1)") and Major its
	// major version as the scenario's server.version names it ("15").
	Version, Major string
	// Settings are the parameters the simulated scenario copies and the
	// costs file records.
	Settings map[string]string
	// SharedBuffers is shared_buffers in bytes.
	SharedBuffers int64
	// Database is the scratch database; Created says calibrate made it
	// (and drops it).
	Database string
	Created  bool
	admin    *pgx.Conn
	conn     *pgx.Conn
}

// settingNames are read from pg_settings and recorded.
var settingNames = []string{"shared_buffers", "server_version_num", "synchronous_commit", "fsync", "wal_level",
	"checkpoint_timeout", "max_wal_size", "bgwriter_delay", "bgwriter_lru_maxpages", "effective_io_concurrency",
	"data_checksums", "wal_log_hints", "block_size", "autovacuum"}

// Connect opens dsn, checks that calibration can run there (a primary,
// version 9.4 or later, 8 kB blocks, the right to create a database unless
// database is given) and creates the scratch database, or uses database
// when the caller named it and said -i-know.
func Connect(ctx context.Context, dsn, database string, iKnow bool) (*Server, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, &Refusal{Msg: "-dsn: " + err.Error(), Hint: "a libpq connection string or URL, e.g. postgres://user@localhost:5432/postgres"}
	}
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, &Refusal{Msg: "cannot connect: " + err.Error(), Hint: "check -dsn, that the server runs and that pg_hba.conf lets this user in"}
	}
	s := &Server{cfg: cfg, admin: admin, Settings: map[string]string{}}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	if err := admin.QueryRow(ctx, "SHOW server_version").Scan(&s.Version); err != nil {
		return nil, err
	}
	var inRecovery bool
	if err := admin.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&inRecovery); err != nil {
		return nil, err
	}
	if inRecovery {
		return nil, &Refusal{Msg: "the server is a replica (pg_is_in_recovery())", Hint: "calibrate on the primary: the experiments write"}
	}
	rows, err := admin.Query(ctx, "SELECT name, setting, coalesce(unit, '') FROM pg_settings WHERE name = ANY($1)", settingNames)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var n, v, unit string
		if err := rows.Scan(&n, &v, &unit); err != nil {
			return nil, err
		}
		switch unit {
		case "8kB": // shared_buffers and others in blocks
			if b, err := strconv.ParseInt(v, 10, 64); err == nil {
				v, unit = strconv.FormatInt(b*8, 10), "kB"
			}
		}
		s.Settings[n] = v + unit
		if n == "server_version_num" {
			num, _ := strconv.Atoi(v)
			if num < 90400 {
				return nil, &Refusal{Msg: "PostgreSQL " + s.Version + " is older than 9.4", Hint: "pgbufsim models 9.4 and later"}
			}
			if num >= 100000 {
				s.Major = strconv.Itoa(num / 10000)
			} else {
				s.Major = fmt.Sprintf("%d.%d", num/10000, num/100%100)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if bs := s.Settings["block_size"]; bs != "8192" {
		return nil, &Refusal{Msg: "block_size is " + bs, Hint: "pgbufsim models 8 kB pages only"}
	}
	var sb int64
	if err := admin.QueryRow(ctx, "SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'").Scan(&sb); err != nil {
		return nil, err
	}
	s.SharedBuffers = sb
	if database != "" {
		if !iKnow {
			return nil, &Refusal{Msg: "-database " + database + ": calibrate creates and drops tables there", Hint: "add -i-know to use a database calibrate did not create, or leave -database out"}
		}
		s.Database = database
	} else {
		var can bool
		if err := admin.QueryRow(ctx, "SELECT rolcreatedb OR rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&can); err != nil {
			return nil, err
		}
		if !can {
			return nil, &Refusal{Msg: "the role may not create databases", Hint: "connect as a role with CREATEDB, or give -database NAME -i-know for a database calibrate may use"}
		}
		s.Database = fmt.Sprintf("pgbufsim_calibrate_%d_%04d", time.Now().Unix(), rand.IntN(10000))
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{s.Database}.Sanitize()); err != nil {
			return nil, fmt.Errorf("creating the scratch database: %w", err)
		}
		s.Created = true
	}
	dbcfg := cfg.Copy()
	dbcfg.Database = s.Database
	if s.conn, err = pgx.ConnectConfig(ctx, dbcfg); err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", s.Database, err)
	}
	ok = true
	return s, nil
}

// NewConn opens a new connection to the scratch database: a new backend
// process.
func (s *Server) NewConn(ctx context.Context) (*pgx.Conn, error) {
	cfg := s.cfg.Copy()
	cfg.Database = s.Database
	return pgx.ConnectConfig(ctx, cfg)
}

// errNoConn is Exec's and Int64's error when a restart (-restart) ended the
// connection and the server did not come back.
var errNoConn = errors.New("no connection to the server (it did not come back after a restart)")

// Exec runs statements in the scratch database.
func (s *Server) Exec(ctx context.Context, sql ...string) error {
	if s.conn == nil {
		return errNoConn
	}
	for _, q := range sql {
		if _, err := s.conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", firstLine(q), err)
		}
	}
	return nil
}

// Int64 runs a query of one integer in the scratch database.
func (s *Server) Int64(ctx context.Context, q string) (int64, error) {
	if s.conn == nil {
		return 0, errNoConn
	}
	var v int64
	err := s.conn.QueryRow(ctx, q).Scan(&v)
	return v, err
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// ConnInfo is a keyword/value connection string for the scratch database,
// for pgbench (libpq takes it as the database name argument); the password,
// if any, goes in PGPASSWORD instead (Env).
func (s *Server) ConnInfo() string {
	kv := []string{"dbname=" + quote(s.Database), "user=" + quote(s.cfg.User), "port=" + strconv.Itoa(int(s.cfg.Port))}
	if s.cfg.Host != "" {
		kv = append(kv, "host="+quote(s.cfg.Host))
	}
	if s.cfg.TLSConfig == nil {
		kv = append(kv, "sslmode=disable")
	}
	return strings.Join(kv, " ")
}

// Env is pgbench's environment beyond the caller's: the password.
func (s *Server) Env() []string {
	if s.cfg.Password != "" {
		return []string{"PGPASSWORD=" + s.cfg.Password}
	}
	return nil
}

func quote(v string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), "'", `\'`) + "'"
}

// Close drops the scratch database if calibrate created it (terminating
// its sessions first) and closes the connections. It runs on every exit,
// Ctrl-C included, with its own deadline.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	if s.conn != nil {
		errs = append(errs, s.conn.Close(ctx))
		s.conn = nil
	}
	if s.admin == nil && s.Created {
		// A restart (-restart) ended the connection and the server came
		// back late: one more try, so that the scratch database goes.
		if admin, err := pgx.ConnectConfig(ctx, s.cfg); err == nil {
			s.admin = admin
		} else {
			errs = append(errs, fmt.Errorf("the scratch database %s is left (drop it by hand): %w", s.Database, err))
		}
	}
	if s.admin != nil {
		if s.Created {
			_, err := s.admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", s.Database)
			errs = append(errs, err)
			_, err = s.admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{s.Database}.Sanitize())
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				err = fmt.Errorf("dropping the scratch database %s: %s (drop it by hand)", s.Database, pe.Message)
			}
			errs = append(errs, err)
			s.Created = false
		}
		errs = append(errs, s.admin.Close(ctx))
		s.admin = nil
	}
	return errors.Join(errs...)
}

// Local reports whether the server is on this machine: a unix socket or a
// loopback address (only then does dropping this machine's OS cache make
// the server's reads cold).
func (s *Server) Local() bool {
	h := s.cfg.Host
	return strings.HasPrefix(h, "/") || h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// Restart restarts the server with restart (the user's -restart command,
// or the test's own), then opens calibrate's connections again: the
// restart ends them. It waits up to a minute for the server to accept
// connections, and checks that it is the same server (its version and
// shared_buffers).
func (s *Server) Restart(ctx context.Context, restart func(context.Context) error) error {
	for _, c := range []**pgx.Conn{&s.conn, &s.admin} {
		if *c != nil {
			(*c).Close(ctx)
			*c = nil
		}
	}
	restartErr := restart(ctx)
	// Connect again even when the command failed: the server may not
	// have stopped, and the scratch database is to be dropped either way.
	deadline := time.Now().Add(time.Minute)
	var err error
	for {
		if s.admin, err = pgx.ConnectConfig(ctx, s.cfg); err == nil {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return errors.Join(restartErr, fmt.Errorf("the server did not accept connections within a minute of its restart: %w", err))
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	dbcfg := s.cfg.Copy()
	dbcfg.Database = s.Database
	if s.conn, err = pgx.ConnectConfig(ctx, dbcfg); err != nil {
		return errors.Join(restartErr, err)
	}
	if restartErr != nil {
		return fmt.Errorf("restarting the server: %w", restartErr)
	}
	var version string
	var sb int64
	if err := s.admin.QueryRow(ctx, "SELECT current_setting('server_version'), setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'").Scan(&version, &sb); err != nil {
		return err
	}
	if version != s.Version || sb != s.SharedBuffers {
		return fmt.Errorf("after the restart the server is %s with shared_buffers %d MB, not %s with %d MB: the restart command restarted another server or changed its settings", version, sb>>20, s.Version, s.SharedBuffers>>20)
	}
	return nil
}

// ShellRestart is a restart function that runs command with sh -c (the
// user's -restart: pg_ctl restart, systemctl restart, ...), its output
// kept for the error; it must return once the server is restarting or
// restarted.
func ShellRestart(command string) func(context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "sh", "-c", command).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v: %s", command, err, strings.TrimSpace(string(out)))
		}
		return nil
	}
}
