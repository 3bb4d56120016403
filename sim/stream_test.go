package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"
)

// TestSplitmix64KnownAnswers checks splitmix64 against the first outputs of
// Vigna's reference splitmix64.c seeded with 1234567 (the sequence quoted by
// the xoshiro/xoroshiro ports as their SplitMix64 test vector).
func TestSplitmix64KnownAnswers(t *testing.T) {
	want := []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821}
	state := uint64(1234567)
	for i, w := range want {
		// splitmix64 adds the increment itself; the generator's state is the
		// running sum of increments.
		if got := splitmix64(state); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
		state += 0x9e3779b97f4a7c15
	}
}

func TestFNV1aMatchesStdlib(t *testing.T) {
	// Published FNV-1a 64 test vectors: "" -> offset basis, "a" -> af63dc4c8601ec8c.
	if fnv1a64("") != 0xcbf29ce484222325 || fnv1a64("a") != 0xaf63dc4c8601ec8c {
		t.Fatalf("FNV-1a test vectors: %x %x", fnv1a64(""), fnv1a64("a"))
	}
	for _, s := range []string{"arrivals/client/0", "service/disk/0", "keys", "ünïcödé"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := fnv1a64(s), h.Sum64(); got != want {
			t.Fatalf("fnv1a64(%q) = %x, hash/fnv says %x", s, got, want)
		}
	}
}

// TestNewStreamGolden pins the stream derivation: changing it would change
// the output of every simulation, so it must be a deliberate decision.
func TestNewStreamGolden(t *testing.T) {
	cases := []struct {
		seed      uint64
		replicate int
		name      string
		want      [3]uint64
	}{
		{1, 0, "arrivals", [3]uint64{16212809252277420384, 14296633812342827035, 8617706922858536894}},
		{1, 0, "service", [3]uint64{14343619654211091092, 17183597358060533508, 8801415645731597097}},
		{1, 1, "arrivals", [3]uint64{14247572409109961552, 3627664825203463892, 3790779986726552780}},
		{42, 7, "keys/client/3", [3]uint64{24715766012988591, 916858504148647136, 4426399157944782652}},
		{0, -1, "", [3]uint64{8567046938974095903, 17348529891526896326, 6769699084439683057}},
	}
	for _, c := range cases {
		r := NewStream(c.seed, c.replicate, c.name)
		got := [3]uint64{r.Uint64(), r.Uint64(), r.Uint64()}
		if got != c.want {
			t.Errorf("NewStream(%d, %d, %q) first draws %v, want %v", c.seed, c.replicate, c.name, got, c.want)
		}
	}
}

// TestStreamsAreDistinct checks that every component of the key matters and
// that streams for similar names do not start alike.
func TestStreamsAreDistinct(t *testing.T) {
	first := func(seed uint64, rep int, name string) uint64 { return NewStream(seed, rep, name).Uint64() }
	base := first(1, 0, "arrivals/client/0")
	for _, other := range []uint64{
		first(2, 0, "arrivals/client/0"),
		first(1, 1, "arrivals/client/0"),
		first(1, 0, "arrivals/client/1"),
		first(1, 0, "arrivals/client/0 "),
	} {
		if other == base {
			t.Fatal("changing the seed, replicate or name did not change the stream")
		}
	}
	// 10^4 streams named client/0..client/9999: all first draws distinct, and
	// the mean of their first Float64 is 1/2 within 4 standard errors
	// (sd of U(0,1) is 1/sqrt(12), so SE = 0.2887/100).
	seen := make(map[uint64]bool)
	sum := 0.0
	const n = 10_000
	for i := range n {
		r := NewStream(7, 0, fmt.Sprintf("client/%d", i))
		v := r.Uint64()
		if seen[v] {
			t.Fatalf("stream client/%d repeats another stream's first draw", i)
		}
		seen[v] = true
		sum += float64(v>>11) / (1 << 53)
	}
	if mean := sum / n; mean < 0.5-4*0.002887 || mean > 0.5+4*0.002887 {
		t.Fatalf("mean first draw over %d streams = %.4f, want 0.5 +- 0.0115", n, mean)
	}
}

// TestCommonRandomNumbers: how much one purpose draws does not move another
// purpose's numbers.
func TestCommonRandomNumbers(t *testing.T) {
	keysA, svcA := NewStream(3, 0, "keys"), NewStream(3, 0, "service")
	keysB, svcB := NewStream(3, 0, "keys"), NewStream(3, 0, "service")
	for range 1000 { // policy A draws many service times, policy B few
		svcA.Uint64()
	}
	svcB.Uint64()
	for i := range 100 {
		if a, b := keysA.Uint64(), keysB.Uint64(); a != b {
			t.Fatalf("key draw %d differs (%d vs %d) after different service draws", i, a, b)
		}
	}
}

func TestStreamSeedMatchesNewStream(t *testing.T) {
	hi, lo := StreamSeed(1, 0, "arrivals")
	if hi == lo {
		t.Fatal("StreamSeed returned equal halves")
	}
	a := rand.New(rand.NewPCG(hi, lo))
	b := NewStream(1, 0, "arrivals")
	for range 10 {
		if a.Uint64() != b.Uint64() {
			t.Fatal("NewStream is not rand.New(rand.NewPCG(StreamSeed(...)))")
		}
	}
}
