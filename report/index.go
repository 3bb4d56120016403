package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/plots"
)

// IndexFile is the runs index a directory of runs gets (simulate index).
const IndexFile = "index.html"

// indexTitle begins every runs index's title; an index.html holding it is
// one pgbufsim wrote, and may be replaced.
const indexTitle = "pgbufsim runs index"

// maxIndexDepth bounds how deep below the directory runs are looked for.
const maxIndexDepth = 6

// indexedRun is one run found under the indexed directory.
type indexedRun struct {
	rel                    string // the run's directory, relative, with slashes
	scenario, policy       string
	seed                   int64
	config                 map[string]string // flattened configuration
	tps, mean, p99, hit    float64
	transactions, measured int64
}

// findRuns returns the run outputs under dir (not inside a run), in path
// order.
func findRuns(dir string) ([]indexedRun, error) {
	var runs []indexedRun
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			return nil // an unreadable subdirectory is left out
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if rel != "." && strings.Count(filepath.ToSlash(rel), "/") >= maxIndexDepth {
			return filepath.SkipDir
		}
		if k, ok := outdir.KindOf(path); ok && k == outdir.Run {
			if r, ok := readRun(path); ok {
				r.rel = filepath.ToSlash(rel)
				runs = append(runs, r)
			}
			return filepath.SkipDir
		}
		return nil
	})
	return runs, err
}

// readRun reads a run's summary.json; ok is false when it is not one.
func readRun(dir string) (indexedRun, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return indexedRun{}, false
	}
	var s struct {
		Scenario string         `json:"scenario"`
		Seed     int64          `json:"seed"`
		Policy   string         `json:"policy"`
		Config   map[string]any `json:"config"`
		Totals   struct {
			TPS          float64 `json:"tps"`
			Transactions int64   `json:"transactions"`
			LatencyMS    struct {
				Mean float64 `json:"mean"`
				P99  float64 `json:"p99"`
			} `json:"latency_ms"`
			Buffers struct {
				HitRatio float64 `json:"hit_ratio"`
			} `json:"buffers"`
		} `json:"totals"`
	}
	if json.Unmarshal(data, &s) != nil {
		return indexedRun{}, false
	}
	r := indexedRun{scenario: s.Scenario, policy: s.Policy, seed: s.Seed, config: map[string]string{},
		tps: s.Totals.TPS, mean: s.Totals.LatencyMS.Mean, p99: s.Totals.LatencyMS.P99, hit: s.Totals.Buffers.HitRatio,
		transactions: s.Totals.Transactions}
	flatten("", s.Config, r.config)
	return r, true
}

// flatten writes v's leaves as path -> text; phases are named by their
// name (workload.phases.run.clients), as -set names them.
func flatten(prefix string, v any, out map[string]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(join(k), e, out)
		}
	case []any:
		for i, e := range x {
			key := strconv.Itoa(i)
			if m, ok := e.(map[string]any); ok {
				if n, ok := m["name"].(string); ok && n != "" {
					key = n
				}
			}
			flatten(join(key), e, out)
		}
		if len(x) == 0 {
			out[prefix] = "[]"
		}
	case float64:
		out[prefix] = strconv.FormatFloat(x, 'g', -1, 64)
	case nil:
		out[prefix] = "null"
	default:
		out[prefix] = fmt.Sprint(x)
	}
}

// differingKeys are the configuration keys whose values are not the same
// in every run (the seed and the name have columns of their own).
func differingKeys(runs []indexedRun) []string {
	cfgs := make([]map[string]string, len(runs))
	for i, r := range runs {
		cfgs[i] = r.config
	}
	return DifferingKeys(cfgs)
}

// FlattenConfig flattens a run's configuration (summary.json's config) to
// key path -> value text, phases named by their name
// (workload.phases.run.clients) as -set names them.
func FlattenConfig(config any) map[string]string {
	out := map[string]string{}
	flatten("", config, out)
	return out
}

