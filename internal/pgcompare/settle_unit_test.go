package pgcompare

import (
	"context"
	"testing"
)

// calibrate's snapshots against a server where another backend publishes
// its counters late (an exiting session's flush, as a 100000-row fill's
// landed between the two snapshots once and was subtracted from the
// UPDATE measured next: database blks_hit 201796 against 305269): the
// pair that saw the flush is taken again until two in a row agree, so the
// unit is a snapshot's own cost (nothing) and "before" includes the
// flush. A server that keeps changing gives up after calibrateTries and
// reports what the last pair saw.
func TestCalibrateWaitsOutALateFlush(t *testing.T) {
	counters := []int64{100, 100 + 201796, 100 + 201796, 100 + 201796}
	calls := 0
	snap := func(context.Context) (Snapshot, error) {
		v := counters[min(calls, len(counters)-1)]
		calls++
		return Snapshot{Database: map[string]int64{"blks_hit": v, "xact_commit": 7}}, nil
	}
	unit, before, err := settledUnit(context.Background(), snap, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(unit) != 0 {
		t.Errorf("unit %v: the late flush was taken for a snapshot's cost", unit)
	}
	if before.Database["blks_hit"] != 100+201796 {
		t.Errorf("before has blks_hit %d, want the flush in it (%d)", before.Database["blks_hit"], 100+201796)
	}
	if calls != 3 {
		t.Errorf("%d snapshots, want 3 (the pair that saw the flush, then one more)", calls)
	}

	calls = 0
	busy := func(context.Context) (Snapshot, error) {
		calls++
		return Snapshot{Database: map[string]int64{"blks_hit": int64(10 * calls)}}, nil
	}
	unit, _, err = settledUnit(context.Background(), busy, 0)
	if err != nil {
		t.Fatal(err)
	}
	if calls != calibrateTries+1 || unit["blks_hit"] != 10 {
		t.Errorf("a server that keeps changing: %d snapshots, unit %v; want %d and blks_hit 10", calls, unit, calibrateTries+1)
	}
}
