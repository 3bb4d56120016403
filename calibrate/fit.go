package calibrate

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"

	"github.com/pgbufsim/pgbufsim/model"
)

// PriorWeight ties each price to its default: the fit minimises
//
//	Σ_i w_i (sim_i / measured_i − 1)²  +  PriorWeight · Σ_k ln(c_k / default_k)²
//
// (w_i: fitWeight of the experiment's spread over the passes, 1 on a
// quiet machine)
// so a price the experiments determine moves to fit them, and one they
// barely touch stays near its default instead of wandering (ridge
// regression in log-prices; a factor of 2 from the default costs as much
// as a 6 % misfit of one experiment).
const PriorWeight = 0.0075

// quietSpread is the most a quiet machine's passes of one experiment
// spread (half their interquartile range over the median): 2-10 % on the
// development and CI machines; noiseAllowance widens the held-out
// bounds beyond it.
const quietSpread = 0.10

// fitWeight is an experiment's weight in the fit: 1 while its passes
// spread by no more than a quiet machine's (quietSpread), else
// (quietSpread / spread)², the inverse of its measurement's variance
// relative to a quiet one's (weighted least squares). select-only at
// four clients on two vCPUs spreads by 10-21 % (its processes run beside
// each other or apart, docs/calibration.md "Measured since"), always
// fitted slow (+1 to +11 %) while one client's lookup came out −6 to −19
// % in the same calibrations: unweighted, the noisiest experiment pulled
// the CPU's prices from the quiet ones.
func fitWeight(spread float64) float64 {
	if spread <= quietSpread {
		return 1
	}
	return (quietSpread / spread) * (quietSpread / spread)
}

// zeroDefaultStart (ns) stands in for a price whose default is 0: a
// typical value of its kind: per statement or burst, per byte for
// tuple_byte, and for tuple_cold a tuple's fetch from memory (20 ns: 55 ns
// a row for warm scans of 136-byte tuples against 36 for 32-byte ones,
// docs/model.md "A backend"; from 2 ns, the fit left it at 7 and warm
// scans of such rows 15 % fast), and for tuple_update_old a heap_update's
// work beside a heap_insert's (about 450 ns measured on PostgreSQL 15).
func zeroDefaultStart(key string) float64 {
	switch key {
	case "tuple_byte":
		return 2
	case "tuple_cold":
		return 20
	case "tuple_update_old":
		return 300
	}
	return 10000
}

// iterations re-linearises the model around the fitted prices this many
// times: an experiment's simulated latency is linear in the prices for a
// single client whose pages stay cached, and nearly so otherwise.
var iterations = 6

// Fitted is one fitted price.
type Fitted struct {
	Key              string
	Default, Value   float64 // ns
	DeterminedBy     []string
	ShareOfTimeInExp []float64 // the price's share of each determining experiment's simulated time
}

// Residual is an experiment's measured and simulated latency.
type Residual struct {
	Experiment        string
	HeldOut           bool
	MeasuredMS, SimMS float64
	// DefaultMS is the simulated latency at the default prices, for
	// comparison: what calibration changed.
	DefaultMS float64
	// Spread is the measurement's own spread over the passes (Result.Spread).
	Spread float64
	// MeasuredP99 and SimP99 are a held-out pgbench run's 99th percentile
	// latency (ms), when measured (Result.P99), and as simulated.
	MeasuredP99, SimP99 float64
	// MeasuredLag and SimLag are an experiment under -R's mean schedule
	// lag (ms): pgbench's (Result.Lag) and the simulated one.
	MeasuredLag, SimLag float64
	// P99Quartiles is the measured p99's first and third quartile over
	// the passes (Result.P99Quartiles).
	P99Quartiles [2]float64
	// Commands are a held-out run's per-command latencies (perCommand):
	// pgbench -r's, the median over the passes, beside the simulated
	// ones (report_per_command) of the same command.
	Commands []CommandFit
}

// CommandFit is one command's average latency (ms), measured and
// simulated.
type CommandFit struct {
	Line              string
	MeasuredMS, SimMS float64
}

// Error is the relative error of the simulation.
func (r Residual) Error() float64 { return r.SimMS/r.MeasuredMS - 1 }

