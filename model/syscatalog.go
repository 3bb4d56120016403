package model

import (
	"slices"
	"strings"

	"github.com/pgbufsim/pgbufsim/model/catalog"
)

// System catalogs, as the buffer manager sees them. A backend reads
// catalog pages through shared buffers like any relation's: when it
// starts (InitPostgres: pg_database, pg_authid, the relation cache's init
// file and what it leaves out), when it first uses a relation (relcache.c
// RelationBuildDesc: ScanPgRelation over pg_class_oid_index,
// RelationBuildTupleDesc over pg_attribute_relid_attnum_index, the index
// list and, for an index, pg_index, pg_am and its operator classes; the
// planner's get_relation_info and pg_statistic lookups), and when it first
// plans a statement of a kind (the catalog cache's misses for its
// operators, functions and types: catcache.c SearchCatCacheMiss). Later
// lookups are served by the backend's caches and touch no page. Those pages
// take room in shared buffers and get usage-count bumps, which decides
// what else a small pool keeps (docs/fidelity.md).
//
// The model has one catalog relation, pg_catalog: a core of pages the
// lookups share, then pages that hold the rows of a few user relations
// each (pg_class, pg_attribute: a relation of a few columns takes about a
// third of a pg_attribute page) and index leaves that hold the entries of
// many (docs/model.md "System catalogs"). The numbers of accesses, and of
// distinct pages each kind of work touches, are measured on PostgreSQL 15
// (pg_stat_database and pg_buffercache around each action, read by a
// session that touches no buffer).
const (
	catalogCorePages    = 150 // distinct core pages touched by pgbench's connections and plans
	catalogConnAccesses = 58  // a new connection (psql -c "select 1")
	catalogConnPages    = 16  // ... on this many distinct core pages
	// Of a connection's accesses, these are to the shared catalogs
	// (InitPostgres: pg_database, pg_authid, pg_db_role_setting and their
	// indexes), which count in pg_stat_database's row for shared objects
	// (datid 0): 22, on 11 distinct pages. The connection that rebuilds
	// the init files reads only 15 (on 5 of those pages, the next
	// connection reading the other 6). A session's first plan of a scan
	// reads 3 more (catalogTablespace).
	catalogConnShared       = 22
	catalogBareShared       = 22
	catalogBareDB           = 31
	catalogConnSharedPages  = 11
	catalogRebuildShared    = 15
	catalogRebuildSharedPgs = 5
	// The default tablespace's entry in a backend's tablespace cache
	// (spccache.c get_tablespace: SearchSysCache1(TABLESPACEOID), an
	// index scan of pg_tablespace_oid_index, metapage and root, and
	// pg_tablespace's page), looked up once per session by the first of:
	// a plan that costs a scan of a relation (costsize.c cost_seqscan,
	// cost_index and the rest: get_tablespace_page_costs), an ANALYZE
	// (14+: acquire_sample_rows' prefetch distance,
	// get_tablespace_maintenance_io_concurrency), a read stream (17+:
	// read_stream_begin_impl asks the tablespace's io concurrency; 18's
	// VACUUM, 17's pg_prewarm in buffer mode). Measured on PostgreSQL 15
	// with pg_buffercache and pg_stat_database's shared row, each statement
	// in a new session: SELECT 1, INSERT ... VALUES, INSERT ... SELECT
	// FROM generate_series and VACUUM read none of those pages, a point
	// SELECT by key, count(*), a DELETE and ANALYZE read the three (a
	// session's shared accesses 23 against 26 with psql; 22 against 25 in
	// the differential test's sessions), and 18.3's pg_prewarm in buffer
	// mode and VACUUM read them where read and prefetch modes do not.
	catalogTablespace  = 3
	catalogGlobalPages = catalogConnSharedPages + catalogTablespace
	// The first connection after the server started rebuilds the relation
	// cache's init files (relcache.c: RelationCacheInitFileRemove at
	// startup, then RelationCacheInitializePhase3 builds the nailed
	// catalogs' entries from the catalogs and write_relcache_init_file):
	// measured 1580 accesses more than a connection, about 105 pages.
	catalogInitAccesses = 1580
	catalogInitPages    = 105
	catalogInitHot      = 70 // of which read many times (usage count 5 after the rebuild)
	// A relation's first use in a backend: a table 18 (count(*) of a
	// table without an index, minus the plan's own lookups), an index 30
	// more (relcache's index build: pg_index, pg_am, the operator
	// classes; its metapage, below, is the index's own access). Measured
	// on PostgreSQL 15 with a reader that touches no buffer, per new
	// session: SELECT count(*) of a table without an index 91 accesses in
	// the database (25 more in the shared catalogs), of a table with one
	// 121, both in one session 139; a point SELECT by primary key 125,
	// followed by an UPDATE 132.
	catalogRelAccesses   = 18
	catalogIndexAccesses = 30
	// Of those, one on the pg_attribute page of its columns (a relation
	// of a few columns takes about a third of a page), one on the
	// pg_class page of its row (about ten relations a page), one on each
	// of five index leaves (pg_class_oid_index, pg_attribute's,
	// pg_index's, pg_class_relname_nsp_index and, last, pg_statistic's,
	// each leaf holding about 50 relations' entries: a relation and its
	// TOAST table and index), and the rest on the catalog indexes' upper
	// levels, shared by all.
	catalogRelsPerAttrPage  = 3
	catalogRelsPerClassPage = 10
	catalogRelLeaves        = 5
	catalogRelsPerLeaf      = 50
	catalogRelPages         = 10 // distinct core pages (the upper levels) of the rest
	// Planning: the backend's first statement looks up 44 catalog rows
	// (operators, functions, types the planner and executor need: a point
	// SELECT or a count(*)), a statement of another kind 9 more (an UPDATE
	// after a SELECT: 7). pgbench tpcb-like: 58 + 4 x 18 + 3 x 30 + 44 +
	// 9 + 9 = 282 per client (measured 284).
	catalogFirstKindAccesses = 44
	catalogKindAccesses      = 9
	catalogKindPages         = 12  // ... on this many distinct core pages per kind
	catalogSetupAccess       = 686 // pgbench's own setup connection (the scale query, the partition check)
	// SELECT pg_prewarm('t') (contrib/pg_prewarm): parsing the call
	// resolves the function (FuncnameGetCandidates over pg_proc by name,
	// its argument types' pg_type rows, the regclass input's pg_class
	// lookup by name), and pg_prewarm's relation_open builds the table's
	// relation cache entry while the statement runs (RelationBuildDesc:
	// EXPLAIN counts those accesses, 10) — no planner work on the table.
	// Measured on PostgreSQL 15 in new sessions: 72 to 77 accesses in the
	// database, where a connection is 33 (the differential test's prewarm
	// case).
	catalogPrewarmAccesses    = 32
	catalogPrewarmRelAccesses = 10
	// Every VACUUM command's own catalog work besides its session's and
	// its relation's: vac_update_relstats fetching the pg_class rows it
	// updates in place, vac_update_datfrozenxid scanning pg_class and
	// fetching pg_database's row. Measured on PostgreSQL 15 (the
	// differential test's vacuum-dead case): a session's VACUUM that
	// bypassed its indexes read 65 catalog pages in the database more than
	// the model's session and relation work, and 26 in the shared catalogs
	// where a session's statement reads 25.
	catalogVacuumAccesses = 65
	catalogVacuumShared   = 4
	// Of those, vac_update_datfrozenxid's heap scan of pg_class
	// (systable_beginscan without an index) reads every page of pg_class:
	// the pages of the user relations' rows, and pages of catalog rows
	// that no relation cache build or lookup reads, cold after a restart.
	// Measured with pg_stat_get_blocks_fetched per catalog relation, a
	// VACUUM after a restart and keyed DELETEs (the differential test's
	// vacuum-dead case): 8 pg_class pages read on PostgreSQL 15, 5 on
	// 18.3 (its relation cache builds read more of pg_class); the
	// VACUUM after it reads none.
	catalogClassScanCold   = 8
	catalogClassScanCold18 = 5
	// ANALYZE's own catalog work besides its session's and its relation's
	// (it plans nothing). Measured on PostgreSQL 15, one session, a table
	// with a primary key: the first ANALYZE 215 accesses in the database
	// (the casts, operator classes and operators of each column's
	// statistics, std_typanalyze and the sort operators; the pg_statistic
	// rows it replaces, update_attstats; pg_class) and 3 in the shared
	// catalogs (pg_tablespace: get_tablespace_maintenance_io_concurrency,
	// catalogTablespace, which a plan in the session may have read first);
	// the same ANALYZE again 16 to 22 (pg_class, pg_statistic,
	// pg_statistic_ext); then another table's first 51 to 55, its
	// relation cache entries (the table's and its index's: 33, no planner
	// lookups) and the 18 of any ANALYZE. A table without an index is
	// taken to cost what a plan's relation work does (18).
	catalogAnalyzeFirst       = 215 - catalogAnalyzeRelAccesses - 1 // less the pg_statistic page's own access (analyze.go)
	catalogAnalyzeAccesses    = 18 - 1
	catalogAnalyzeRelAccesses = 33
	catalogStride             = 7 // walks the core pages in an order unrelated to page numbers (coprime with the core's size)
	// Pages outside the core, which the init-file rebuild does not read,
	// so that a session's first plan right after a restart reads them.
	// Measured on PostgreSQL 15 with pg_buffercache, in the first session
	// after a connection that rebuilt the init files and ran nothing: a
	// point SELECT by key read 39 catalog pages (43 database reads with
	// the table's heap page, its index's metapage, root and leaf), SELECT
	// 1 alone 4. Of the 39, the first plan's 4 (pg_type's page and its
	// oid index's levels: the output columns' types, which SELECT 1
	// reads too), the name lookups' 3 (namesGroup), the table's 12: the
	// pages of its own rows and its index leaves (relation, below) and
	// 5 shared by all relations (the roots of pg_index's indrelid index,
	// of pg_statistic's and pg_statistic_ext's; the upper levels of
	// pg_class_relname_nsp_index, RangeVarGetRelid), pg_proc's 2
	// (procOidGroup) and the B-tree equality qual's 18
	// (operatorNameGroup, btreeOpFamilyGroup); the lookup region holds
	// the groups and the catalog objects a plan looks up (lookupCost).
	catalogFirstPlanCold = 4
	catalogRelCold       = 5
	relColdIndex         = 0 // of those, the root of pg_index's indrelid index
	relColdStatistic     = 1 // the root of pg_statistic's index
	relColdStatisticExt  = 2 // and pg_statistic_ext's
	relColdRelname       = 3 // and two of pg_class_relname_nsp_index's upper levels
	catalogLookupRegion  = 256
)