// DifferingKeys are the keys of flattened configurations (FlattenConfig)
// whose values are not the same in all of them, sorted; the seed and the
// scenario's name are left out.
func DifferingKeys(cfgs []map[string]string) []string {
	if len(cfgs) == 0 {
		return nil
	}
	all := map[string]bool{}
	for _, c := range cfgs {
		for k := range c {
			all[k] = true
		}
	}
	var out []string
	for k := range all {
		if k == "seed" || k == "name" {
			continue
		}
		first, ok0 := cfgs[0][k]
		for _, c := range cfgs[1:] {
			if v, ok := c[k]; ok != ok0 || v != first {
				out = append(out, k)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// indexPage builds the runs index of dir.
func indexPage(dir string, runs []indexedRun) plots.Page {
	keys := differingKeys(runs)
	tb := &plots.Table{
		Header:   []string{"run", "scenario", "policy", "seed", "differs", "transactions", "tps", "latency avg (ms)", "p99 (ms)", "hit ratio"},
		Sortable: true,
	}
	for _, r := range runs {
		var diff []string
		for _, k := range keys {
			v, ok := r.config[k]
			if !ok {
				v = "(absent)"
			}
			if len(v) > 40 {
				v = v[:37] + "..."
			}
			diff = append(diff, k+"="+v)
		}
		tb.Rows = append(tb.Rows, []string{r.rel, r.scenario, r.policy, strconv.FormatInt(r.seed, 10), strings.Join(diff, "; "),
			strconv.FormatInt(r.transactions, 10), strconv.FormatFloat(r.tps, 'f', 1, 64),
			strconv.FormatFloat(r.mean, 'f', 3, 64), strconv.FormatFloat(r.p99, 'f', 3, 64), strconv.FormatFloat(r.hit, 'f', 4, 64)})
		tb.Hrefs = append(tb.Hrefs, []string{r.rel + "/report.html"})
	}
	text := "Every run output under this directory, with the configuration keys whose values differ between them and the runs' headline figures over their measured phases. Click a column's header to sort by it; a run's name opens its report."
	if len(keys) == 0 {
		text += "\n\nThe runs have the same configuration (they differ at most in the seed)."
	}
	return plots.Page{
		Title:    indexTitle + ": " + filepath.Base(filepath.Clean(dir)),
		Subtitle: fmt.Sprintf("%d runs", len(runs)),
		Sections: []plots.Section{{Text: text}, {Table: tb}},
	}
}

// WriteIndex writes DIR/index.html, listing every run output under dir
// (pgbench-tools' results index, for pgbufsim runs). An existing
// index.html is replaced only if pgbufsim wrote it. It returns the number
// of runs listed.
func WriteIndex(dir string) (int, error) {
	if abs, err := filepath.Abs(dir); err == nil && filepath.Dir(abs) == abs {
		return 0, fmt.Errorf("%s is the filesystem's root: index the directory that holds your runs (e.g. out)", dir)
	}
	if k, ok := outdir.KindOf(dir); ok {
		// An output directory holds its own files only: an index.html
		// there would make the next run into it refuse the directory.
		return 0, fmt.Errorf("%s is a pgbufsim %s output itself: index the directory that holds the runs (e.g. %s)", dir, k, filepath.Dir(filepath.Clean(dir)))
	}
	runs, err := findRuns(dir)
	if err != nil {
		return 0, err
	}
	if len(runs) == 0 {
		return 0, fmt.Errorf("%s holds no pgbufsim run output", dir)
	}
	path := filepath.Join(dir, IndexFile)
	if old, err := os.ReadFile(path); err == nil && !bytes.Contains(old[:min(len(old), 4096)], []byte("<title>"+indexTitle)) {
		return 0, fmt.Errorf("%s exists and is not a runs index pgbufsim wrote; it would be replaced (move it away)", path)
	}
	if err := plots.WriteFile(path, indexPage(dir, runs)); err != nil {
		return 0, err
	}
	return len(runs), nil
}

// RunsUnder counts the run outputs under dir (for writing an index
// automatically when there are several).
func RunsUnder(dir string) int {
	runs, _ := findRuns(dir)
	return len(runs)
}
