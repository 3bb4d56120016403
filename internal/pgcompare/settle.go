package pgcompare

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

const (
	// SettleInterval separates the reads of Settle; it is a bit
	// longer than PGSTAT_MIN_INTERVAL (1 s), the shortest time between two
	// flushes of one backend.
	SettleInterval = 1200 * time.Millisecond
	// SettleMax is how long a measured pgbench step's Settle waits at most.
	SettleMax = 5 * time.Second
)

// selfTouched are pg_stat_database counters that the reading session itself
// advances with every snapshot (catalog hits, its own transactions), so they
// can never agree between two reads and are not compared.
var selfTouched = map[string]bool{
	"blks_hit": true, "blks_read": true, "xact_commit": true,
	"tup_returned": true, "tup_fetched": true,
}

// SettleInfo tells how a settled snapshot was obtained.
type SettleInfo struct {
	Reads   int  // snapshots taken, including the returned one
	Settled bool // the last two reads agreed; false if max was reached
	// Changed lists the counters that still differed between the last two
	// reads when Settled is false, to show what kept moving.
	Changed []string
}

// Settle takes snapshots SettleInterval apart until two consecutive ones
// agree, for at most max, and returns the last one with a report. Use it
// after other sessions (pgbench clients) did work: their counters appear
// only once they flushed, usually just after they disconnect. It does not
// fail when the counters never settle (the report says so). Two reads
// agree when all per-table and per-index counters are equal, and so are the
// database counters other than the ones the reading session advances itself
// (blks_hit, blks_read, xact_commit, tup_returned, tup_fetched) and the
// background-writer counters other than the time-driven ones (buffers_clean,
// maxwritten_clean, checkpoint counters, pg_stat_io, pg_stat_checkpointer).
// Times (keys ending in _us) are never compared. The returned snapshot still
// contains all counters, so background writes that happened while settling
// are part of a delta computed from it. Every read adds one snapshot
// cost to the database-level counters; Run subtracts Reads times the
// calibrated cost.
func (m *Monitor) Settle(ctx context.Context, max time.Duration) (Snapshot, SettleInfo, error) {
	start := time.Now()
	prev, err := m.Snapshot(ctx)
	if err != nil {
		return Snapshot{}, SettleInfo{}, err
	}
	info := SettleInfo{Reads: 1}
	for time.Since(start)+SettleInterval <= max {
		if err := sleep(ctx, SettleInterval); err != nil {
			return Snapshot{}, info, fmt.Errorf("settle: %w", err)
		}
		cur, err := m.Snapshot(ctx)
		if err != nil {
			return Snapshot{}, info, err
		}
		info.Reads++
		info.Changed = changed(prev, cur)
		if len(info.Changed) == 0 {
			info.Settled = true
			return cur, info, nil
		}
		prev = cur
	}
	return prev, info, nil
}

// changed lists the counters (as "view.key" or "table.rel.key") that show
// different outside activity in a and b; empty means they agree.
func changed(a, b Snapshot) []string {
	dbKeep := func(k string) bool { return !selfTouched[k] && !isTime(k) }
	bgKeep := func(k string) bool { return !isTime(k) && !backgroundDriven(k) }
	all := func(k string) bool { return !isTime(k) }
	var out []string
	out = append(out, diffKeys("database.", a.Database, b.Database, dbKeep)...)
	out = append(out, diffKeys("bgwriter.", a.Bgwriter, b.Bgwriter, bgKeep)...)
	out = append(out, diffNested("tables.", a.Tables, b.Tables, all)...)
	out = append(out, diffNested("indexes.", a.Indexes, b.Indexes, all)...)
	sort.Strings(out)
	return out
}

func isTime(k string) bool { return strings.HasSuffix(k, "_us") }

// timeDrivenBgwriter are pg_stat_bgwriter counters that keep moving with no
// client activity: the background writer scans the whole pool at a minimum
// rate (every ~2 min) and cleans dirty buffers it meets, and the checkpointer
// runs timed checkpoints. Waiting for them would never settle.
var timeDrivenBgwriter = map[string]bool{
	"buffers_clean": true, "maxwritten_clean": true, "buffers_checkpoint": true,
	"checkpoints_timed": true, "checkpoints_req": true,
}

// backgroundDriven reports whether a Bgwriter key is not a sign of
// outstanding client activity. pg_stat_io (16+) mixes all process types and
// also counts the reading session's own hits, and pg_stat_checkpointer (17+)
// is the checkpointer's, so neither is compared.
func backgroundDriven(k string) bool {
	return timeDrivenBgwriter[k] || strings.HasPrefix(k, "io_") || strings.HasPrefix(k, "checkpointer_")
}

// diffKeys lists the kept keys whose values differ or exist on one side only.
func diffKeys(prefix string, a, b map[string]int64, keep func(string) bool) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; keep(k) && (!ok || v != w) {
			out = append(out, prefix+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; keep(k) && !ok {
			out = append(out, prefix+k)
		}
	}
	return out
}

func diffNested(prefix string, a, b map[string]map[string]int64, keep func(string) bool) []string {
	var out []string
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			out = append(out, prefix+k)
			continue
		}
		out = append(out, diffKeys(prefix+k+".", v, w, keep)...)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, prefix+k)
		}
	}
	return out
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
