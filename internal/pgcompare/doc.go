// Package pgcompare drives a private, throw-away PostgreSQL server and reads
// its buffer and statistics counters, so that a buffer-manager simulator can
// be compared against the real thing (a differential test).
//
// Every Cluster lives in its own temporary directory (data directory, unix
// socket, server log), listens only on 127.0.0.1 and that socket, on a port
// picked free at start, and is removed by Close. No other cluster on the
// machine is ever touched. Callers must defer Close right after Start
// succeeds; Close is idempotent and also cleans up after a failed step, and a
// deferred Close runs when the caller panics too.
//
// When the process runs as root, initdb and the server run as the OS user
// "postgres" (PostgreSQL refuses to run as root); otherwise they run as the
// current user.
//
// Statistics caveats (PostgreSQL 15+): a backend publishes its counters to
// shared memory lazily, at most once a second when it goes idle, and when it
// exits. TakeSnapshot forces the flush of its own session first, so SQL run
// in the same session is visible at once. Counters of other sessions (for
// example pgbench clients) appear only after they flushed, typically right
// after they disconnect; an idle-but-connected session may hold its counters
// for up to PGSTAT_IDLE_INTERVAL (10 s). SettleAndSnapshot waits until the
// counters stop changing.
//
// The snapshot queries read only catalogs and statistics views, so
// per-relation deltas of user tables are exact, but pg_stat_database counts
// the snapshot's own catalog buffer hits and transactions. Run measures that
// cost right before each measured step and subtracts it; see
// Result.SnapshotOverhead.
package pgcompare
