package model

import (
	"fmt"
	"strconv"

	"github.com/pgbufsim/pgbufsim/model/btree"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/heap"
)

// table is a heap relation with its visibility-map fork and, optionally, a
// primary key.
type table struct {
	name string
	// ord is the table's number in the database; catOrd its relation's
	// in pg_catalog (its index is catOrd + 1).
	ord, catOrd int
	heap        *heap.Table
	rel         catalog.RelID
	vm          catalog.RelID // visibility map fork
	fsm         *fsmMap       // free space map fork
	pkey        *index
	extLock     extensionLock // hio.go
	// oldEntries lists, per row, the heap blocks of its index entries
	// that older versions left behind (non-HOT updates) and no scan has
	// marked dead yet (nbtree.go).
	oldEntries oldEntryMap
	// nextKey is the key of the last row inserted (keys after the loaded
	// rows, for the primary key).
	nextKey int64
	// createdInXact is the xid of the transaction that created or
	// truncated the table, if still running (COPY skips the free space
	// map then: TABLE_INSERT_SKIP_FSM).
	createdInXact uint32
	// loadedVacuumed: the initial load was VACUUMed (its free space map
	// is complete).
	loadedVacuumed bool
	// tupleData is a row's user data in bytes (costs.tuple_byte; a
	// tuple's t_len is 24 more, its WAL records' sizes follow from it).
	tupleData int64

	// pgstat counters for autovacuum (n_dead_tup, n_ins_since_vacuum,
	// reltuples as of the last vacuum or load).
	deadTuples, insSinceVacuum int64
	reltuples, relpages        int64
	// relallvisible is pg_class.relallvisible: the all-visible pages as
	// the last VACUUM or ANALYZE counted them (visibilitymap_count), or
	// as the load left them.
	relallvisible int64
	vacuuming     bool
	// modSinceAnalyze is n_mod_since_analyze: rows inserted, updated and
	// deleted by committed transactions since the last ANALYZE.
	modSinceAnalyze int64
	// avBusy: an autovacuum worker has the table (do_autovacuum skips a
	// table another worker is processing).
	avBusy bool
	// columns is the table's column count: ANALYZE computes and writes
	// statistics for each.
	columns int
	// analyzed: the table has pg_statistic rows and reltuples (ANALYZE
	// ran on it: pgbench -i's VACUUM ANALYZE, a declared table loaded
	// vacuumed); a never-analyzed table's first ANALYZE inserts them.
	analyzed bool
	// relstats: pg_class.reltuples is known, not -1 (a VACUUM or ANALYZE
	// ran on the table, or its load was VACUUMed): the planner estimates
	// its size from it instead of from its columns' widths.
	relstats bool
}

// textBytes is the text a SELECT's character-walking call reads in one of
// t's rows (costs.text_char): the row's data less a 4-byte key and the
// text's 1-byte varlena header. The model knows a row's width, not its
// columns': for a table of a key and one text column it is the text's
// length exactly (row_width 105: 100 characters).
func (t *table) textBytes() int64 { return max(0, t.tupleData-5) }

// hasRow reports whether key names a row of the table's initial load, the
// keys its primary key holds (rows 1..Rows; later inserts are not indexed).
func (t *table) hasRow(key int64) bool { return key >= 1 && key <= t.heap.Rows }

type index struct {
	name string
	bt   *btree.Index
	rel  catalog.RelID
	// deadPerLeaf counts, by leaf block, the entries of the heap's LP_DEAD
	// items that VACUUM's index pass will delete (noteDead).
	deadPerLeaf []int32
}

// noteDead adds the entries of LP_DEAD items a prune of t left: a row's
// entry is its key's; untagged tuples are taken as the rows loaded on
// their block, all on the leaf of the first row loaded there.
func (x *index) noteDead(t *table, dead []heap.DeadEntry) {
	for _, d := range dead {
		key := d.Row
		if key <= 0 {
			key = t.heap.FirstRowOn(d.Block)
		}
		leaf := x.bt.Leaf(key)
		if int(leaf) >= len(x.deadPerLeaf) {
			x.deadPerLeaf = append(x.deadPerLeaf, make([]int32, int(leaf)+1-len(x.deadPerLeaf))...)
		}
		x.deadPerLeaf[leaf] += d.N
	}
}

