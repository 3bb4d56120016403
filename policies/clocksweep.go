package policies

import (
	"fmt"
	"slices"
)

// clock-sweep: PostgreSQL's buffer replacement since 8.1, with the 8.3
// rules (usage_count bumped at pin time, pinned buffers skipped without a
// decrement, ring pins only lifting 0 to 1).
//
// Sources: src/backend/storage/buffer/freelist.c StrategyGetBuffer and
// ClockSweepTick (the sweep, trycounter, completePasses); bufmgr.c
// PinBuffer (the increment rules) and BufferAlloc (BUF_USAGECOUNT_ONE for a
// newly loaded page); buf_internals.h BM_MAX_USAGE_COUNT = 5. See
// docs/model.md
//
// The optional correlated_reference_period is the idea of the 2014
// pgsql-hackers prototype in "Clock sweep not caching enough B-Tree leaf
// pages?" (results filed under "3-sec-delay"), after LRU-K's correlated
// reference period (O'Neil, O'Neil, Weikum, SIGMOD'93): a burst of pins of
// one buffer within the period counts as one reference, so a buffer
// re-pinned several times by one transaction does not climb straight to
// the cap. The prototype's code was not available; this is the rule as the
// project specifies it (docs/model.md marks it unverified).

// ClockSweepParams are clock-sweep's parameters.
type ClockSweepParams struct {
	MaxUsageCount int `yaml:"max_usage_count" range:"1,15" doc:"usage_count cap (BM_MAX_USAGE_COUNT, 5 in PostgreSQL); a victim search can take cap+1 passes of the hand"`
	// CorrelatedReferencePeriod is in nanoseconds of simulated time.
	CorrelatedReferencePeriod int64 `yaml:"correlated_reference_period" unit:"duration" doc:"bump a buffer's usage_count at most once per this period (0 = every pin, as PostgreSQL; the 2014 prototype used 3s)"`
}

// DefaultClockSweepParams are PostgreSQL's settings.
func DefaultClockSweepParams() ClockSweepParams {
	return ClockSweepParams{MaxUsageCount: 5}
}

var clockSweepSpec = Spec{
	BytesPerSlot: 4,
	Name:         "clock-sweep",
	Summary:      "PostgreSQL's clock sweep: usage_count 1..max_usage_count, +1 per pin, -1 per pass of the hand",
	Reference:    "PostgreSQL src/backend/storage/buffer/freelist.c StrategyGetBuffer, ClockSweepTick; bufmgr.c PinBuffer",
	Params: func() any {
		p := DefaultClockSweepParams()
		return &p
	},
	New: func(params any) (Replacement, error) {
		p, err := paramsOf("clock-sweep", params, DefaultClockSweepParams())
		if err != nil {
			return nil, err
		}
		return NewClockSweep(p)
	},
}

// ClockSweep is PostgreSQL's clock sweep. It implements Replacement,
// UsageCounter, ClockHand and SweepStats.
type ClockSweep struct {
	name     string
	pins     []int32
	usage    []uint8
	occupied []bool
	lastBump []int64 // time of the last usage bump per slot; nil when period is 0
	max      uint8
	period   int64
	hand     int32 // next slot to examine
	passes   int64 // complete passes of the hand (StrategyControl->completePasses)
	steps    int64 // slots examined by Victim, in total
	bad      contract
}

// NewClockSweep validates p and returns an uninitialised policy.
func NewClockSweep(p ClockSweepParams) (*ClockSweep, error) {
	if err := checkRanges("clock-sweep", &p); err != nil {
		return nil, err
	}
	if p.CorrelatedReferencePeriod < 0 {
		return nil, fmt.Errorf("clock-sweep: correlated_reference_period = %s must not be negative",
			formatDuration(p.CorrelatedReferencePeriod))
	}
	def := DefaultClockSweepParams()
	return &ClockSweep{
		name:   label("clock-sweep", &p, &def),
		max:    uint8(p.MaxUsageCount),
		period: p.CorrelatedReferencePeriod,
	}, nil
}

// Name implements Replacement.
func (c *ClockSweep) Name() string { return c.name }

// Init implements Replacement.
func (c *ClockSweep) Init(f *Frames) {
	n := len(f.Pins)
	c.pins = f.Pins
	c.usage = make([]uint8, n)
	c.occupied = make([]bool, n)
	if c.period > 0 {
		c.lastBump = make([]int64, n)
	}
}

// Loaded gives the new page usage_count 1 whatever the strategy: BufferAlloc
// sets BUF_USAGECOUNT_ONE with the tag, and the victim pin itself
// (PinBuffer_Locked) does not bump it. The load counts as a bump for the
// correlated reference period.
func (c *ClockSweep) Loaded(slot int32, page uint64, now int64, ring bool) {
	if c.occupied[slot] {
		c.bad.violate("Loaded(slot %d) while the slot is occupied", slot)
	}
	c.occupied[slot] = true
	c.usage[slot] = 1
	if c.lastBump != nil {
		c.lastBump[slot] = now
	}
}

