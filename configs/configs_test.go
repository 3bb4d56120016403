package configs

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/pgbufsim/pgbufsim/model"
)

// Every shipped scenario loads.
func TestShippedConfigsLoad(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	if len(files) < 2 {
		t.Fatalf("found %d shipped configs", len(files))
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// reference.yaml documents every key the loader accepts: each key path of
// the scenario type appears in it.
func TestReferenceNamesEveryKey(t *testing.T) {
	data, err := os.ReadFile("reference.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	present := map[string]bool{}
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := n.Content[i].Value
				if path != "" {
					p = path + "." + p
				}
				present[p] = true
				walk(n.Content[i+1], p)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, path+"[]")
			}
		}
	}
	walk(&root, "")
	// A script written as a list is the `steps` shorthand.
	for k := range present {
		if strings.Contains(k, "script[]") {
			present[strings.ReplaceAll(k, "script[]", "script.steps[]")] = true
		}
	}
	present["workload.phases[].script.steps"] = present["workload.phases[].script"]
	// A mix's steps are a script's steps.
	for k := range maps.Clone(present) {
		if strings.Contains(k, "script.steps[]") {
			present[strings.ReplaceAll(k, "script.steps[]", "scripts[].steps[]")] = true
		}
	}
	// The sweep block is documented in comments, so that running
	// reference.yaml runs one scenario, not a sweep.
	for _, k := range []string{"sweep", "replicates", "axes", "metrics"} {
		if strings.Contains(string(data), "# "+k+":") || strings.Contains(string(data), "#   "+k+":") {
			if k == "sweep" {
				present["sweep"] = true
			} else {
				present["sweep."+k] = true
			}
		}
	}
	for _, k := range KeyPaths() {
		if !present[k] {
			t.Errorf("reference.yaml does not document %s", k)
		}
	}
	for _, k := range []string{"policies.replacement.max_usage_count", "policies.replacement.correlated_reference_period"} {
		if !present[k] {
			t.Errorf("reference.yaml does not document %s", k)
		}
	}
}

// The reference file states the defaults: loading it gives the default
// scenario, except where it says otherwise on purpose (name, scale, the
// example phase).
func TestReferenceShowsDefaults(t *testing.T) {
	sc, err := Load("reference.yaml")
	if err != nil {
		t.Fatal(err)
	}
	def := model.DefaultScenario()
	model.ResolveVersionDefaults(&def)
	if !reflect.DeepEqual(sc.Server, def.Server) {
		t.Errorf("server section differs from the defaults:\n got %+v\nwant %+v", sc.Server, def.Server)
	}
	if !reflect.DeepEqual(sc.OS, def.OS) {
		t.Errorf("os section differs from the defaults:\n got %+v\nwant %+v", sc.OS, def.OS)
	}
	if !reflect.DeepEqual(sc.Costs, def.Costs) {
		t.Errorf("costs differ from the defaults:\n got %+v\nwant %+v", sc.Costs, def.Costs)
	}
	if !reflect.DeepEqual(sc.Storage, def.Storage) {
		t.Errorf("storage differs from the defaults:\n got %+v\nwant %+v", sc.Storage, def.Storage)
	}
}

func TestOverrides(t *testing.T) {
	sc, err := Load("quickstart.yaml", "server.shared_buffers=64MB", "workload.phases.run.clients=3", "policies.replacement.name=lru")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Server.SharedBuffers != 64<<20 {
		t.Errorf("shared_buffers = %d", sc.Server.SharedBuffers)
	}
	if sc.Workload.Phases[1].Clients != 3 {
		t.Errorf("run clients = %d", sc.Workload.Phases[1].Clients)
	}
	if sc.Policies.Replacement.Policy != "lru" {
		t.Errorf("policy = %q", sc.Policies.Replacement.Policy)
	}
	// PostgreSQL's semantics: a bare shared_buffers counts 8kB blocks.
	sc, err = Load("quickstart.yaml", "server.shared_buffers=1024")
	if err != nil || sc.Server.SharedBuffers != 8<<20 {
		t.Errorf("shared_buffers=1024 gave %d, %v; want 8MB", sc.Server.SharedBuffers, err)
	}
}

