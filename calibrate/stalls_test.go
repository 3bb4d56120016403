package calibrate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// tailStalls recovers the stalls of a known sample: transactions of
// 0.080 ms with a little uniform noise, of which 3 % suffer a stall that
// adds an exponential time of mean
// 0.15 ms. A sample without a tail (no stalls) says so.
func TestTailStallsRecoversKnownStalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, rate, mean = 200000, 0.03, 0.15
	lat := make([]float64, n)
	for i := range lat {
		lat[i] = 0.075 + 0.01*rng.Float64()
		if rng.Float64() < rate { // two stalls in one transaction: rare enough to leave out
			lat[i] += mean * rng.ExpFloat64()
		}
	}
	perTxn, ms, ok := tailStalls(lat)
	if !ok || math.Abs(perTxn-rate) > 0.15*rate || math.Abs(ms-mean) > 0.1*mean {
		t.Errorf("tailStalls = %.4f a transaction of %.4f ms (ok %v), want %.4f of %.4f", perTxn, ms, ok, rate, mean)
	}
	calm := make([]float64, 5000)
	for i := range calm {
		calm[i] = 0.075 + 0.01*rng.Float64()
	}
	if _, _, ok := tailStalls(calm); ok {
		t.Error("a sample without a tail gave stalls")
	}
}
