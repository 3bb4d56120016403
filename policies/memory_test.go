package policies_test

import (
	"runtime"
	"testing"

	"github.com/pgbufsim/pgbufsim/policies"
)

func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Each policy's BytesPerSlot, which the model's memory estimate uses to
// refuse runs that cannot fit, must not understate what the policy really
// keeps per slot once every slot holds a page (and, for policies with
// history, their ghost lists are full), nor overstate it grossly.
func TestBytesPerSlot(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a million-slot pool per policy")
	}
	const n = 1 << 20
	for _, s := range policies.All() {
		if s.BytesPerSlot == 0 {
			t.Errorf("%s: BytesPerSlot is not set", s.Name)
			continue
		}
		before := liveHeap()
		p, err := s.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		pins := make([]int32, n)
		f := &policies.Frames{Pins: pins}
		p.Init(f)
		for page := uint64(0); page < 3*n; page++ {
			slot := int32(page)
			if page >= n {
				slot, _ = p.Victim(int64(page))
			}
			p.Loaded(slot, page, int64(page), false)
			if c, ok := p.(policies.Clairvoyant); ok {
				c.NextUse(slot, int64(page)+n)
			}
		}
		got := float64(liveHeap()-before)/n - 4 // the pins slice is the pool's
		runtime.KeepAlive(p)
		runtime.KeepAlive(pins)
		t.Logf("%s: %.1f bytes per slot (BytesPerSlot %d)", s.Name, got, s.BytesPerSlot)
		if got > float64(s.BytesPerSlot)+1 || got < float64(s.BytesPerSlot)/2-1 {
			t.Errorf("%s: measured %.1f bytes per slot, BytesPerSlot says %d", s.Name, got, s.BytesPerSlot)
		}
	}
}
