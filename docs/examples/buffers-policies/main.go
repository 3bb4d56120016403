// Command buffers-policies sweeps shared_buffers against the replacement
// policy on pgbench's TPC-B-like workload with gaussian account keys
// (threshold 5, as in the 2014 clock-sweep thread), 3 replicates with
// common random numbers, and charts the hit ratio and the p99 latency.
//
//	go run ./docs/examples/buffers-policies -out out/buffers-policies.html
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/plots"
	"github.com/pgbufsim/pgbufsim/sweep"
)

const scenario = `
name: buffers-policies
tables: {pgbench: {scale: 10}}
os: {page_cache: 96MB}
workload:
  phases:
    - {name: warmup, warmup: true, duration: 5s, clients: 8, set: {aid: "random_gaussian(1, 100000 * :scale, 5)"}}
    - {name: run, duration: 20s, clients: 8, set: {aid: "random_gaussian(1, 100000 * :scale, 5)"}}
`

var (
	sizes    = []string{"16MB", "32MB", "64MB", "128MB"}
	sizesMB  = []float64{16, 32, 64, 128}
	policies = []string{"clock-sweep", "lru", "2q", "sieve"}
)

func main() {
	out := flag.String("out", "out/buffers-policies.html", "chart file to write")
	flag.Parse()
	if _, err := run(*out, "20s", 3, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(out, duration string, replicates int, w io.Writer) (*sweep.Results, error) {
	sc, err := configs.Parse("buffers-policies.yaml", []byte(scenario), "workload.phases.run.duration="+duration)
	if err != nil {
		return nil, err
	}
	plan, err := configs.SweepOf(sc, replicates, "server.shared_buffers=16MB,32MB,64MB,128MB", "policies.replacement.name=clock-sweep,lru,2q,sieve")
	if err != nil {
		return nil, err
	}
	res, err := sweep.Run(plan, sweep.Options{}) // in memory, on every core
	if err != nil {
		return nil, err
	}
	page := plots.Page{Title: "shared_buffers x replacement policy, gaussian pgbench (mean, 95% CI)"}
	for i, m := range []string{"buffers.hit_ratio", "latency_ms.p99"} {
		c := &plots.Chart{ID: fmt.Sprintf("c%d", i), Title: configs.MetricTitle(m) + " by shared_buffers", XType: plots.AxisLog,
			XName: "shared_buffers (MB), log scale", YName: configs.MetricTitle(m), X: sizesMB, YFit: true}
		for _, pol := range policies {
			s, band := plots.Series{Name: pol}, plots.Band{Name: pol + " 95% CI"}
			for _, size := range sizes {
				e := res.Estimate(plan.Index(size, pol), m)
				s.Y, band.Lower, band.Upper = append(s.Y, e.Mean), append(band.Lower, e.Lo()), append(band.Upper, e.Hi())
			}
			c.Series, c.Bands = append(c.Series, s), append(c.Bands, band)
		}
		page.Sections = append(page.Sections, plots.Section{Chart: c, Text: []string{
			"How often a page was found in shared buffers, for each policy as the pool grows: the policies differ most where the pool holds the hot set only in part. The y axis fits the data (it does not start at zero); bands are 95% intervals over the replicates.",
			"The 99th percentile of transaction latency, which follows the misses: each read from the device costs a transaction milliseconds. Bands are 95% intervals over the replicates.",
		}[i]})
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	return res, errors.Join(res.WriteTable(w), plots.WriteFile(out, page))
}
