package pgcompare

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// MaxUsageCount is PostgreSQL's BM_MAX_USAGE_COUNT.
const MaxUsageCount = 5

// Usage is the usage-count distribution of shared buffers from pg_buffercache.
type Usage struct {
	// Hist[u] is the number of used buffers (any database) with usage count u.
	Hist [MaxUsageCount + 1]int64
	// Unused is the number of buffers that hold no valid page.
	Unused int64
	// ByRel maps a relation of the current database (or a shared catalog)
	// to its resident buffers by usage count, all forks folded together.
	// Names follow the Snapshot convention (bare in public, pg_catalog and
	// pg_toast, schema-qualified elsewhere).
	ByRel map[string][MaxUsageCount + 1]int64
	// Unmatched counts used buffers that belong to no relation visible in
	// the current database: other databases, or relations dropped or not
	// yet committed.
	Unmatched [MaxUsageCount + 1]int64
}

// Resident returns the number of buffers of rel in shared buffers.
func (u Usage) Resident(rel string) int64 {
	var n int64
	for _, c := range u.ByRel[rel] {
		n += c
	}
	return n
}

// usageQuery maps every buffer to its relation. pg_buffercache reports
// relfilenodes, which differ from pg_class.relfilenode for mapped catalogs
// (0 there) and change on rewrites, so the join uses pg_relation_filenode().
// Shared catalogs carry reldatabase 0. Only the default tablespaces are
// considered: relfilenodes are unique per database and tablespace.
var usageQuery = `WITH rels AS (
	SELECT pg_relation_filenode(c.oid) AS filenode,
		CASE WHEN c.relisshared THEN 0::oid
			ELSE (SELECT oid FROM pg_database WHERE datname = current_database()) END AS db,
		` + fmtRelName("n.nspname", "c.relname") + ` AS name
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE pg_relation_filenode(c.oid) IS NOT NULL
)
SELECT r.name, b.relfilenode IS NULL AS unused, coalesce(b.usagecount, 0)::int, count(*)
FROM pg_buffercache b
LEFT JOIN rels r ON r.filenode = b.relfilenode AND r.db = b.reldatabase
GROUP BY 1, 2, 3`

// UsageCounts returns the usage-count histogram of shared buffers overall
// and per relation of the current database. The query's own catalog accesses
// may bump the usage count of a few catalog buffers.
func UsageCounts(ctx context.Context, conn *pgx.Conn) (Usage, error) {
	rows, err := conn.Query(ctx, usageQuery)
	if err != nil {
		return Usage{}, fmt.Errorf("usage counts: %w", err)
	}
	defer rows.Close()
	u := Usage{ByRel: map[string][MaxUsageCount + 1]int64{}}
	for rows.Next() {
		var (
			name   *string
			unused bool
			uc     int32
			n      int64
		)
		if err := rows.Scan(&name, &unused, &uc, &n); err != nil {
			return Usage{}, fmt.Errorf("usage counts: scan: %w", err)
		}
		if err := u.add(name, unused, uc, n); err != nil {
			return Usage{}, err
		}
	}
	if err := rows.Err(); err != nil {
		return Usage{}, fmt.Errorf("usage counts: %w", err)
	}
	return u, nil
}

// add accounts n buffers of one (relation, state, usage count) group.
func (u *Usage) add(name *string, unused bool, uc int32, n int64) error {
	if unused {
		u.Unused += n
		return nil
	}
	if uc < 0 || uc > MaxUsageCount {
		return fmt.Errorf("usage counts: usage count %d out of range", uc)
	}
	u.Hist[uc] += n
	if name == nil {
		u.Unmatched[uc] += n
		return nil
	}
	h := u.ByRel[*name]
	h[uc] += n
	u.ByRel[*name] = h
	return nil
}
