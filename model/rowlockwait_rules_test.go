package model_test

import (
	"fmt"
	"math"
	"testing"
)

// hotAndSpread is four clients on pgbench threads updating one row in
// BEGIN; UPDATE; SELECT 1; END (phase hot: every transaction waits for
// the one before), then rows of their own (phase spread: none waits), on
// a server of cpus cores.
func hotAndSpread(cpus, threads int) string {
	return fmt.Sprintf(`name: row-lock-wait
server: {autovacuum: false, cpus: %d, shared_buffers: 128MB, system_catalogs: false}
tables:
  relations:
    - {name: t, rows: 10000, row_width: 8, state: vacuumed, index: true, key: id}
workload:
  phases:
    - {name: hot, clients: 4, threads: %[2]d, transactions: 200, script: {text: "BEGIN; UPDATE t SET v = v + 1 WHERE id = 1; SELECT 1; END;"}}
    - {name: spread, clients: 4, threads: %[2]d, transactions: 200, script: {text: "BEGIN; \\set k random(2, 10000)\nUPDATE t SET v = v + 1 WHERE id = :k; SELECT 1; END;"}}
`, cpus, threads)
}

// TestRowLockWaitPricedPerWait: a backend that waited for another
// transaction's row lock pays costs.row_lock_wait once per wait when it goes
// on (heap_acquire_tuplock / XactLockTableWait's sleep and release,
// heap_lock_tuple and EvalPlanQual on the newest version, nodeModifyTable.c
// ExecUpdate on TM_Updated); clients that update different rows never wait
// and pay nothing.
func TestRowLockWaitPricedPerWait(t *testing.T) {
	doc := hotAndSpread(2, 1)
	free := bhRunYAML(t, doc)
	priced := bhRunYAML(t, doc, "costs.row_lock_wait=1ms")
	hot := bhPhase(t, priced, "hot")
	if hot.RowLockWaits < 400 {
		t.Fatalf("hot: %d row-lock waits in 800 transactions of four clients on one row, want nearly one each", hot.RowLockWaits)
	}
	d := hot.CPU.BusySeconds - bhPhase(t, free, "hot").CPU.BusySeconds
	if want := float64(hot.RowLockWaits) * 1e-3; math.Abs(d-want) > 0.01*want {
		t.Errorf("hot: busy %.4f s more with row_lock_wait 1ms, want %.4f (%d waits)", d, want, hot.RowLockWaits)
	}
	sp := bhPhase(t, priced, "spread")
	if sp.RowLockWaits != 0 {
		t.Errorf("spread: %d row-lock waits, want 0", sp.RowLockWaits)
	}
	// (The hot phase left its page in another state at the other price:
	// a microsecond of pruning and checks may differ, not a wait's 1 ms.)
	if d := sp.CPU.BusySeconds - bhPhase(t, free, "spread").CPU.BusySeconds; math.Abs(d) > 1e-4 {
		t.Errorf("spread: busy %.6f s more with row_lock_wait, want about 0 (no waits)", d)
	}
}

// TestRowLockWaiterWakesItsCore: a backend that slept on a row's lock
// (ProcSleep, until the holder's LockRelease woke it in ProcWakeup) may
// find its core halted when it goes on, and then pays costs.cpu_wakeup
// as a process woken by its client's message does. On sixteen cores
// every burst finds its core idle: the one-row phase wakes a core once
// more per wait than the same transactions on rows of their own.
func TestRowLockWaiterWakesItsCore(t *testing.T) {
	doc := hotAndSpread(16, 4)
	res := bhRunYAML(t, doc, "costs.cpu_wakeup=25us")
	hot, sp := bhPhase(t, res, "hot"), bhPhase(t, res, "spread")
	if hot.RowLockWaits < 400 || sp.RowLockWaits != 0 {
		t.Fatalf("%d and %d row-lock waits in the one-row and the spread phase, want nearly one a transaction and none", hot.RowLockWaits, sp.RowLockWaits)
	}
	extra := hot.CPU.Wakeups - sp.CPU.Wakeups
	if math.Abs(float64(extra-hot.RowLockWaits)) > 0.05*float64(hot.RowLockWaits) {
		t.Errorf("the one-row phase woke cores %d times (the spread one %d): %d more, want one more per row-lock wait (%d)", hot.CPU.Wakeups, sp.CPU.Wakeups, extra, hot.RowLockWaits)
	}
}

// TestExtensionLockWaiterWakesItsCore: the same for a relation's extension
// lock (LockRelationForExtension sleeps in ProcSleep too). Four clients
// on sixteen cores each insert 200 rows a statement into one table, so
// they queue for its extension lock; every statement wakes two idle cores
// (its backend's and its pgbench thread's), and a waiter that slept wakes
// one more when the lock is handed to it. A waiter still in its CPU burst
// when the lock comes to it never slept, so the extra wake-ups are at most
// the waits, and most of them.
func TestExtensionLockWaiterWakesItsCore(t *testing.T) {
	res := bhRunYAML(t, `name: extension-lock-wake
server: {autovacuum: false, cpus: 16, shared_buffers: 128MB, system_catalogs: false}
tables:
  relations:
    - {name: t, rows: 0, row_width: 8}
workload:
  phases:
    - {name: fill, clients: 4, threads: 4, transactions: 200, script: {text: "INSERT INTO t SELECT g, g FROM generate_series(1, 200) g;"}}
`, "costs.cpu_wakeup=25us")
	waits := res.Totals.ExtensionLockWaits
	if waits < 100 {
		t.Fatalf("%d extension-lock waits, want the four clients to queue for the lock often", waits)
	}
	extra := res.Totals.CPU.Wakeups - 2*res.Totals.Transactions
	if extra < waits/2 || extra > waits {
		t.Errorf("%d wake-ups for %d statements: %d beyond two a statement, want one per extension-lock wait that slept (%d waits)", res.Totals.CPU.Wakeups, res.Totals.Transactions, extra, waits)
	}
}
