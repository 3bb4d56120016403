package model

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/model/pgexpr"
)

// TestPgbenchRandomSeedDraws replays testdata/pgbench-random-seed-7.txt,
// what pgbench 15 sent with --random-seed 7 (three clients, one per
// thread, a mix of a script file at weight 2 and select-only at 1): the
// phase's streams (newPhaseStreams, as the engine makes them), the script
// choice (phaseMix.choose), :default_seed (pgbenchDefaultSeed) and the four
// distributions must give the same statements, client by client.
func TestPgbenchRandomSeedDraws(t *testing.T) {
	want := readSending(t, "testdata/pgbench-random-seed-7.txt")
	seed := uint64(7)
	sc := DefaultScenario()
	ph := Phase{Name: "run", Clients: 3, Threads: 3, Transactions: 4, RandomSeed: &seed}
	streams := newPhaseStreams(&sc, 0, ph, 3)
	mix := phaseMix{weights: []int64{2, 1}, total: 3, scripts: make([]*script, 2)}
	gen := func(src string) *pgexpr.Gen {
		e, err := pgexpr.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		g, err := e.Bind(map[string]int64{"scale": 1}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	file := []*pgexpr.Gen{gen("random(1, 100000000)"), gen("random_gaussian(1, 100000, 2.5)"), gen("random_exponential(1, 100000, 3)"), gen("random_zipfian(1, 100000, 1.5)")}
	selectOnly := gen("random(1, 100000 * :scale)")
	defaultSeed := pgbenchDefaultSeed(seed, 3)
	var got []string
	for c := range 3 {
		for range 4 {
			keys := streams.keys[c]
			if mix.choose(streams.choose[c]) == 0 {
				var v [4]int64
				for i, g := range file {
					v[i] = g.Next(keys)
				}
				got = append(got, fmt.Sprintf("client %d sending SELECT %d, %d, %d, %d, %d, %d;", c, v[0], v[1], v[2], v[3], defaultSeed, seed))
			} else {
				got = append(got, fmt.Sprintf("client %d sending SELECT abalance FROM pgbench_accounts WHERE aid = %d;", c, selectOnly.Next(keys)))
			}
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed pgbench --random-seed 7:\n%s\nwant (pgbench 15):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// readSending reads a file of pgbench --debug "sending" lines, skipping
// comments.
func readSending(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestPgbenchStreamsOrder pins the seeding order of pgbench.c main: the
// clients' states first, then :default_seed, then three states per thread;
// a -D default_seed takes no draw, so the threads' states move up one.
func TestPgbenchStreamsOrder(t *testing.T) {
	base := pgexpr.NewPgPRNG(42)
	var outs []uint64
	for range 3 + 1 + 2*3 {
		outs = append(outs, base.Uint64())
	}
	first := func(u uniform) float64 { return u.Float64() }
	s := pgbenchStreams(42, 3, 2, true)
	if got, want := s.keys[2].Uint64(), pgexpr.NewPgPRNG(outs[2]).Uint64(); got != want {
		t.Errorf("client 2's state: first output %#x, want %#x (seeded by the base's third output)", got, want)
	}
	if got := pgbenchDefaultSeed(42, 3); got != int64(outs[3]) {
		t.Errorf("default_seed %d, want the base's fourth output %d", got, int64(outs[3]))
	}
	// Thread 1: choose, throttle, sample from outputs 7, 8, 9.
	for i, u := range []uniform{s.choose[1], s.throttle[1], s.sample[1]} {
		if got, want := first(u), pgexpr.NewPgPRNG(outs[7+i]).Double(); got != want {
			t.Errorf("thread 1 state %d: %v, want %v", i, got, want)
		}
	}
	d := pgbenchStreams(42, 3, 2, false)
	if got, want := first(d.choose[0]), pgexpr.NewPgPRNG(outs[3]).Double(); got != want {
		t.Errorf("with -D default_seed, thread 0's ts_choose_rs: %v, want %v (seeded by the fourth output)", got, want)
	}
}

// TestRandomSeedRefusedBefore15 checks that a version whose pgbench drew
// from erand48 refuses random_seed, naming the key.
func TestRandomSeedRefusedBefore15(t *testing.T) {
	seed := uint64(1)
	sc := DefaultScenario()
	sc.Server.Version = "14"
	sc.Workload.Phases = []Phase{{Name: "run", Clients: 1, Threads: 1, Transactions: 1, Script: Script{Builtin: "select-only"}, RandomSeed: &seed}}
	ps := Check(sc)
	for _, p := range ps {
		if p.Path == "workload.phases[0].random_seed" && strings.Contains(p.Msg, "15 or later") {
			return
		}
	}
	t.Fatalf("random_seed with server.version 14: problems %v, want one at workload.phases[0].random_seed", ps)
}
