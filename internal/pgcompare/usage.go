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

// UsageCounts returns the usage-count histogram of shared buffers overall
// and per relation of the current database, through a Monitor made for the
// occasion (its catalog reads may bump the usage count of a few catalog
// buffers; a kept Monitor's Usage reads none).
func UsageCounts(ctx context.Context, conn *pgx.Conn) (Usage, error) {
	m, err := NewMonitor(ctx, conn)
	if err != nil {
		return Usage{}, err
	}
	return m.Usage(ctx)
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