// database holds every relation of a run.
type database struct {
	cat                                  *catalog.Catalog
	accounts, tellers, branches, history *table
	scale                                int
	tables                               []*table
	groups                               map[string][]*table // declared name -> members
	heapPerVM                            int32
	sysCatalog                           catalog.RelID    // pg_catalog, if modelled (syscatalog.go)
	sysGlobal                            catalog.RelID    // the shared catalogs (pg_global), likewise
	catAttrPages, catClassPages          int32            // pg_catalog's pages of relations' rows
	catLeafPages                         int32            // ... and of each of their index leaves
	catColdBase                          int32            // pg_catalog's first page after them (syscatalog.go: the cold regions)
	lookupSlots                          map[string]int32 // a catalog lookup's first page in the lookup region, by name (assigned at first use)
	lookupNext                           int32            // the next free page of the lookup region
	// heapOf maps a relation to its table when it is one (nil otherwise).
	heapOf []*table
}

// heapTable returns the table whose heap rel is, or nil.
func (db *database) heapTable(rel catalog.RelID) *table {
	if int(rel) < len(db.heapOf) {
		return db.heapOf[rel]
	}
	return nil
}

// heapPerVMPage is how many heap pages one visibility-map page covers:
// 32672 with the 2-bit format of 9.6+, 65344 with one bit per page before
// (docs/model.md).
func heapPerVMPage(ver int) int32 {
	if ver >= 906 {
		return 32672
	}
	return 65344
}

func (db *database) addTable(name string, h *heap.Table, withPkey bool) *table {
	t := &table{name: name, ord: len(db.tables), heap: h, reltuples: h.Rows, relpages: int64(h.NBlocks()), relallvisible: int64(h.AllVisibleCount()), nextKey: h.Rows}
	// A tuple's user data, MAXALIGNed, as the page holds it: what is left
	// of a page's share per tuple after its 24-byte header and 4-byte
	// line pointer (heap.Layout's arithmetic backwards); a relation
	// declared by row_width has it exactly (buildDatabase).
	t.tupleData = int64(max(0, (8192-24)/max(h.MaxRows, 1)-28))
	t.rel = db.cat.Add(name, catalog.Heap, h.NBlocks())
	t.vm = db.cat.Add(name+"_vm", catalog.VM, db.vmPagesFor(h.NBlocks()))
	if withPkey {
		bt := btree.New(h.Rows)
		t.pkey = &index{name: name + "_pkey", bt: bt}
		t.pkey.rel = db.cat.Add(t.pkey.name, catalog.BTree, bt.NBlocks())
		h.TrackDeadEntries = true
	}
	db.tables = append(db.tables, t)
	db.groups[name] = append(db.groups[name], t)
	for int(t.rel) >= len(db.heapOf) {
		db.heapOf = append(db.heapOf, nil)
	}
	db.heapOf[t.rel] = t
	return t
}

func (db *database) vmPagesFor(blocks int32) int32 {
	if blocks == 0 {
		return 0
	}
	return (blocks + db.heapPerVM - 1) / db.heapPerVM
}

// vmGID returns the gid of the VM page covering heap block blk, extending
// the fork if the heap has grown past it (vm_readbuf with extend). Up to 15
// vm_extend writes the new pages with smgrextend and the caller's
// ReadBuffer then reads them; from 16 vm_extend is ExtendBufferedRelTo
// (visibilitymap.c), which leaves them valid in shared buffers: the
// caller's access of each is its extension (forkExtended).
func (e *engine) vmGID(t *table, blk int32) int32 {
	vmBlk := blk / e.db.heapPerVM
	first := true
	for e.cat.Rel(t.vm).NBlocks <= vmBlk {
		_, gid, ok := e.extend(t.vm)
		if !ok {
			return e.cat.GID(t.vm, 0)
		}
		if e.ver >= 1600 {
			e.forkExtended = append(e.forkExtended, forkPage{gid: gid, first: first})
			first = false
		}
	}
	return e.cat.GID(t.vm, vmBlk)
}

// baseState is the header state of loaded rows for a declared state.
func baseState(state string, ver int) (heap.Group, bool) {
	switch state {
	case "fresh":
		return heap.Group{Xmin: firstLoadXid}, false
	case "hinted":
		return heap.Group{Xmin: firstLoadXid, Hints: heap.XminCommitted}, false
	}
	// vacuumed: hinted and all-visible; frozen from 14 (COPY FREEZE in
	// pgbench -i, and VACUUM's opportunistic freezing).
	g := heap.Group{Xmin: firstLoadXid, Hints: heap.XminCommitted}
	if ver >= 1400 {
		g.Hints = heap.Frozen
	}
	return g, true
}

