package model_test

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

// BenchmarkRunQuickstart runs configs/quickstart.yaml (pgbench tpcb-like,
// scale 10, 32MB shared buffers, 8 clients, 10 s warm-up + 30 s) end to end
// and reports the simulator's speed: events fired per wall second and
// simulated seconds per wall second (docs/performance.md; compare with
// /work/shared/perfkit). Run with
//
//	go test -run '^$' -bench RunQuickstart -count 6 ./model/ | benchstat -
func BenchmarkRunQuickstart(b *testing.B) {
	sc, err := configs.Load("../configs/quickstart.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var events int64
	var simulated float64
	b.ReportAllocs()
	for b.Loop() {
		r, err := model.Run(sc)
		if err != nil {
			b.Fatal(err)
		}
		events += r.Runtime.Events
		simulated += r.Runtime.SimulatedSeconds
	}
	wall := b.Elapsed().Seconds()
	b.ReportMetric(float64(events)/wall, "events/s")
	b.ReportMetric(simulated/wall, "sim-s/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