// The five catalog index leaves of a relation's entries, in their order
// in pg_catalog's leaf region.
const (
	catLeafClassOid  = iota // pg_class_oid_index
	catLeafAttribute        // pg_attribute_relid_attnum_index
	catLeafIndex            // pg_index_indrelid_index
	catLeafRelname          // pg_class_relname_nsp_index
	catLeafStatistic        // pg_statistic_relid_att_inh_index
)

// SystemCatalogRelname is the catalog relation's name in the outputs
// (pg_buffercache's relations); SharedCatalogRelname is the shared
// catalogs' (the pg_global tablespace's relations).
const (
	SystemCatalogRelname = "pg_catalog"
	SharedCatalogRelname = "pg_global"
)

const (
	sysCatalogName = SystemCatalogRelname
	sysGlobalName  = SharedCatalogRelname
)

// Catalog work items (op.n of an opCatalog).
const (
	catConnect = iota
	catRelation
	catStmtKind
	catPgbenchSetup
	catInitFile
	catBareConnect
	catVacuum
	catAnalyze
	catLookups
	catFirstPlan
	catTablespace
)

// addSystemCatalog creates pg_catalog once the user relations exist: the
// core, then the relations' pg_attribute pages, their pg_class pages and
// the index leaves of their entries, then the pages no init-file rebuild
// reads (the first plan's, the relation lookups' index roots, and the
// lookup region: catalogFirstPlanCold and below).
func (db *database) addSystemCatalog() {
	rels := 0
	for _, t := range db.tables {
		t.catOrd = rels
		rels++
		if t.pkey != nil {
			rels++
		}
	}
	var total int64
	db.catAttrPages, db.catClassPages, db.catLeafPages, total = sysCatalogLayout(int64(rels))
	db.catColdBase = int32(total - catalogFirstPlanCold - catalogRelCold - catalogLookupRegion - catalogClassScanCold)
	db.sysCatalog = db.cat.Add(sysCatalogName, catalog.Heap, int32(total))
	db.sysGlobal = db.cat.Add(sysGlobalName, catalog.Heap, catalogGlobalPages)
}

// sysCatalogLayout is pg_catalog's shape for rels user relations (a
// table's index counts as one): the pages of their pg_attribute rows, of
// their pg_class rows and of each of the four index leaves, and the
// relation's pages in all (the core first, the regions outside it last).
func sysCatalogLayout(rels int64) (attr, class, leaf int32, total int64) {
	ceil := func(per int64) int64 { return (rels + per - 1) / per }
	a, c, l := ceil(catalogRelsPerAttrPage), ceil(catalogRelsPerClassPage), ceil(catalogRelsPerLeaf)
	total = catalogCorePages + a + c + catalogRelLeaves*l + catalogFirstPlanCold + catalogRelCold + catalogLookupRegion + catalogClassScanCold
	return int32(a), int32(c), int32(l), total
}

