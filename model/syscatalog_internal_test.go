package model

import "testing"

// A table's first plan in a session reads its catalog rows where
// PostgreSQL's lookups find them, measured on PostgreSQL 15 per catalog
// relation (pg_stat_get_blocks_fetched) for each further table a session
// plans a count(*) or a point SELECT of (docs/model.md "System
// catalogs"): its pg_class page three times (by name, ScanPgRelation,
// the RELOID cache entry), two descents each of pg_class_oid_index and
// pg_class_relname_nsp_index, one of pg_attribute's index over its one
// pg_attribute page, two lookups each in pg_statistic's and
// pg_statistic_ext's indexes, and pg_index's indrelid index only for a
// table with an index (relhasindex).
func TestTableCatalogRowsWhereLookupsFindThem(t *testing.T) {
	sc := rtIdleScenario(1024, 10)
	sc.Server.SystemCatalogs = true
	fresh := TableConfig{Name: "u", Rows: 1000}
	fresh.Defaults()
	fresh.State = "fresh"
	sc.Tables.Relations = append(sc.Tables.Relations, fresh)
	e := rtBuild(t, sc)
	db := e.db
	attrBase := int32(catalogCorePages)
	classBase := attrBase + db.catAttrPages
	leafBase := classBase + db.catClassPages
	coldBase := db.catColdBase + catalogFirstPlanCold
	for _, c := range []struct {
		name               string
		indexed, analyzed  bool
		statLeaf, statRoot int
	}{
		{"t", true, true, 1, 1}, // vacuumed and analyzed, with a primary key
		{"u", false, false, 0, 2},
	} {
		var tb *table
		for _, x := range db.tables {
			if x.name == c.name {
				tb = x
			}
		}
		if tb == nil || (tb.pkey != nil) != c.indexed || tb.analyzed != c.analyzed {
			t.Fatalf("table %s: not as the case needs", c.name)
		}
		pages := e.catalogPages(&op{kind: opCatalog, n: catRelation, t: tb}, nil)
		if len(pages) != catalogRelAccesses+catalogIndexAccesses*b2i(c.indexed)+b2i(c.indexed) {
			t.Errorf("%s: %d accesses, want the table's %d (and its index's and metapage)", c.name, len(pages), catalogRelAccesses)
		}
		// The table's own accesses come first, the index's after them.
		count := map[int32]int{}
		for _, g := range pages[:catalogRelAccesses] {
			rel, blk := e.cat.Locate(g)
			if rel != db.sysCatalog {
				t.Fatalf("%s: an access outside pg_catalog", c.name)
			}
			count[blk]++
		}
		ord := tb.catOrd
		leafOf := func(l int32) int32 { return leafBase + l*db.catLeafPages + int32(ord/catalogRelsPerLeaf) }
		want := []struct {
			what string
			blk  int32
			n    int
		}{
			{"pg_attribute page", attrBase + int32(ord/catalogRelsPerAttrPage), 1},
			{"pg_class page", classBase + int32(ord/catalogRelsPerClassPage), 3},
			{"pg_class_oid_index leaf", leafOf(catLeafClassOid), 2},
			{"pg_attribute index leaf", leafOf(catLeafAttribute), 1},
			{"pg_class_relname_nsp_index leaf", leafOf(catLeafRelname), 2},
			{"pg_index indrelid leaf", leafOf(catLeafIndex), b2i(c.indexed)},
			{"pg_statistic index leaf", leafOf(catLeafStatistic), c.statLeaf},
			{"pg_index indrelid root", coldBase + relColdIndex, b2i(c.indexed)},
			{"pg_statistic index root", coldBase + relColdStatistic, c.statRoot},
			{"pg_statistic_ext index root", coldBase + relColdStatisticExt, 2},
			{"pg_class_relname_nsp_index upper level", coldBase + relColdRelname, 1},
			{"pg_class_relname_nsp_index upper level", coldBase + relColdRelname + 1, 1},
		}
		rest := catalogRelAccesses
		for _, w := range want {
			if count[w.blk] != w.n {
				t.Errorf("%s: %s read %d times, want %d", c.name, w.what, count[w.blk], w.n)
			}
			rest -= w.n
		}
		// The rest on the core's roots (pg_class_oid_index's twice,
		// pg_attribute's index's once), and less with an index.
		core := 0
		for blk, n := range count {
			if blk < catalogCorePages {
				core += n
			}
		}
		if core != rest || rest != 3-2*b2i(c.indexed) {
			t.Errorf("%s: %d accesses on core pages, want %d", c.name, core, 3-2*b2i(c.indexed))
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
