package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The example runs (shortened) and writes its chart, and the sweep shows
// what caching theory says: for every policy the hit ratio grows with
// shared_buffers (the inclusion property of stack algorithms such as LRU,
// Mattson et al. 1970, which the clock approximations follow at these
// size steps).
func TestBuffersPolicies(t *testing.T) {
	out := filepath.Join(t.TempDir(), "chart.html")
	var table bytes.Buffer
	res, err := run(out, "2s", 1, &table)
	if err != nil {
		t.Fatal(err)
	}
	if html, err := os.ReadFile(out); err != nil || !bytes.Contains(html, []byte(`id="c1"`)) {
		t.Fatalf("chart: %v", err)
	}
	if !strings.Contains(table.String(), "║ shared_buffers │ name") {
		t.Errorf("table:\n%s", table.String())
	}
	for _, pol := range policies {
		prev := 0.0
		for _, size := range sizes {
			h := res.Estimate(res.Plan.Index(size, pol), "buffers.hit_ratio").Mean
			if !(h > prev) {
				t.Errorf("%s: hit ratio %.4f at %s, not above %.4f at the smaller size", pol, h, size, prev)
			}
			prev = h
		}
	}
}
