package calibrate

import (
	"math"
	"math/rand/v2"
	"testing"
)

// stalls recovers the stalls of a known sample: transactions of 0.080 ms
// with a little uniform noise, of which 3 % suffer a stall that adds an
// exponential time of mean 0.15 ms. A sample without a tail (no stalls)
// says so; a plateau (every stall alike) gets the most stalls allowed, of
// the length that keeps its p99.
func TestStallsRecoverKnownStalls(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, rate, mean = 200000, 0.03, 0.15
	lat := make([]float64, n)
	for i := range lat {
		lat[i] = 0.075 + 0.01*rng.Float64()
		if rng.Float64() < rate { // two stalls in one transaction: rare enough to leave out
			lat[i] += mean * rng.ExpFloat64()
		}
	}
	tl, _ := tailOf(lat)
	perTxn, ms, ok := stalls(tl)
	if !ok || math.Abs(perTxn-rate) > 0.15*rate || math.Abs(ms-mean) > 0.1*mean {
		t.Errorf("stalls = %.4f a transaction of %.4f ms (ok %v), want %.4f of %.4f", perTxn, ms, ok, rate, mean)
	}
	calm := make([]float64, 5000)
	for i := range calm {
		calm[i] = 0.075 + 0.01*rng.Float64()
	}
	tl, _ = tailOf(calm)
	if _, _, ok := stalls(tl); ok {
		t.Error("a sample without a tail gave stalls")
	}
	plateau := make([]float64, 5000)
	for i := range plateau {
		plateau[i] = 0.075 + 0.01*rng.Float64()
		if i%20 == 0 {
			plateau[i] += 0.1
		}
	}
	tl, _ = tailOf(plateau)
	perTxn, ms, ok = stalls(tl)
	if e99 := ms * math.Log(perTxn/0.01); !ok || perTxn != maxStallShare || math.Abs(e99-(tl.P99-tl.Med)) > 1e-9 {
		t.Errorf("plateau: %.4f stalls of %.4f ms (ok %v): want %.2f keeping p99 %.4f above the median", perTxn, ms, ok, maxStallShare, tl.P99-tl.Med)
	}
	if _, ok := tailOf(calm[:999]); ok {
		t.Error("999 transactions: a 99.9th percentile of one")
	}
}