// catalogPages appends the catalog pages the work item o reads, in order.
func (e *engine) catalogPages(o *op, out []int32) []int32 {
	rel := e.db.sysCatalog
	// accesses reads n pages cycling over the distinct core pages
	// from..from+distinct-1 (in stride order).
	accesses := func(from, distinct, n int) {
		for i := range n {
			out = append(out, e.cat.GID(rel, int32((from+i%distinct)*catalogStride%catalogCorePages)))
		}
	}
	// leaf reads the leaf of catalog index l (catLeaf*) that holds the
	// entries of the relation of ordinal ord; cold reads the cold page i
	// (relCold*) of the plans' relation lookups.
	leaf := func(l int32, ord int) {
		base := int32(catalogCorePages) + e.db.catAttrPages + e.db.catClassPages
		out = append(out, e.cat.GID(rel, base+l*e.db.catLeafPages+int32(ord/catalogRelsPerLeaf)))
	}
	cold := func(i int32) {
		out = append(out, e.cat.GID(rel, e.db.catColdBase+catalogFirstPlanCold+i))
	}
	// ownRows reads the pg_attribute page of the relation's columns,
	// classRow the pg_class page of its row.
	ownRows := func(ord int) {
		out = append(out, e.cat.GID(rel, int32(catalogCorePages)+int32(ord/catalogRelsPerAttrPage)))
	}
	classRow := func(ord int) {
		out = append(out, e.cat.GID(rel, int32(catalogCorePages)+e.db.catAttrPages+int32(ord/catalogRelsPerClassPage)))
	}
	// index reads an index's catalog rows (n accesses); planned adds the
	// roots of the indexes a plan's lookups descend (catalogRelCold),
	// which building its relation cache entry alone does not.
	index := func(ord, n int, planned, stats bool) {
		ownRows(ord)
		classRow(ord)
		leaves := int32(catalogRelLeaves)
		if !stats {
			leaves-- // pg_statistic's, the last
		}
		for l := range leaves {
			leaf(l, ord)
		}
		colds := 0
		if planned {
			for i := range int32(catalogRelCold) {
				if !stats && (i == relColdStatistic || i == relColdStatisticExt) {
					continue
				}
				cold(i)
				colds++
			}
		}
		accesses(catalogConnPages, catalogRelPages, n-2-int(leaves)-colds)
	}
	// table reads a table's catalog rows (n accesses) where each lookup
	// finds them, as measured on PostgreSQL 15 per catalog relation
	// (pg_stat_get_blocks_fetched) for each further table a session
	// plans a count(*) of: the page of its pg_class row three times
	// (the parser's RangeVarGetRelidExtended by name, RelationBuildDesc's
	// ScanPgRelation by oid, the syscache's RELOID entry) through two
	// lookups in pg_class_oid_index and two in
	// pg_class_relname_nsp_index, each a root and a leaf; its pg_attribute
	// page once (RelationBuildTupleDesc's index scan holds the page for
	// all its rows) under one descent of
	// pg_attribute_relid_attnum_index; two lookups each in
	// pg_statistic's and pg_statistic_ext's indexes (their roots; an
	// analyzed table's pg_statistic rows are found in a leaf, its second
	// lookup there); and pg_index only for a table
	// with an index (relhasindex: plancat.c get_relation_info calls
	// RelationGetIndexList only then), one descent of its indrelid index.
	// The roots of pg_class_oid_index and pg_attribute's index are core
	// pages (the relation cache's init file rebuild reads them); the
	// others are cold after a restart (catalogRelCold).
	tableRows := func(t *table, n int, planned, stats bool) {
		ord, indexed := t.catOrd, t.pkey != nil
		ownRows(ord)
		for range 3 {
			classRow(ord)
		}
		leaf(catLeafClassOid, ord)
		leaf(catLeafClassOid, ord)
		leaf(catLeafAttribute, ord)
		leaf(catLeafRelname, ord)
		leaf(catLeafRelname, ord)
		k := 9
		if indexed {
			leaf(catLeafIndex, ord)
			k++
		}
		if planned {
			cold(relColdRelname)
			cold(relColdRelname + 1)
			k += 2
			if indexed {
				cold(relColdIndex)
				k++
			}
			if stats {
				cold(relColdStatistic)
				if t.analyzed {
					leaf(catLeafStatistic, ord)
				} else {
					cold(relColdStatistic)
				}
				cold(relColdStatisticExt)
				cold(relColdStatisticExt)
				k += 4
			}
		}
		accesses(catalogConnPages, catalogRelPages, n-k)
	}
	// shared reads n shared catalog pages at a connection's start,
	// cycling over the first pages of them; with the init files missing
	// (rebuild) it reads fewer, on fewer pages.
	shared := func(n int, rebuild bool) {
		pages := catalogConnSharedPages
		if rebuild {
			n, pages = catalogRebuildShared, catalogRebuildSharedPgs
		}
		for i := range n {
			out = append(out, e.cat.GID(e.db.sysGlobal, int32(i%pages)))
		}
	}
	// connect reads the shared catalogs, then the database's
	// (catalogConnAccesses was measured on sessions that also looked up
	// the tablespace: catalogTablespace).
	connect := func(rebuild bool) {
		shared(catalogConnShared, rebuild)
		accesses(0, catalogConnPages, catalogConnAccesses-catalogConnShared-catalogTablespace)
	}
	tablespace := func() {
		for i := range int32(catalogTablespace) {
			out = append(out, e.cat.GID(e.db.sysGlobal, catalogConnSharedPages+i))
		}
	}
	switch o.n {
	case catConnect:
		connect(o.key == 1)
	case catInitFile:
		// Skewed as measured: about 70 pages are read many times (the
		// nailed catalogs' index upper levels and their own rows), the
		// rest once.
		once := catalogInitPages - catalogInitHot
		accesses(0, catalogInitHot, catalogInitAccesses-once)
		accesses(catalogInitHot, once, once)
	case catRelation:
		if o.key == catRelOpenOnly {
			tableRows(o.t, catalogPrewarmRelAccesses, false, true)
			break
		}
		if o.key == catRelNoPlan {
			// ANALYZE opens the table and its indexes (vac_open_indexes)
			// but plans nothing: no planner lookups, no metapage.
			tableRows(o.t, catalogRelAccesses, true, true)
			if o.t.pkey != nil {
				index(o.t.catOrd+1, catalogAnalyzeRelAccesses-catalogRelAccesses, true, true)
			}
			break
		}
		if o.key == catRelPlanOnly {
			// A plan on a relation ANALYZE opened: the planner's lookups
			// (get_relation_info) and the index's metapage.
			if o.t.pkey != nil {
				accesses(catalogConnPages, catalogRelPages, catalogRelAccesses+catalogIndexAccesses-catalogAnalyzeRelAccesses)
				out = append(out, e.cat.GID(o.t.pkey.rel, 0))
			}
			break
		}
		// The relation, then its index (the planner opens every index of
		// the table, and execution each one it updates). An INSERT's
		// target is not planned on (no get_relation_info): measured on
		// PostgreSQL 15, a first INSERT ... VALUES right after a restart
		// read neither pg_statistic's nor pg_statistic_ext's pages.
		stats := o.key != catRelNoStats
		tableRows(o.t, catalogRelAccesses, true, stats)
		if e.ver >= 1800 && !o.t.relstats {
			// A table never VACUUMed nor ANALYZEd (reltuples -1) has its
			// size estimated from its columns' widths (tableam.c
			// table_block_relation_estimate_size, plancat.c
			// get_rel_data_width: get_attavgwidth's pg_statistic
			// lookups). Measured on PostgreSQL 18.3 against 15, a first
			// plan of such a table: 2 more accesses to pg_statistic's
			// index (5 against 3; 4 against 2 for each further table in
			// the session), none for a table with statistics.
			for range 2 {
				out = append(out, e.cat.GID(rel, e.db.catColdBase+catalogFirstPlanCold+relColdStatistic))
			}
		}
		if o.t.pkey != nil {
			index(o.t.catOrd+1, catalogIndexAccesses, true, stats)
			// The planner's _bt_getrootheight (plancat.c
			// get_relation_info) reads the index's metapage once and
			// caches it in rd_amcache, which _bt_getroot then uses:
			// one metapage access per backend and index.
			out = append(out, e.cat.GID(o.t.pkey.rel, 0))
		}
	case catStmtKind:
		bit := o.key & kindBits
		n := catalogKindAccesses
		if o.key&firstKind != 0 {
			n = catalogFirstKindAccesses
		}
		if bit == prewarmKindBit {
			n = catalogPrewarmAccesses
		}
		if o.key&withPublications != 0 {
			// Of them, the publication lookups, on pages nothing else
			// reads.
			for i := range catalogPubAccesses {
				out = append(out, e.cat.GID(rel, int32((catalogCorePages-catalogPubAccesses+i)*catalogStride%catalogCorePages)))
			}
			n -= catalogPubAccesses
		}
		if o.key&firstKind != 0 {
			// Of the first plan's, the pages no rebuild reads.
			out = e.firstPlanPages(out)
			n -= catalogFirstPlanCold
		}
		out, n = e.routedGroupPages(o.key, out, n)
		accesses(catalogConnPages+catalogRelPages+int(bit)*catalogKindPages, catalogKindPages, n)
	case catPgbenchSetup:
		// pgbench's setup connection counts pgbench_branches (the scale
		// check): a plan of a scan, which looks the tablespace up.
		connect(o.key == 1)
		tablespace()
		accesses(0, catalogCorePages, catalogSetupAccess-catalogConnAccesses)
	case catVacuum:
		// vac_update_datfrozenxid's scan of pg_class: its cold pages
		// (the last region), then the user relations' rows.
		cold := int32(catalogClassScanCold)
		if e.ver >= 1800 {
			cold = catalogClassScanCold18
		}
		base := e.db.catColdBase + catalogFirstPlanCold + catalogRelCold + catalogLookupRegion
		for i := range cold {
			out = append(out, e.cat.GID(rel, base+i))
		}
		classPages := catalogCorePages + e.db.catAttrPages
		for i := range e.db.catClassPages {
			out = append(out, e.cat.GID(rel, classPages+i))
		}
		accesses(catalogConnPages+catalogRelPages+(prewarmKindBit+1)*catalogKindPages, catalogKindPages, max(0, catalogVacuumAccesses-int(cold+e.db.catClassPages)))
		for i := range catalogVacuumShared {
			out = append(out, e.cat.GID(e.db.sysGlobal, int32(i%catalogConnSharedPages)))
		}
	case catLookups:
		// One object's first lookup: its own pages (the candidates' rows
		// and their index leaves), then the rest of its accesses on pages
		// a plan reads anyway (the SELECT kind's).
		first, distinct := int32(o.key>>32), int(o.key>>16&0xffff)
		n := int(o.key & 0xffff)
		for i := range int32(distinct) {
			out = append(out, e.lookupPage(first+i))
		}
		accesses(catalogConnPages+catalogRelPages, catalogKindPages, n-distinct)
	case catAnalyze:
		from := catalogConnPages + catalogRelPages + (prewarmKindBit+2)*catalogKindPages
		if o.key&1 != 0 { // the session's first ANALYZE
			var n int
			out, n = e.routedGroupPages(o.key, out, catalogAnalyzeFirst)
			accesses(from, catalogKindPages, n)
			break
		}
		accesses(from, catalogKindPages, catalogAnalyzeAccesses)
	case catFirstPlan:
		out = e.firstPlanPages(out)
	case catTablespace:
		tablespace()
	case catBareConnect:
		// A connection that runs no statement (pgbench's setup connection
		// for script files: it connects, reads the server's version from
		// the connection's parameters and, with -n, disconnects): measured
		// on PostgreSQL 15, pgbench -n -f of one SELECT 1 read 31 catalog
		// pages in the database and 22 shared more than psql -c of it (35
		// and 25).
		shared(catalogBareShared, o.key == 1)
		accesses(0, catalogConnPages, catalogBareDB)
	}
	return out
}

