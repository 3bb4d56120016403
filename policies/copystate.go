package policies

import (
	"fmt"
	"maps"
	"slices"
)

// StateCopier is implemented by policies whose whole state can be copied
// from another instance of the same policy. The model uses it to share
// one prewarm among the runs of a sweep: it warms a pool once, keeps it,
// and copies its state into each run's pool (model/prewarmshare.go), which
// must then behave exactly as the warmed pool would.
type StateCopier interface {
	// CopyStateFrom makes the receiver's state equal to src's. src must be
	// the same policy with the same parameters, initialised for as many
	// slots; the receiver keeps its own Frames. src is only read, so many
	// receivers may copy from one src at the same time, and nothing the
	// receiver does afterwards reaches src.
	CopyStateFrom(src Replacement) error
}

// copyMismatch is the error of a CopyStateFrom whose source does not fit.
func copyMismatch(dst, src Replacement) error {
	return fmt.Errorf("cannot copy the state of %s (%T) into %s (%T): not the same policy, parameters or size", src.Name(), src, dst.Name(), dst)
}

func (l links) clone() links { return links{prev: slices.Clone(l.prev), next: slices.Clone(l.next)} }

func (g ghosts) clone() ghosts {
	return ghosts{
		key:   slices.Clone(g.key),
		prev:  slices.Clone(g.prev),
		next:  slices.Clone(g.next),
		list:  slices.Clone(g.list),
		free:  slices.Clone(g.free),
		index: maps.Clone(g.index),
		lists: slices.Clone(g.lists),
	}
}

func (g ghostFIFO) clone() ghostFIFO {
	c := g
	c.pos = maps.Clone(g.pos)
	c.key = slices.Clone(g.key)
	c.prev = slices.Clone(g.prev)
	c.next = slices.Clone(g.next)
	c.free = slices.Clone(g.free)
	return c
}
