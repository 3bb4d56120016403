package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example runs (shortened) and writes its chart, and the cache does
// what the patch describes (docs/model.md; the 2011 "hint bit
// cache v5" thread): with it, tuples of a committed batch are answered by
// the backend's cache instead of the clog, so clog lookups fall at every
// client count, and without it the cache is never consulted.
func TestHintCache(t *testing.T) {
	out := filepath.Join(t.TempDir(), "chart.html")
	var table bytes.Buffer
	res, err := run(out, "2s", 1, &table)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "paired difference (same replicates): policies.hint_cache.enabled = true minus false") {
		t.Errorf("table:\n%s", table.String())
	}
	plan := res.Plan
	for _, n := range clients {
		off, on := plan.Index(n, "false"), plan.Index(n, "true")
		if res.Estimate(off, "visibility.hint_cache_hits").Mean != 0 || res.Estimate(on, "visibility.hint_cache_hits").Mean == 0 {
			t.Errorf("%s clients: hint cache hits off %v, on %v", n, res.Estimate(off, "visibility.hint_cache_hits").Mean, res.Estimate(on, "visibility.hint_cache_hits").Mean)
		}
		lOff, lOn := res.Estimate(off, "visibility.clog_lookups").Mean, res.Estimate(on, "visibility.clog_lookups").Mean
		if !(lOn < lOff/10) {
			t.Errorf("%s clients: clog lookups %v with the cache, %v without", n, lOn, lOff)
		}
	}
}
