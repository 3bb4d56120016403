package model_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// Determinism (docs/model.md, §4): the same scenario and seed give
// identical results; a different seed gives different ones; and random
// streams are per purpose, so changing the replacement policy does not
// change the workload's draws (common random numbers).

// busyYAML exercises every process: clients with a pgbench log, the
// bgwriter, WAL-triggered checkpoints (max_wal_size 32MB: one segment),
// autovacuum and device jitter.
const busyYAML = `
name: determinism
seed: 11
server:
  version: "17"
  shared_buffers: 2MB
  cpus: 2
  max_wal_size: 32MB
  autovacuum_naptime: 4s
os:
  page_cache: 8MB
storage: {data: sata-ssd, wal: data}
tables:
  pgbench: {scale: 1}
output:
  pgbench_log: true
workload:
  phases:
    - name: warm
      warmup: true
      duration: 2s
      clients: 4
    - name: run
      duration: 10s
      clients: 4
      threads: 2
`

// resultBytes is everything a run reports except Runtime (whose wall-clock
// fields the caller fills in).
func resultBytes(t *testing.T, r *model.Result) []byte {
	t.Helper()
	c := *r
	c.Runtime = model.Runtime{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, v := range []any{c, r.Series, r.LatencyCDF, r.UsageFinal, r.Header, r.Marks} {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	buf.Write(r.PGBenchLogLines())
	return buf.Bytes()
}

func TestSameSeedGivesIdenticalResult(t *testing.T) {
	sc := bhScenario(t, busyYAML)
	a, b := bhRun(t, sc), bhRun(t, sc)
	if a.Totals.Transactions == 0 || len(a.Checkpoints) == 0 || len(a.PGBenchLogLines()) == 0 || a.Totals.Buffers.Clean == 0 {
		t.Fatalf("the scenario should exercise clients, checkpoints, the bgwriter and the log: %d txns, %d checkpoints, %d clean", a.Totals.Transactions, len(a.Checkpoints), a.Totals.Buffers.Clean)
	}
	if !bytes.Equal(resultBytes(t, a), resultBytes(t, b)) {
		t.Fatalf("two runs of the same scenario and seed differ")
	}
	if a.Runtime.Events != b.Runtime.Events || a.Runtime.SimulatedSeconds != b.Runtime.SimulatedSeconds {
		t.Fatalf("event counts differ: %d vs %d", a.Runtime.Events, b.Runtime.Events)
	}
	other := sc
	other.Seed = 12
	c := bhRun(t, other)
	if bytes.Equal(resultBytes(t, a), resultBytes(t, c)) {
		t.Fatalf("seeds 11 and 12 gave identical results")
	}
	if a.Totals.LatencyMS == c.Totals.LatencyMS {
		t.Fatalf("seeds 11 and 12 gave identical latency distributions")
	}
	// A replicate is another independent run of the same point.
	rep := sc
	rep.Replicate = 1
	if d := bhRun(t, rep); bytes.Equal(resultBytes(t, a), resultBytes(t, d)) {
		t.Fatalf("replicates 0 and 1 gave identical results")
	}
}

// crnSlot is one transaction's identity and scheduled start (us).
type crnSlot struct {
	client, txn, schedUs int64
}

// crnSlots parses a pgbench -l log under --rate ("client_id
// transaction_no time_us script_no time_epoch time_us lag_us"): the
// scheduled start is the completion time minus the latency (pgbench.c
// doLog, processXactStats; both whole microseconds).
func crnSlots(t *testing.T, log []byte) []crnSlot {
	t.Helper()
	var out []crnSlot
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		f := strings.Fields(line)
		if len(f) != 7 {
			t.Fatalf("log line %q: want 7 fields under --rate", line)
		}
		n := make([]int64, 7)
		for i, s := range f {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			n[i] = v
		}
		out = append(out, crnSlot{client: n[0], txn: n[1], schedUs: n[4]*1e6 + n[5] - n[2]})
	}
	slices.SortFunc(out, func(a, b crnSlot) int {
		if a.client != b.client {
			return int(a.client - b.client)
		}
		return int(a.txn - b.txn)
	})
	return out
}

// Common random numbers (docs/model.md): arrivals and keys come from
// per-client / per-thread streams, so runs that differ only in the
// replacement policy crnSlot the same transactions at the same instants
// (pgbench's Poisson crnSlot per thread, pgbench.c getPoissonRand) even
// though their caches behave differently.
func TestPolicyDoesNotChangeWorkloadDraws(t *testing.T) {
	const yaml = `
name: crn
seed: 5
server:
  shared_buffers: 1MB       # 128 buffers for ~1900 pages: the policy matters
  cpus: 4
os:
  page_cache: 1GB           # no I/O pressure
storage: {data: nvme, wal: nvme}
tables:
  pgbench: {scale: 1}
output:
  pgbench_log: true
workload:
  phases:
    - name: run
      duration: 10s
      clients: 4
      threads: 4
      rate: 400
`
	var base []crnSlot
	var baseHit float64
	for _, pol := range []string{"clock-sweep", "lru", "2q", "sieve"} {
		r := bhRunYAML(t, yaml, "policies.replacement.name="+pol)
		s := crnSlots(t, r.PGBenchLogLines())
		if int64(len(s)) != r.Totals.Transactions {
			t.Fatalf("%s: %d log lines for %d transactions", pol, len(s), r.Totals.Transactions)
		}
		if base == nil {
			base, baseHit = s, r.Totals.Buffers.HitRatio
			if len(s) < 3000 {
				t.Fatalf("only %d transactions at 400 tps for 10 s", len(s))
			}
			continue
		}
		if r.Totals.Buffers.HitRatio == baseHit {
			t.Errorf("%s: same hit ratio %.6f as clock-sweep: the comparison would prove nothing", pol, baseHit)
		}
		if !reflect.DeepEqual(s, base) {
			n := min(len(s), len(base))
			i := 0
			for i < n && s[i] == base[i] {
				i++
			}
			t.Fatalf("%s: %d transactions vs %d with clock-sweep; first difference at %d", pol, len(s), len(base), i)
		}
	}
}

// The I/O paths of 18 (read streams pinning ahead, I/O workers and
// io_uring completions, several scans racing for the same blocks, the
// kernel's readahead) are as deterministic as the rest: two runs of each
// io_method give the same bytes, and the methods differ from each other.
func TestAsynchronousIODeterministic(t *testing.T) {
	const aioYAML = `
name: determinism-aio
seed: 5
server: {version: "18", shared_buffers: 2MB, cpus: 2, autovacuum: false}
os: {page_cache: 6MB}
storage: {data: nvme}
tables:
  pgbench: {scale: 1}
  relations:
    - {name: big, rows: 60000, row_width: 100}
workload:
  phases:
    - name: run
      duration: 3s
      clients: 3
      scripts:
        - {builtin: tpcb-like, weight: 3}
        - {name: scan, steps: [{seqscan: {table: big}}]}
`
	var prev []byte
	for _, m := range []string{"sync", "worker", "io_uring"} {
		sc := bhScenario(t, aioYAML, "server.io_method="+m)
		a, b := bhRun(t, sc), bhRun(t, sc)
		ab, bb := resultBytes(t, a), resultBytes(t, b)
		if !bytes.Equal(ab, bb) {
			t.Fatalf("io_method %s: two runs of the same scenario differ", m)
		}
		if a.Totals.Transactions == 0 || a.Totals.Disk.Reads == 0 {
			t.Fatalf("io_method %s: %d transactions, %d device reads; the scenario should scan from the device", m, a.Totals.Transactions, a.Totals.Disk.Reads)
		}
		if prev != nil && bytes.Equal(prev, ab) {
			t.Errorf("io_method %s gave the same result as the method before it", m)
		}
		prev = ab
	}
}
