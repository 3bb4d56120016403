package calibrate

import (
	"fmt"
	"math"
	"slices"
)

// stallExperiment is the experiment whose latency tail measures the CPU's
// stalls (costs.stall_interval, costs.stall): one client sending SELECT 1,
// whose transactions are otherwise alike, so the few far above the rest
// are the ones a stall hit.
const stallExperiment = "select-one"

// latencyTail is a sample of transaction latencies (ms) by its median and
// its 90th, 99th and 99.9th percentiles.
type latencyTail struct {
	Med, P90, P99, P999 float64
}

// tailOf summarises a sample; ok is false when it is too small for its
// 99.9th percentile to be one of several transactions.
func tailOf(lat []float64) (latencyTail, bool) {
	if len(lat) < 1000 {
		return latencyTail{}, false
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return latencyTail{Med: quantile(s, 0.5), P90: quantile(s, 0.9), P99: quantile(s, 0.99), P999: quantile(s, 0.999)}, true
}

// maxStallShare bounds the transactions a stall hits: a tail whose 99th
// and 99.9th percentiles are nearly alike (a plateau, not the decaying
// tail of rare stalls) would otherwise ask for a stall in most
// transactions, moving the median the fit already matches.
const maxStallShare = 0.2

// stalls estimates the stalls behind a latency tail by matching its 99th
// and 99.9th percentiles. In the model a transaction is its body plus,
// with probability q, a stall of exponential length with mean m: above the
// median, its quantile p (with 1-p < q) lies m ln(q/(1-p)) higher. The two
// percentiles' distances from the median, e99 and e999, give
// m = (e999 - e99) / ln 10 and q = 0.01 e^(e99/m): the simulated SELECT 1
// then has the measured p99 whatever the true shape, and m only sets how
// a transaction with more CPU time (more chance of a stall) extrapolates
// from it (its p99 lies m ln r higher for r times the CPU). ok is false
// when the 99th percentile is within the body (less than twice the median's
// distance to the 90th percentile above it): no stalls to model.
func stalls(t latencyTail) (perTxn, meanMS float64, ok bool) {
	e99, e999, body := t.P99-t.Med, t.P999-t.Med, t.P90-t.Med
	if e99 <= 2*body { // body >= 0: the 90th percentile is not below the median
		return 0, 0, false
	}
	m := (e999 - e99) / math.Ln10
	if m <= 0 || e99/m > math.Log(maxStallShare/0.01) {
		// A plateau: as many stalls as allowed, as long as the p99 says.
		return maxStallShare, e99 / math.Log(maxStallShare/0.01), true
	}
	return 0.01 * math.Exp(e99/m), m, true
}

// Text says what the stall estimate found, for the report and the costs
// file.
func (st Stalls) Text() string {
	if st.PerTxn <= 0 {
		return "none measured (" + st.Why + "): stall_interval and stall stay 0"
	}
	return fmt.Sprintf("%.4f a %s transaction (%.1f us of CPU simulated) of %.3f ms on average, from its latency tail (p50 %.4f, p99 %.4f, p99.9 %.4f ms): one every %s of CPU time",
		st.PerTxn, stallExperiment, st.CPUPerTxnNs/1e3, st.MeanMS, st.Tail.Med, st.Tail.P99, st.Tail.P999, nsText(st.Interval))
}
