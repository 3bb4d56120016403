package sweep

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the two-sided level of every interval the sweep reports.
const Confidence = 0.95

// Estimate is a sample mean with its Student-t confidence interval.
type Estimate struct {
	// N is the number of observations.
	N int
	// Mean and SD are the sample mean and the sample standard deviation
	// (n-1 in the denominator).
	Mean, SD float64
	// HalfWidth is t(1-(1-Confidence)/2, N-1) x SD / sqrt(N): the interval
	// is Mean ± HalfWidth. It is NaN when N < 2 (one replicate says
	// nothing about the spread).
	HalfWidth float64
}

// Lo and Hi are the interval's bounds (NaN when there is no interval).
func (e Estimate) Lo() float64 { return e.Mean - e.HalfWidth }

// Hi is the interval's upper bound.
func (e Estimate) Hi() float64 { return e.Mean + e.HalfWidth }

// Significant reports whether the interval excludes zero: for a paired
// difference, that the two configurations differ at the 95% level (a
// paired t test at 5%, two-sided). Without an interval (one replicate) it
// is false; Significance tells the two cases apart.
func (e Estimate) Significant() bool {
	return !math.IsNaN(e.HalfWidth) && (e.Lo() > 0 || e.Hi() < 0)
}

// Significance is "true" or "false" (Significant), or "" when there is no
// interval to judge by.
func (e Estimate) Significance() string {
	if math.IsNaN(e.HalfWidth) {
		return ""
	}
	if e.Significant() {
		return "true"
	}
	return "false"
}

// Verdict is the words a reader sees beside a paired difference:
// "significant", "not significant", or "one replicate: no CI".
func (e Estimate) Verdict() string {
	switch {
	case math.IsNaN(e.Mean):
		return ""
	case math.IsNaN(e.HalfWidth):
		return "one replicate: no CI"
	case e.Significant():
		return "significant"
	}
	return "not significant"
}

// MeanCI estimates the mean of xs with a 95% confidence interval from
// Student's t distribution with n-1 degrees of freedom, which is exact for
// normally distributed observations and the standard choice for the few
// replicates a simulation sweep affords (Law, Simulation Modeling and
// Analysis, §9.4.1). NaN observations (a metric a run did not report) are
// left out.
func MeanCI(xs []float64) Estimate {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	e := Estimate{N: len(v), Mean: math.NaN(), SD: math.NaN(), HalfWidth: math.NaN()}
	if len(v) == 0 {
		return e
	}
	if len(v) == 1 {
		e.Mean = v[0]
		return e
	}
	e.Mean, e.SD = stat.MeanStdDev(v, nil)
	e.HalfWidth = tQuantile(len(v)-1) * stat.StdErr(e.SD, float64(len(v)))
	return e
}

// PairedCI estimates the mean of b[r] - a[r] over the replicates where
// both are known. With common random numbers replicate r of both points
// saw the same arrivals and keys, so the differences cancel most of the
// workload's noise and their interval is far narrower than one built from
// two independent samples (Law, §11.2: the paired-t confidence interval).
func PairedCI(a, b []float64) Estimate {
	n := min(len(a), len(b))
	d := make([]float64, 0, n)
	for r := 0; r < n; r++ {
		if !math.IsNaN(a[r]) && !math.IsNaN(b[r]) {
			d = append(d, b[r]-a[r])
		}
	}
	return MeanCI(d)
}

// tQuantile is the two-sided critical value of Student's t with df degrees
// of freedom: t(0.975, 9) = 2.262157.
func tQuantile(df int) float64 {
	// Quantile draws nothing, but a nil Src would mean the global
	// generator (gonum's documentation), so give it a fixed one.
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df), Src: rand.NewPCG(0, 0)}
	return t.Quantile(1 - (1-Confidence)/2)
}
