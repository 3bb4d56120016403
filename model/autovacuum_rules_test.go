package model

import "testing"

// Autovacuum's trigger (docs/model.md,
// summary rule 14; autovacuum.c relation_needs_vacanalyze): a table is
// vacuumed when n_dead_tup > autovacuum_vacuum_threshold (50) +
// autovacuum_vacuum_scale_factor (0.2) x reltuples, or, from 13, when
// inserts since the last vacuum > autovacuum_vacuum_insert_threshold
// (1000) + autovacuum_vacuum_insert_scale_factor (0.2) x reltuples; from 18
// the dead-tuple threshold is capped at autovacuum_vacuum_max_threshold
// (100 million).

// launches runs one autovacuum launcher round over a table of 6100 rows
// with the given counters and reports whether a worker was started.
func launches(t *testing.T, version string, reltuples, dead, ins int64) bool {
	t.Helper()
	sc := rtIdleScenario(128, 100)
	sc.Server.Version = version
	sc.Server.Autovacuum = true
	e := rtBuild(t, sc)
	tbl := e.db.lookup("t")[0]
	tbl.reltuples, tbl.deadTuples, tbl.insSinceVacuum = reltuples, dead, ins
	e.cur = e.phases[0] // the launcher works only while the run is on
	e.av.OnEvent(0)
	return tbl.avBusy
}

func TestAutovacuumThresholds(t *testing.T) {
	const rel = 6100                  // 100 pages x 61 rows
	deadLimit := int64(50 + 0.2*rel)  // 1270
	insLimit := int64(1000 + 0.2*rel) // 2220
	cases := []struct {
		version   string
		dead, ins int64
		want      bool
	}{
		{"17", deadLimit, 0, false},
		{"17", deadLimit + 1, 0, true},
		{"17", 0, insLimit, false},
		{"17", 0, insLimit + 1, true},
		{"13", 0, insLimit + 1, true},
		{"12", 0, 10 * insLimit, false}, // no insert trigger before 13
		{"12", deadLimit + 1, 0, true},
	}
	for _, c := range cases {
		if got := launches(t, c.version, rel, c.dead, c.ins); got != c.want {
			t.Errorf("v%s, reltuples %d, dead %d, inserted %d: vacuum %v, want %v", c.version, rel, c.dead, c.ins, got, c.want)
		}
	}
}

// PG18 caps the dead-tuple threshold at autovacuum_vacuum_max_threshold
// (100,000,000): a table of a billion rows with 150 million dead tuples is
// vacuumed by 18 (cap) but not by 17 (threshold 200,000,050).
func TestAutovacuumMaxThresholdFrom18(t *testing.T) {
	if !launches(t, "18", 1_000_000_000, 150_000_000, 0) {
		t.Errorf("v18: 150M dead tuples in a 1G-row table not vacuumed (threshold capped at 100M)")
	}
	if launches(t, "17", 1_000_000_000, 150_000_000, 0) {
		t.Errorf("v17: vacuumed at 150M dead tuples, below 50 + 0.2 x 1G")
	}
}
