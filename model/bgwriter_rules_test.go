package model

import (
	"slices"
	"testing"

	"github.com/pgbufsim/pgbufsim/policies"
)

// The background writer's LRU scan, BgBufferSync in bufmgr.c
// (docs/model.md), and the hibernation of
// BackgroundWriterMain (§3.1).

// rtBgEngine builds an engine over n buffers and a table big enough to
// fill them; the pool is full (rtFillPool) and nothing else runs.
func rtBgEngine(t *testing.T, n int64, mod func(*Scenario)) (*engine, []int32) {
	t.Helper()
	sc := rtIdleScenario(n, 2*n)
	if mod != nil {
		mod(&sc)
	}
	e := rtBuild(t, sc)
	gids := rtFillPool(t, e, e.db.lookup("t")[0])
	return e, gids
}

// docs/model.md (SyncOneBuffer with skip_recently_used): only buffers
// that are unpinned, at usage_count 0, valid and dirty are written; pinned
// or recently used dirty buffers are skipped and stay dirty. The bgwriter
// never moves the clock hand nor changes a usage count (README
// "Background Writer's Processing").
func TestBgwriterWritesOnlyUnpinnedUsageZeroDirtyBuffers(t *testing.T) {
	e, _ := rtBgEngine(t, 1000, func(sc *Scenario) { sc.Server.BgwriterLRUMaxpages = 100000 })
	p := e.pool
	var want []int32
	pinned := map[int32]bool{}
	for s := int32(1); s < p.N; s++ { // slot 0 holds the sweep's page at usage 1
		switch s % 5 {
		case 0, 4: // dirty, unpinned, usage 0: reusable and written
			p.MarkDirty(s, 0)
			want = append(want, s)
		case 1: // dirty but recently used
			p.MarkDirty(s, 0)
			rtBump(p, s, 1+int(s)%3)
		case 2: // dirty but pinned
			p.MarkDirty(s, 0)
			p.Frames.Pins[s]++
			pinned[s] = true
		case 3: // clean, usage 0: reusable, nothing to write
		}
	}
	hand, passes := p.Policy.(policies.ClockHand).Hand()
	before := rtUsages(p)
	// First round: the recent allocations (the fill) make the estimate
	// exceed the pool, so the scan covers every buffer once.
	e.bgw.round()
	var got []int32
	for s := int32(0); s < p.N; s++ {
		if !rtDirty(p, s) {
			continue
		}
		if s%5 == 0 || s%5 == 4 {
			t.Errorf("slot %d: unpinned usage-0 dirty buffer left dirty", s)
		}
	}
	for _, s := range want {
		if !rtDirty(p, s) {
			got = append(got, s)
		}
	}
	if len(got) != len(want) || int(e.bufWrites.clean) != len(want) {
		t.Fatalf("bgwriter wrote %d buffers (buffers_clean %d), want the %d eligible ones", len(got), e.bufWrites.clean, len(want))
	}
	for s := int32(1); s < p.N; s++ {
		if (s%5 == 1 || s%5 == 2) && !rtDirty(p, s) {
			t.Errorf("slot %d (usage %d, pins %d) was written", s, p.Usage(s), p.Frames.Pins[s])
		}
		if pinned[s] && p.Frames.Pins[s] != 1 {
			t.Errorf("slot %d pin count %d after the round, want 1", s, p.Frames.Pins[s])
		}
		if !pinned[s] && p.Frames.Pins[s] != 0 {
			t.Errorf("slot %d left pinned by the bgwriter", s)
		}
	}
	h2, p2 := p.Policy.(policies.ClockHand).Hand()
	if h2 != hand || p2 != passes {
		t.Errorf("clock hand moved from (%d,%d) to (%d,%d)", hand, passes, h2, p2)
	}
	if !slices.Equal(before, rtUsages(p)) {
		t.Errorf("usage counts changed during the bgwriter round")
	}
	if e.bufWrites.maxwritten != 0 {
		t.Errorf("maxwritten_clean %d with maxpages far above the writes", e.bufWrites.maxwritten)
	}
}

