// Command hint-cache sweeps the 2011 hint-bit cache patch on and off over
// the number of clients, on the workload its author describes: each client
// inserts a batch of rows in one transaction into its own table, scans it
// twice and deletes it. Without the cache every first look at a tuple asks
// the clog and dirties the page to set hint bits; with it, a backend-local
// bitmap of committed xids answers. It charts latency and clog lookups.
//
//	go run ./docs/examples/hint-cache -out out/hint-cache.html
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
name: hint-cache
server: {shared_buffers: 128MB, cpus: 4}
os: {page_cache: 1GB}
tables:
  relations: [{name: batch, rows: 0, count: 16}]
workload:
  phases:
    - name: run
      duration: 10s
      script:
        - insert: {table: batch, rows: 20000}
        - seqscan: {table: batch}
        - seqscan: {table: batch}
        - delete: {table: batch}
`

var clients = []string{"1", "2", "4", "8", "16"}

func main() {
	out := flag.String("out", "out/hint-cache.html", "chart file to write")
	flag.Parse()
	if _, err := run(*out, "10s", 3, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(out, duration string, replicates int, w io.Writer) (*sweep.Results, error) {
	sc, err := configs.Parse("hint-cache.yaml", []byte(scenario), "workload.phases.run.duration="+duration)
	if err != nil {
		return nil, err
	}
	plan, err := configs.SweepOf(sc, replicates, "workload.phases.run.clients=1,2,4,8,16", "policies.hint_cache.enabled=false,true")
	if err != nil {
		return nil, err
	}
	res, err := sweep.Run(plan, sweep.Options{})
	if err != nil {
		return nil, err
	}
	page := plots.Page{Title: "hint-bit cache over clients: insert, scan twice, delete (mean, 95% CI)"}
	for i, m := range []string{"latency_ms.mean", "visibility.clog_lookups"} {
		c := &plots.Chart{ID: fmt.Sprintf("c%d", i), Title: configs.MetricTitle(m) + " by clients", XType: plots.AxisLog,
			XName: "clients, log scale", YName: configs.MetricTitle(m), X: []float64{1, 2, 4, 8, 16}}
		for _, on := range []string{"false", "true"} {
			s, band := plots.Series{Name: "hint cache " + on}, plots.Band{Name: on + " 95% CI"}
			for _, n := range clients {
				e := res.Estimate(plan.Index(n, on), m)
				s.Y, band.Lower, band.Upper = append(s.Y, e.Mean), append(band.Lower, e.Lo()), append(band.Upper, e.Hi())
			}
			c.Series, c.Bands = append(c.Series, s), append(c.Bands, band)
		}
		page.Sections = append(page.Sections, plots.Section{Chart: c, Text: []string{
			"Mean latency of the insert, scan, scan, delete batches with the hint-bit cache off and on, as clients are added. Bands are 95% intervals over the replicates.",
			"Commit-status lookups that reached the clog (TransactionLogFetch): the hint-bit cache answers most of them before the clog is asked, which is what it is for.",
		}[i]})
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	return res, errors.Join(res.WriteTable(w), plots.WriteFile(out, page))
}
