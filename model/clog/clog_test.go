package clog

import "testing"

// clog buffers by version (docs/model.md, rule 8).
func TestBuffersByVersion(t *testing.T) {
	const nb128MB = 16384
	cases := []struct {
		ver      int
		nbuffers int64
		tb       int64
		want     int
	}{
		{901, nb128MB, 0, 8},      // <= 9.1: NUM_CLOG_BUFFERS 8
		{902, nb128MB, 0, 32},     // 9.2-9.5: min(32, max(4, NBuffers/512))
		{905, 1024, 0, 4},         // floor of 4 at 8MB
		{906, nb128MB, 0, 32},     // 9.6-16: cap 128
		{1600, 65536, 0, 128},     // 512MB reaches the 128 cap
		{1600, 1 << 20, 0, 128},   // 8GB still 128
		{1700, nb128MB, 0, 32},    // 17+: NBuffers/512 rounded to 16
		{1700, 4096, 0, 16},       // floor 16
		{1700, 1 << 20, 0, 1024},  // 8GB: 2048 -> cap 1024
		{1700, nb128MB, 100, 100}, // explicit transaction_buffers
		{1700, nb128MB, 1 << 20, 131072},
	}
	for _, c := range cases {
		if got := Buffers(c.ver, c.nbuffers, c.tb); got != c.want {
			t.Errorf("Buffers(%d, %d, %d) = %d, want %d", c.ver, c.nbuffers, c.tb, got, c.want)
		}
	}
}

func TestStatusAndLSN(t *testing.T) {
	l := New(8, false)
	l.Set(5, Committed, 100)
	l.Set(6, Aborted, 0)
	l.Set(37, Committed, 50)
	if l.Get(5) != Committed || l.Get(6) != Aborted || l.Get(7) != InProgress {
		t.Fatal("statuses wrong")
	}
	// one LSN per group of 32 xids: the group's highest commit LSN
	if l.CommitLSN(5) != 100 || l.CommitLSN(31) != 100 || l.CommitLSN(37) != 50 {
		t.Errorf("LSN groups: %d %d %d", l.CommitLSN(5), l.CommitLSN(31), l.CommitLSN(37))
	}
	if Page(32767) != 0 || Page(32768) != 1 {
		t.Error("32768 xids per page")
	}
}

// SlruSelectLRUPage: empty slots first, then the least recently used page,
// never the latest page; a dirty victim is written by the caller.
func TestLRUNeverLatest(t *testing.T) {
	l := New(4, false)
	if v := l.Extend(0); v != -1 {
		t.Fatalf("victim %d on an empty log", v)
	}
	for p := int32(1); p <= 3; p++ {
		if hit, v := l.Access(p); hit || v != -1 {
			t.Fatalf("page %d: hit=%v victim=%d", p, hit, v)
		}
	}
	// Page 0 is the least recently used, but it is the latest page.
	hit, v := l.Access(4)
	if hit || v != -1 || l.Resident(1) || !l.Resident(0) {
		t.Fatalf("evicted wrong page: victim %d, resident(1)=%v resident(0)=%v", v, l.Resident(1), l.Resident(0))
	}
	// Once page 5 is the latest, page 0 (zeroed, hence dirty, and least
	// recently used) is the victim, reported for writing.
	if v := l.Extend(5); v != 0 {
		t.Fatalf("expected dirty page 0 as the victim to write, got %d", v)
	}
	l.Access(3)
	l.Access(4)
	if hit, v = l.Access(9); hit || v != -1 || l.Resident(2) {
		t.Fatalf("clean LRU page 2 should go without a write: hit=%v victim=%d", hit, v)
	}
	if hit, _ := l.Access(4); !hit {
		t.Error("recently used page was evicted")
	}
}

// PostgreSQL 17+: a page lives only in bank page % nbanks.
func TestBanks(t *testing.T) {
	l := New(32, true)                  // two banks of 16
	for p := int32(0); p < 40; p += 2 { // all even pages: bank 0
		l.Access(p)
	}
	n := 0
	for p := int32(0); p < 40; p += 2 {
		if l.Resident(p) {
			n++
		}
	}
	if n != 16 {
		t.Errorf("%d even pages resident, want 16 (one bank)", n)
	}
}

// A page whose transactions have all ended and whose commits are flushed
// is compacted: statuses read the same, commit LSNs read 0, and only the
// aborted xids are kept.
func TestCompact(t *testing.T) {
	l := New(8, false)
	l.Extend(0)
	base := uint32(XactsPerPage)
	l.Extend(1)
	for x := base; x < 2*base; x++ {
		if x%1000 == 7 {
			l.Set(x, Aborted, 0)
		} else {
			l.Set(x, Committed, int64(x))
		}
	}
	if l.Compact(1, int64(2*base-2)) {
		t.Fatal("compacted a page whose last commit record is not flushed")
	}
	if !l.Compact(1, int64(2*base)) {
		t.Fatal("did not compact a finished page")
	}
	for x := base; x < 2*base; x++ {
		want := Committed
		if x%1000 == 7 {
			want = Aborted
		}
		if got := l.Get(x); got != want {
			t.Fatalf("xid %d: %v after compaction, want %v", x, got, want)
		}
		if l.CommitLSN(x) != 0 {
			t.Fatalf("xid %d: commit LSN %d after compaction", x, l.CommitLSN(x))
		}
	}
	if n := len(l.pages[1].aborted); n != XactsPerPage/1000+1 {
		t.Errorf("%d aborted xids kept", n)
	}
	// A page with a transaction still running stays in full.
	l.Extend(2)
	l.Set(2*base+5, Committed, 1)
	if l.Compact(2, 1<<40) {
		t.Error("compacted a page with in-progress xids")
	}
}
