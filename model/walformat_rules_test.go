package model

import "testing"

// The WAL records of pgbench's work by release, from the releases' record
// headers (walformat.go): a 32-byte header and per-record relation and
// tuple ids before 9.5, whole tuples logged by UPDATE before 9.4's
// prefix/suffix compression. d is a tuple's logged data (t_len less its
// 23-byte header) as the model sizes the table's rows. With PostgreSQL's
// own tuples (pgbench_accounts t_len 121, tellers 36, branches 32,
// history 48) the same formulas give the records pg_waldump shows: a
// tpcb-like transaction of HOT updates writes 480 bytes at 9.1, 464 at
// 9.2, 488 at 9.3, 400 at 9.4 and 336 at 15 as the records align.
func TestWALRecordSizesByRelease(t *testing.T) {
	type sizes struct {
		accountsSame, tellersSame, branchesSame, accountsOther, history, index, prune, commit int64
	}
	for _, c := range []struct {
		version string
		want    func(acc, tel, br, hist int64) sizes
	}{
		{"9.1", func(a, te, br, h int64) sizes { return sizes{65 + a, 65 + te, 65 + br, 65 + a, 58 + h, 66, 60, 64} }},
		{"9.2", func(a, te, br, h int64) sizes { return sizes{65 + a, 65 + te, 65 + br, 65 + a, 58 + h, 66, 60, 44} }},
		{"9.3", func(a, te, br, h int64) sizes { return sizes{74 + a, 74 + te, 74 + br, 74 + a, 58 + h, 66, 60, 44} }},
		{"9.4", func(a, te, br, h int64) sizes { return sizes{82, 82, 82, 75 + a, 58 + h, 66, 60, 44} }},
		{"15", func(a, te, br, h int64) sizes { return sizes{72, 72, 72, 73 + a, 54 + h, 64, 58, 34} }},
	} {
		sc := rtIdleScenario(1024, 10)
		sc.Server.Version = c.version
		sc.Tables.PGBench.Scale = 1
		e, err := build(sc)
		if err != nil {
			t.Fatal(err)
		}
		db := e.db
		got := sizes{e.walUpdateSamePage(db.accounts), e.walUpdateSamePage(db.tellers), e.walUpdateSamePage(db.branches),
			e.walUpdateOtherPage(db.accounts), e.walInsertRecord(db.history), e.walIndexInsertRecord(), e.walPruneRecord(1, 1), e.walCommitRecord()}
		if want := c.want(db.accounts.tupleWAL(), db.tellers.tupleWAL(), db.branches.tupleWAL(), db.history.tupleWAL()); got != want {
			t.Errorf("%s: %+v, want %+v", c.version, got, want)
		}
		// With PostgreSQL's tuples (logged data 98, 13, 9, 25).
		pg := c.want(98, 13, 9, 25)
		align := func(n int64) int64 { return (n + 7) &^ 7 }
		txn := align(pg.accountsSame) + align(pg.tellersSame) + align(pg.branchesSame) + align(pg.history) + align(pg.commit)
		if want := map[string]int64{"9.1": 480, "9.2": 464, "9.3": 488, "9.4": 400, "15": 336}[c.version]; txn != want {
			t.Errorf("%s: a tpcb-like transaction of HOT updates with PostgreSQL's tuples: %d bytes aligned, want %d", c.version, txn, want)
		}
	}
}

// DELETE, the lock before an update to another page, and the visibility
// map's record by release (heapam_xlog.h, heapam.h of each): 9.1-9.2
// xl_heap_delete is the tuple id and a flag (19 bytes), xl_heap_lock the
// tuple id, xid and two flags (24); 9.3-9.4 xl_heap_delete 24 (xmax and
// infobits added), xl_heap_lock 23; xl_heap_visible 20 from 9.2 (9.1 logs
// no record for it); each after the 32-byte XLogRecord. 9.5+ as
// pg_waldump shows them: 54, 54 and 59.
func TestWALDeleteLockVisibleByRelease(t *testing.T) {
	for _, c := range []struct {
		version                  string
		deleteRec, lock, visible int64
	}{
		{"9.1", 51, 56, 0},
		{"9.2", 51, 56, 52},
		{"9.3", 56, 55, 52},
		{"9.4", 56, 55, 52},
		{"15", 54, 54, 59},
	} {
		sc := rtIdleScenario(1024, 10)
		sc.Server.Version = c.version
		e, err := build(sc)
		if err != nil {
			t.Fatal(err)
		}
		if d, l, v := e.walDeleteRecord(), e.walLockRecord(), e.walVisibleRecord(); d != c.deleteRec || l != c.lock || v != c.visible {
			t.Errorf("%s: delete %d, lock %d, visible %d; want %d, %d, %d", c.version, d, l, v, c.deleteRec, c.lock, c.visible)
		}
	}
}
