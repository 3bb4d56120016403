package model

import (
	"math/rand/v2"
	"strconv"

	"github.com/pgbufsim/pgbufsim/model/pgexpr"
	"github.com/pgbufsim/pgbufsim/sim"
)

// uniform is what a pgbench thread draws from its random states: a double
// in [0, 1) (the --rate schedule's getPoissonRand, the log's
// --sampling-rate) and an integer in [0, n) (chooseScript). *rand.Rand is
// one (the simulator's own streams); pgStream is pgbench's pg_prng.
type uniform interface {
	Float64() float64
	Int64N(n int64) int64
}

// pgStream is a pg_prng_state used as pgbench uses it: pg_prng_double
// (the top 52 bits) and pg_prng_uint64_range for integers, which is what
// getrand(state, 0, n-1) draws.
type pgStream struct{ p *pgexpr.PgPRNG }

func (s pgStream) Float64() float64 { return s.p.Double() }

func (s pgStream) Int64N(n int64) int64 { return int64(s.p.Uint64Range(0, uint64(n-1))) }

// phaseStreams are the random streams of one phase's clients and threads.
type phaseStreams struct {
	keys     []*rand.Rand // per client: its script's random() draws
	extra    []*rand.Rand // per client: the simulator's own draws (abort_fraction, pick: random)
	throttle []uniform    // per thread: the --rate schedule
	choose   []uniform    // per thread: the script of a weighted mix
	sample   []uniform    // per thread: the log's --sampling-rate
}

// newPhaseStreams derives phase i's streams. Without random_seed each is a
// stream of the simulator's own (sim.NewStream: seed, replicate and the
// stream's name), so changing one purpose's draws changes no other's.
// With random_seed the phase draws exactly what pgbench --random-seed
// draws (pgbenchStreams).
func newPhaseStreams(sc *Scenario, i int, cfg Phase, nthreads int) phaseStreams {
	if cfg.RandomSeed != nil {
		_, defined := cfg.Define["default_seed"]
		s := pgbenchStreams(*cfg.RandomSeed, cfg.Clients, nthreads, !defined)
		for c := range cfg.Clients {
			s.extra = append(s.extra, sim.NewStream(uint64(sc.Seed), sc.Replicate, "phase"+strconv.Itoa(i)+"/extra/"+strconv.Itoa(c)))
		}
		return s
	}
	seed, p := uint64(sc.Seed), "phase"+strconv.Itoa(i)
	var s phaseStreams
	for c := range cfg.Clients {
		k := sim.NewStream(seed, sc.Replicate, p+"/keys/"+strconv.Itoa(c))
		s.keys = append(s.keys, k)
		s.extra = append(s.extra, k)
	}
	for t := range nthreads {
		s.throttle = append(s.throttle, sim.NewStream(seed, sc.Replicate, p+"/arrivals/"+strconv.Itoa(t)))
		s.choose = append(s.choose, sim.NewStream(seed, sc.Replicate, p+"/choose/"+strconv.Itoa(t)))
		s.sample = append(s.sample, sim.NewStream(seed, sc.Replicate, p+"/log-sample/"+strconv.Itoa(t)))
	}
	return s
}

// pgbenchStreams seeds a phase's streams as pgbench 15+ does from
// --random-seed (pgbench.c set_random_seed and main): base_random_sequence
// = pg_prng_seed(seed); then, in this order, each client's cs_func_rs
// ("other CState initializations"), one draw for :default_seed unless -D
// defines it, and each thread's ts_choose_rs, ts_throttle_rs and
// ts_sample_rs ("set up thread data structures"), every one seeded by
// initRandomState with the base sequence's next output.
func pgbenchStreams(seed uint64, clients, threads int, drawDefaultSeed bool) phaseStreams {
	base := pgexpr.NewPgPRNG(seed)
	var s phaseStreams
	for range clients {
		s.keys = append(s.keys, rand.New(pgexpr.NewPgPRNG(base.Uint64())))
	}
	if drawDefaultSeed {
		base.Uint64() // pgbenchDefaultSeed
	}
	for range threads {
		s.choose = append(s.choose, pgStream{pgexpr.NewPgPRNG(base.Uint64())})
		s.throttle = append(s.throttle, pgStream{pgexpr.NewPgPRNG(base.Uint64())})
		s.sample = append(s.sample, pgStream{pgexpr.NewPgPRNG(base.Uint64())})
	}
	return s
}

// pgbenchDefaultSeed is the :default_seed pgbench 15+ gives the clients of
// a run with --random-seed seed: the base sequence's draw after the
// clients' states.
func pgbenchDefaultSeed(seed uint64, clients int) int64 {
	base := pgexpr.NewPgPRNG(seed)
	for range clients {
		base.Uint64()
	}
	return int64(base.Uint64())
}