// docs/model.md: a round stops after bgwriter_lru_maxpages writes and
// counts one maxwritten_clean; the next round continues where it stopped.
func TestBgwriterStopsAtLRUMaxpages(t *testing.T) {
	e, _ := rtBgEngine(t, 1000, func(sc *Scenario) { sc.Server.BgwriterLRUMaxpages = 7 })
	p := e.pool
	for s := int32(1); s < p.N; s++ {
		p.MarkDirty(s, 0)
	}
	e.bgw.round()
	if e.bufWrites.clean != 7 || e.bufWrites.maxwritten != 1 {
		t.Fatalf("buffers_clean %d, maxwritten_clean %d after one round; want 7 and 1", e.bufWrites.clean, e.bufWrites.maxwritten)
	}
	// Written in scan order from the clock hand (slot 1).
	for s := int32(1); s <= 7; s++ {
		if rtDirty(p, s) {
			t.Fatalf("slot %d still dirty: the scan must start at the hand and go in order", s)
		}
	}
	e.bgw.round()
	if e.bufWrites.clean != 14 || e.bufWrites.maxwritten != 2 || rtDirty(p, 14) || !rtDirty(p, 15) {
		t.Fatalf("second round: buffers_clean %d, maxwritten %d; want 14 and 2 (slots 8-14)", e.bufWrites.clean, e.bufWrites.maxwritten)
	}
}

// docs/model.md: even with no allocations the scan covers at least
// min_scan_buffers = NBuffers / (120000 ms / bgwriter_delay) buffers per
// round, "enough to cover the whole pool in 2 minutes". With every buffer
// dirty and unused, an idle server's bgwriter cleans exactly that many per
// round and needs 120 s of rounds to clean the pool.
func TestBgwriterCleansWholePoolInTwoMinutesWhenIdle(t *testing.T) {
	for _, delayMs := range []int64{200, 100} {
		const n = 6000
		e, _ := rtBgEngine(t, n, func(sc *Scenario) { sc.Server.BgwriterDelay = delayMs * ms })
		p := e.pool
		for s := int32(1); s < p.N; s++ {
			p.MarkDirty(s, 0)
		}
		e.bgw.lastAlloc = int64(p.Stats.Alloc) // no allocation since: an idle server
		minScan := int64(n / (120000 / delayMs))
		rounds := int64(0)
		for p.DirtyCount() > 0 && rounds < 100000 {
			before := e.bufWrites.clean
			e.bgw.round()
			rounds++
			if w := int64(e.bufWrites.clean - before); w != minScan && p.DirtyCount() > 0 {
				t.Fatalf("delay %d ms, round %d wrote %d buffers, want min_scan_buffers = %d", delayMs, rounds, w, minScan)
			}
		}
		if got := rounds * delayMs; got != 120000 {
			t.Errorf("delay %d ms: %d rounds (%d ms) to clean the idle pool, want 120000 ms", delayMs, rounds, got)
		}
		// bgwriter_flush_after (512 kB on Linux, 64 pages): each page
		// written joins the pending writebacks, issued 64 at a time and
		// counted in pg_stat_io (IssuePendingWritebacks).
		wb, pending := e.stats.io[btBgwriter][ctxNormal].writebacks, uint64(len(e.bgw.pendingHints))
		if wb%64 != 0 || pending >= 64 || wb+pending != e.bufWrites.clean {
			t.Errorf("delay %d ms: %d writebacks issued and %d pending for %d pages written", delayMs, wb, pending, e.bufWrites.clean)
		}
	}
}

