package policies

import (
	"testing"
)

// A hot set polluted by a one-time scan. The warm phase mixes references
// to 50 hot pages with references to 1000 cold pages, so the cache (100
// slots) is under pressure and the hot pages earn their place (ARC: T2;
// 2Q: Am via A1out). Then 300 new pages are scanned once, then every hot
// page is referenced once. LRU has lost the whole hot set to the scan;
// ARC and 2Q keep it, because the scan's pages only ever pass through
// T1 / A1in.
func TestScanResistance(t *testing.T) {
	const slots, hot, cold, scan = 100, 50, 1000, 300
	r := seededRNG(5)
	var warm []uint64
	for range 20000 {
		if r.IntN(2) == 0 {
			warm = append(warm, uint64(r.IntN(hot)))
		} else {
			warm = append(warm, 1000+uint64(r.IntN(cold)))
		}
	}
	post := make([]uint64, hot)
	for i, p := range r.Perm(hot) {
		post[i] = uint64(p)
	}
	afterScan := map[string]float64{}
	for _, name := range []string{"lru", "arc", "2q"} {
		pol := newPolicy(t, name)
		d := newDriver(pol, slots)
		for _, p := range warm {
			if _, err := d.access(p, NeverAgain); err != nil {
				t.Fatal(err)
			}
		}
		for i := range scan {
			if _, err := d.access(100000+uint64(i), NeverAgain); err != nil {
				t.Fatal(err)
			}
		}
		d.hits, d.misses = 0, 0
		for _, p := range post {
			if _, err := d.access(p, NeverAgain); err != nil {
				t.Fatal(err)
			}
		}
		mustCheck(t, pol)
		afterScan[name] = float64(d.hits) / float64(len(post))
		t.Logf("%-4s hot-set hit ratio after the scan: %.2f", name, afterScan[name])
	}
	if afterScan["lru"] != 0 {
		t.Errorf("lru kept %.2f of the hot set through a scan of 3x its size; want 0", afterScan["lru"])
	}
	for _, name := range []string{"arc", "2q"} {
		if afterScan[name]-afterScan["lru"] < 0.8 {
			t.Errorf("%s: hot-set hit ratio after the scan %.2f, LRU %.2f; want a gap of at least 0.8",
				name, afterScan[name], afterScan["lru"])
		}
	}
}

// On a one-pass scan nothing can hit. On a loop slightly larger than the
// cache LRU never hits (each page was evicted just before its return).
// ARC is no worse, and in fact identical: with every page seen once, T1
// fills the cache, so case IV.A discards T1's LRU instead of remembering
// it in B1 (|T1|+|B1| <= c), no ghost hit ever adapts p, and T1 is plain
// LRU.
func TestARCNoWorseThanLRUOnScans(t *testing.T) {
	const slots = 100
	oneShot := loopTrace(100000, 5000) // 5000 distinct pages, once each
	loop := loopTrace(150, 30000)
	for _, tc := range []struct {
		name  string
		trace []uint64
	}{{"one-pass scan", oneShot}, {"loop of 1.5C", loop}} {
		lruHits, _ := replay(t, NewLRU(), slots, tc.trace)
		arcHits, _ := replay(t, NewARC(), slots, tc.trace)
		t.Logf("%s: lru %d hits, arc %d hits of %d", tc.name, lruHits, arcHits, len(tc.trace))
		if lruHits != 0 {
			t.Errorf("%s: lru %d hits, want 0", tc.name, lruHits)
		}
		if arcHits < lruHits {
			t.Errorf("%s: arc %d hits, fewer than lru's %d", tc.name, arcHits, lruHits)
		}
		if arcHits != lruHits {
			t.Errorf("%s: arc %d hits, lru %d; with no ghost hits ARC is LRU", tc.name, arcHits, lruHits)
		}
	}
}
