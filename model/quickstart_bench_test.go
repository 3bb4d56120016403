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

// BenchmarkClosedLoopClients runs the quickstart's closed loop (no think
// time) at 8, 64 and 512 clients and reports wall microseconds per
// simulated transaction: the client count's own cost (snapshots, the
// oldest-xmin horizon, the lock queues), docs/performance.md "Clients".
//
//	go test -run '^$' -bench ClosedLoopClients -count 3 ./model/
func BenchmarkClosedLoopClients(b *testing.B) {
	for _, c := range []string{"8", "64", "512"} {
		b.Run("clients="+c, func(b *testing.B) {
			sc, err := configs.Load("../configs/quickstart.yaml",
				"workload.phases.warmup.duration=0.5s", "workload.phases.run.duration=3s",
				"workload.phases.warmup.clients="+c, "workload.phases.run.clients="+c)
			if err != nil {
				b.Fatal(err)
			}
			var txns int64
			for b.Loop() {
				r, err := model.Run(sc)
				if err != nil {
					b.Fatal(err)
				}
				for _, p := range r.Phases {
					txns += p.Transactions
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(txns), "us/txn")
		})
	}
}
