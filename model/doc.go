// Package model is pgbufsim's model of a PostgreSQL server: client backends
// running pgbench's scripts or custom steps, the shared buffer pool and its
// replacement policy, transactions and tuple visibility, VACUUM and
// autovacuum, the background writer, the checkpointer, the WAL writer, and
// below them the Linux page cache and the disks. docs/model.md describes it
// part by part; each file's comments name the PostgreSQL source it follows:
//
//   - backend.go: ReadBuffer/BufferAlloc/GetVictimBuffer (bufmgr.c,
//     freelist.c), the strategy lock of <= 9.4, pgbench's schedule
//     (pgbench.c advanceConnectionState);
//   - ops.go: index scans, heap_update/heap_delete/heap_insert (heapam.c),
//     sequential scans (heapgetpage), heap_page_prune_opt;
//   - xact.go: xids, snapshots (procarray.c), HeapTupleSatisfiesMVCC
//     (heapam_visibility.c, tqual.c), transam.c, SetHintBits,
//     MarkBufferDirtyHint;
//   - rowlock.go: heap_update's wait for a row's updater
//     (XactLockTableWait) and deadlocks;
//   - vacuum.go: vacuumlazy.c, autovacuum.c;
//   - bgwriter.go: BgBufferSync (bufmgr.c), bgwriter.c;
//   - checkpointer.go: checkpointer.c, BufferSync (bufmgr.c);
//   - pgbench.go, script.go, tables.go, workload.go: pgbench's schema,
//     scripts and clients; declared tables and custom steps;
//   - metrics.go, result.go, series.go: what a run reports (docs/metrics.md).
//
// The entry points are Run and RunWith; a Scenario usually comes from
// configs.Load. Everything here is deterministic: simulated time only, no
// goroutines, random streams derived from the scenario's seed.
package model