// stmtLookups is the catalog objects o's statement names (nil: none).
func (s *script) stmtLookups(o *op) []string {
	if o.cmdNo <= 0 || int(o.cmdNo) > len(s.lookups) {
		return nil
	}
	return s.lookups[o.cmdNo-1]
}

// unseenLookups reports whether a plan of this session has not yet looked
// up one of names.
func (b *backend) unseenLookups(names []string) bool {
	for _, n := range names {
		if !slices.Contains(b.catLooked, n) {
			return true
		}
	}
	return false
}

// lookupOps appends a catalog work item for each of these catalog objects
// that this session's plans have not met yet, which then count as looked
// up (at planning, not when the item runs: a transaction aborted before
// the statement still leaves them cached, a small difference). An item's
// key packs the object's first page in the lookup region, its distinct
// pages and its accesses (catalogPages). Measured on PostgreSQL 15, each
// after a point SELECT by key in the same session: a comparison other than
// = 12 to 14 (BETWEEN and >= AND <= 28), length() 12, upper() 8, sum() 19,
// count(col) 18, max() 21, avg() 27, an ORDER BY 72 more (the sort's
// operator class and casts); sum(length(pad)) over a BETWEEN range 59 =
// 19 + 12 + 28. The first object of a kind in a session also reads its
// kind's shared pages (lookupGroups), on some of those accesses.
func (b *backend) lookupOps(names []string, out []op) []op {
	for _, name := range names {
		if slices.Contains(b.catLooked, name) {
			continue
		}
		b.catLooked = append(b.catLooked, name)
		n, distinct := lookupCost(name)
		for _, g := range lookupGroups(name) {
			if b.readGroup(g) {
				continue
			}
			out = append(out, b.groupOp(g))
			n -= g.pages()
		}
		first := b.e.db.lookupFirstPage(name, distinct)
		n = max(n, distinct)
		out = append(out, op{kind: opCatalog, n: catLookups, key: int64(first)<<32 | int64(distinct)<<16 | int64(n)})
	}
	return out
}

