package gcpace

import "testing"

// The pacer keeps Go's default for small heaps, allows about Headroom
// bytes above a large one, never less than Min percent, and sets GOGC only
// when its value changes.
func TestPacerKeepsAFixedHeadroom(t *testing.T) {
	var set []int
	p := &Pacer{Headroom: 256 << 20, Min: 10, Max: 100, Set: func(pc int) int { set = append(set, pc); return 0 }}
	for _, c := range []struct {
		live int64
		want int
	}{
		{0, 100},
		{50 << 20, 100},
		{256 << 20, 100},
		{512 << 20, 50},
		{1 << 30, 25},
		{2 << 30, 12},
		{6 << 30, 10},
		{64 << 30, 10},
	} {
		if got := p.Percent(c.live); got != c.want {
			t.Errorf("live %d MB: GOGC %d, want %d", c.live>>20, got, c.want)
		}
	}
	for _, live := range []int64{10 << 20, 20 << 20, 1 << 30, 1 << 30, 6 << 30, 7 << 30, 100 << 20} {
		p.Observe(live)
	}
	want := []int{100, 25, 10, 100}
	if len(set) != len(want) {
		t.Fatalf("GOGC set to %v, want %v", set, want)
	}
	for i := range want {
		if set[i] != want[i] {
			t.Fatalf("GOGC set to %v, want %v", set, want)
		}
	}
}
