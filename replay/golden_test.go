package replay

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt")

// goldenSizes are the cache sizes of the golden file: from a few pages to
// all of the trace's 337 distinct pages.
var goldenSizes = []int{4, 16, 48, 128, 337}

const goldenPath = "testdata/golden.txt"

// TestGolden pins every policy's hits, misses and evictions on the small
// test trace at several sizes, as libCacheSim's tests pin miss counts on
// their bundled trace: any behaviour change in a policy or in the replay
// loop shows up here. LRU, clock-sweep, SIEVE and OPT are also checked
// against naive implementations (TestRunMatchesNaive); the golden file
// additionally holds 2Q and ARC. Rewrite with
//
//	go test ./replay -run TestGolden -update
func TestGolden(t *testing.T) {
	var lines []string
	for _, name := range allPolicies() {
		p := mustPolicy(t, name)
		for _, size := range goldenSizes {
			r := runChecked(t, openSmall(t, "small.oracleGeneral"), p, size)
			lines = append(lines, fmt.Sprintf("%s %d %d %d %d", r.Policy, r.Slots, r.Hits, r.Misses, r.Evictions))
		}
	}
	if *update {
		text := "# policy slots hits misses evictions on trace/testdata/small.oracleGeneral\n" +
			"# (4000 references, 337 distinct pages); go test ./replay -run TestGolden -update\n" +
			strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile(goldenPath, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(filepath.FromSlash(goldenPath))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	if len(want) != len(lines) {
		t.Fatalf("golden file has %d lines, the replay %d (run with -update after adding a policy)", len(want), len(lines))
	}
	for i := range lines {
		if lines[i] != want[i] {
			t.Errorf("got %q, golden %q", lines[i], want[i])
		}
	}
}