// Fit fits Prices to the measured latencies (ms by experiment name) of the
// experiments that are not held out, starting from the simulator's Base
// costs, and returns the fitted costs with what determined each price.
func (sm *Simulator) Fit(measured map[string]float64) (model.Costs, []Fitted, error) {
	Prices := sm.prices()
	var exps []Experiment
	for _, e := range sm.Plan.Experiments {
		if _, ok := measured[e.Name]; ok && !e.HeldOut {
			exps = append(exps, e)
		}
	}
	if len(exps) == 0 {
		return model.Costs{}, nil, fmt.Errorf("no experiment to fit")
	}
	cur := sm.Base
	if sm.from != nil {
		cur = *sm.from
	}
	c0 := make([]float64, len(Prices))
	for k, key := range Prices {
		c0[k] = Price(sm.Base, key)
		if c0[k] <= 0 {
			// A price that is 0 by default (statement_table) starts, and
			// is pulled towards, a typical value instead.
			c0[k] = zeroDefaultStart(key)
			if sm.from == nil {
				SetPrice(&cur, key, c0[k])
			}
		}
	}
	meas := make([]float64, len(exps))
	w := make([]float64, len(exps))
	for i, e := range exps {
		meas[i] = measured[e.Name]
		w[i] = fitWeight(sm.Spread[e.Name])
	}
	var jac [][]float64 // jac[i][k]: d sim_i / d c_k (ms per ns)
	var base []float64
	for it := 0; it < iterations; it++ {
		var err error
		base, jac, err = sm.linearise(exps, cur)
		if err != nil {
			return model.Costs{}, nil, err
		}
		ck := make([]float64, len(Prices))
		for k, key := range Prices {
			ck[k] = Price(cur, key)
		}
		fCur := objective(base, meas, w, ck, c0)
		theta := solve(base, jac, ck, c0, meas, w)
		// The step the linear model asks for is taken only if the
		// simulation agrees that it improves the fit, else half of it, a
		// quarter, an eighth (a damped Gauss-Newton step): where clients
		// outnumber cores a simulated time is far from linear in the
		// prices (cores idle, wake-ups, queues), and a full step
		// overshot into fits worse than the one it started from.
		moved := false
		for frac := 1.0; frac >= 1.0/8; frac /= 2 {
			cand := cur
			ckc := make([]float64, len(Prices))
			for k, key := range Prices {
				SetPrice(&cand, key, math.Exp(math.Log(ck[k])+frac*(theta[k]-math.Log(ck[k]))))
				ckc[k] = Price(cand, key)
			}
			sims, err := sm.latencies(exps, cand)
			if err != nil {
				return model.Costs{}, nil, err
			}
			if objective(sims, meas, w, ckc, c0) < fCur {
				cur, moved = cand, true
				break
			}
		}
		if !moved {
			break
		}
	}
	fitted := make([]Fitted, len(Prices))
	for k, key := range Prices {
		f := Fitted{Key: key, Default: Price(sm.Base, key), Value: Price(cur, key)}
		for i, e := range exps {
			if share := jac[i][k] * Price(cur, key) / math.Max(base[i], 1e-9); share >= 0.03 {
				f.DeterminedBy = append(f.DeterminedBy, e.Name)
				f.ShareOfTimeInExp = append(f.ShareOfTimeInExp, share)
			}
		}
		fitted[k] = f
	}
	return cur, fitted, nil
}

// objective is the fit's objective at prices ck with simulated latencies
// sims: the weighted squared relative errors and the pull towards c0.
func objective(sims, meas, w, ck, c0 []float64) float64 {
	f := 0.0
	for i := range sims {
		r := sims[i]/meas[i] - 1
		f += w[i] * r * r
	}
	for k := range ck {
		d := math.Log(ck[k] / c0[k])
		f += PriorWeight * d * d
	}
	return f
}

// latencies simulates every experiment at costs.
func (sm *Simulator) latencies(exps []Experiment, costs model.Costs) ([]float64, error) {
	out := make([]float64, len(exps))
	for i, e := range exps {
		l, err := sm.Latency(e, costs)
		if err != nil {
			return nil, err
		}
		out[i] = l
	}
	return out, nil
}

