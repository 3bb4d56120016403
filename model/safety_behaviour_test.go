package model_test

import (
	"encoding/json"
	"reflect"
	"runtime"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

const safetyYAML = `
name: safety
server: {shared_buffers: 8MB, cpus: 2}
tables: {pgbench: {scale: 1}}
workload:
  phases:
    - {name: run, duration: 3s, clients: 4, script: tpcb-like}
`

// A key outside the table (pgbench expressions can produce one) finds no
// row, as pgbench's UPDATE would (UPDATE 0): counted, never a crash.
func TestKeysOutsideTheTable(t *testing.T) {
	for _, expr := range []string{"random(1, 100000 * :scale) * 1000000", "-5", "0"} {
		r := bhRunYAML(t, safetyYAML, "workload.phases.run.set.aid="+expr)
		tx := r.Totals.Transactions
		// Three keyed statements use aid (update, select) ... every
		// transaction misses on pgbench_accounts twice.
		if tx == 0 || r.Totals.KeysNotFound < 2*tx || r.Totals.KeysNotFound > 2*tx+8 {
			t.Errorf("aid = %s: %d transactions, %d keys not found", expr, tx, r.Totals.KeysNotFound)
		}
	}
	if r := bhRunYAML(t, safetyYAML); r.Totals.KeysNotFound != 0 {
		t.Errorf("keys in range: %d not found", r.Totals.KeysNotFound)
	}
}

// pgbench -T stops at the duration whatever the schedule: a rate far
// beyond what the server does ends the phase at its end, with the
// transactions still running then finishing (advanceConnectionState,
// timer_exceeded).
func TestRatePhaseEndsAtItsDuration(t *testing.T) {
	r := bhRunYAML(t, safetyYAML, "workload.phases.run.rate=1000000", "workload.phases.run.duration=1s")
	if s := r.Runtime.SimulatedSeconds; s > 1.1 {
		t.Errorf("a 1 s phase at rate 1e6 simulated %.2f s", s)
	}
	if r.Totals.Transactions == 0 {
		t.Error("no transactions")
	}
}

// Progress only watches: the result is identical with it.
func TestProgressIsInvisible(t *testing.T) {
	sc := bhScenario(t, safetyYAML, "workload.prewarm=5000", "workload.phases.run.rate=200")
	a := bhRun(t, sc)
	calls := 0
	b, err := model.RunWith(sc, model.Options{Progress: func(int64, uint64) { calls++ }, ProgressEvery: 100e6})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 20 {
		t.Errorf("progress called %d times", calls)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) || !reflect.DeepEqual(a.Series, b.Series) {
		t.Error("the result differs with progress reporting")
	}
}

// AtEnd runs while the model's state is live (a heap profile there shows
// it), and an interrupted run stops with ErrInterrupted.
func TestAtEndAndInterrupt(t *testing.T) {
	sc := bhScenario(t, safetyYAML, "tables.pgbench.scale=20")
	var live uint64
	_, err := model.RunWith(sc, model.Options{AtEnd: func() {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		live = m.HeapAlloc
	}})
	if err != nil {
		t.Fatal(err)
	}
	if live < 5<<20 {
		t.Errorf("AtEnd saw %d bytes live: the model's state (scale 20) is gone", live)
	}
	polls := 0
	_, err = model.RunWith(sc, model.Options{Interrupted: func() bool { polls++; return polls > 2 }})
	if err != model.ErrInterrupted {
		t.Errorf("interrupted run: %v", err)
	}
}

// A checkpoint still running when the run ends is listed (complete false)
// with the writes it made, so checkpoints[] accounts for every checkpoint
// write.
func TestRunningCheckpointListed(t *testing.T) {
	r := bhRunYAML(t, safetyYAML, "server.checkpoint_timeout=30s", "workload.phases.run.duration=40s", "server.checkpoint_completion_target=0.9")
	var sum int64
	for _, c := range r.Checkpoints {
		sum += c.Written
	}
	last := r.Checkpoints[len(r.Checkpoints)-1]
	if last.Complete || last.EndS != 0 {
		t.Errorf("the checkpoint started at 30 s should still run at 40 s: %+v", last)
	}
	if sum != r.Totals.Buffers.Checkpoint {
		t.Errorf("checkpoints[] wrote %d buffers, buffers.checkpoint %d", sum, r.Totals.Buffers.Checkpoint)
	}
}
