// Command vm-threshold sweeps the visibility-map threshold of the 2013
// "Removing PD_ALL_VISIBLE" patch from 0 to 128 pages: 500 tables of 16 to
// 64 pages, all-visible, each client scanning them in turn. Tables under
// the threshold check every tuple; the others test visibility-map bits.
// It charts transactions per second and VM lookups against the threshold
// for two shared_buffers sizes.
//
//	go run ./docs/examples/vm-threshold -out out/vm-threshold.html
package main

import (
	"errors"
	"flag"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/plots"
	"github.com/pgbufsim/pgbufsim/sweep"
)

const scenario = `
name: vm-threshold
server: {version: "9.3", cpus: 4}
os: {page_cache: 1GB}
policies: {all_visible: {mode: vm}}
tables:
  relations:
    - {name: t16, pages: 16, rows_per_page: 100, count: 125}
    - {name: t32, pages: 32, rows_per_page: 100, count: 125}
    - {name: t48, pages: 48, rows_per_page: 100, count: 125}
    - {name: t64, pages: 64, rows_per_page: 100, count: 125}
workload:
  phases:
    - name: run
      duration: 10s
      clients: 16
      script: [seqscan: {table: t16, pick: random}, seqscan: {table: t32, pick: random},
               seqscan: {table: t48, pick: random}, seqscan: {table: t64, pick: random}]
`

var thresholds = []float64{0, 16, 32, 48, 64, 96, 128}

func main() {
	out := flag.String("out", "out/vm-threshold.html", "chart file to write")
	flag.Parse()
	if _, err := run(*out, "10s", 3, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

func run(out, duration string, replicates int, w io.Writer) (*sweep.Results, error) {
	sc, err := configs.Parse("vm-threshold.yaml", []byte(scenario), "workload.phases.run.duration="+duration)
	if err != nil {
		return nil, err
	}
	plan, err := configs.SweepOf(sc, replicates, "server.shared_buffers=64MB,256MB", "policies.all_visible.vm_skip_threshold=0,16,32,48,64,96,128")
	if err != nil {
		return nil, err
	}
	res, err := sweep.Run(plan, sweep.Options{})
	if err != nil {
		return nil, err
	}
	page := plots.Page{Title: "VM threshold: 500 tables of 16-64 pages (mean, 95% CI)"}
	for i, m := range []string{"tps", "visibility.vm_lookups"} {
		c := &plots.Chart{ID: []string{"tps", "vm"}[i], Title: configs.MetricTitle(m) + " by vm_skip_threshold", XName: "vm_skip_threshold (pages)",
			YName: configs.MetricTitle(m), X: thresholds, YFit: i == 0}
		for _, sb := range []string{"64MB", "256MB"} {
			s, band := plots.Series{Name: "shared_buffers " + sb}, plots.Band{Name: sb + " 95% CI"}
			for _, th := range plan.Axes[1].Values {
				e := res.Estimate(plan.Index(sb, th), m)
				s.Y, band.Lower, band.Upper = append(s.Y, e.Mean), append(band.Lower, e.Lo()), append(band.Upper, e.Hi())
			}
			c.Series, c.Bands = append(c.Series, s), append(c.Bands, band)
		}
		page.Sections = append(page.Sections, plots.Section{Chart: c, Text: []string{
			"Throughput of count(*) over 500 small tables as the visibility map's skip threshold grows: a table smaller than the threshold has every tuple's visibility checked instead of the map consulted. The y axis fits the data (it does not start at zero); bands are 95% intervals over the replicates.",
			"Visibility-map lookups the scans made: they fall as more tables come under the threshold, to zero once it exceeds the largest table (64 pages).",
		}[i]})
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	return res, errors.Join(res.WriteTable(w), plots.WriteFile(out, page))
}
