package model

// Row locks: an UPDATE or DELETE of a row whose current version another
// running transaction has updated or deleted waits for that transaction to
// end (heap_update / heap_delete -> XactLockTableWait), then proceeds on the
// row's newest version (EvalPlanQual). Waiters are served in arrival order.
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
	l.waiters = append(l.waiters, b)
	b.waitingOn = l
	b.rowWaited = true
	e.rowLockWaits++
	b.block(wRowLock)
	return false
}

// releaseRowLocks hands each lock b holds to its first waiter.
func (b *backend) releaseRowLocks() {
	e := b.e
	for _, k := range b.rowLocks {
		l := e.rowLocks[k]
		if l == nil || l.holder != b {
			continue
		}
		l.holder = nil
		if len(l.waiters) > 0 {
			w := l.waiters[0]
			l.waiters = l.waiters[1:]
			l.holder = w
			w.rowLocks = append(w.rowLocks, k)
			w.waitingOn = nil
			if w.inCPU {
				w.lockReady = true
			} else {
				// w slept in ProcSleep (proc.c) until this release's
				// ProcWakeup set its latch: its next burst may find its
				// core halted (costs.cpu_wakeup).
				w.woke = true
				e.k.Schedule(e.k.Now(), w, evResume)
			}
		}
		if l.holder == nil && len(l.waiters) == 0 {
			delete(e.rowLocks, k)
			l.waiters = l.waiters[:0]
			e.freeLocks = append(e.freeLocks, l)
		}
	}
	b.rowLocks = b.rowLocks[:0]
}

// failTxn aborts b's transaction after an error (a deadlock): the rest of
// the script is skipped and the execution counts as failed.
func (b *backend) failTxn() {
	b.endXact(false, 0)
	b.releaseSnapshot()
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
