package pgcompare

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/jackc/pgx/v5"
)

// relInfo is one relation of the database as the statistics views see it.
type relInfo struct {
	oid  uint32
	name string // bare in public, pg_catalog and pg_toast; schema-qualified elsewhere
	kind string // pg_class.relkind
	// user is true outside pg_catalog, information_schema and the pg_toast*
	// schemas: the filter of pg_statio_user_tables and its siblings.
	user bool
	// table is pg_index.indrelid for an index, 0 otherwise.
	table uint32
	// toast is pg_class.reltoastrelid (0 if none).
	toast uint32
	// filenode is pg_relation_filenode(oid): the name of its files under
	// base/<database oid>/ (0 for a relation without storage).
	filenode uint32
}

// catalogMap is what a Monitor resolves once from the catalogs so that its
// snapshots need none: the relations whose counters the statistics views
// fold together, and the relfilenodes that pg_buffercache reports.
type catalogMap struct {
	dbOID uint32
	rels  []relInfo // by oid
	// byFilenode maps (database oid, or 0 for a shared catalog; filenode)
	// to the relation's name, for pg_buffercache's rows. Filenodes differ
	// from pg_class.relfilenode for mapped catalogs (0 there) and change on
	// rewrites, hence pg_relation_filenode().
	byFilenode map[[2]uint32]string

	// Derived from rels once (derive), so that a snapshot only looks up:
	// indexes maps a table's oid to its indexes' (oid order); tables and
	// userIdx are what pg_statio_user_tables and pg_statio_user_indexes
	// list; counted every oid whose counters those views fold together;
	// sized the user tables and indexes whose sizes a snapshot reads.
	indexes         map[uint32][]uint32
	tables, userIdx []relInfo
	counted, sized  []uint32
}

// catalogQuery reads every relation once. It is the only query of a Monitor
// that scans catalogs; Monitor runs it when relations may have changed, never
// inside a measured step.
var catalogQuery = `SELECT c.oid, ` + fmtRelName("n.nspname", "c.relname") + ` AS name, c.relkind::text,
	NOT (n.nspname IN ('pg_catalog', 'information_schema') OR n.nspname ~ '^pg_toast') AS user_rel,
	coalesce(i.indrelid, 0::oid), c.reltoastrelid, pg_relation_filenode(c.oid), c.relisshared,
	(SELECT oid FROM pg_database WHERE datname = current_database())
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_index i ON i.indexrelid = c.oid
ORDER BY c.oid`

// resolveCatalog reads the catalog map in conn.
func resolveCatalog(ctx context.Context, conn *pgx.Conn) (catalogMap, error) {
	rows, err := conn.Query(ctx, catalogQuery)
	if err != nil {
		return catalogMap{}, fmt.Errorf("resolve relations: %w", err)
	}
	defer rows.Close()
	m := catalogMap{byFilenode: map[[2]uint32]string{}}
	for rows.Next() {
		var (
			r        relInfo
			filenode *uint32
			shared   bool
			db       uint32
		)
		if err := rows.Scan(&r.oid, &r.name, &r.kind, &r.user, &r.table, &r.toast, &filenode, &shared, &db); err != nil {
			return catalogMap{}, fmt.Errorf("resolve relations: %w", err)
		}
		m.dbOID = db
		if filenode != nil {
			r.filenode = *filenode
		}
		m.rels = append(m.rels, r)
		if filenode != nil {
			key := [2]uint32{db, *filenode}
			if shared {
				key[0] = 0
			}
			m.byFilenode[key] = r.name
		}
	}
	if err := rows.Err(); err != nil {
		return catalogMap{}, fmt.Errorf("resolve relations: %w", err)
	}
	m.derive()
	return m, nil
}

// isTableKind is the relkind filter of pg_statio_all_tables and
// pg_statio_all_indexes (system_views.sql): tables, toast tables and
// materialized views.
func isTableKind(kind string) bool { return kind == "r" || kind == "t" || kind == "m" }

// byOID returns the relation with that oid.
func (m catalogMap) byOID(oid uint32) (relInfo, bool) {
	i := sort.Search(len(m.rels), func(i int) bool { return m.rels[i].oid >= oid })
	if i < len(m.rels) && m.rels[i].oid == oid {
		return m.rels[i], true
	}
	return relInfo{}, false
}

// derive fills the derived fields from rels (in oid order).
func (m *catalogMap) derive() {
	m.indexes = map[uint32][]uint32{}
	for _, r := range m.rels {
		if r.kind == "i" {
			m.indexes[r.table] = append(m.indexes[r.table], r.oid)
		}
	}
	m.tables, m.userIdx, m.counted, m.sized = nil, nil, nil, nil
	for _, r := range m.rels {
		switch {
		case r.user && isTableKind(r.kind):
			m.tables = append(m.tables, r)
		case r.kind == "i":
			// pg_statio_user_indexes: indexes of a table of the views'
			// kinds, filtered by the table's schema (the index's).
			if t, ok := m.byOID(r.table); ok && t.user && isTableKind(t.kind) {
				m.userIdx = append(m.userIdx, r)
			}
		}
		if r.user && (r.kind == "r" || r.kind == "i") {
			m.sized = append(m.sized, r.oid)
		}
	}
	// The user tables, their indexes, their toast tables and those's
	// indexes.
	seen := map[uint32]bool{}
	add := func(oid uint32) {
		if oid != 0 && !seen[oid] {
			seen[oid] = true
			m.counted = append(m.counted, oid)
		}
	}
	for _, t := range m.tables {
		add(t.oid)
		for _, ix := range m.indexes[t.oid] {
			add(ix)
		}
		if t.toast != 0 {
			add(t.toast)
			for _, ix := range m.indexes[t.toast] {
				add(ix)
			}
		}
	}
	slices.Sort(m.counted)
}
