package model_test

import "testing"

// workload.phases[].pause: the server idles before the phase, its
// background writer cleaning what the previous phase dirtied; the phase
// starts after it and its counters leave the pause out.
func TestPhasePause(t *testing.T) {
	const doc = `name: pause
seed: 3
server: {version: "18", shared_buffers: 2MB, cpus: 2, autovacuum: false}
os: {page_cache: 64MB}
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - {name: write, transactions: 400, clients: 2, rate: 400, script: tpcb-like}
    - {name: read, transactions: 200, clients: 2, rate: 400, script: select-only}
`
	plain := bhRunYAML(t, doc)
	paused := bhRunYAML(t, doc, "workload.phases.read.pause=2s")
	w0, w1 := bhPhase(t, plain, "write"), bhPhase(t, paused, "write")
	if w0.ElapsedS != w1.ElapsedS || w0.Transactions != w1.Transactions {
		t.Fatalf("the pause changed the phase before it")
	}
	r0, r1 := bhPhase(t, plain, "read"), bhPhase(t, paused, "read")
	if got := r1.StartS - (w1.StartS + w1.ElapsedS); got < 1.999 || got > 2.001 {
		t.Fatalf("the read phase started %.3f s after the write phase ended, want 2", got)
	}
	if r0.StartS != w0.StartS+w0.ElapsedS {
		t.Fatalf("without a pause the read phase starts when the write phase ends")
	}
	// The background writer cleaned during the pause, out of every phase:
	// the read phase's backends meet fewer dirty victims.
	c0, c1 := r0.Metrics.Buffers.Backend, r1.Metrics.Buffers.Backend
	if c1 >= c0 || c0 == 0 {
		t.Fatalf("backends wrote %d dirty victims in the read phase after a pause, %d without; want fewer after", c1, c0)
	}
}