// Accessed applies PinBuffer's rule: the default strategy adds 1 up to the
// cap; a ring strategy only lifts 0 to 1 ("ring buffers shouldn't evict
// others from pool"). With a correlated reference period, a bump happens
// only if the last one is at least a period old.
func (c *ClockSweep) Accessed(slot int32, now int64, ring bool) {
	u := c.usage[slot]
	if ring {
		if u != 0 {
			return
		}
	} else if u >= c.max {
		return
	}
	if c.lastBump != nil {
		if now-c.lastBump[slot] < c.period {
			return
		}
		c.lastBump[slot] = now
	}
	c.usage[slot] = u + 1
}

// Victim runs StrategyGetBuffer's sweep. Each tick examines the slot under
// the hand and advances it (ClockSweepTick; wrapping counts a complete
// pass). A pinned slot is skipped untouched and uses up one try; an
// unpinned slot with usage > 0 is decremented and resets the tries; an
// unpinned slot with usage 0 (which includes an empty slot) is the victim.
// After len(slots) tries in a row without a state change every slot is
// pinned: PostgreSQL raises "no unpinned buffers available", we return -1.
func (c *ClockSweep) Victim(now int64) (int32, int) {
	usage := c.usage
	n := len(usage)
	if n == 0 {
		return -1, 0
	}
	pins := c.pins[:n]
	h, tries, steps, wraps := int(c.hand), n, 0, int64(0)
	for {
		cur := h
		steps++
		if h++; h == n {
			h = 0
			wraps++
		}
		if pins[cur] > 0 {
			if tries--; tries == 0 {
				c.finishSweep(h, steps, wraps)
				return -1, steps
			}
			continue
		}
		if u := usage[cur]; u > 0 {
			usage[cur] = u - 1
			tries = n
			continue
		}
		c.finishSweep(h, steps, wraps)
		c.occupied[cur] = false
		return int32(cur), steps
	}
}

// finishSweep stores the hand and the counters once per Victim call.
func (c *ClockSweep) finishSweep(hand, steps int, wraps int64) {
	c.hand = int32(hand)
	c.steps += int64(steps)
	c.passes += wraps
}

// Removed forgets the page (InvalidateBuffer leaves usage_count 0). A slot
// that is already empty, e.g. a victim the pool did not need after all,
// is left alone.
func (c *ClockSweep) Removed(slot int32) {
	if !c.occupied[slot] {
		return
	}
	c.occupied[slot] = false
	c.usage[slot] = 0
}

// Usage implements UsageCounter.
func (c *ClockSweep) Usage(slot int32) int { return int(c.usage[slot]) }

// MaxUsage implements UsageCounter.
func (c *ClockSweep) MaxUsage() int { return int(c.max) }

// Hand implements ClockHand: StrategySyncStart's (nextVictimBuffer,
// completePasses), so passes*len(slots)+next is the total number of ticks.
func (c *ClockSweep) Hand() (int32, int64) { return c.hand, c.passes }

// Restart implements Restarter: StrategyInitialize sets nextVictimBuffer
// to 0, so the first sweep after a restart starts at the buffer the free
// list handed out first. PostgreSQL's completePasses starts again at 0;
// here the count goes on (SweepCounters are the run's totals), and the
// new background writer forgets the position it saved (bgwriter.c
// BgBufferSync's saved_info_valid), so no difference spans the restart.
func (c *ClockSweep) Restart() { c.hand = 0 }

// SweepCounters implements SweepStats.
func (c *ClockSweep) SweepCounters() (int64, int64) { return c.steps, c.passes }

// Check implements Replacement.
func (c *ClockSweep) Check() error {
	if err := c.bad.err(); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	n := len(c.usage)
	if len(c.pins) != n || len(c.occupied) != n {
		return fmt.Errorf("%s: %d pins, %d usage counts, %d occupancy flags", c.name, len(c.pins), n, len(c.occupied))
	}
	if n > 0 && (c.hand < 0 || int(c.hand) >= n) {
		return fmt.Errorf("%s: hand %d outside 0..%d", c.name, c.hand, n-1)
	}
	for s := range n {
		if c.usage[s] > c.max {
			return fmt.Errorf("%s: slot %d usage %d above cap %d", c.name, s, c.usage[s], c.max)
		}
		if !c.occupied[s] && c.usage[s] != 0 {
			return fmt.Errorf("%s: empty slot %d has usage %d (Accessed on an empty slot?)", c.name, s, c.usage[s])
		}
	}
	return nil
}

// UsageHistogram counts occupied slots by usage count (UsageHistogrammer).
func (c *ClockSweep) UsageHistogram(h []int64) {
	for i, u := range c.usage {
		if c.occupied[i] {
			h[u]++
		}
	}
}

// CopyStateFrom implements StateCopier.
func (c *ClockSweep) CopyStateFrom(src Replacement) error {
	s, ok := src.(*ClockSweep)
	if !ok || s.name != c.name || len(s.usage) != len(c.usage) {
		return copyMismatch(c, src)
	}
	pins := c.pins
	*c = *s
	c.pins = pins
	c.usage = slices.Clone(s.usage)
	c.occupied = slices.Clone(s.occupied)
	c.lastBump = slices.Clone(s.lastBump)
	return nil
}
