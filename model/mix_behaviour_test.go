package model_test

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

const mixYAML = `name: mix
seed: 3
server: {version: "15", shared_buffers: 32MB, cpus: 2}
tables:
  pgbench: {scale: 1}
output:
  pgbench_log: true
workload:
  prewarm: 2000
  phases:
    - name: run
      duration: 20s
      clients: 4
      threads: 2
      rate: 400
      scripts:
        - {builtin: tpcb-like, weight: 3}
        - {builtin: select-only, weight: 1}
        - {builtin: simple-update, weight: 0}
`

// A weighted mix (pgbench -b tpcb-like@3 -b select-only@1 ...): each
// transaction picks a script with probability weight / total weight
// (chooseScript); a script of weight 0 never runs. The summary breaks the
// run down per script as pgbench does, the pgbench log's script_no column
// names the script, and the header says "multiple scripts".
func TestWeightedMixPicksScriptsByWeight(t *testing.T) {
	res := bhRunYAML(t, mixYAML)
	tot := res.Totals
	if len(tot.Scripts) != 3 {
		t.Fatalf("%d per-script results, want 3", len(tot.Scripts))
	}
	var sum int64
	for _, s := range tot.Scripts {
		sum += s.Transactions
	}
	if sum != tot.Transactions {
		t.Errorf("per-script transactions add up to %d, the run has %d", sum, tot.Transactions)
	}
	n := float64(tot.Transactions)
	share := float64(tot.Scripts[0].Transactions) / n
	if sd := math.Sqrt(0.75 * 0.25 / n); math.Abs(share-0.75) > 4*sd {
		t.Errorf("tpcb-like ran %.4f of the transactions, want 0.75 +- %.4f (4 sd)", share, 4*sd)
	}
	if tot.Scripts[0].TargetShare != 0.75 || tot.Scripts[1].TargetShare != 0.25 || tot.Scripts[2].TargetShare != 0 {
		t.Errorf("target shares %v %v %v, want 0.75 0.25 0", tot.Scripts[0].TargetShare, tot.Scripts[1].TargetShare, tot.Scripts[2].TargetShare)
	}
	if tot.Scripts[2].Transactions != 0 {
		t.Errorf("a script of weight 0 ran %d times", tot.Scripts[2].Transactions)
	}
	// select-only is one index lookup: faster than tpcb-like's five statements.
	if tot.Scripts[1].LatencyMS.Mean >= tot.Scripts[0].LatencyMS.Mean {
		t.Errorf("select-only %.3f ms, tpcb-like %.3f ms", tot.Scripts[1].LatencyMS.Mean, tot.Scripts[0].LatencyMS.Mean)
	}
	if res.Header[0] != "transaction type: multiple scripts" {
		t.Errorf("header %q", res.Header[0])
	}
	// client_id transaction_no time script_no time_epoch time_us schedule_lag
	counts := [3]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(res.PGBenchLogLines())), "\n") {
		f := strings.Fields(line)
		if len(f) != 7 {
			t.Fatalf("log line %q: want 7 fields", line)
		}
		switch f[3] {
		case "0", "1", "2":
			counts[f[3][0]-'0']++
		default:
			t.Fatalf("log line %q: script_no %q", line, f[3])
		}
	}
	if int64(counts[0]) != tot.Scripts[0].Transactions || int64(counts[1]) != tot.Scripts[1].Transactions || counts[2] != 0 {
		t.Errorf("log script_no counts %v, summary %d %d %d", counts, tot.Scripts[0].Transactions, tot.Scripts[1].Transactions, tot.Scripts[2].Transactions)
	}
	// The select-only share reads no history: tpcb-like alone would insert
	// one history row per transaction.
	var hist int64
	for _, r := range tot.StatioTables {
		if r.Relname == "pgbench_history" {
			hist = r.HeapBlksHit + r.HeapBlksRead
		}
	}
	if want := tot.Scripts[0].Transactions; hist < want || hist > want+want/20 {
		t.Errorf("pgbench_history accesses %d, want about one per tpcb-like transaction (%d)", hist, want)
	}
}

// A mix of one script is that script: the same bytes, no breakdown.
func TestMixOfOneScriptIsTheScript(t *testing.T) {
	one := bhRunYAML(t, mixYAML, "workload.phases.run.scripts=[{builtin: select-only}]")
	plain := bhRunYAML(t, strings.Replace(mixYAML, `      scripts:
        - {builtin: tpcb-like, weight: 3}
        - {builtin: select-only, weight: 1}
        - {builtin: simple-update, weight: 0}
`, "      script: select-only\n", 1))
	if one.Totals.Scripts != nil {
		t.Errorf("a mix of one script reports a per-script breakdown")
	}
	if a, b := resultBytes(t, one), resultBytes(t, plain); !bytes.Equal(a, b) {
		t.Errorf("scripts: [{builtin: select-only}] and script: select-only give different results")
	}
}
