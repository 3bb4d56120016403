package replay

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// runMain runs Main and returns the exit code, stdout and stderr.
func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

var small = filepath.Join(testdata, "small.oracleGeneral")

// TestMainOneReplay: one policy at one size streams the trace and prints
// libCacheSim's kind of line and the table, with the replay's figures.
func TestMainOneReplay(t *testing.T) {
	code, out, errs := runMain(t, "-trace", small, "-policy", "clock-sweep", "-cache", "64")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := runChecked(t, openSmall(t, "small.oracleGeneral"), mustPolicy(t, "clock-sweep"), 64)
	line := regexp.MustCompile(`(?m)^small\.oracleGeneral clock-sweep cache 64: 4000 req, (\d+) hits, (\d+) misses, miss ratio (0\.\d{4}), [0-9.]+ M req/s \(replay\)$`)
	m := line.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no result line in:\n%s", out)
	}
	if m[1] != strconv.FormatInt(want.Hits, 10) || m[2] != strconv.FormatInt(want.Misses, 10) ||
		m[3] != strconv.FormatFloat(want.MissRatio, 'f', 4, 64) {
		t.Errorf("line %q, want hits %d misses %d", m[0], want.Hits, want.Misses)
	}
	if !strings.HasPrefix(out, "trace small.oracleGeneral (oracleGeneral): 4000 requests, 337 distinct pages\n") {
		t.Errorf("header line:\n%s", out)
	}
	table := regexp.MustCompile(`(?m)^policy\s+cache\s+slots\s+requests\s+hits\s+misses\s+miss ratio\s+evictions\s+method$`)
	if !table.MatchString(out) {
		t.Errorf("no table header in:\n%s", out)
	}
}

