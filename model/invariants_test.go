package model

import (
	"strings"
	"testing"
)

// Each conservation law is checked at the end of every run, and a
// violation fails the run with a message naming the law (exit 2 in the
// CLI): break each one after a real run and see it caught.
func TestInvariantsCatchViolations(t *testing.T) {
	sc := DefaultScenario()
	sc.Server.SharedBuffers = 4 << 20
	sc.Tables.PGBench.Scale = 1
	sc.Workload.Phases = []Phase{{Name: "run", Clients: 4, Threads: 1, Duration: 3 * sec, Script: Script{Builtin: "tpcb-like"}}}
	for _, c := range []struct {
		law    string
		break_ func(e *engine)
	}{
		{"accesses", func(e *engine) { e.pool.Stats.Hits++ }},
		{"buffers_alloc", func(e *engine) { e.pool.Stats.Alloc++ }},
		{"buffer writes", func(e *engine) { e.bufWrites.clean++ }},
		{"checkpoint writes", func(e *engine) { e.bufWrites.checkpoint++; e.os.Stats.Writes++ }},
		{"buffer states", func(e *engine) { e.pool.Flags[0] = 0 }},
		{"dirty buffers", func(e *engine) { e.pool.Flags[1] ^= 2 /* bufpool.Dirty */ }},
	} {
		e, err := build(sc)
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.run(Options{})
		if err != nil {
			t.Fatalf("a correct run failed its checks: %v", err)
		}
		c.break_(e)
		err = e.checkInvariants(r)
		if err == nil || !strings.Contains(err.Error(), `"`+c.law+`"`) {
			t.Errorf("%s: got %v", c.law, err)
		}
	}
}
