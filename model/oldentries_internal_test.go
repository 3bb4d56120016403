package model

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// oldEntryMap gives every row the blocks a list per row would, in the
// same order, through random adds, removals and VACUUM's filter.
func TestOldEntryMapMatchesAListPerRow(t *testing.T) {
	var m oldEntryMap
	ref := map[int64][]int32{}
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(step int) {
		for row := int64(0); row < 50; row++ {
			if got := m.appendTo(row, nil); !slices.Equal(got, ref[row]) {
				t.Fatalf("step %d row %d: %v, want %v", step, row, got, ref[row])
			}
		}
	}
	for step := 0; step < 20000; step++ {
		row, blk := int64(rng.IntN(50)), int32(rng.IntN(6))
		switch rng.IntN(10) {
		case 0:
			drop := int32(rng.IntN(6))
			m.filter(func(_ int64, b int32) bool { return b != drop })
			for r, es := range ref {
				es = slices.DeleteFunc(es, func(b int32) bool { return b == drop })
				if len(es) == 0 {
					delete(ref, r)
				} else {
					ref[r] = es
				}
			}
		case 1, 2, 3:
			m.remove(row, blk)
			if es := slices.DeleteFunc(ref[row], func(b int32) bool { return b == blk }); len(es) == 0 {
				delete(ref, row)
			} else {
				ref[row] = es
			}
		default:
			m.add(row, blk)
			if !slices.Contains(ref[row], blk) {
				ref[row] = append(ref[row], blk)
			}
		}
		check(step)
	}
	if len(m.one)+len(m.more) != len(ref) {
		t.Fatalf("%d rows held, want %d", len(m.one)+len(m.more), len(ref))
	}
}