// A lookupGroup is catalog pages that every lookup of a kind reads the
// first time a session makes one (catalog index levels and rows shared by
// all functions, or all aggregates, ...), outside the core that the
// init-file rebuild reads: right after a restart the first such lookup
// reads them, one access a page. A session's groups read are a bit each
// in backend.catGroups.
type lookupGroup uint8

// The lookup groups, measured on PostgreSQL 15 with pg_buffercache as cold
// reads right after a restart (the first session after a connection that
// rebuilt the init files and ran nothing), each against the statement
// without the construct:
//   - firstPlanTypesGroup, a session's first plan's output types
//     (catalogFirstPlanCold: pg_type's page and its oid index's levels;
//     SELECT 1 reads them), the only group outside the lookup region;
//   - namesGroup, the name lookups of a relation or a function
//     (namespace.c's search path: pg_namespace's page and its name
//     index's two levels), and procOidGroup, pg_proc_oid_index's upper
//     levels: 5 of the point SELECT's 39 that a session calling only
//     functions reads too;
//   - an index qual by = on an int key, 18 (a point SELECT after a
//     count(*) of the same table read 14 catalog pages more):
//     operatorNameGroup, the operator found by name (parse_oper.c oper:
//     pg_operator's name index) and its B-tree strategy
//     (get_op_opfamily_properties: pg_amop's operator index), 6, and
//     btreeOpFamilyGroup, the operator family's members (pg_amop and its
//     strategy index; pg_operator's row and oid index; the operator's
//     function), 12, which ANALYZE's std_typanalyze reads too
//     (get_sort_group_operators);
//   - arithmeticGroup, an UPDATE's SET col = col + n (pgbench's
//     abalance + :delta, an update step's) or a script's + - * /: the
//     operator found by name, its row and its function's (int4pl), 7 of
//     the UPDATE kind's 9 accesses (the differential test's bulk-dml
//     UPDATE t_upd SET id = id + 1, right after a DELETE in the first
//     sessions after a restart, read 9 catalog pages on PostgreSQL 15 and
//     18.3);
//   - funcNameGroup, FuncnameGetCandidates' levels of pg_proc's name
//     index, 3 (length() 10 pages where its own are 7, md5() 5 and 2,
//     abs() 7 and 4); aggregateGroup, pg_aggregate's page and its index's
//     two levels (sum() 11 against 4); inequalityGroup, the ordering
//     comparisons' shared operator pages, 2 (< 2 where its own are 0,
//     BETWEEN 4 against 1 + 1); sortGroup, a sort's, 5 (ORDER BY on the
//     int key 7 against 2).
//
// The groups up to arithmeticGroup can be read on the accesses of a
// statement kind's or an ANALYZE's work item (routeGroups); the others
// are work items of their own (groupOp).
const (
	firstPlanTypesGroup lookupGroup = iota
	namesGroup
	procOidGroup
	operatorNameGroup
	btreeOpFamilyGroup
	arithmeticGroup
	funcNameGroup
	aggregateGroup
	inequalityGroup
	sortGroup
	numLookupGroups
)

var (
	lookupGroupPages = [numLookupGroups]int{catalogFirstPlanCold, 3, 2, 6, 12, 7, 3, 3, 2, 5}
	// The names give each group its slot in the lookup region
	// (lookupFirstPage).
	lookupGroupNames = [numLookupGroups]string{"plan:first", "group:names", "group:pg_proc-oid",
		"group:operator-names", "group:btree-opfamily", "group:arithmetic-operator",
		"group:function-names", "group:aggregates", "group:ordering-operators", "group:sort"}
)

func (g lookupGroup) pages() int { return lookupGroupPages[g] }

// readGroup reports whether this session has read g's pages.
func (b *backend) readGroup(g lookupGroup) bool { return b.catGroups&(1<<g) != 0 }

// lookupGroups are the groups a looked-up object's first lookup in a
// session reads besides its own pages.
func lookupGroups(name string) []lookupGroup {
	switch {
	case strings.HasPrefix(name, "fn:"):
		return []lookupGroup{namesGroup, procOidGroup, funcNameGroup}
	case strings.HasPrefix(name, "agg:"):
		return []lookupGroup{namesGroup, procOidGroup, funcNameGroup, aggregateGroup}
	case name == "sort":
		return []lookupGroup{sortGroup}
	case name == "op:<", name == "op:<=", name == "op:>", name == "op:>=":
		return []lookupGroup{inequalityGroup}
	case name == "op:arith":
		return []lookupGroup{arithmeticGroup}
	}
	return nil
}

// groupOp is the work item of a group's pages, which then count as read
// by this session.
func (b *backend) groupOp(g lookupGroup) op {
	b.catGroups |= 1 << g
	first := b.e.db.lookupFirstPage(lookupGroupNames[g], g.pages())
	return op{kind: opCatalog, n: catLookups, key: int64(first)<<32 | int64(g.pages())<<16 | int64(g.pages())}
}

// keyQualGroups are the groups of an index qual by = on an int key;
// keyOrderGroups those of an index scan without a qual, for an ORDER BY
// the key, a count(*) or min() and max() of it (no operator is found by
// name, but the index's operator family gives the pathkeys' order);
// analyzeGroups those of a session's first ANALYZE (the column types'
// sort and equality operators: std_typanalyze).
var (
	keyQualGroups  = []lookupGroup{procOidGroup, operatorNameGroup, btreeOpFamilyGroup}
	keyOrderGroups = []lookupGroup{procOidGroup, btreeOpFamilyGroup}
	analyzeGroups  = []lookupGroup{firstPlanTypesGroup, namesGroup, procOidGroup, btreeOpFamilyGroup}
)