// TestMainCurves: several policies and sizes, LRU in one pass, outputs
// written, and the CSV holding exactly what Curves computes.
func TestMainCurves(t *testing.T) {
	dir := t.TempDir()
	out1 := filepath.Join(dir, "a")
	code, out, errs := runMain(t, "-trace", filepath.Join(testdata, "small.csv.gz"),
		"-policy", "clock-sweep,lru,2q,arc,sieve,opt,clock-sweep(max_usage_count=2)",
		"-cache", "10%,1%,64MB,5%,50%", "-out", out1)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "wrote "+filepath.Join(out1, "mrc.csv")) || !strings.Contains(errs, "wrote "+filepath.Join(out1, "mrc.html")) {
		t.Errorf("stderr: %s", errs)
	}
	if !strings.Contains(out, "small.csv.gz lru cache 34: 4000 req, ") || !strings.Contains(out, "(stack-distance)") {
		t.Errorf("lru line or method missing:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(out1, "mrc.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// 337 distinct pages: 1% = 3, 5% = 17, 10% = 34, 50% = 169 (rounded),
	// 64MB = 8192; ascending.
	sizes := []int{3, 17, 34, 169, 8192}
	texts := []string{"1%", "5%", "10%", "50%", "64MB"}
	if len(rows) != 1+7*len(sizes) {
		t.Fatalf("%d csv rows", len(rows))
	}
	if strings.Join(rows[0], ",") != "trace,policy,method,cache,slots,requests,hits,misses,miss_ratio,evictions,distinct_pages" {
		t.Errorf("header %v", rows[0])
	}
	tr := loadSmall(t)
	var pols []Policy
	for _, n := range []string{"clock-sweep", "lru", "2q", "arc", "sieve", "opt", "clock-sweep(max_usage_count=2)"} {
		pols = append(pols, mustPolicy(t, n))
	}
	cs, err := Curves(tr, pols, sizes, CurveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k := 1
	for _, c := range cs {
		for j, r := range c.Points {
			row := rows[k]
			k++
			want := []string{"small.csv.gz", r.Policy, r.Method, texts[j], strconv.Itoa(r.Slots), "4000",
				strconv.FormatInt(r.Hits, 10), strconv.FormatInt(r.Misses, 10),
				strconv.FormatFloat(r.MissRatio, 'f', 6, 64), strconv.FormatInt(r.Evictions, 10), "337"}
			if strings.Join(row, "|") != strings.Join(want, "|") {
				t.Errorf("row %d = %v, want %v", k-1, row, want)
			}
		}
	}
	html, err := os.ReadFile(filepath.Join(out1, "mrc.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Miss-ratio curves: small.csv.gz", "clock-sweep(max_usage_count=2)", "exact, all sizes from one pass", `href="mrc.csv"`} {
		if !bytes.Contains(html, []byte(s)) {
			t.Errorf("mrc.html lacks %q", s)
		}
	}
	// Same inputs, same bytes (the files hold no wall-clock figures).
	out2 := filepath.Join(dir, "b")
	if code, _, errs := runMain(t, "-trace", filepath.Join(testdata, "small.csv.gz"),
		"-policy", "clock-sweep,lru,2q,arc,sieve,opt,clock-sweep(max_usage_count=2)",
		"-cache", "10%,1%,64MB,5%,50%", "-out", out2, "-parallel", "1"); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, errs)
	}
	for _, f := range []string{"mrc.csv", "mrc.html"} {
		a, _ := os.ReadFile(filepath.Join(out1, f))
		b, _ := os.ReadFile(filepath.Join(out2, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", f)
		}
	}
}

// TestMainSHARDSAndParams: -shards switches LRU's method; -param applies to
// every policy that has the key.
func TestMainSHARDSAndParams(t *testing.T) {
	code, out, errs := runMain(t, "-trace", small, "-policy", "lru,clock-sweep,clock-sweep(max_usage_count=2)",
		"-cache", "20,40", "-shards", "0.5", "-param", "correlated_reference_period=2ns")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, s := range []string{"small.oracleGeneral lru cache 20:", "(shards(rate=0.5))",
		"clock-sweep(correlated_reference_period=2ns) cache 40:",
		"clock-sweep(max_usage_count=2,correlated_reference_period=2ns) cache 20:"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}

// TestMainBadInput: every kind of bad input exits 1 and writes nothing.
func TestMainBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("1\n2\nthree\n"), 0o644)
	emptyCache := filepath.Join(dir, "emptycache.yaml")
	os.WriteFile(emptyCache, []byte("trace:\n  file: bad.txt\n  cache: []\n"), 0o644)
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-cache", "10"}, "-trace FILE is required"},
		{[]string{"-trace", small}, "-cache SIZE"},
		{[]string{"-trace", small, "-cache", "10", "-policy", "clocks"}, `unknown replacement policy "clocks"`},
		{[]string{"-trace", small, "-cache", "10x"}, `cache size "10x"`},
		{[]string{"-trace", small, "-cache", "10", "-param", "nope=1"}, "none of the listed policies has a parameter"},
		{[]string{"-trace", small, "-cache", "10", "-param", "max_usage_count=99"}, "out of range"},
		{[]string{"-trace", small, "-cache", "10", "-policy", "lru,lru"}, "listed twice"},
		{[]string{"-trace", small, "-cache", "10", "-shards", "1.5"}, "SHARDS rate"},
		{[]string{"-trace", small, "-cache", "10", "-xaxis", "sideways"}, "-xaxis"},
		{[]string{"-trace", small, "-cache", "10", "-format", "parquet"}, "unknown trace format"},
		{[]string{"-trace", filepath.Join(dir, "missing"), "-cache", "10"}, "no such file"},
		{[]string{"-trace", bad, "-cache", "10"}, "bad.txt:3: object id \"three\" is not an integer"},
		{[]string{"-trace", bad, "-cache", "10,20"}, "bad.txt:3:"},
		{[]string{"-trace", small, "-cache", "10", "-bogus"}, "flag provided but not defined"},
		{[]string{"-trace", small, "-cache", "10", "extra"}, "unexpected argument"},
		{[]string{"-trace", small, "-cache", "10", "-parallel", "-1"}, "-parallel -1: must be at least 1"},
		{[]string{"-config", emptyCache}, "emptycache.yaml:3: trace.cache: empty"},
		{[]string{"-config", "../configs/quickstart.yaml", "-trace", small, "-cache", "10"}, "is a scenario, and -trace replays a trace: they do not combine"},
	}
	for _, c := range cases {
		args := append(c.args, "-out", out)
		code, _, errs := runMain(t, args...)
		if code != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errs, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%v: output directory created", c.args)
		}
	}
	if code, _, _ := runMain(t, "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
}

