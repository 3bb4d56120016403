package model_test

import (
	"math"
	"testing"
)

// costs.buffer_first_touch is paid once per buffer and backend process,
// costs.buffer_map_fault once per 64 kB of the pool (eight buffers in
// consecutive slots: Linux's fault-around) and process: a session's
// first warm scan of a 500-page table, whose pages the load put in
// consecutive slots, pays the first 500 times and the second for 63
// stretches, its second scan in the same session none, and the next
// phase's new session pays again (its backends are new processes).
func TestBufferFirstTouchOncePerBufferAndProcess(t *testing.T) {
	// Without the system catalogs, whose pages each new session touches
	// too, the table's 500 buffers are all there is.
	doc := `name: first-touch
server: {autovacuum: false, cpus: 2, shared_buffers: 128MB, system_catalogs: false}
tables:
  relations:
    - {name: t, pages: 500, rows_per_page: 100, state: vacuumed, index: false}
workload:
  phases:
    - {name: load, transactions: 1, warmup: true, script: [{seqscan: {table: t}}]}
    - {name: session, transactions: 2, script: [{seqscan: {table: t}}]}
    - {name: again, transactions: 1, script: [{seqscan: {table: t}}]}
`
	free := bhRunYAML(t, doc)
	for _, price := range []struct {
		set   string
		times float64
	}{{"costs.buffer_first_touch=1us", 500}, {"costs.buffer_map_fault=1us", 63}} {
		priced := bhRunYAML(t, doc, price.set)
		for _, phase := range []string{"session", "again"} {
			d := bhPhase(t, priced, phase).CPU.BusySeconds - bhPhase(t, free, phase).CPU.BusySeconds
			if want := price.times * 1e-6; math.Abs(d-want) > 0.5e-6 {
				t.Errorf("%s, %s: busy %.6f s more with the price, want %.6f (%.0f times, once each)", price.set, phase, d, want, price.times)
			}
		}
	}
}
