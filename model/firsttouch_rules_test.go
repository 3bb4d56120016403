package model_test

import (
	"math"
	"testing"
)

// costs.buffer_first_touch is paid once per buffer and backend process:
// a session's first warm scan of a 500-page table pays it 500 times, its
// second scan in the same session none, and the next phase's new session
// pays it again (its backends are new processes).
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
	priced := bhRunYAML(t, doc, "costs.buffer_first_touch=1us")
	for _, c := range []struct {
		phase string
		want  float64
	}{{"session", 500e-6}, {"again", 500e-6}} {
		d := bhPhase(t, priced, c.phase).CPU.BusySeconds - bhPhase(t, free, c.phase).CPU.BusySeconds
		if math.Abs(d-c.want) > 2e-6 {
			t.Errorf("%s: busy %.6f s more with the price, want %.6f (500 buffers once each)", c.phase, d, c.want)
		}
	}
}
