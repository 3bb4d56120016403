package model

// Row locks: an UPDATE or DELETE of a row whose current version another
// running transaction has updated or deleted waits for that transaction to
// end (heap_update / heap_delete -> XactLockTableWait), then proceeds on the
// row's newest version (EvalPlanQual). Waiters are served in arrival order;
// with the cores' fair scheduler (costs.cpu_slice) they race instead, as
// PostgreSQL's do (releaseRowLocks).
// A wait that would close a cycle is a deadlock: PostgreSQL's detector
// aborts one of the transactions (after deadlock_timeout); the model aborts
// the transaction that would wait, at once.

type rowKey struct {
	t   *table
	row int64
}

type rowLock struct {
	holder  *backend
	waiters []*backend
}

// rowUndo restores a row's current-version bookkeeping if its updater
// aborts.
type rowUndo struct {
	t              *table
	row            int64
	oldBlk, newBlk int32 // newBlk -1: a delete, no new version
}

// lockRow takes the row lock for b. It returns false when b must wait
// (blocked; the op resumes from its current sub-step) or when b was aborted
// as a deadlock victim (b.failed is set).
func (b *backend) lockRow(t *table, row int64) bool {
	e := b.e
	if b.rowRetry && !b.recheckDone {
		// Woken by the holder's end (engine.rowRace), it runs before it
		// can lock the row's newest version: XactLockTableWait returns,
		// heap_update rechecks the row and returns TM_Updated, and
		// ExecUpdate / ExecDelete go for the newest version
		// (table_tuple_lock -> heap_lock_tuple): costs.row_lock_recheck.
		// With nothing to run it locks as it wakes.
		b.recheckDone = true
		b.cpu += e.costs.RowLockRecheck
		b.block(wCPU)
		return false
	}
	b.rowRetry, b.recheckDone = false, false
	k := rowKey{t, row}
	l := e.rowLocks[k]
	if l == nil {
		if n := len(e.freeLocks); n > 0 {
			l = e.freeLocks[n-1]
			e.freeLocks = e.freeLocks[:n-1]
		} else {
			l = &rowLock{}
		}
		e.rowLocks[k] = l
	}
	if l.holder == nil || l.holder == b {
		if l.holder == nil {
			l.holder = b
			b.rowLocks = append(b.rowLocks, k)
		}
		return true
	}
	for h := l.holder; h != nil; {
		if h == b {
			e.deadlocks++
			b.failTxn()
			return false
		}
		if h.waitingOn == nil {
			break
		}
		h = h.waitingOn.holder
	}
	// A woken waiter that finds the newest version locked by
	// another transaction waits for that one, queued behind the others
	// (on that version's tuple lock), and rechecks again when woken.
	l.waiters = append(l.waiters, b)
	b.waitingOn = l
	b.rowWaited = true
	e.rowLockWaits++
	b.block(wRowLock)
	return false
}

// releaseRowLocks ends b's row locks: each goes to its first waiter, or,
// with the cores' fair scheduler (engine.rowRace), every waiter wakes to
// race for the row.
func (b *backend) releaseRowLocks() {
	e := b.e
	for _, k := range b.rowLocks {
		l := e.rowLocks[k]
		if l == nil || l.holder != b {
			continue
		}
		l.holder = nil
		switch {
		case len(l.waiters) == 0:
		case e.rowRace:
			// Every waiter wakes: the first from XactLockTableWait, and
			// each from the tuple lock as the one before it gets
			// TM_Updated and releases it (heap_update's
			// UnlockTupleTuplock). Each rechecks on its core, then goes
			// for the newest version: the first there locks it, the
			// others wait for that one; a transaction that reaches the
			// row meanwhile takes it without a wait (README.tuplock: no
			// tuple lock without a conflict). Measured on PostgreSQL 15
			// (docs/model.md "Row locks"): 2.6 lock waits a transaction
			// for four clients updating one row, where arrival order
			// gives one.
			for _, w := range l.waiters {
				w.rowRetry = true
				e.wakeRowWaiter(w)
			}
			l.waiters = l.waiters[:0]
		default:
			w := l.waiters[0]
			l.waiters = l.waiters[1:]
			l.holder = w
			w.rowLocks = append(w.rowLocks, k)
			e.wakeRowWaiter(w)
		}
		if l.holder == nil && len(l.waiters) == 0 {
			delete(e.rowLocks, k)
			l.waiters = l.waiters[:0]
			e.freeLocks = append(e.freeLocks, l)
		}
	}
	b.rowLocks = b.rowLocks[:0]
}

// wakeRowWaiter ends w's wait for a row lock: w slept in ProcSleep
// (proc.c) until the holder's release set its latch (ProcWakeup), so its
// next burst may find its core halted (costs.cpu_wakeup); a waiter still
// in its CPU burst goes on when the burst ends.
func (e *engine) wakeRowWaiter(w *backend) {
	w.waitingOn = nil
	if w.inCPU {
		w.lockReady = true
		return
	}
	w.woke = true
	e.k.Schedule(e.k.Now(), w, evResume)
}

// failTxn aborts b's transaction after an error (a deadlock): the rest of
// the script is skipped and the execution counts as failed.
func (b *backend) failTxn() {
	b.endXact(false, 0)
	b.releaseSnapshot()
	b.rowRetry, b.recheckDone = false, false
	b.failed = true
	b.pc = len(b.ops)
	b.sub, b.csub, b.ps = 0, 0, psNone
	b.releaseAll() // the resource owner's pins
	b.vmSlot, b.vmHeld = -1, -1
}

// holdsRow reports whether b holds the row's lock.
func (b *backend) holdsRow(t *table, row int64) bool {
	k := rowKey{t, row}
	if len(b.rowLocks) <= 8 {
		// b.rowLocks lists exactly the locks b holds (lockRow and
		// releaseRowLocks keep it so): a transaction's few are searched
		// without hashing the key.
		for _, h := range b.rowLocks {
			if h == k {
				return true
			}
		}
		return false
	}
	l := b.e.rowLocks[k]
	return l != nil && l.holder == b
}
