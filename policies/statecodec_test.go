package policies

import (
	"bytes"
	"slices"
	"testing"
)

// A policy written with EncodeState and read back into a new one of the
// same name and size continues as the original: the same slots for the
// rest of a trace, under other backends' pins and invalidations. Read
// into another size it is refused, and a truncated state is an error, not
// a panic. Every live policy has an encoder, so that its prewarms can be
// kept on disk (docs/sweeps.md "Prewarms kept on disk").
func TestEncodedStateContinuesAsTheSource(t *testing.T) {
	const slots, pages = 32, 120
	for _, spec := range All() {
		if spec.Offline {
			continue
		}
		if _, ok := newPolicy(t, spec.Name).(StateEncoder); !ok {
			t.Errorf("%s does not implement StateEncoder: its prewarms cannot be kept on disk", spec.Name)
			continue
		}
		t.Run(spec.Name, func(t *testing.T) {
			r := seededRNG(11)
			trace := zipfTrace(r, pages, 0.8, 6000)
			warm, rest := trace[:3000], trace[3000:]
			src := newPolicy(t, spec.Name)
			ds := newDriver(src, slots)
			runWithNoise(t, ds, warm, 1)
			var buf bytes.Buffer
			w := NewStateWriter(&buf)
			src.(StateEncoder).EncodeState(w)
			if w.Err() != nil {
				t.Fatal(w.Err())
			}
			dst := newPolicy(t, spec.Name)
			dd := newDriver(dst, slots)
			dd.adopt(ds)
			if err := dst.(StateEncoder).DecodeState(NewStateReader(bytes.NewReader(buf.Bytes()))); err != nil {
				t.Fatal(err)
			}
			got, want := runWithNoise(t, dd, rest, 2), runWithNoise(t, ds, rest, 2)
			if i := slices.Compare(got, want); i != 0 {
				t.Fatalf("the policy read back behaves differently from the one written")
			}
			other := newPolicy(t, spec.Name)
			newDriver(other, slots+1)
			if err := other.(StateEncoder).DecodeState(NewStateReader(bytes.NewReader(buf.Bytes()))); err == nil {
				t.Fatalf("a state of %d slots was read into %d", slots, slots+1)
			}
			short := newPolicy(t, spec.Name)
			newDriver(short, slots)
			if err := short.(StateEncoder).DecodeState(NewStateReader(bytes.NewReader(buf.Bytes()[:buf.Len()/2]))); err == nil {
				t.Fatalf("half a state was read without an error")
			}
		})
	}
}
