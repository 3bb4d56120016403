package policies

import (
	"maps"
	"slices"
	"testing"
)

// A policy whose state was copied from a warmed one behaves exactly as the
// warmed one does from there on, and copying leaves the source untouched:
// a second copy taken after the first has run gives the same answers.
// (A sweep's runs share one prewarmed pool this way.)
func TestCopyStateContinuesAsTheSource(t *testing.T) {
	const slots, pages = 32, 120
	for _, spec := range All() {
		if spec.Offline {
			continue
		}
		t.Run(spec.Name, func(t *testing.T) {
			r := seededRNG(7)
			trace := zipfTrace(r, pages, 0.8, 6000)
			warm, rest := trace[:3000], trace[3000:]
			src := newPolicy(t, spec.Name)
			if _, ok := src.(StateCopier); !ok {
				t.Fatalf("%s does not implement StateCopier: a sweep cannot share its prewarm", spec.Name)
			}
			ds := newDriver(src, slots)
			runWithNoise(t, ds, warm, 1)
			before := snapshotDriver(ds)

			copyAndRun := func() []int32 {
				dst := newPolicy(t, spec.Name)
				dd := newDriver(dst, slots)
				dd.adopt(ds)
				if err := dst.(StateCopier).CopyStateFrom(src); err != nil {
					t.Fatal(err)
				}
				return runWithNoise(t, dd, rest, 2)
			}
			first := copyAndRun()
			second := copyAndRun()
			if !slices.Equal(first, second) {
				t.Fatalf("a second copy of the same source behaved differently: the first copy's run changed the source")
			}
			if got := snapshotDriver(ds); !slices.Equal(got, before) {
				t.Fatalf("the source's driver state changed")
			}
			orig := runWithNoise(t, ds, rest, 2)
			if !slices.Equal(first, orig) {
				for i := range orig {
					if first[i] != orig[i] {
						t.Fatalf("request %d after the copy: copy gave %d, the source %d", i, first[i], orig[i])
					}
				}
			}
			// A copy between different policies or sizes is refused.
			other := newPolicy(t, spec.Name)
			newDriver(other, slots+1)
			if err := other.(StateCopier).CopyStateFrom(src); err == nil {
				t.Fatalf("copying %d slots into %d was accepted", slots, slots+1)
			}
			for _, o := range All() {
				if o.Name == spec.Name || o.Offline {
					continue
				}
				p := newPolicy(t, o.Name)
				newDriver(p, slots)
				if err := p.(StateCopier).CopyStateFrom(src); err == nil {
					t.Fatalf("copying %s into %s was accepted", spec.Name, o.Name)
				}
			}
		})
	}
}

// runWithNoise replays trace with other backends' pins and occasional
// invalidations drawn from seed, and returns what each request did: the
// slot it ended in (negative for a hit: -slot-1) and, for policies with
// usage counts, every slot's count after each hundredth request.
func runWithNoise(t *testing.T, d *driver, trace []uint64, seed uint64) []int32 {
	t.Helper()
	r := seededRNG(seed)
	pins := d.frames.Pins
	var out []int32
	uc, _ := d.pol.(UsageCounter)
	for i, p := range trace {
		s := r.IntN(len(pins))
		if r.IntN(2) == 0 && pins[s] < 2 {
			pins[s]++
		} else if pins[s] > 0 {
			pins[s]--
		}
		if r.IntN(50) == 0 {
			d.remove(uint64(r.IntN(120)))
		}
		hit, err := d.access(p, 0)
		if err != nil {
			t.Fatal(err)
		}
		slot := d.slotOf[p]
		if hit {
			slot = -slot - 1
		}
		out = append(out, slot)
		if uc != nil && i%100 == 0 {
			for s := range pins {
				out = append(out, int32(uc.Usage(int32(s))))
			}
		}
	}
	if err := d.pol.Check(); err != nil {
		t.Fatal(err)
	}
	return out
}

// adopt makes d's bookkeeping (pages in slots, pins, free slots, time) a
// copy of src's.
func (d *driver) adopt(src *driver) {
	d.slotOf = maps.Clone(src.slotOf)
	d.pageOf = slices.Clone(src.pageOf)
	d.full = slices.Clone(src.full)
	d.free = slices.Clone(src.free)
	d.now = src.now
	copy(d.frames.Pins, src.frames.Pins)
}

func snapshotDriver(d *driver) []int32 {
	out := slices.Clone(d.frames.Pins)
	for _, p := range d.pageOf {
		out = append(out, int32(p))
	}
	return append(out, d.free...)
}