// linearise simulates every experiment at costs and with each price
// raised in turn by h_k (the price itself, at least a quarter of its
// default): base[i] and jac[i][k] = (sim_i(c_k + h_k) − sim_i(c)) / h_k.
func (sm *Simulator) linearise(exps []Experiment, costs model.Costs) ([]float64, [][]float64, error) {
	Prices := sm.prices()
	base, err := sm.latencies(exps, costs)
	if err != nil {
		return nil, nil, err
	}
	jac := make([][]float64, len(exps))
	for i := range exps {
		jac[i] = make([]float64, len(Prices))
	}
	for k, key := range Prices {
		c := costs
		p := Price(costs, key)
		// The step is the price itself, but not less than a quarter of
		// its default (or of zeroDefaultStart): a price the fit drove near
		// 0 (a few ns) would otherwise move the simulated times by less
		// than their rounding, its slope would read 0, and the prior alone
		// would set it in the next solve, unseen by the experiments
		// (context_switch came out at 15 us with select-only-4c 160 %
		// slow that way).
		d := Price(sm.Base, key)
		if d <= 0 {
			d = zeroDefaultStart(key)
		}
		h := math.Max(p, d/4)
		SetPrice(&c, key, p+h)
		h = Price(c, key) - p
		for i, e := range exps {
			l, err := sm.Latency(e, c)
			if err != nil {
				return nil, nil, err
			}
			jac[i][k] = (l - base[i]) / h
		}
	}
	return base, jac, nil
}

// solve minimises the linearised objective over theta = ln(prices) with
// BFGS (gonum optimize), prices at ck where the model was linearised.
func solve(base []float64, jac [][]float64, ck, c0, meas, w []float64) []float64 {
	n := len(ck)
	resid := func(theta []float64, r []float64) {
		for i := range base {
			s := base[i]
			for k := 0; k < n; k++ {
				s += jac[i][k] * (math.Exp(theta[k]) - ck[k])
			}
			r[i] = s/meas[i] - 1
		}
	}
	r := make([]float64, len(base))
	p := optimize.Problem{
		Func: func(theta []float64) float64 {
			resid(theta, r)
			f := 0.0
			for i, v := range r {
				f += w[i] * v * v
			}
			for k := 0; k < n; k++ {
				d := theta[k] - math.Log(c0[k])
				f += PriorWeight * d * d
			}
			return f
		},
		Grad: func(g, theta []float64) {
			resid(theta, r)
			for k := 0; k < n; k++ {
				g[k] = 2 * PriorWeight * (theta[k] - math.Log(c0[k]))
				for i := range base {
					g[k] += 2 * w[i] * r[i] * jac[i][k] * math.Exp(theta[k]) / meas[i]
				}
			}
		},
	}
	theta0 := make([]float64, n)
	for k := range theta0 {
		theta0[k] = math.Log(ck[k])
	}
	res, err := optimize.Minimize(p, theta0, &optimize.Settings{GradientThreshold: 1e-10}, &optimize.BFGS{})
	if err != nil && res == nil {
		return theta0
	}
	// Prices stay within a factor of 1000 of their defaults.
	out := slices.Clone(res.X)
	for k := range out {
		out[k] = math.Max(math.Log(c0[k])-math.Log(1000), math.Min(math.Log(c0[k])+math.Log(1000), out[k]))
	}
	return out
}

// Validate simulates every measured experiment, held out or not, with the
// fitted costs.
func (sm *Simulator) Validate(costs model.Costs, measured map[string]float64) ([]Residual, error) {
	var out []Residual
	for _, e := range sm.Plan.Experiments {
		m, ok := measured[e.Name]
		if !ok {
			continue
		}
		run, err := sm.simulate(e, costs)
		if err != nil {
			return nil, err
		}
		d, err := sm.Latency(e, model.DefaultCosts())
		if err != nil {
			return nil, err
		}
		r := Residual{Experiment: e.Name, HeldOut: e.HeldOut, MeasuredMS: m, SimMS: run.mean, DefaultMS: d, SimP99: run.p99, SimLag: run.lag}
		for _, c := range run.commands {
			r.Commands = append(r.Commands, CommandFit{Line: c.Line, SimMS: c.MS})
		}
		out = append(out, r)
	}
	return out, nil
}
