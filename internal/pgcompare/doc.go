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
// exits. Counters of other sessions (for example pgbench clients) appear only
// after they flushed, typically right after they disconnect; an
// idle-but-connected session may hold its counters for up to
// PGSTAT_IDLE_INTERVAL (10 s). Monitor.Settle waits until the counters stop
// changing; Run closes a measured step's own session and waits for its
// backend to exit, which publishes its counters.
//
// Measuring without disturbing: the statistics views are joins over
// pg_class, pg_index, pg_namespace and pg_database, so every read of them
// scans those catalogs and keeps their pages at high usage counts. Run reads
// everything through a Monitor, a session of its own that resolves the
// relations once (outside measured steps) and then calls only the functions
// the views are built on: a primed Monitor's snapshot touches no buffer and
// publishes not even its own transactions.
package pgcompare
