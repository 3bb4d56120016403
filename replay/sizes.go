package replay

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PageSize is the size of one cache slot for byte-valued sizes: PostgreSQL's
// BLCKSZ, so 64MB is 8192 pages as for shared_buffers.
const PageSize = 8192

// Size is a cache size as the user wrote it: a number of slots, a byte size
// (`64MB`) or a percentage of the trace's distinct pages (`5%`).
type Size struct {
	// Text is the size as written, for labels.
	Text string
	// Slots is the size in pages when it is absolute.
	Slots int
	// Percent is the percentage of distinct pages when IsPercent.
	Percent   float64
	IsPercent bool
}

// memoryUnits are PostgreSQL's memory units (guc.c
// memory_unit_conversion_table), case-sensitive, powers of 1024.
var memoryUnits = []struct {
	name string
	size float64
}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1}}

// ParseSize reads one cache size: `1000` (slots), `64MB` (bytes, in units
// B, kB, MB, GB, TB as PostgreSQL writes them, a whole number of 8 kB pages),
// `5%` (of the distinct pages) or, as libCacheSim writes it, `0.05` (a
// fraction of the distinct pages).
func ParseSize(s string) (Size, error) {
	t := strings.TrimSpace(s)
	out := Size{Text: t}
	if t == "" {
		return out, fmt.Errorf("empty cache size")
	}
	if num, ok := strings.CutSuffix(t, "%"); ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(p > 0 && p <= 100) {
			return out, fmt.Errorf("cache size %q: a percentage must be above 0%% and at most 100%%", s)
		}
		out.Percent, out.IsPercent = p, true
		return out, nil
	}
	for _, u := range memoryUnits {
		num, ok := strings.CutSuffix(t, u.name)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return out, fmt.Errorf("cache size %q: expected a positive number before %s", s, u.name)
		}
		bytes := v * u.size
		pages := bytes / PageSize
		if bytes != math.Trunc(bytes) || pages != math.Trunc(pages) {
			return out, fmt.Errorf("cache size %q is not a whole number of %d kB pages", s, PageSize/1024)
		}
		if pages > maxSlots {
			return out, fmt.Errorf("cache size %q is more than %d pages", s, maxSlots)
		}
		out.Slots = int(pages)
		return out, nil
	}
	if strings.Contains(t, ".") {
		// libCacheSim's form: a fraction of the trace's distinct objects.
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return out, fmt.Errorf("cache size %q: a fraction of the distinct pages must be above 0 and at most 1 (e.g. 0.01)", s)
		}
		out.Percent, out.IsPercent = f*100, true
		return out, nil
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		if strings.ContainsAny(t, "0123456789") && strings.IndexFunc(t, isLetter) > 0 {
			return out, fmt.Errorf("cache size %q: unknown unit (use B, kB, MB, GB or TB, as postgresql.conf does)", s)
		}
		return out, fmt.Errorf("cache size %q: expected a number of pages, a size such as 64MB, or a percentage such as 5%%", s)
	}
	if n < 1 || n > maxSlots {
		return out, fmt.Errorf("cache size %q: must be 1..%d pages", s, maxSlots)
	}
	out.Slots = int(n)
	return out, nil
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// AutoSizes are what "auto" stands for: log-spaced fractions of the
// trace's distinct pages, from 0.01 % to 30 % (each at least one page).
var AutoSizes = []string{"0.0001", "0.0003", "0.001", "0.003", "0.01", "0.03", "0.1", "0.3"}

// ParseSizes reads a comma-separated list of sizes; "auto" stands for
// AutoSizes.
func ParseSizes(list string) ([]Size, error) {
	var out []Size
	for _, s := range strings.Split(list, ",") {
		if strings.TrimSpace(s) == "auto" {
			for _, a := range AutoSizes {
				z, _ := ParseSize(a)
				out = append(out, z)
			}
			continue
		}
		z, err := ParseSize(s)
		if err != nil {
			return nil, err
		}
		out = append(out, z)
	}
	return out, nil
}

// Resolve returns the size in slots for a trace with distinct pages: a
// percentage is rounded to the nearest page, and is at least one page.
func (s Size) Resolve(distinct int) int {
	if !s.IsPercent {
		return s.Slots
	}
	return max(1, int(math.Round(s.Percent/100*float64(distinct))))
}

// String returns the size as written.
func (s Size) String() string { return s.Text }
