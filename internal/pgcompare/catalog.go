package pgcompare

import (
	"context"
	"fmt"
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
	// sized are the user tables and indexes whose sizes a snapshot reads.
	sized []uint32
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
	m.sized = m.sizedRelations()
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

// indexesOf returns the indexes of table, in oid order.
func (m catalogMap) indexesOf(table uint32) []uint32 {
	var out []uint32
	for _, r := range m.rels {
		if r.kind == "i" && r.table == table {
			out = append(out, r.oid)
		}
	}
	return out
}

// userTables returns the relations pg_statio_user_tables lists.
func (m catalogMap) userTables() []relInfo {
	var out []relInfo
	for _, r := range m.rels {
		if r.user && isTableKind(r.kind) {
			out = append(out, r)
		}
	}
	return out
}

// userIndexes returns the indexes pg_statio_user_indexes lists: those of a
// table of the views' kinds, filtered by the table's schema (which is the
// index's).
func (m catalogMap) userIndexes() []relInfo {
	var out []relInfo
	for _, r := range m.rels {
		if r.kind != "i" {
			continue
		}
		if t, ok := m.byOID(r.table); ok && t.user && isTableKind(t.kind) {
			out = append(out, r)
		}
	}
	return out
}

// counted returns every oid whose counters the user views fold together:
// the user tables, their indexes, their toast tables and those's indexes.
func (m catalogMap) counted() []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	add := func(oid uint32) {
		if oid != 0 && !seen[oid] {
			seen[oid] = true
			out = append(out, oid)
		}
	}
	for _, t := range m.userTables() {
		add(t.oid)
		for _, ix := range m.indexesOf(t.oid) {
			add(ix)
		}
		add(t.toast)
		if t.toast != 0 {
			for _, ix := range m.indexesOf(t.toast) {
				add(ix)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// sizedRelations are the relations whose sizes Snapshot.Sizes holds: plain
// tables and indexes outside the system schemas.
func (m catalogMap) sizedRelations() []uint32 {
	var out []uint32
	for _, r := range m.rels {
		if r.user && (r.kind == "r" || r.kind == "i") {
			out = append(out, r.oid)
		}
	}
	return out
}
