// Package gcpace sets the Go garbage collector's pace for one long
// simulation: how much garbage the heap may hold above its live state.
//
// Go's default (GOGC 100) lets the heap grow to twice its live size
// between collections. A simulation's state is mostly arrays without
// pointers (tuple groups, per-page state), which a collection marks but
// does not scan, so collecting more often costs little: a run whose live
// state is gigabytes pays the default's headroom in gigabytes of memory
// for nothing. The pacer keeps the headroom near a fixed number of bytes
// (GOGC = 100 x Headroom / live heap, between Min and Max), so small runs
// keep Go's default and large ones stay close to their live state. It
// changes only how often the collector runs, never a simulated result.
package gcpace

import (
	"runtime/debug"
	"sync"
)

// Pacer sets GOGC from the live heap it is shown: the process's, in a
// sweep that of every run in progress together.
type Pacer struct {
	Headroom int64 // bytes of garbage allowed above the live heap
	Min, Max int   // GOGC bounds, in percent
	// Set applies a GOGC value; debug.SetGCPercent when nil.
	Set func(percent int) int
	mu  sync.Mutex // Observe may be called by several runs at once (a sweep's)
	cur int
}

// Default is the pacer simulate uses: 256 MB of headroom, GOGC between
// 10 and Go's default, 100.
func Default() *Pacer { return &Pacer{Headroom: 256 << 20, Min: 10, Max: 100} }

// Percent is the GOGC the pacer wants for a live heap of live bytes.
func (p *Pacer) Percent(live int64) int {
	if live <= 0 {
		return p.Max
	}
	pc := int64(p.Max)
	if q := p.Headroom * 100 / live; q < pc {
		pc = q
	}
	return int(max(pc, int64(p.Min)))
}

// Observe sets GOGC for a live heap of live bytes, if it differs from the
// value set last.
func (p *Pacer) Observe(live int64) {
	pc := p.Percent(live)
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc == p.cur {
		return
	}
	p.cur = pc
	set := p.Set
	if set == nil {
		set = debug.SetGCPercent
	}
	set(pc)
}