// keyQualGroupsOf are the groups o's index scan reads (usesKeyQual):
// keyOrderGroups for a range without a comparison (SELECT ... ORDER BY
// key without WHERE, or a plan made without quals: allKeys). Measured on
// PostgreSQL 15 in the differential test's first session after a
// restart: SELECT length(pad) FROM t ORDER BY id LIMIT 10 read 3 catalog
// pages fewer than the point SELECT by key, where the model read 7 more.
func keyQualGroupsOf(o *op) []lookupGroup {
	if o.kind.isRange() && (o.allKeys || o.open == openLow|openHigh) {
		return keyOrderGroups
	}
	return keyQualGroups
}

// routedGroupShift is the bit of a work item's key that marks
// firstPlanTypesGroup, the next ones the groups after it.
const routedGroupShift = 12

// routeGroups marks, in a work item's key, the groups of gs this session
// has not read yet, which then count as read.
func (b *backend) routeGroups(key int64, gs []lookupGroup) int64 {
	for _, g := range gs {
		if !b.readGroup(g) {
			b.catGroups |= 1 << g
			key |= 1 << (routedGroupShift + int(g))
		}
	}
	return key
}

// routedGroupPages appends the pages of the groups marked in key, one
// access each, and returns n less those accesses.
func (e *engine) routedGroupPages(key int64, out []int32, n int) ([]int32, int) {
	for g := range arithmeticGroup + 1 {
		if key&(1<<(routedGroupShift+int(g))) == 0 {
			continue
		}
		if g == firstPlanTypesGroup {
			out = e.firstPlanPages(out)
		} else {
			first := e.db.lookupFirstPage(lookupGroupNames[g], g.pages())
			for j := range int32(g.pages()) {
				out = append(out, e.lookupPage(first+j))
			}
		}
		n -= g.pages()
	}
	return out, n
}

// firstPlanPages appends the first plan's pages outside the core
// (catalogFirstPlanCold), which no init-file rebuild reads.
func (e *engine) firstPlanPages(out []int32) []int32 {
	for i := range int32(catalogFirstPlanCold) {
		out = append(out, e.cat.GID(e.db.sysCatalog, e.db.catColdBase+i))
	}
	return out
}

// usesKeyQual reports whether o's plan matches an index qual by = on the
// table's key (a lookup, range, UPDATE or DELETE by key through its index).
func usesKeyQual(o *op) bool {
	switch o.kind {
	case opFetch, opRange, opList, opUpdate, opDeleteKey, opUpdateRange, opDeleteRange, opUpdateList, opDeleteList:
		return o.t != nil && o.t.pkey != nil
	}
	return false
}

// notNullConstraintOp is the catalog work of CheckNNConstraintFetch
// (relcache.c RelationBuildTupleDesc, 18+: NOT NULL constraints are rows
// of pg_constraint, fetched when a table with a NOT NULL column gets its
// relation cache entry; in the model the tables with a primary key). It
// scans pg_constraint by conrelid: 4 accesses on pages of its own (its
// index's root and leaf, the heap pages of the table's rows); the
// session's first such scan also builds the relation cache entries of
// pg_constraint and of that index, 23 accesses more on pages any plan
// reads (pg_attribute, pg_class, pg_index, pg_opclass, pg_amproc).
// Measured on PostgreSQL 18.3 against 15 (the same point SELECT by key in
// a new session): 164 accesses in the database against 137, 4 of them on
// pg_constraint, read the first time after a restart; a second table
// with a primary key in the same session 4 more (202 against 171); a
// table without a NOT NULL column the same as 15.
func (b *backend) notNullConstraintOp() op {
	const name, pages, scan, firstInSession = "rel:pg_constraint", 4, 4, 27
	n := scan
	if !slices.Contains(b.catLooked, name) {
		b.catLooked = append(b.catLooked, name)
		n = firstInSession
	}
	first := b.e.db.lookupFirstPage(name, pages)
	return op{kind: opCatalog, n: catLookups, key: int64(first)<<32 | int64(pages)<<16 | int64(n)}
}

// plannedNoTable (the key of an opNone) is a SELECT without FROM, which
// is planned, where BEGIN is not.
const plannedNoTable = 1

// lookupPage is the catalog page at position i of the lookup region
// (wrapping around).
func (e *engine) lookupPage(i int32) int32 {
	return e.cat.GID(e.db.sysCatalog, e.db.catColdBase+catalogFirstPlanCold+catalogRelCold+i%catalogLookupRegion)
}

// lookupFirstPage is the first of the distinct pages of the named catalog
// object in the lookup region, given it the first time any session looks
// it up (the region is large enough for a few dozen objects; past its end
// the pages wrap around).
func (db *database) lookupFirstPage(name string, distinct int) int32 {
	if first, ok := db.lookupSlots[name]; ok {
		return first
	}
	if db.lookupSlots == nil {
		db.lookupSlots = map[string]int32{}
	}
	first := db.lookupNext % catalogLookupRegion
	db.lookupSlots[name] = first
	db.lookupNext += int32(distinct)
	return first
}

// lookupCost is one catalog object's first lookup in a session: its
// accesses (lookupOps), and of them the pages it reads that neither the
// init-file rebuild nor a point SELECT's plan reads: the pg_proc rows of
// every candidate of a function's name (FuncnameGetCandidates) and the
// leaves of pg_proc's name index, the pg_operator rows of an operator's
// (OpernameGetCandidates), a sort's operator family entries (pg_amop).
// Pages measured on PostgreSQL 15 as cold reads of a session's first plan
// right after a restart against those of a point SELECT by key, less the
// pages of their kinds' groups (lookupGroups), which a harness monitor
// that called functions had read when these were first measured: length()
// 7, upper() 3, md5() 2, abs() 4, sum(), max() and min() 4, avg() 3,
// count(col) 0, < 0, >, <= and >= 1, <> 2, an ORDER BY 2; they add up
// (sum(length(pad)) over a BETWEEN range: 13, and 22 with the groups,
// measured after a connection that ran nothing). md5() and abs() cost 7 and
// 6 accesses more than a point SELECT's plan, in a new session;
// generate_series() 7 accesses and 2 pages, repeat() 6 and 3 (an INSERT ...
// SELECT of them against an INSERT ... VALUES of the same row, each after
// a point SELECT in the first session after a restart). A function
// or aggregate not measured is given the measured ones' means (a
// function's pages depend on how many overloads its name has: abs() has
// six, md5() two).
func lookupCost(name string) (accesses, pages int) {
	switch name {
	case "sort":
		return 72, 2
	case "op:in":
		// An IN list's array: measured in the differential test's
		// first session after a restart (range-limit's in-list), 58
		// catalog accesses and 2 cold pages more than the model's
		// lookup by key on PostgreSQL 15 and 18.3 alike.
		return 58, 2
	case "fn:length":
		return 12, 7
	case "fn:upper":
		return 8, 3
	case "fn:md5":
		return 7, 2
	case "fn:abs":
		return 6, 4
	case "fn:generate_series":
		return 7, 2
	case "fn:repeat":
		return 6, 3
	case "agg:count":
		return 18, 0
	case "agg:sum":
		return 19, 4
	case "agg:max", "agg:min":
		return 21, 4
	case "agg:avg":
		return 27, 3
	case "op:<":
		return 14, 0
	case "op:arith":
		return arithmeticGroup.pages(), 0 // its group's pages, one access each
	case "op:<>":
		return 14, 2
	}
	switch {
	case strings.HasPrefix(name, "op:"):
		return 14, 1
	case strings.HasPrefix(name, "agg:"):
		return 21, 4
	}
	return 8, 4
}