// pgbenchColumns are the columns of pgbench's tables (pgbench.c
// initCreateTables).
var pgbenchColumns = map[string]int{"pgbench_accounts": 4, "pgbench_tellers": 4, "pgbench_branches": 3, "pgbench_history": 6}

// buildDatabase creates pgbench's tables (if scale > 0) and the declared
// relations.
func buildDatabase(cat *catalog.Catalog, sc Scenario, ver int) (*database, error) {
	db := &database{cat: cat, scale: sc.Tables.PGBench.Scale, groups: map[string][]*table{}, heapPerVM: heapPerVMPage(ver)}
	if s := int64(sc.Tables.PGBench.Scale); s > 0 {
		ff := sc.Tables.PGBench.Fillfactor
		base, allVis := baseState("vacuumed", ver)
		mk := func(name string, rows int64, tuple, fill int, pkey bool) (*table, error) {
			h, err := heap.New(name, rows, tuple, fill, base, allVis)
			if err != nil {
				return nil, err
			}
			t := db.addTable(name, h, pkey)
			t.loadedVacuumed = true
			t.analyzed, t.relstats = true, true
			t.columns = pgbenchColumns[name]
			return t, nil
		}
		var err error
		if db.accounts, err = mk("pgbench_accounts", accountsPerScale*s, accountsTuple, ff, true); err != nil {
			return nil, err
		}
		if db.tellers, err = mk("pgbench_tellers", tellersPerScale*s, tellersTuple, ff, true); err != nil {
			return nil, err
		}
		if db.branches, err = mk("pgbench_branches", branchesPerScale*s, branchesTuple, ff, true); err != nil {
			return nil, err
		}
		if db.history, err = mk("pgbench_history", 0, historyTuple, 100, false); err != nil {
			return nil, err
		}
	}
	for i, tc := range sc.Tables.Relations {
		at := "tables.relations[" + strconv.Itoa(i) + "]"
		perPage, maxRows, err := tableLayout(tc)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		rows := tc.Rows
		if tc.Pages > 0 {
			rows = tc.Pages * int64(perPage)
		}
		base, allVis := baseState(tc.State, ver)
		for m := 1; m <= tc.Count; m++ {
			name := tc.Name
			if tc.Count > 1 {
				name = tc.Name + "_" + strconv.Itoa(m)
			}
			h := heap.NewPerPage(name, rows, perPage, maxRows, base, allVis && rows > 0)
			if tc.LoadOrder == "random" && rows > 1 {
				// Each table of a group has its own order, drawn from the
				// run's seed and its name.
				h.SetLoadOrder(heap.NewPermutation(rows, loadOrderSeed(sc.Seed, name)))
			}
			t := db.addTable(name, h, tc.Index)
			t.loadedVacuumed = tc.State == "vacuumed"
			if !t.loadedVacuumed {
				// No VACUUM has created the visibility map fork yet
				// (vm_extend: VACUUM's visibilitymap_pin is its first
				// user; an insert pins it only on an all-visible page).
				db.cat.Truncate(t.vm)
			}
			t.columns = tc.Columns
			t.analyzed, t.relstats = t.loadedVacuumed, t.loadedVacuumed
			if tc.RowsPerPage == 0 && tc.RowWidth > 0 {
				t.tupleData = int64(tc.RowWidth)
			}
			if tc.Count > 1 {
				db.groups[tc.Name] = append(db.groups[tc.Name], t)
			}
		}
	}
	if sc.Server.SystemCatalogs {
		db.addSystemCatalog()
	}
	return db, nil
}

// loadOrderSeed is the seed of a table's random load order: FNV-1a of its
// name, mixed with the run's seed.
func loadOrderSeed(seed int64, name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	return h ^ uint64(seed)*0x9e3779b97f4a7c15
}

// tableLayout is a declared table's rows per page and physical capacity.
func tableLayout(tc TableConfig) (perPage, maxRows int, err error) {
	if tc.RowsPerPage > 0 {
		return tc.RowsPerPage, tc.RowsPerPage, nil
	}
	return heap.Layout(tc.RowWidth, tc.Fillfactor)
}

// lookup finds a table (or group) by its declared name.
func (db *database) lookup(name string) []*table { return db.groups[name] }
