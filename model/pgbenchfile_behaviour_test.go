package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

// fileScenario runs one phase of script at scale 2; the setup connection's
// catalog reads differ between built-in and file scripts as they do in
// pgbench (which reads the scale from pgbench_branches only for built-in
// scripts), so the catalogs are left out where runs are compared.
const fileScenario = `name: files
seed: 5
server: {version: "15", shared_buffers: 16MB, cpus: 2, system_catalogs: false}
tables:
  pgbench: {scale: 2}
output:
  pgbench_log: true
workload:
  prewarm: 500
  phases:
    - name: run
      duration: 4s
      clients: 4
      threads: 2
      rate: 300
      script: tpcb-like
`

// resultJSON is a run's summary with the scenario's own echo and the
// runtime block left out: what the simulation produced.
func resultJSON(t *testing.T, r *model.Result) []byte {
	t.Helper()
	data, err := json.Marshal(struct {
		Phases, Totals, Checkpoints any
	}{r.Phases, r.Totals, r.Checkpoints})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Each of pgbench's built-in scripts, given as the file pgbench
// --show-script prints (model/builtin), runs exactly as the built-in:
// the same draws, the same statements, the same bytes, pgbench log
// included (its script_no column is 0 in both).
func TestBuiltinScriptsAsFilesGiveTheSameRun(t *testing.T) {
	for _, name := range []string{"tpcb-like", "simple-update", "select-only"} {
		t.Run(name, func(t *testing.T) {
			sql := filepath.Join("builtin", name+".sql")
			builtin := bhRunYAML(t, fileScenario, "workload.phases.run.script="+name)
			sc, err := configs.ParseWith(filepath.Join("testdata", "files.yaml"), []byte(fileScenario),
				configs.RunOptions{Scripts: []configs.ScriptArg{{File: sql, Weight: 1}}, Defines: []string{"scale=2"}})
			if err != nil {
				t.Fatal(err)
			}
			file := bhRun(t, sc)
			if a, b := resultJSON(t, builtin), resultJSON(t, file); !bytes.Equal(a, b) {
				t.Errorf("the file script's run differs from the built-in's:\n%s\n%s", a, b)
			}
			if !bytes.Equal(builtin.PGBenchLogLines(), file.PGBenchLogLines()) || len(file.PGBenchLogLines()) == 0 {
				t.Errorf("pgbench logs differ (%d and %d bytes)", len(builtin.PGBenchLogLines()), len(file.PGBenchLogLines()))
			}
			if file.Header[0] != "transaction type: "+sql {
				t.Errorf("header %q, want the file's name as pgbench prints it", file.Header[0])
			}
		})
	}
}

// The testdata files are what the installed pgbench prints for its
// built-in scripts (skipped where PostgreSQL is not installed).
func TestBuiltinScriptFilesAreThoseOfPgbench(t *testing.T) {
	bindir, err := exec.Command("pg_config", "--bindir").Output()
	if err != nil {
		t.Skip("pg_config not found: PostgreSQL is not installed here")
	}
	pgbench := filepath.Join(strings.TrimSpace(string(bindir)), "pgbench")
	for _, name := range []string{"tpcb-like", "simple-update", "select-only"} {
		out, err := exec.Command(pgbench, "--show-script="+name).CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench --show-script=%s: %v", name, err)
		}
		want, err := os.ReadFile(filepath.Join("builtin", name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Errorf("builtin/%s.sql differs from pgbench --show-script=%s:\n%s", name, name, out)
		}
	}
}

// Variables are shared by the statements of a transaction: a SELECT of
// :aid after an UPDATE of :aid finds the row's page in shared buffers,
// where a SELECT of another key (set from :aid by \set, so pages apart)
// misses as often as the UPDATE does. Statements by key go through the
// index (a scan would read the table's 3279 pages).
func TestScriptFileVariablesAreShared(t *testing.T) {
	run := func(selectKey string) model.RelationStats {
		script := `\set aid random(1, 100000 * :scale)
\set other (:aid + 100000) % (100000 * :scale) + 1
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :` + selectKey + `;
END;
`
		sc := bhScenario(t, fileScenario, "workload.prewarm=0", "workload.phases.run.rate=0", "workload.phases.run.clients=1", "workload.phases.run.threads=1", "workload.phases.run.duration=0", "workload.phases.run.transactions=2000")
		sc.Workload.Phases[0].Script = model.Script{Text: script}
		sc.Workload.Phases[0].Define = map[string]string{"scale": "2"}
		r := bhRun(t, sc)
		if r.Totals.Transactions != 2000 {
			t.Fatalf("%d transactions, want 2000", r.Totals.Transactions)
		}
		return findRel(t, r.Totals, "pgbench_accounts")
	}
	same, other := run("aid"), run("other")
	for _, acc := range []model.RelationStats{same, other} {
		if perTxn := float64(acc.HeapBlksHit+acc.HeapBlksRead) / 2000; perTxn > 10 {
			t.Errorf("%.2f heap accesses per transaction: not index lookups", perTxn)
		}
	}
	t.Logf("heap reads per transaction: %.3f selecting :aid, %.3f selecting :other", float64(same.HeapBlksRead)/2000, float64(other.HeapBlksRead)/2000)
	// The UPDATE misses about as often in both; the SELECT of :other
	// adds misses of its own, the SELECT of :aid none.
	if d := float64(other.HeapBlksRead-same.HeapBlksRead) / 2000; d < 0.2 {
		t.Errorf("heap reads per transaction: %.3f selecting :aid, %.3f selecting :other; the SELECT of the updated row should not miss",
			float64(same.HeapBlksRead)/2000, float64(other.HeapBlksRead)/2000)
	}
}

// findRel returns a relation's pg_statio counters from the totals.
func findRel(t *testing.T, tot model.Metrics, name string) model.RelationStats {
	t.Helper()
	for _, r := range tot.StatioTables {
		if r.Relname == name {
			return r
		}
	}
	t.Fatalf("no relation %q", name)
	return model.RelationStats{}
}

// A script file is read relative to the scenario's file, and its problems
// name the scenario's key and the script's line; nothing the model cannot
// express runs.
func TestScriptFileProblems(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "sql"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(fileScenario, "script: tpcb-like", "script: {file: sql/s.sql}", 1)
	cfgPath := filepath.Join(dir, "x.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ script, want string }{
		{"SELECT abalance FROM pgbench_accounts WHERE aid = 1;\n", ""},
		{"\\set aid random(1, 10)\nUPDATE pgbench_accounts a SET abalance = 0 FROM pgbench_tellers t WHERE a.aid = t.tid;\n",
			"x.yaml:16: workload.phases[0].script.file: sql/s.sql:2: UPDATE pgbench_accounts a SET ...: UPDATE ... FROM: joins are not modelled (supported: "},
		{"SELECT * FROM nosuch WHERE id = 1;", `sql/s.sql:1: unknown table "nosuch" (the scenario's tables: pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers)`},
		{"UPDATE pgbench_accounts SET abalance = 0 WHERE abalance = 1;", `sql/s.sql:1: UPDATE of table "pgbench_accounts" by abalance: only its key column aid is indexed`},
		{"UPDATE pgbench_accounts SET aid = aid + 1 WHERE aid = 1;", `UPDATE of "pgbench_accounts" sets its key column aid`},
		{"\\set x :y + 1", `sql/s.sql:1: \set x: pgbench expression ":y + 1": column 1: undefined variable "y" (defined: default_seed, random_seed, scale)`},
		{"\\set x :x + 1", `sql/s.sql:1: variable "x" may not be set here (it is set later, or only in some branches of an \if): pgbench would use the previous transaction's value, and fail in the first ("undefined variable"); define its first value with -D x=N`},
		{"SELECT * FROM pgbench_accounts WHERE aid = :n;", `sql/s.sql:1: undefined variable "n"`},
		{"\\if :scale\nSELECT 1;", `sql/s.sql:1: \if without a matching \endif`},
		{"SELECT 1;\n\\else", `sql/s.sql:2: \else without matching \if`},
		{"\\if true\n\\else\n\\elif false\n\\endif", `sql/s.sql:3: \elif after \else`},
		{"\\if random(0, 1) = 1\n\\set x 5\n\\endif\nSELECT * FROM pgbench_accounts WHERE aid = :x;", `sql/s.sql:4: variable "x" may not be set here`},
		{"\\if random(0, 1) = 1\nBEGIN;\n\\endif", `sql/s.sql:3: a branch of the \if at line 1 begins or ends a transaction`},
		{"\\if (1 < 2) + 1\n\\endif", `sql/s.sql:1: \if: pgbench expression "(1 < 2) + 1": column 4: cannot coerce boolean to a number`},
		{"\\sleep 1 min", `sql/s.sql:1: \sleep: unrecognized time unit "min"`},
		{"\\shell ls", `\shell: shell commands are not modelled`},
		{"BEGIN;\nSELECT 1;", `sql/s.sql:2: the script ends inside a transaction`},
		{"BEGIN;\nVACUUM pgbench_accounts;\nEND;", `sql/s.sql:2: VACUUM cannot run inside a transaction block`},
		{"SELECT abalance FROM pgbench_accounts WHERE aid = 1 \\gset", `sql/s.sql:1: \gset: the query returns "abalance"; of a row the model knows only its key column aid`},
		{"SELECT 1 +;", `sql/s.sql:1: syntax error at end of input`},
		{"SELECT abalance FROM pgbench_accounts WHERE bid = 1 AND aid > 5 LIMIT 1;", `sql/s.sql:1: ORDER BY, LIMIT or OFFSET on a range of aid with other conditions is not modelled`},
		{"SELECT abalance FROM pgbench_accounts WHERE aid = 7 AND bid = 1 LIMIT 1;", ""},
		{"SELECT aid FROM pgbench_accounts WHERE abalance > 0 LIMIT 5;", `sql/s.sql:1: LIMIT on a range of abalance, which has no index, is not modelled`},
		{"SELECT aid FROM pgbench_accounts WHERE abalance > 0 ORDER BY abalance LIMIT 5;", ""},
		{"SELECT count(*) FROM pgbench_accounts WHERE abalance > 0 LIMIT 5;", ""},
		{"SELECT abalance FROM pgbench_accounts WHERE aid > 5 LIMIT 5 OFFSET 10;", ""},
		{"SELECT abalance FROM pgbench_accounts LIMIT 5;", ""},
		{"", "sql/s.sql: the script is empty"},
	} {
		if err := os.WriteFile(filepath.Join(dir, "sql", "s.sql"), []byte(tc.script), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := configs.Load(cfgPath)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.script, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q:\n got %v\nwant %q", tc.script, err, tc.want)
		}
	}
}

// pgbench's :client_id is each client's number, 0 to clients - 1: a script
// keyed by it keeps each client on its own row (its page stays cached), a
// \gset of a lookup's key column copies the key, and \sleep by a variable
// waits that long.
func TestScriptFileClientIDGsetAndSleep(t *testing.T) {
	script := `\set k :client_id * 1000 + 1
SELECT aid FROM pgbench_accounts WHERE aid = :k \gset found_
UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :found_aid;
\set pause 2
\sleep :pause ms
`
	sc := bhScenario(t, fileScenario, "workload.prewarm=0", "workload.phases.run.rate=0", "workload.phases.run.duration=0", "workload.phases.run.transactions=200")
	sc.Workload.Phases[0].Script = model.Script{Text: script}
	r := bhRun(t, sc)
	acc := findRel(t, r.Totals, "pgbench_accounts")
	// Four clients on four rows: a few misses in all (first reads, and
	// the pages new versions go to), not one per transaction.
	if acc.HeapBlksRead > 40 {
		t.Errorf("%d heap reads for 800 transactions on four rows", acc.HeapBlksRead)
	}
	// Each transaction sleeps 2 ms: 200 of them per client take >= 0.4 s.
	if lat := r.Totals.LatencyMS.Mean; lat < 2 {
		t.Errorf("mean latency %.3f ms, below the 2 ms sleep", lat)
	}
}

// \if, \elif and \else choose a branch per transaction as pgbench does:
// here 30 % of the transactions look an account up, 20 % scan
// pgbench_branches and the rest scan pgbench_tellers; a variable set in
// every branch is read after the \endif, and a skipped branch draws
// nothing.
func TestScriptFileConditionals(t *testing.T) {
	script := `\set r random(1, 100)
\if :r <= 30
  \set k random(1, 1000)
  SELECT abalance FROM pgbench_accounts WHERE aid = :k;
\elif :r <= 50
  \set k 1
  SELECT count(*) FROM pgbench_branches;
\else
  \set k 2
  \if :k = 2 and not false
    SELECT count(*) FROM pgbench_tellers;
  \endif
\endif
SELECT abalance FROM pgbench_accounts WHERE aid = :k;
`
	const n = 4000
	sc := bhScenario(t, fileScenario, "workload.prewarm=0", "workload.phases.run.rate=0", "workload.phases.run.clients=1", "workload.phases.run.threads=1", "workload.phases.run.duration=0", "workload.phases.run.transactions=4000")
	sc.Workload.Phases[0].Script = model.Script{Text: script}
	r := bhRun(t, sc)
	br := findRel(t, r.Totals, "pgbench_branches")
	te := findRel(t, r.Totals, "pgbench_tellers")
	// A scan of a one-page table is one heap access.
	check := func(what string, got int64, share float64) {
		sd := math.Sqrt(share * (1 - share) / n)
		if f := float64(got) / n; math.Abs(f-share) > 4*sd {
			t.Errorf("%s in %.4f of the transactions, want %.2f +- %.4f", what, f, share, 4*sd)
		}
	}
	check("pgbench_branches scanned", br.HeapBlksHit+br.HeapBlksRead, 0.2)
	check("pgbench_tellers scanned", te.HeapBlksHit+te.HeapBlksRead, 0.5)
}

// A range SELECT (id BETWEEN a AND b) is an index scan while the planner
// prices it below a sequential scan: the descent, one more access per leaf
// the range reaches, and each heap page once, however many keys it holds
// (heapam_index_fetch_tuple keeps the page while the items stay on it).
// A range of most of the table is a sequential scan.
func TestScriptFileRangeScans(t *testing.T) {
	const yaml = `name: range
seed: 1
server: {version: "15", shared_buffers: 128MB, cpus: 2, system_catalogs: false}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id}
workload:
  phases:
    - {name: small, transactions: 1, script: {text: "SELECT sum(length(pad)) FROM t WHERE id BETWEEN 20001 AND 20500;"}}
    - {name: large, transactions: 1, script: {text: "SELECT sum(length(pad)) FROM t WHERE id >= 1 AND id <= 90000;"}}
    - name: arithmetic
      transactions: 1
      script: {text: "\\set a 20001\nSELECT sum(length(pad)) FROM t WHERE id BETWEEN :a AND :a + 499;"}
`
	r := bhRunYAML(t, yaml)
	small, large := bhPhase(t, r, "small"), bhPhase(t, r, "large")
	heap := func(ph model.PhaseResult) model.RelationStats { return findRel(t, ph.Metrics, "t") }
	// 58 rows per page: keys 20001..20500 are on pages 344..353.
	if h := heap(small); h.HeapBlksHit+h.HeapBlksRead != 10 {
		t.Errorf("the index scan read %d heap pages, want 10", h.HeapBlksHit+h.HeapBlksRead)
	}
	// The descent (the root and the first leaf of a two-level index) and
	// the two more leaves the 500 keys reach (about 365 keys a leaf, 90 %
	// full): PostgreSQL reads the same (docs/fidelity.md, range-scan).
	if h := heap(small); h.IdxBlksHit+h.IdxBlksRead != 4 {
		t.Errorf("the index scan read %d index pages, want 4", h.IdxBlksHit+h.IdxBlksRead)
	}
	// Bounds computed from variables, as the server computes them.
	if h := heap(bhPhase(t, r, "arithmetic")); h.HeapBlksHit+h.HeapBlksRead != 10 {
		t.Errorf("BETWEEN :a AND :a + 499 read %d heap pages, want 10", h.HeapBlksHit+h.HeapBlksRead)
	}
	// Its lower bound lies in the key's first histogram bin, so the
	// planner first reads the actual minimum from the index
	// (get_actual_variable_range: the descent to the first leaf, 2 pages,
	// and the visibility map's page, which counts with the heap's).
	if h := heap(large); h.HeapBlksHit+h.HeapBlksRead != 1725+1 || h.IdxBlksHit+h.IdxBlksRead != 2 {
		t.Errorf("90 %% of the table: %d heap and %d index pages, want a sequential scan's 1725, the planner's 2 index pages and a visibility-map page",
			h.HeapBlksHit+h.HeapBlksRead, h.IdxBlksHit+h.IdxBlksRead)
	}
}

// Variables are the client's and keep their values from one transaction
// to the next, as in pgbench: a variable read before the script sets it
// holds the previous transaction's value, its -D value at first. Here
// every other transaction draws a new key and the ones between read the
// same row again (so they hit); a counter that grows without bound is
// refused.
func TestScriptFileCarriedVariables(t *testing.T) {
	const carried = `\if :phase = 0
  \set k random(1, 200000)
  \set phase 1
\else
  \set phase 0
\endif
SELECT abalance FROM pgbench_accounts WHERE aid = :k;
`
	const fresh = `\set k random(1, 200000)
SELECT abalance FROM pgbench_accounts WHERE aid = :k;
`
	run := func(script string) model.RelationStats {
		sc := bhScenario(t, fileScenario, "workload.prewarm=0", "workload.phases.run.rate=0", "workload.phases.run.clients=1", "workload.phases.run.threads=1", "workload.phases.run.duration=0", "workload.phases.run.transactions=2000")
		sc.Workload.Phases[0].Script = model.Script{Text: script}
		sc.Workload.Phases[0].Define = map[string]string{"phase": "0", "k": "1"}
		return findRel(t, bhRun(t, sc).Totals, "pgbench_accounts")
	}
	c, f := run(carried), run(fresh)
	t.Logf("heap reads: %d with the key carried every other transaction, %d with a new key each", c.HeapBlksRead, f.HeapBlksRead)
	if float64(c.HeapBlksRead) > 0.65*float64(f.HeapBlksRead) {
		t.Errorf("heap reads %d against %d: the carried key was not read again", c.HeapBlksRead, f.HeapBlksRead)
	}
	sc := bhScenario(t, fileScenario)
	sc.Workload.Phases[0].Script = model.Script{Text: "\\set n :n + 1\nSELECT abalance FROM pgbench_accounts WHERE aid = :n;\n"}
	sc.Workload.Phases[0].Define = map[string]string{"n": "0"}
	if _, err := model.Run(sc); err == nil || !strings.Contains(err.Error(), "grow without bound") {
		t.Errorf("a counter carried across transactions: %v", err)
	}
}

// A -D value that is not an integer is text for SQL only; an expression
// that reads it fails in pgbench ("malformed variable"), and the loader
// says so rather than calling the variable undefined.
func TestNonIntegerDefineInAnExpression(t *testing.T) {
	sql := filepath.Join("builtin", "tpcb-like.sql")
	_, err := configs.ParseWith(filepath.Join("testdata", "files.yaml"), []byte(fileScenario),
		configs.RunOptions{Scripts: []configs.ScriptArg{{File: sql, Weight: 1}}, Defines: []string{"scale=abc"}})
	if err == nil || !strings.Contains(err.Error(), `-D scale=abc is not an integer`) || !strings.Contains(err.Error(), "tpcb-like.sql:") {
		t.Fatalf("-D scale=abc: %v", err)
	}
}

// program: psql runs script files; a built-in script is pgbench's, so the
// loader refuses it with the phase's file:line and the key.
func TestPsqlProgramRefusesBuiltins(t *testing.T) {
	for _, script := range []string{"script: tpcb-like", "scripts: [{builtin: select-only}, {text: \"SELECT 1;\\n\"}]"} {
		cfg := strings.Replace(fileScenario, "script: tpcb-like", "program: psql\n      "+script, 1)
		_, err := configs.Parse("x.yaml", []byte(cfg))
		if err == nil || !strings.Contains(err.Error(), "x.yaml:") || !strings.Contains(err.Error(), "workload.phases[0].program: the built-in script") {
			t.Errorf("%s under program: psql: %v, want a refusal naming x.yaml:line and workload.phases[0].program", script, err)
		}
	}
	if _, err := configs.Parse("x.yaml", []byte(strings.Replace(fileScenario, "script: tpcb-like", "program: psql\n      script: {text: \"SELECT 1;\\n\"}", 1))); err != nil {
		t.Errorf("a script file under program: psql: %v", err)
	}
}

// A range whose SELECT list reads only the key is an index-only scan
// (nodeIndexonlyscan.c): on a VACUUMed table, all-visible, it reads the
// index and the visibility map's one page, no heap page; on one that is
// not all-visible and has no map yet (state: hinted, never VACUUMed) it
// fetches each heap page as an index scan does.
func TestScriptFileIndexOnlyScans(t *testing.T) {
	for _, c := range []struct {
		state string
		heap  int64
	}{{"vacuumed", 1}, {"hinted", 10}} {
		r := bhRunYAML(t, `name: ios
seed: 1
server: {version: "15", shared_buffers: 128MB, cpus: 2, system_catalogs: false}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, index: true, key: id, state: `+c.state+`}
workload:
  phases:
    - {name: count, transactions: 1, script: {text: "SELECT count(*) FROM t WHERE id BETWEEN 20001 AND 20500;"}}
`)
		h := findRel(t, bhPhase(t, r, "count").Metrics, "t")
		if got := h.HeapBlksHit + h.HeapBlksRead; got != c.heap || h.IdxBlksHit+h.IdxBlksRead != 4 {
			t.Errorf("%s: count(*) of 500 keys read %d heap and %d index pages, want %d and 4", c.state, got, h.IdxBlksHit+h.IdxBlksRead, c.heap)
		}
	}
}

// Every script file shipped in configs/scripts for the quickstart's tables
// loads and runs there, as its comment tells users to run it.
func TestShippedScriptFilesRun(t *testing.T) {
	files, err := filepath.Glob("../configs/scripts/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped scripts: %v", err)
	}
	ran := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "-config configs/quickstart.yaml") {
			continue // another scenario's tables (events.sql: reference.yaml's)
		}
		ran++
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		quick, err := os.ReadFile("../configs/quickstart.yaml")
		if err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(t.TempDir(), "quickstart.yaml")
		text := strings.ReplaceAll(string(quick), "script: tpcb-like", fmt.Sprintf("script: {file: %q}\n      define: {scale: 10}", abs))
		if err := os.WriteFile(cfg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := configs.Load(cfg, "workload.phases.warmup.duration=0.2s", "workload.phases.run.duration=0.5s")
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		r, err := model.Run(sc)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if p := bhPhase(t, r, "run"); p.Transactions == 0 {
			t.Errorf("%s: no transaction ran", f)
		}
	}
	if ran < 3 {
		t.Errorf("%d quickstart scripts found, want hot-accounts.sql, browse.sql and batch.sql", ran)
	}
}