// catRelOpenOnly (the key of a catRelation item) is a relation opened by
// a function while the statement runs (pg_prewarm's relation_open): its
// relation cache entry alone, counted in the statement's buffer usage. The
// relation then counts as seen: a later plan on it in the same session
// finds the entry built and does not count the planner's lookups either.
const catRelOpenOnly = 1

// catRelNoPlan (the key of a catRelation item) is a relation ANALYZE
// opens: its and its index's relation cache entries, no planner work;
// catRelPlanOnly is the planner's work on a relation so opened.
const (
	catRelNoPlan   = 2
	catRelPlanOnly = 3
)

// catRelNoStats (the key of a catRelation item) is an INSERT's target:
// its relation cache entries, without the planner's statistics lookups.
const catRelNoStats = 4

// A relation's catalog work done in a backend (backend.catSeen): none,
// its relation cache entries (ANALYZE), or those and a plan's lookups.
const (
	catOpened  uint8 = 1
	catPlanned uint8 = 2
)

// catLevel is the relation work a statement needs: ANALYZE and
// pg_prewarm open the relation, every other statement plans on it.
func catLevel(k opKind) uint8 {
	if k == opAnalyze || k == opPrewarm {
		return catOpened
	}
	return catPlanned
}

// firstKind marks the work item of a backend's first statement kind (its
// key, with the kind's bit): the first plan looks up what every later one
// finds in the caches.
const firstKind = 1 << 8

// prewarmKindBit is pg_prewarm's: a function call's lookups, not a
// plan's, which neither make nor take a session's first plan.
const prewarmKindBit = 4

// The statement kinds of UPDATE and DELETE (stmtKindBit).
const (
	updateKindBit = 1
	deleteKindBit = 3
)

// withPublications marks the first UPDATE or DELETE kind of a session
// (its key; 10+, which has logical replication's publications):
// CheckCmdReplicaIdentity -> RelationBuildPublicationDesc looks
// the table up in pg_publication_rel and pg_publication_namespace, pages
// no other work of the model reads (an INSERT does not check). Measured
// on PostgreSQL 15 with pg_buffercache, a first DELETE or UPDATE by key
// right after a restart: the metapages of those two catalogs' indexes
// (pg_publication_rel_prrelid_prpubid_index,
// pg_publication_namespace_pnnspid_pnpubid_index; both catalogs empty),
// the only catalog pages it read that a point SELECT's plan does not.
// The accesses are part of the kind's measured count.
const (
	withPublications   = 1 << 9
	catalogPubAccesses = 2
)

// kindBits is the kind's bit in a statement kind's work item's key.
const kindBits = firstKind - 1

// stmtKindBit groups statements by what their plans look up: a keyed or
// scanning SELECT, an UPDATE, an INSERT or COPY, a DELETE; and a
// SELECT pg_prewarm(...).
func stmtKindBit(k opKind) (uint8, bool) {
	switch k {
	case opPrewarm:
		return prewarmKindBit, true
	case opFetch, opSeqscan, opRange, opList:
		return 0, true
	case opUpdate, opUpdateAll, opUpdateRange, opUpdateList:
		return 1, true
	case opInsert:
		return 2, true
	case opDeleteKey, opDeleteAll, opDeleteRange, opDeleteList:
		return 3, true
	}
	return 0, false
}