// A scenario encodes to YAML that loads back to the same scenario (the
// config block of summary.json repeats the run).
func TestEncodeRoundTrip(t *testing.T) {
	for _, f := range []string{"quickstart.yaml", "reference.yaml"} {
		sc, err := Load(f, "policies.replacement.correlated_reference_period=3s")
		if err != nil {
			t.Fatal(err)
		}
		text, err := Encode(sc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse("encoded.yaml", text)
		if err != nil {
			t.Fatalf("%s: re-loading the encoded scenario: %v\n%s", f, err, text)
		}
		if !reflect.DeepEqual(sc, back) {
			t.Errorf("%s: round trip changed the scenario\n%s", f, text)
		}
	}
}

func TestWith(t *testing.T) {
	sc, err := Load("quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// Switching policy drops the old policy's parameters.
	lru, err := With(sc, "policies.replacement.name=lru")
	if err != nil || lru.Policies.Replacement.Policy != "lru" {
		t.Fatalf("With(name=lru): %v %q", err, lru.Policies.Replacement.Policy)
	}
	back, err := With(lru, "policies.replacement.name=clock-sweep", "policies.replacement.max_usage_count=3")
	if err != nil || back.Policies.Replacement.Policy != "clock-sweep" {
		t.Fatalf("back to clock-sweep: %v", err)
	}
	v, err := With(sc, "seed=7")
	if err != nil {
		t.Fatal(err)
	}
	if v.Seed != 7 || sc.Seed != 1 {
		t.Errorf("With changed seed to %d (original %d)", v.Seed, sc.Seed)
	}
}

const good = `name: t
server:
  shared_buffers: 32MB
tables:
  pgbench: {scale: 1}
workload:
  phases:
    - name: run
      duration: 10s
      clients: 2
`

// custom is a scenario with an empty table t and a custom script whose
// steps are given (each line indented for the script list).
func custom(steps string) string {
	return "name: c\ntables:\n  relations:\n    - {name: t, rows: 0}\nworkload:\n  phases:\n    - name: run\n      duration: 1s\n      script:\n" + steps
}

// Bad input: one clear message naming file:line and the key, with a hint.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name, doc string
		sets      []string
		want      []string
	}{
		{"unknown key", strings.Replace(good, "shared_buffers", "shared_bufers", 1), nil,
			[]string{"bad.yaml:3:", "server.shared_bufers", `did you mean "shared_buffers"`}},
		{"wrong unit", strings.Replace(good, "32MB", "32XB", 1), nil,
			[]string{"bad.yaml:3:", "server.shared_buffers", "32XB"}},
		{"out of range", strings.Replace(good, "clients: 2", "clients: 0", 1), nil,
			[]string{"bad.yaml:10:", "clients", "out of range"}},
		{"invalid yaml", "name: [unclosed\n", nil, []string{"bad.yaml:"}},
		{"unknown policy", good + "policies:\n  replacement: {name: clock-sweeep}\n", nil,
			[]string{"bad.yaml:12:", "clock-sweeep", `did you mean "clock-sweep"`}},
		{"unknown script", strings.Replace(good, "clients: 2", "clients: 2\n      script: tpcb", 1), nil,
			[]string{"bad.yaml:11:", "script", `"tpcb"`, "tpcb-like"}},
		{"gaussian threshold", strings.Replace(good, "clients: 2", "clients: 2\n      set: {aid: \"random_gaussian(1, 100000 * :scale, 1.5)\"}", 1), nil,
			[]string{"bad.yaml:11:", "set.aid", "2"}},
		{"zipfian s", strings.Replace(good, "clients: 2", "clients: 2\n      set: {aid: \"random_zipfian(1, 1000, 1.0)\"}", 1), nil,
			[]string{"bad.yaml:11:", "set.aid", "1.001"}},
		{"unknown variable", strings.Replace(good, "clients: 2", "clients: 2\n      set: {xid: \"random(1, 10)\"}", 1), nil,
			[]string{"bad.yaml:11:", "set.xid", "no variable"}},
		{"duration and transactions", strings.Replace(good, "clients: 2", "clients: 2\n      transactions: 10", 1), nil,
			[]string{"bad.yaml:9:", "duration", "exactly one"}},
		{"duplicate phase", strings.Replace(good, "      clients: 2\n", "      clients: 2\n    - name: run\n      duration: 1s\n", 1), nil,
			[]string{"bad.yaml:11:", "name", "already used"}},
		{"opt is offline", good + "policies:\n  replacement: opt\n", nil,
			[]string{"bad.yaml:12:", "opt", "trace replay"}},
		{"bad override", good, []string{"server.shared_bufers=1GB"},
			[]string{"server.shared_bufers", `did you mean "shared_buffers"`}},
		{"bad override value", good, []string{"server.shared_buffers=1XB"},
			[]string{"-set server.shared_buffers=1XB", "invalid size"}},
		{"override without =", good, []string{"server.cpus"}, []string{"path=value"}},
		{"empty", "", nil, []string{"bad.yaml", "empty"}},
		{"unknown table", custom("        - seqscan: nosuch\n"), nil, []string{"bad.yaml:", "nosuch", "unknown table"}},
		{"delete before insert", custom("        - delete: t\n"), nil, []string{"bad.yaml:", "delete", "starts empty"}},
		{"negative vm threshold", custom("        - seqscan: t\n") + "policies:\n  all_visible: {mode: vm, vm_skip_threshold: -1}\n", nil,
			[]string{"bad.yaml:", "vm_skip_threshold", "out of range"}},
		{"hint cache of size 0", custom("        - seqscan: t\n") + "policies:\n  hint_cache: {enabled: true, size: 0}\n", nil,
			[]string{"bad.yaml:", "hint_cache", "size 0"}},
		{"script and scripts", strings.Replace(good, "clients: 2", "clients: 2\n      script: select-only\n      scripts: [{builtin: tpcb-like}]", 1), nil,
			[]string{"bad.yaml:", "scripts", "not both"}},
		{"weights add up to 0", strings.Replace(good, "clients: 2", "clients: 2\n      scripts: [{builtin: tpcb-like, weight: 0}, {builtin: select-only, weight: 0}]", 1), nil,
			[]string{"bad.yaml:", "scripts", "add up to 0"}},
		{"negative weight", strings.Replace(good, "clients: 2", "clients: 2\n      scripts: [{builtin: tpcb-like, weight: -1}]", 1), nil,
			[]string{"bad.yaml:11:", "weight", "out of range"}},
		{"mix element with builtin and steps", strings.Replace(good, "clients: 2", "clients: 2\n      scripts: [{builtin: tpcb-like, steps: [{checkpoint: true}]}]", 1), nil,
			[]string{"bad.yaml:", "scripts[0]", "one of builtin: NAME, steps"}},
		{"unknown table in a mix", strings.Replace(good, "clients: 2", "clients: 2\n      scripts: [{builtin: tpcb-like}, {steps: [{seqscan: nosuch}]}]", 1), nil,
			[]string{"bad.yaml:", "scripts[1].steps[0]", "unknown table"}},
		{"unknown variable in a mix", strings.Replace(good, "clients: 2", "clients: 2\n      set: {xid: \"random(1, 10)\"}\n      scripts: [{builtin: tpcb-like}, {builtin: select-only}]", 1), nil,
			[]string{"bad.yaml:", "set.xid", "no script of the mix"}},
		{"key without index", custom("        - update: {table: t, key: \"random(1, :rows)\"}\n"), nil,
			[]string{"bad.yaml:", "no index"}},
		{"a relation named as pgbench's", strings.Replace(good, "  pgbench: {scale: 1}\n", "  pgbench: {scale: 1}\n  relations: [{name: pgbench_accounts, rows: 10}]\n", 1), nil,
			[]string{"bad.yaml:6:", "tables.relations[0].name", `"pgbench_accounts" is a pgbench table`}},
		{"a relation named as one of a group", strings.Replace(custom("        - seqscan: t\n"), "{name: t, rows: 0}", "{name: t, rows: 0}\n    - {name: g, rows: 10, count: 3}\n    - {name: g_2, rows: 10}", 1), nil,
			[]string{"bad.yaml:6:", "tables.relations[2].name", `"g_2" is tables.relations[2] (g_2) and also one of tables.relations[1] (g)`}},
		{"a relation named as another's key", strings.Replace(custom("        - seqscan: t\n"), "{name: t, rows: 0}", "{name: t, rows: 0, index: true}\n    - {name: t_pkey, rows: 10}", 1), nil,
			[]string{"bad.yaml:", "tables.relations[1].name", `"t_pkey" is tables.relations[0] (t)'s primary key`}},
		{"an empty script list", strings.Replace(good, "clients: 2", "clients: 2\n      script: []", 1), nil,
			[]string{"bad.yaml:11:", "workload.phases[0].script", "the list is empty"}},
		{"a step that does nothing", custom("        - sleep: 0s\n"), nil,
			[]string{"bad.yaml:", "script[0]", "the step does nothing"}},
		{"a negative completion target", good, []string{"server.checkpoint_completion_target=-0.5"},
			[]string{"server.checkpoint_completion_target", "in [0, 1], or -1"}},
		{"a relation declared twice", strings.Replace(custom("        - seqscan: t\n"), "{name: t, rows: 0}", "{name: t, rows: 0}\n    - {name: t, rows: 10}", 1), nil,
			[]string{"bad.yaml:", "tables.relations[1].name", `"t" is tables.relations[0] (t) and also tables.relations[1] (t)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.yaml", []byte(c.doc), c.sets...)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// A delete of every row of a table that starts empty is refused only when
// nothing inserts into it: pgbench's tpcb-like and simple-update insert
// into pgbench_history, and a script file or inline text may insert into
// any table.
func TestDeleteOfATableSomethingInsertsInto(t *testing.T) {
	for _, c := range []struct{ name, doc string }{
		{"tpcb-like", "name: c\ntables: {pgbench: {scale: 1}}\nworkload:\n  phases:\n    - {name: run, duration: 1s, script: tpcb-like}\n    - name: purge\n      transactions: 1\n      script:\n        - delete: pgbench_history\n"},
		{"simple-update in a mix", "name: c\ntables: {pgbench: {scale: 1}}\nworkload:\n  phases:\n    - name: run\n      duration: 1s\n      scripts:\n        - {builtin: select-only, weight: 1}\n        - {builtin: simple-update, weight: 1}\n    - name: purge\n      transactions: 1\n      script:\n        - delete: pgbench_history\n"},
		{"script text", "name: c\ntables:\n  relations:\n    - {name: t, rows: 0}\nworkload:\n  phases:\n    - name: run\n      duration: 1s\n      script: {text: \"INSERT INTO t VALUES (1);\"}\n    - name: purge\n      transactions: 1\n      script:\n        - delete: t\n"},
	} {
		if _, err := Parse("ok.yaml", []byte(c.doc)); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load("no/such/file.yaml")
	if err == nil || !strings.Contains(err.Error(), "no/such/file.yaml") || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("error %v", err)
	}
}

// FuzzLoad: no input makes the loader panic (go test -fuzz=FuzzLoad ./configs).
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"quickstart.yaml", "reference.yaml"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data, "server.cpus=3")
		}
	}
	f.Add([]byte(good), "workload.phases.run.rate=1.5")
	f.Add([]byte("server: {shared_buffers: [1,2]}\n"), "a.b=c")
	f.Add([]byte("workload: {phases: [{name: x, set: {aid: 'random_zipfian(1, 10, 2)'}}]}"), "seed=-1")
	f.Fuzz(func(t *testing.T, data []byte, set string) {
		_, _ = Parse("fuzz.yaml", data, set)
	})
}

// A costs file replaces the defaults; the scenario's own costs keys and
// -set win over it; -costs replaces costs_file; errors name the costs
// file's line.
func TestCostsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("costs.yaml", "calibration:\n  server: PostgreSQL 15.10\ncosts:\n  statement: 40us\n  scan_page: 2us\n  os_read: 5us\n")
	write("other.yaml", "costs:\n  statement: 70us\n")
	phases := "tables:\n  pgbench: {scale: 1}\nworkload:\n  phases:\n    - {name: run, duration: 1s, clients: 1, script: select-only}\n"
	scen := write("s.yaml", "name: s\ncosts_file: costs.yaml\ncosts:\n  os_read: 3us\n"+phases)
	sc, err := Load(scen)
	if err != nil {
		t.Fatal(err)
	}
	def := model.DefaultCosts()
	if sc.Costs.Statement != 40000 || sc.Costs.ScanPage != 2000 || sc.Costs.OSRead != 3000 || sc.Costs.TupleFetch != def.TupleFetch || sc.CostsFile != "" {
		t.Errorf("costs %+v, file %q", sc.Costs, sc.CostsFile)
	}
	if sc, err = Load(scen, "costs.scan_page=9us"); err != nil || sc.Costs.ScanPage != 9000 {
		t.Errorf("-set over the file: %v %v", sc.Costs.ScanPage, err)
	}
	o, err := CostsOverride(filepath.Join(dir, "other.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if sc, err = Load(scen, o); err != nil || sc.Costs.Statement != 70000 || sc.Costs.ScanPage != def.ScanPage {
		t.Errorf("-costs: %+v %v", sc.Costs, err)
	}
	write("bad.yaml", "costs:\n  statment: 40us\n")
	if _, err := CostsOverride(filepath.Join(dir, "bad.yaml")); err == nil || !strings.Contains(err.Error(), "bad.yaml:2") {
		t.Errorf("-costs with a bad file: %v", err)
	}
	bad := write("b.yaml", "name: b\ncosts_file: bad.yaml\n"+phases)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "bad.yaml:2") {
		t.Errorf("unknown key in the costs file: %v", err)
	}
	missing := write("m.yaml", "name: m\ncosts_file: nowhere.yaml\n"+phases)
	if _, err := Load(missing); err == nil || !strings.Contains(err.Error(), "m.yaml:2") || !strings.Contains(err.Error(), "nowhere.yaml") {
		t.Errorf("missing costs file: %v", err)
	}
}