// TestMainConfig: the YAML form gives what the flags give; flags override
// it; errors name the file and line.
func TestMainConfig(t *testing.T) {
	dir := t.TempDir()
	abs, _ := filepath.Abs(testdata)
	os.Symlink(abs, filepath.Join(dir, "traces"))
	cfg := filepath.Join(dir, "mrc.yaml")
	os.WriteFile(cfg, []byte(`name: small MRC
trace:
  file: traces/small.lcs.csv   # relative to this file
  format: lcs-csv
  policies:
    - clock-sweep
    - "clock-sweep(max_usage_count=2)"
    - {name: clock-sweep, max_usage_count: 3, correlated_reference_period: 5ns}
    - lru
  cache: [5%, 40, 1MB]
  csv: {id_column: 2, header: "true"}
`), 0o644)
	code, out, errs := runMain(t, "-config", cfg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code2, out2, errs2 := runMain(t, "-trace", filepath.Join(testdata, "small.lcs.csv"), "-format", "lcs-csv",
		"-policy", "clock-sweep,clock-sweep(max_usage_count=2),clock-sweep(max_usage_count=3,correlated_reference_period=5ns),lru",
		"-cache", "5%,40,1MB")
	if code2 != 0 {
		t.Fatalf("flags: exit %d: %s", code2, errs2)
	}
	strip := regexp.MustCompile(`[0-9.]+ M req/s`)
	if strip.ReplaceAllString(out, "") != strip.ReplaceAllString(out2, "") {
		t.Errorf("config and flags differ:\n%s\n---\n%s", out, out2)
	}
	// A flag overrides the file.
	code, out, _ = runMain(t, "-config", cfg, "-policy", "sieve", "-cache", "12")
	if code != 0 || !strings.Contains(out, "small.lcs.csv sieve cache 12:") || strings.Contains(out, "lru") {
		t.Errorf("override: exit %d\n%s", code, out)
	}
	bad := map[string]string{
		"trace:\n  file: x\n  cache: [10]\n  polices: [lru]\n":                              `bad.yaml:4: trace.polices: unknown key (did you mean "policies"?)`,
		"trace:\n  file: x\n  cache: [10, 5XB]\n":                                           `bad.yaml:3: trace.cache[1]: cache size "5XB"`,
		"trace:\n  file: x\n  cache: [10]\n  policies: [{name: clok}]\n":                    `bad.yaml:4: trace.policies[0].name: unknown replacement policy "clok"`,
		"trace:\n  file: x\n  cache: [10]\n  policies: [{name: lru, max_usage_count: 3}]\n": `bad.yaml:4: trace.policies[0].max_usage_count: unknown key`,
		"trace:\n  cache: [10]\n":                                                           "trace.file: missing",
		"name: x\n":                                                                         "trace: missing",
		"trace:\n  file: x\n  cache: [10]\n  shards: 2\n":                                   "trace.shards: 2 is out of range",
	}
	for text, want := range bad {
		path := filepath.Join(dir, "bad.yaml")
		os.WriteFile(path, []byte(text), 0o644)
		code, _, errs := runMain(t, "-config", path)
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("%q: exit %d, %q; want 1 and %q", text, code, errs, want)
		}
	}
}

// TestWantsReplay: how simulate tells a replay invocation from a scenario.
func TestWantsReplay(t *testing.T) {
	dir := t.TempDir()
	withTrace := filepath.Join(dir, "t.yaml")
	scenario := filepath.Join(dir, "s.yaml")
	os.WriteFile(withTrace, []byte("trace:\n  file: x\n"), 0o644)
	os.WriteFile(scenario, []byte("name: s\nserver: {shared_buffers: 1GB}\n"), 0o644)
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"-trace", "x"}, true},
		{[]string{"--trace=x"}, true},
		{[]string{"-config", withTrace}, true},
		{[]string{"-config=" + withTrace, "-out", "o"}, true},
		{[]string{"-config", scenario}, false},
		{[]string{"-config", filepath.Join(dir, "missing.yaml")}, false},
		{[]string{"-list-policies"}, false},
	}
	for _, c := range cases {
		if got := WantsReplay(c.args); got != c.want {
			t.Errorf("WantsReplay(%v) = %v", c.args, got)
		}
	}
}

// -mrc-csv writes the curves as a table (a row per size, a column per
// policy) and replaces only a file it wrote.
func TestMainWideCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "curves.csv")
	code, _, errs := runMain(t, "-trace", small, "-policy", "lru,fifo", "-cache", "16,0.1", "-mrc-csv", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3 || lines[0] != "cache,slots,lru,fifo" || !strings.HasPrefix(lines[1], "16,16,0.") {
		t.Fatalf("wide CSV:\n%s", data)
	}
	// Rerun: the file is ours and is replaced.
	if code, _, errs := runMain(t, "-trace", small, "-cache", "16", "-mrc-csv", path); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, errs)
	}
	mine := filepath.Join(t.TempDir(), "notes.csv")
	os.WriteFile(mine, []byte("my,data\n"), 0o644)
	code, _, errs = runMain(t, "-trace", small, "-cache", "16", "-mrc-csv", mine)
	if code != 1 || !strings.Contains(errs, "is not a miss-ratio CSV pgbufsim wrote") {
		t.Errorf("a foreign file: exit %d, %q", code, errs)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my,data\n" {
		t.Error("a foreign file was changed")
	}
}
