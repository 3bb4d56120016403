package calibrate

import (
	"math"
	"slices"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// An experiment whose passes spread beyond a quiet machine's weighs less
// in the fit (weighted least squares, fitWeight): one client's SELECT 1
// and lookup measured as the true prices give them (spread 5 %), four
// clients' select-only 30 % slower than those prices give it, its passes
// spread by 30 % (on two vCPUs PostgreSQL's four-client select-only
// moves between regimes, docs/calibration.md "Measured since").
// One price, the statement's CPU, serves all three: unweighted, the fit
// raises it towards the slow run and the lookup comes out slow (+8 %);
// weighted, the lookup stays within 3 % and the noisy run keeps the
// misfit.
func TestFitWeighsNoisyExperimentsDown(t *testing.T) {
	if w := fitWeight(0.05); w != 1 {
		t.Errorf("fitWeight(5 %%) = %v, want 1 (a quiet machine's spread)", w)
	}
	if w := fitWeight(0.20); math.Abs(w-0.25) > 1e-12 {
		t.Errorf("fitWeight(20 %%) = %v, want 0.25", w)
	}
	p := testPlan()
	p.Experiments = slices.DeleteFunc(p.Experiments, func(e Experiment) bool { return e.Name != "select-one" && e.Name != "lookup" })
	p.Experiments = append(p.Experiments, Experiment{Name: "select-only-4c", Builtin: "select-only", Scale: 1, Clients: 4, Threads: 2, Warmup: 1000, Transactions: 1500})
	truth := model.DefaultCosts()
	SetPrice(&truth, "statement", 40000)
	SetPrice(&truth, "cpu_wakeup", 15000)
	base := model.DefaultCosts()
	SetPrice(&base, "cpu_wakeup", 15000)
	// One price for three runs: four clients' extra time can only be
	// had from the statement's CPU, which one client's runs pay too.
	prices := []string{"statement"}
	sm := &Simulator{Major: "15", SharedBuffers: 128 << 20, Plan: p, Base: base, CPUs: 2, Prices: prices}
	measured := map[string]float64{}
	for _, e := range p.Experiments {
		l, err := sm.Latency(e, truth)
		if err != nil {
			t.Fatal(err)
		}
		measured[e.Name] = l
	}
	measured["select-only-4c"] *= 1.3
	lookupError := func(spread map[string]float64) float64 {
		s := *sm
		s.Spread = spread
		costs, _, err := s.Fit(measured)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Validate(costs, measured)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Experiment == "lookup" {
				return r.Error()
			}
		}
		t.Fatal("no lookup residual")
		return 0
	}
	unweighted := lookupError(nil)
	weighted := lookupError(map[string]float64{"select-one": 0.05, "lookup": 0.05, "select-only-4c": 0.30})
	t.Logf("lookup's error: %+.1f %% unweighted, %+.1f %% weighted", 100*unweighted, 100*weighted)
	if math.Abs(weighted) > 0.03 {
		t.Errorf("weighted fit: lookup %+.1f %% from the true prices' latency, want within 3 %%", 100*weighted)
	}
	if math.Abs(weighted) >= math.Abs(unweighted) {
		t.Errorf("weighting the noisy run down did not bring the lookup closer: %+.1f %% weighted, %+.1f %% unweighted", 100*weighted, 100*unweighted)
	}
}
