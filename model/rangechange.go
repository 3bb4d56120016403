package model

// A range UPDATE or DELETE (UPDATE t SET ... WHERE key BETWEEN a AND b,
// DELETE FROM t WHERE key >= a ...): PostgreSQL's ModifyTable runs the
// plan a SELECT of the range would get (the planner prices the scan the
// same way) and changes each row the scan returns, as ExecUpdate or
// ExecDelete changes the one row of a statement by key (nodeModifyTable.c):
// the row's lock, the recheck of its newest version under READ COMMITTED,
// heap_update or heap_delete with their buffers, released before the scan
// goes on. Measured on PostgreSQL 15 (EXPLAIN (ANALYZE, BUFFERS), a
// vacuumed table of 100000 rows, 58 to a page): a range of n rows on one
// heap page costs the scan's 3 buffers (root, leaf, heap page) and the
// statement by key's changes n times, each without the visibility map's
// page once the first has cleared the page's all-visible bit: DELETE of
// 1, 2, 3 and 11 rows 5, 6, 7 and 15 buffers; UPDATE 14, 20, 26; the
// statement by key 5 and 14.

// The steps of a range UPDATE's or DELETE's row (keyedState.rowStep).
const (
	rowStepLock  uint8 = iota // take the row's lock, as the statement by key does before its fetch
	rowStepFetch              // fetch the key's index entries until the visible version
	rowStepRest               // fetch the entries left after it
)

// changeKey is a range's or IN list's UPDATE or DELETE work on the row of
// the scan's current key: the row's lock, the fetch of its entries until the version
// the snapshot sees, which it changes as the statement by key would
// (checkUpdated, modifyRow), then the entries left. false: b blocked, or
// the transaction was aborted (a deadlock); call again.
func (b *backend) changeKey(o *op, t *table, row int64) bool {
	k := &b.k
	if b.rowOp == nil {
		b.rowOp = new(op)
	}
	m := b.rowOp
	if k.rowStep == rowStepLock {
		*m = op{kind: o.kind.rowChange(), stmt: true, t: t, key: row, cmdNo: o.cmdNo}
		k.found, k.foundBlk, k.epq, k.epqMove, k.vmBlk, k.newBlk = false, -1, 0, false, -1, -1
		if t.hasRow(row) && !b.holdsRow(t, row) && !b.lockRow(t, row) {
			return false // waiting for the row's updater, or aborted as a deadlock victim
		}
		if b.rowWaited {
			// EvalPlanQual (afterRowLockWait), and the key's entries as
			// the statement by key reads them after its wait.
			b.afterRowLockWait(m.kind)
			k.entries, k.ei = t.indexEntries(row, k.entries[:0]), 0
		}
		k.rowStep = rowStepFetch
	}
	if k.rowStep == rowStepFetch {
		for k.ei < len(k.entries) && !k.found {
			if !b.fetchRangeEntry(t, row) {
				return false
			}
		}
		k.rowStep = rowStepRest
		if k.found && b.checkUpdated(t, m) {
			k.changing, k.scanSub, k.pinMark = true, int8(b.sub), int32(len(b.held))
			b.sub = 5
			if !b.changeRow(t) {
				return false
			}
		}
	}
	for k.ei < len(k.entries) {
		if !b.fetchRangeEntry(t, row) {
			return false
		}
	}
	k.rowStep = rowStepLock
	return true
}

// changeRow runs the change of the scan's current row (modifyRow, from
// b.sub 5), then releases the buffers it pinned (heap_update's and
// heap_delete's, the visibility map's, the new version's page and index
// leaf: each released before ExecModifyTable asks the scan for its next
// row) and puts the scan back at its step. false: b blocked (call again).
func (b *backend) changeRow(t *table) bool {
	k, m := &b.k, b.rowOp
	if b.sub == 5 && k.epqMove && !b.epqFetchNewest(t, m.key) {
		return false
	}
	if !b.modifyRow(m, t, k.foundBlk, k.foundSlot) {
		return false
	}
	for len(b.held) > int(k.pinMark) {
		b.releaseBuffer(b.held[len(b.held)-1])
	}
	// The index insertion's descent (btInsert) leaves its count of pages
	// read: the scan's next descent (an IN list's next key) starts anew.
	b.touched = 0
	k.changing = false
	b.sub = int(k.scanSub)
	return true
}