// docs/model.md (BackgroundWriterMain): after two consecutive rounds that
// could hibernate (the scan has lapped the clock hand and nothing was
// allocated) the bgwriter sleeps bgwriter_delay x 50; the next
// StrategyGetBuffer sets its latch and the round runs at once.
func TestBgwriterHibernatesAfterTwoIdleRoundsAndAllocationWakesIt(t *testing.T) {
	sc := rtIdleScenario(128, 256)
	sc.Server.BgwriterDelay = 10 * sec // min_scan_buffers = 128 / 12 = 10
	e := rtBuild(t, sc)
	b := e.bgw
	b.start()
	type round struct {
		at      int64
		canHib  bool
		sleepHi bool
	}
	var rounds []round
	gen := b.gen
	step := func() {
		if !e.k.Step() {
			t.Fatalf("no bgwriter event pending")
		}
		if b.gen != gen {
			gen = b.gen
			rounds = append(rounds, round{at: e.k.Now(), canHib: b.prevHibernate, sleepHi: b.hibernating})
		}
	}
	for len(rounds) < 20 {
		step()
	}
	firstHib := -1
	for i, r := range rounds {
		if r.sleepHi {
			firstHib = i
			break
		}
	}
	if firstHib < 1 {
		t.Fatalf("no hibernation in 20 idle rounds: %+v", rounds)
	}
	if !rounds[firstHib].canHib || !rounds[firstHib-1].canHib {
		t.Fatalf("hibernated after round %d without two idle rounds: %+v", firstHib, rounds[:firstHib+1])
	}
	for i := 1; i < firstHib; i++ {
		if rounds[i].canHib && rounds[i-1].canHib {
			t.Fatalf("rounds %d and %d could both hibernate but the bgwriter kept its normal delay", i-1, i)
		}
		if gap := rounds[i+1].at - rounds[i].at; gap != 10*sec {
			t.Fatalf("gap after round %d: %d ns, want bgwriter_delay (10 s)", i, gap)
		}
	}
	if gap := rounds[firstHib+1].at - rounds[firstHib].at; gap < 50*10*sec {
		t.Fatalf("hibernation sleep %d s, want at least 50 x bgwriter_delay = 500 s", gap/sec)
	}
	// Hibernating again; an allocation 30 s into the sleep wakes it.
	last := rounds[len(rounds)-1]
	if !last.sleepHi {
		t.Fatalf("bgwriter not hibernating after %d idle rounds", len(rounds))
	}
	wakeAt := last.at + 30*sec
	e.k.RunUntil(wakeAt)
	if len(rounds) != 20 || b.gen != gen {
		t.Fatalf("a round ran during hibernation")
	}
	s, _ := e.pool.GetVictim(nil, e.k.Now())
	e.pool.Assign(s, e.cat.GID(e.db.lookup("t")[0].rel, 0), e.k.Now(), false)
	e.pool.ReadDone(s)
	e.pool.Unpin(s)
	gen = b.gen
	for len(rounds) < 22 {
		step()
	}
	if rounds[20].at != wakeAt {
		t.Fatalf("after the allocation at %d s the next round ran at %d s, want at once", wakeAt/sec, rounds[20].at/sec)
	}
	if rounds[20].canHib || rounds[21].at-rounds[20].at != 10*sec {
		t.Fatalf("the woken round (recent_alloc = 1) must not hibernate and must sleep bgwriter_delay: %+v", rounds[20:])
	}
}

// BackgroundWriterMain (bgwriter.c) first waits bgwriter_delay as usual;
// only if that wait timed out after two idle rounds does it register for a
// wake-up and sleep bgwriter_delay x HIBERNATE_FACTOR more. So the gap
// after the second idle round is 51 delays (10.2 s at 200 ms), not 50.
func TestBgwriterHibernationGapIsDelayPlusFiftyDelays(t *testing.T) {
	sc := rtIdleScenario(128, 256)
	sc.Server.BgwriterDelay = 10 * sec
	e := rtBuild(t, sc)
	b := e.bgw
	b.start()
	var at []int64
	var hib []bool
	gen := b.gen
	for len(at) < 20 && e.k.Step() {
		if b.gen != gen {
			gen = b.gen
			at = append(at, e.k.Now())
			hib = append(hib, b.hibernating)
		}
	}
	for i := range at[:len(at)-1] {
		if hib[i] {
			if gap := at[i+1] - at[i]; gap != 51*10*sec {
				t.Fatalf("hibernation gap %d s, want bgwriter_delay + 50 x bgwriter_delay = 510 s", gap/sec)
			}
			return
		}
	}
	t.Fatalf("no hibernation in 20 idle rounds")
}
