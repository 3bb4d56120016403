package model

// A backend process's first runs. PostgreSQL forks each backend from the
// postmaster: the new process has the server's code and its shared memory
// mapped, but none of it in its own page tables, and its memory contexts
// have no blocks yet. Its first execution of a statement runs the
// executor's code for the first time in the process, and its first
// execution of each kind of plan the code of that plan's nodes: page
// faults and cold caches that the next execution does not meet
// (costs.executor_first_run, costs.plan_first_run). Its first touch of
// each 64 kB of the buffer pool is a minor fault (bufmgr.go mapFault).

// accessPath is how a statement reaches its table's rows, as the planner
// chose it.
type accessPath uint8

const (
	pathNone      accessPath = iota // no table scan of its own (INSERT, pg_prewarm)
	pathSeq                         // SeqScan
	pathIndex                       // IndexScan
	pathIndexOnly                   // IndexOnlyScan
	pathBitmap                      // BitmapIndexScan + BitmapHeapScan
	numPaths
)

// A plan kind is an op kind and an access path, a bit of backend.plansRun.
const numPlanKinds = int(opDeleteList+1) * int(numPaths)

var _ [128 - numPlanKinds]struct{} // plansRun holds 128 bits

// planned reports whether o is a statement the executor runs (planned:
// SELECT, INSERT, UPDATE, DELETE, a SELECT without FROM, pg_prewarm's
// SELECT), as against utility commands (BEGIN, VACUUM, CHECKPOINT,
// TRUNCATE, ANALYZE), which ProcessUtility runs without the executor.
func planned(o *op) bool {
	switch o.kind {
	case opFetch, opUpdate, opInsert, opSeqscan, opDeleteKey, opDeleteAll, opUpdateAll, opRange, opList, opPrewarm, opUpdateRange, opDeleteRange, opUpdateList, opDeleteList:
		return true
	case opNone:
		return o.key == plannedNoTable
	}
	return false
}

// scansTable reports whether a statement's plan scans its table
// (costs.statement_scan): a SELECT, UPDATE or DELETE reads it by a scan
// node the planner chose among paths; an INSERT's rows come from VALUES
// or a function, and pg_prewarm reads blocks without a plan of them.
func scansTable(o *op) bool {
	switch o.kind {
	case opFetch, opUpdate, opSeqscan, opDeleteKey, opDeleteAll, opUpdateAll, opRange, opList, opUpdateRange, opDeleteRange, opUpdateList, opDeleteList:
		return true
	}
	return false
}

// planFirstRun charges costs.plan_first_run for each node of the plan the
// first time this backend runs a plan of kind (the op's kind by path).
func (b *backend) planFirstRun(kind opKind, path accessPath) {
	c := b.e.costs.PlanFirstRun
	if c <= 0 || b.worker {
		return
	}
	i := int(kind)*int(numPaths) + int(path)
	w, bit := i>>6, uint64(1)<<(i&63)
	if b.plansRun[w]&bit == 0 {
		b.plansRun[w] |= bit
		b.cpu += c * planNodes(kind, path)
	}
}

// planNodes is how many executor nodes a plan of kind by path runs, as
// EXPLAIN shows them: a lookup its scan (Index Scan, Index Only Scan, or a
// Seq Scan with the key as a filter); an UPDATE, DELETE or INSERT a
// ModifyTable over its scan or its rows' source; a count(*) an Aggregate
// over a Seq Scan; a range its scan with the aggregate or projection above
// it, a bitmap scan's two nodes (Bitmap Heap Scan, Bitmap Index Scan);
// pg_prewarm's SELECT a Result.
func planNodes(kind opKind, path accessPath) int64 {
	switch kind {
	case opFetch, opPrewarm:
		return 1
	case opRange, opList, opUpdateRange, opDeleteRange, opUpdateList, opDeleteList:
		// A range UPDATE or DELETE: ModifyTable over the scan (two
		// nodes), or over a bitmap heap scan's two.
		if path == pathBitmap {
			return 3
		}
		return 2
	}
	return 2
}
