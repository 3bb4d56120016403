package pgexpr

import (
	"math/rand/v2"
	"testing"
)

// benchExprs are the key expressions simulated pgbench scripts use.
var benchExprs = []struct{ name, src string }{
	{"uniform", "random(1, 100000 * :scale)"},
	{"gaussian5", "random_gaussian(1, 100000 * :scale, 5)"},
	{"exponential2.5", "random_exponential(1, :naccounts, 2.5)"},
	{"zipfian1.07", "random_zipfian(1, 1000000, 1.07)"},
	{"zipfian1.5", "random_zipfian(1, 1000000, 1.5)"},
	{"permute_zipfian1.2", "permute(random_zipfian(1, :naccounts, 1.2), :naccounts)"},
	{"compound", "random(1, 10) * 100000 + random(0, 99999)"},
}

// BenchmarkNext measures one draw (ns/op = ns/draw) with the simulator's PCG
// client state; it must report 0 allocs/op.
func BenchmarkNext(b *testing.B) {
	vars := map[string]int64{"scale": 100, "naccounts": 10_000_000}
	for _, c := range benchExprs {
		b.Run(c.name, func(b *testing.B) {
			g := mustGen(b, c.src, vars, 5432)
			r := rand.New(rand.NewPCG(1, 2))
			var sink int64
			b.ReportAllocs()
			for b.Loop() {
				sink += g.Next(r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/draw")
			_ = sink
		})
	}
}

// BenchmarkNextPgPRNG is BenchmarkNext's uniform and gaussian cases over
// pgbench's own generator, for comparison with PCG.
func BenchmarkNextPgPRNG(b *testing.B) {
	for _, c := range benchExprs[:2] {
		b.Run(c.name, func(b *testing.B) {
			g := mustGen(b, c.src, map[string]int64{"scale": 100}, 0)
			r := rand.New(NewPgPRNG(5432))
			var sink int64
			b.ReportAllocs()
			for b.Loop() {
				sink += g.Next(r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/draw")
			_ = sink
		})
	}
}

// BenchmarkPermute compares pgbench's per-call permute (reseeding pg_prng and
// drawing 30 words each time) with the precomputed form Bind uses when size
// and seed are constants.
func BenchmarkPermute(b *testing.B) {
	const size = 10_000_000
	b.Run("per_call", func(b *testing.B) {
		var sink int64
		v := int64(0)
		for b.Loop() {
			sink += Permute(v, size, 5432)
			v++
		}
		_ = sink
	})
	b.Run("precomputed", func(b *testing.B) {
		p := newPermutation(size, 5432)
		var sink int64
		v := int64(0)
		for b.Loop() {
			sink += p.apply(v)
			v++
		}
		_ = sink
	})
}

// BenchmarkParseBind measures compiling a typical expression (done once per
// script, not per draw).
func BenchmarkParseBind(b *testing.B) {
	vars := map[string]int64{"naccounts": 10_000_000}
	b.ReportAllocs()
	for b.Loop() {
		e, err := Parse("permute(random_zipfian(1, :naccounts, 1.2), :naccounts)")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.Bind(vars, 1); err != nil {
			b.Fatal(err)
		}
	}
}
