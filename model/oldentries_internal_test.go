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
	if m.one.len()+len(m.more) != len(ref) {
		t.Fatalf("%d rows held, want %d", m.one.len()+len(m.more), len(ref))
	}
}

// rowBlocks answers as a map would through puts, deletions and filters
// that grow it past several sizes and make long probe runs (rows that
// share a home slot, deletions inside runs: the backward shift), rows
// past 32 bits included.
func TestRowBlocksMatchesAMap(t *testing.T) {
	var m rowBlocks
	ref := map[int64]int32{}
	rng := rand.New(rand.NewPCG(5, 6))
	// Rows from a small range collide often once the table is full; a
	// few past 2^32 go to its map.
	row := func() int64 {
		if rng.IntN(50) == 0 {
			return 1<<32 + rng.Int64N(100)
		}
		return 1 + rng.Int64N(30000)
	}
	check := func(step int) {
		if m.len() != len(ref) {
			t.Fatalf("step %d: %d rows, want %d", step, m.len(), len(ref))
		}
		for r, want := range ref {
			if got, ok := m.get(r); !ok || got != want {
				t.Fatalf("step %d: row %d gives %d, %v; want %d", step, r, got, ok, want)
			}
		}
		for k := 0; k < 200; k++ {
			r := row()
			_, ok := m.get(r)
			if _, want := ref[r]; ok != want {
				t.Fatalf("step %d: row %d present %v, want %v", step, r, ok, want)
			}
		}
	}
	for step := 0; step < 60000; step++ {
		r := row()
		switch k := rng.IntN(1000); {
		case k == 0:
			drop := int32(rng.IntN(8))
			m.filter(func(_ int64, b int32) bool { return b != drop })
			for r, b := range ref {
				if b == drop {
					delete(ref, r)
				}
			}
		case k < 350:
			m.del(r)
			delete(ref, r)
		default:
			b := int32(rng.IntN(8))
			m.put(r, b)
			ref[r] = b
		}
		if step%5000 == 0 {
			check(step)
		}
	}
	check(-1)
	if len(m.slots) < 1<<14 {
		t.Fatalf("the table stayed at %d slots: the test did not make it grow", len(m.slots))
	}
}
