// Package sweep runs policy and parameter sweeps of pgbufsim scenarios:
// every point of a cartesian product of configuration values
// (configs.SweepPlan), each repeated for several replicates, in parallel,
// resumably, and summarises them with confidence intervals.
//
// Method. Replicate r of every point runs with the same base seed and
// Replicate = r, and the model derives each random stream from (seed,
// replicate, purpose), so all points of a replicate see identical arrivals
// and keys: common random numbers. A policy difference is then measured on
// identical workloads, and the paired-t interval of the per-replicate
// differences is far narrower than one from independent samples (Law,
// Simulation Modeling and Analysis, 5th ed., §11.2). Per point, each metric
// is reported as the mean of its replicates with a 95% Student-t interval,
// mean ± t(0.975, n-1)·s/√n (gonum's distuv.StudentsT).
//
// Outputs are functions of the finished runs alone, sorted in the plan's
// stable order, never of the order runs finish in: the files are
// byte-identical for any parallelism, after an interruption and resumption,
// and for a sweep split into shards (-shard i/n) and merged (Merge).
// Resumption follows the Caffeine simulator's rule "append + skip-done":
// each finished run writes its directory atomically, then appends a line to
// DIR/sweep.journal; a later run into the same DIR skips runs whose line
// and directory exist, and refuses a DIR whose runs were made with another
// configuration (their configuration hashes differ).
//
// A Go program uses it like the CLI does:
//
//	sc, err := configs.Load("configs/quickstart.yaml")
//	plan, err := configs.SweepOf(sc, 3, "server.shared_buffers=32MB,64MB,128MB", "policies.replacement.name=clock-sweep,lru")
//	res, err := sweep.Run(plan, sweep.Options{Dir: "out/my-sweep"})
//	e := res.Estimate(0, "latency_ms.p99") // e.Mean ± e.HalfWidth
//	err = res.WriteTable(os.Stdout)
//
// The simulate CLI calls Main for a sweep and MergeMain for `simulate
// merge`. docs/sweeps.md is the user's guide.
package sweep
