package sim

import (
	"math"
	"math/rand/v2"
	"testing"
)

// poissonSource feeds a Resource an M/M/k workload: exponential
// interarrival times and exponential service times, each from its own
// stream, as a model's client would.
type poissonSource struct {
	k        *Kernel
	res      *Resource
	arrivals *rand.Rand
	service  *rand.Rand
	meanIA   float64 // mean interarrival time, ns
	meanSvc  float64 // mean service time, ns
	left     int     // arrivals still to generate
	warmup   int     // ResetStats after this many arrivals
}

func (s *poissonSource) OnEvent(int64) {
	if s.warmup > 0 {
		s.warmup--
		if s.warmup == 0 {
			s.res.ResetStats()
		}
	}
	s.res.Request(int64(math.Round(s.service.ExpFloat64()*s.meanSvc)), nil, 0)
	s.left--
	if s.left > 0 {
		s.k.After(int64(math.Round(s.arrivals.ExpFloat64()*s.meanIA)), s, 0)
	}
}

// runMMk simulates an M/M/k queue with arrival rate lambda and service rate
// mu per server (both per millisecond) for warmup+customers arrivals and
// returns the statistics of the measured part.
func runMMk(seed uint64, servers int, lambda, mu float64, warmup, customers int) ResourceStats {
	k := NewKernel()
	res := NewResource(k, "mmk", servers)
	src := &poissonSource{
		k: k, res: res,
		arrivals: NewStream(seed, 0, "arrivals"),
		service:  NewStream(seed, 0, "service"),
		meanIA:   float64(Millisecond) / lambda,
		meanSvc:  float64(Millisecond) / mu,
		left:     warmup + customers,
		warmup:   warmup,
	}
	k.Schedule(0, src, 0)
	// Stop measuring at the last arrival so the drain of the queue does not
	// dilute the time averages.
	for src.left > 0 && k.Step() {
	}
	return res.Stats()
}

// erlangC is the probability that an arrival waits in an M/M/k queue with
// offered load a = lambda/mu (Erlang C formula; Kleinrock, Queueing Systems
// vol. 1, eq. 3.40), computed with the stable Erlang B recursion.
func erlangC(k int, a float64) float64 {
	b := 1.0 // Erlang B with 0 servers
	for n := 1; n <= k; n++ {
		b = a * b / (float64(n) + a*b)
	}
	rho := a / float64(k)
	return b / (1 - rho*(1-b))
}

func TestErlangC(t *testing.T) {
	// M/M/1: P(wait) = rho. M/M/2 with rho = 0.5: P(wait) = 2rho^2/(1+rho) = 1/3.
	if got := erlangC(1, 0.8); math.Abs(got-0.8) > 1e-15 {
		t.Fatalf("erlangC(1, 0.8) = %v, want 0.8", got)
	}
	if got := erlangC(2, 1); math.Abs(got-1.0/3) > 1e-15 {
		t.Fatalf("erlangC(2, 1) = %v, want 1/3", got)
	}
	// k = 4, a = 3.2 from the closed form a^k/k! * k/(k-a) / (sum_{n<k} a^n/n! + that).
	top := math.Pow(3.2, 4) / 24 * 4 / 0.8
	sum := 1 + 3.2 + 3.2*3.2/2 + math.Pow(3.2, 3)/6
	if got, want := erlangC(4, 3.2), top/(sum+top); math.Abs(got-want) > 1e-12 {
		t.Fatalf("erlangC(4, 3.2) = %v, want %v", got, want)
	}
}

func checkQueue(t *testing.T, st ResourceStats, lambda, rho, wantWqNs float64) {
	t.Helper()
	relErr := func(got, want float64) float64 { return math.Abs(got-want) / want }
	if e := relErr(st.MeanWaitNs, wantWqNs); e > 0.02 {
		t.Errorf("mean wait in queue %.1f ns, analytic %.1f ns: off by %.2f%% (> 2%%)", st.MeanWaitNs, wantWqNs, 100*e)
	}
	if e := relErr(st.Utilisation, rho); e > 0.02 {
		t.Errorf("utilisation %.4f, analytic %.4f: off by %.2f%% (> 2%%)", st.Utilisation, rho, 100*e)
	}
	// Little's law L = lambda*W, with the analytic arrival rate.
	lambdaPerNs := lambda / float64(Millisecond)
	if e := relErr(st.MeanQueueLen, lambdaPerNs*st.MeanWaitNs); e > 0.02 {
		t.Errorf("Little's law: mean queue %.4f vs lambda*W %.4f: off by %.2f%% (> 2%%)",
			st.MeanQueueLen, lambdaPerNs*st.MeanWaitNs, 100*e)
	}
	// And on the sample path, with the observed arrival rate, Little's law
	// holds up to the customers in queue at the window's ends — a check that
	// the time integral and the per-request waits are booked consistently.
	observed := float64(st.Served) / float64(st.ElapsedNs)
	if e := relErr(st.MeanQueueLen, observed*st.MeanWaitNs); e > 0.001 {
		t.Errorf("sample-path Little's law: mean queue %.5f vs observed lambda*W %.5f: off by %.3f%% (> 0.1%%)",
			st.MeanQueueLen, observed*st.MeanWaitNs, 100*e)
	}
}

// queueCustomers is the length of the M/M/k runs. The mean wait of a queue
// at rho = 0.8 is strongly autocorrelated: over seeds 1..20 with 10^6
// customers its relative error had a standard deviation of about 1% (M/M/1)
// and 1.2% (M/M/4), so a 2% bound would sit at 2 sigma. With 10^7 customers
// (about 1.3 s per run) the M/M/1 spread over seeds 1..9 was 0.45% with no
// visible bias (mean +0.07%), putting the 2% bound beyond 4 sigma: a correct
// kernel passes whatever the seed, and a bias of a couple of percent fails.
const queueCustomers = 10_000_000

func TestMM1(t *testing.T) {
	const lambda, mu = 0.8, 1.0
	st := runMMk(1, 1, lambda, mu, 10_000, queueCustomers)
	rho := lambda / mu
	wq := rho / (mu - lambda) * float64(Millisecond) // M/M/1: Wq = rho/(mu-lambda)
	t.Logf("M/M/1: Wq %.0f ns (analytic %.0f), rho %.4f, Lq %.4f", st.MeanWaitNs, wq, st.Utilisation, st.MeanQueueLen)
	checkQueue(t, st, lambda, rho, wq)
}

func TestMMk(t *testing.T) {
	const servers, mu, rho = 4, 1.0, 0.8
	lambda := rho * servers * mu
	st := runMMk(1, servers, lambda, mu, 10_000, queueCustomers)
	wq := erlangC(servers, lambda/mu) / (servers*mu - lambda) * float64(Millisecond)
	t.Logf("M/M/4: Wq %.0f ns (analytic %.0f), rho %.4f, Lq %.4f", st.MeanWaitNs, wq, st.Utilisation, st.MeanQueueLen)
	checkQueue(t, st, lambda, rho, wq)
}
