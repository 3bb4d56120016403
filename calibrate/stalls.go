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

// tailStalls estimates the stalls in a sample of transaction latencies
// (ms). The transactions above a threshold well clear of the body (the
// median plus four times the distance from the median to the 90th
// percentile) are the stalled ones. A stall's length is taken as
// exponential, which is memoryless: the excess of those transactions over
// the threshold has the stalls' mean, estimated robustly as the excess's
// median over ln 2 (a few stalls of milliseconds would carry a plain
// mean). A stall of length x lifts a transaction above the threshold only
// when x exceeds the threshold's distance d from the median, which a
// share e^(-d/mean) of the stalls do: the stalls per transaction are the
// share above the threshold times e^(d/mean). ok is false when fewer than
// five transactions are above it: too few to say.
func tailStalls(lat []float64) (perTxn, meanMS float64, ok bool) {
	if len(lat) < 100 {
		return 0, 0, false
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	med, p90 := quantile(s, 0.5), quantile(s, 0.9)
	d := 4 * (p90 - med)
	if d <= 0 {
		return 0, 0, false
	}
	thr := med + d
	var excess []float64
	for _, v := range s {
		if v > thr {
			excess = append(excess, v-thr)
		}
	}
	if len(excess) < 5 {
		return 0, 0, false
	}
	meanMS = quantile(excess, 0.5) / math.Ln2
	if meanMS <= 0 {
		return 0, 0, false
	}
	above := float64(len(excess)) / float64(len(s))
	return above * math.Exp(d/meanMS), meanMS, true
}

// Text says what the stall estimate found, for the report and the costs
// file.
func (st Stalls) Text() string {
	if st.PerTxn <= 0 {
		return "none measured (" + st.Why + "): stall_interval and stall stay 0"
	}
	return fmt.Sprintf("%.4f a %s transaction (%.1f us of CPU simulated) of %.3f ms on average, from its latency tail: one every %s of CPU time",
		st.PerTxn, stallExperiment, st.CPUPerTxnNs/1e3, st.MeanMS, nsText(st.Interval))
}
