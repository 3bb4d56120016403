package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The example runs (shortened) and writes its chart, and the threshold
// does what the patch says (docs/model.md; the 2013 thread): a
// scan consults the visibility map only for tables of at least
// vm_skip_threshold pages, so VM lookups never grow with the threshold,
// are the same at 0 and 16 (every table has >= 16 pages) and vanish at 128
// (no table has that many), while per-tuple checks appear.
func TestVMThreshold(t *testing.T) {
	out := filepath.Join(t.TempDir(), "chart.html")
	res, err := run(out, "1s", 1, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	plan := res.Plan
	for _, sb := range plan.Axes[0].Values {
		var lookups, checked []float64
		for _, th := range plan.Axes[1].Values {
			p := plan.Index(sb, th)
			lookups = append(lookups, res.Estimate(p, "visibility.vm_lookups").Mean)
			checked = append(checked, res.Estimate(p, "visibility.tuples_checked").Mean)
		}
		if lookups[0] == 0 || lookups[1] != lookups[0] || checked[0] != 0 || lookups[len(lookups)-1] != 0 || checked[len(checked)-1] == 0 {
			t.Errorf("shared_buffers %s: VM lookups %v, tuples checked %v", sb, lookups, checked)
		}
		for i := 1; i < len(lookups); i++ {
			if lookups[i]/max(res.Estimate(plan.Index(sb, plan.Axes[1].Values[i]), "transactions").Mean, 1) >
				lookups[i-1]/max(res.Estimate(plan.Index(sb, plan.Axes[1].Values[i-1]), "transactions").Mean, 1) {
				t.Errorf("shared_buffers %s: VM lookups per scan grew from threshold %s to %s", sb, plan.Axes[1].Values[i-1], plan.Axes[1].Values[i])
			}
		}
	}
}