// withCatalogOps inserts the transaction's catalog work before the
// statements that need it: the connection's start before its first
// transaction (pgbench's setup connection too, for a built-in script),
// a relation's first use before the first statement on it, a statement
// kind's first plan before the first statement of that kind. The work
// counts as done when it has run (execCatalog): a transaction aborted
// before a statement leaves that statement's lookups to the next one.
func (b *backend) withCatalogOps(ops []op, s *script) []op {
	if !b.e.sc.Server.SystemCatalogs || b.client == nil {
		return ops
	}
	if b.catSeen == nil {
		b.catSeen = make([]uint8, len(b.e.db.tables))
	}
	need := !b.catConnected
	for i := range ops {
		o := &ops[i]
		if bit, ok := stmtKindBit(o.kind); ok && b.catKinds&(1<<bit) == 0 {
			need = true
		}
		if o.t != nil && b.catSeen[o.t.ord] < catLevel(o.kind) || o.kind == opVacuum || o.kind == opAnalyze {
			need = true
		}
		if !need && o.stmt && s.lookups != nil && b.unseenLookups(s.stmtLookups(o)) {
			need = true
		}
		if usesKeyQual(o) && !(b.readGroup(operatorNameGroup) && b.readGroup(btreeOpFamilyGroup)) {
			need = true
		}
		if o.kind == opNone && o.key == plannedNoTable && b.catKinds == 0 && !b.readGroup(firstPlanTypesGroup) {
			need = true
		}
		if !b.spcCached && b.usesTablespaceCache(o) {
			need = true
		}
	}
	if !need {
		return ops
	}
	out := b.catOps[:0]
	if !b.catConnected {
		// After a restart the first connection rebuilds the relation
		// cache's init files, and so does every one that starts before
		// that is done; pgbench's setup connection comes before its
		// clients, so it alone does.
		rebuild := b.e.initFileStale
		if b.client.phase.mix.pgbench {
			rebuild = rebuild && b.client.id == 0 && !b.catSetupDone
		}
		// key 1: this connection rebuilds the init files (connect).
		var key int64
		if rebuild {
			out = append(out, op{kind: opCatalog, n: catInitFile})
			key = 1
		}
		if b.client.id == 0 && b.client.phase.mix.pgbench && !b.catSetupDone {
			n := int64(catBareConnect)
			if b.client.phase.mix.builtin {
				n = catPgbenchSetup
			}
			out = append(out, op{kind: opCatalog, n: n, key: key})
			key = 0
		}
		out = append(out, op{kind: opCatalog, n: catConnect, key: key})
	}
	var kinds uint8
	analyzed, spcLooked := false, false
	planned := b.catPlanned[:0]
	var opened []int
	for _, o := range ops {
		if bit, ok := stmtKindBit(o.kind); ok && (b.catKinds|kinds)&(1<<bit) == 0 {
			key := int64(bit)
			if (b.catKinds|kinds)&^(1<<prewarmKindBit) == 0 && bit != prewarmKindBit {
				key |= firstKind
			}
			if bit == updateKindBit && s.lookups == nil {
				// Steps and built-in scripts: SET col = col + n. A
				// script file's statement names its arithmetic
				// (pgscript.Lookups: "op:arith").
				key = b.routeGroups(key, []lookupGroup{arithmeticGroup})
			}
			if b.e.ver >= 1000 && (bit == updateKindBit || bit == deleteKindBit) && (b.catKinds|kinds)&(1<<updateKindBit|1<<deleteKindBit) == 0 {
				key |= withPublications
			}
			if key&firstKind != 0 {
				// The first plan reads the output types' pages
				// (catStmtKind), and every statement of a kind names
				// its relation; by key it matches the index qual's =.
				b.catGroups |= 1 << firstPlanTypesGroup
				key = b.routeGroups(key, []lookupGroup{namesGroup})
				if usesKeyQual(&o) {
					key = b.routeGroups(key, keyQualGroupsOf(&o))
				}
			}
			kinds |= 1 << bit
			out = append(out, op{kind: opCatalog, n: catStmtKind, key: key})
		}
		if usesKeyQual(&o) {
			for _, g := range keyQualGroupsOf(&o) {
				if !b.readGroup(g) {
					out = append(out, b.groupOp(g))
				}
			}
		}
		if o.kind == opNone && o.key == plannedNoTable && b.catKinds|kinds == 0 && !b.readGroup(firstPlanTypesGroup) {
			// A statement on no relation (SELECT 1, a function call)
			// as a session's first: the output types' pages of a
			// first plan (catalogFirstPlanCold), which the first plan of
			// a kind reads again on its accesses.
			b.catGroups |= 1 << firstPlanTypesGroup
			out = append(out, op{kind: opCatalog, n: catFirstPlan})
		}
		if o.stmt && s.lookups != nil {
			out = b.lookupOps(s.stmtLookups(&o), out)
		}
		if !b.spcCached && !spcLooked && b.usesTablespaceCache(&o) {
			spcLooked = true
			out = append(out, op{kind: opCatalog, n: catTablespace})
		}
		if o.t != nil {
			have := b.catSeen[o.t.ord]
			if slices.Contains(planned, o.t.ord) {
				have = catPlanned
			} else if slices.Contains(opened, o.t.ord) {
				have = max(have, catOpened)
			}
			if level := catLevel(o.kind); have < level {
				ro := op{kind: opCatalog, n: catRelation, t: o.t}
				switch {
				case o.kind == opPrewarm:
					ro.key = catRelOpenOnly
				case o.kind == opAnalyze:
					ro.key = catRelNoPlan
				case have == catOpened:
					ro.key = catRelPlanOnly
				case o.kind == opInsert:
					ro.key = catRelNoStats
				}
				if level == catPlanned || o.kind == opPrewarm {
					planned = append(planned, o.t.ord)
				} else {
					opened = append(opened, o.t.ord)
				}
				out = append(out, ro)
				if b.e.ver >= 1800 && o.t.pkey != nil && ro.key != catRelPlanOnly {
					out = append(out, b.notNullConstraintOp())
				}
			}
		}
		out = append(out, o)
		if o.kind == opVacuum {
			// vacuum_rel's updates at the command's end.
			out = append(out, op{kind: opCatalog, n: catVacuum})
		}
		if o.kind == opAnalyze || o.kind == opVacuum && o.analyze {
			ao := op{kind: opCatalog, n: catAnalyze}
			if !b.catAnalyzed && !analyzed {
				ao.key = b.routeGroups(1, analyzeGroups)
				analyzed = true
			}
			out = append(out, ao)
		}
	}
	b.catPlanned = planned
	b.catOps = ops[:0] // the two buffers swap
	return out
}

// execCatalog reads the work item's catalog pages, each pinned and
// released at once (a catalog index scan or heap fetch), then records the
// work as done for this connection.
func (b *backend) execCatalog(o *op) bool {
	if b.sub == 1 {
		b.catGids = b.e.catalogPages(o, b.catGids[:0])
		b.touched = 0
		b.sub = 2
	}
	b.catalogWork = !(o.n == catRelation && o.key == catRelOpenOnly)
	if !b.touchPages(b.catGids, b.e.costs.IndexLevel) {
		return false
	}
	b.catalogWork = false
	switch o.n {
	case catConnect:
		b.catConnected = true
	case catInitFile:
		b.e.initFileStale = false
	case catPgbenchSetup, catBareConnect:
		b.catSetupDone = true
		if o.n == catPgbenchSetup {
			b.e.countSetupScan()
		}
	case catRelation:
		if o.key == catRelNoPlan {
			b.catSeen[o.t.ord] = max(b.catSeen[o.t.ord], catOpened)
		} else {
			b.catSeen[o.t.ord] = catPlanned
		}
	case catStmtKind:
		b.catKinds |= 1 << (o.key & kindBits)
	case catAnalyze:
		b.catAnalyzed = true
	case catTablespace:
		b.spcCached = true
	}
	return true
}

// usesTablespaceCache reports whether o's statement looks up its
// relation's tablespace in the backend's tablespace cache
// (catalogTablespace): a plan that costs a scan of the relation, an
// ANALYZE (14+), a read stream (17+: pg_prewarm's buffer mode; 18's
// VACUUM).
func (b *backend) usesTablespaceCache(o *op) bool {
	if o.t == nil {
		return false
	}
	e := b.e
	switch o.kind {
	case opFetch, opUpdate, opSeqscan, opDeleteKey, opDeleteAll, opUpdateAll, opRange, opList, opUpdateRange, opDeleteRange, opUpdateList, opDeleteList:
		return true
	case opAnalyze:
		return e.ver >= 1400
	case opVacuum:
		return e.vacuumUsesStream() || o.analyze && e.ver >= 1400
	case opPrewarm:
		return o.mode == prewarmBuffer && e.usesReadStream()
	}
	return false
}

// countSetupScan counts the sequential scan of pgbench_branches that
// pgbench's setup connection makes for a built-in script (pgbench.c
// GetTableInfo: select count(*) from pgbench_branches), with its rows,
// in the table's scan counters; its pages are among the connection's
// catalog accesses.
func (e *engine) countSetupScan() {
	for _, t := range e.db.tables {
		if t.name == "pgbench_branches" {
			e.countSeqScan(t)
			e.countSeqTuples(t, int(t.heap.Rows))
		}
	}
}
