package model_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// A prewarm kept on disk (simulate -prewarm-cache DIR) gives the same
// bytes as a run that prewarmed itself: the first run writes its file,
// a run in a new share (another process) reads it instead of prewarming,
// and a run of another point with the same prewarm key reads it too.
// A damaged file is said so, prewarmed again and replaced; a file of that
// name that is not pgbufsim's is left as it was. With another policy
// (2q, whose state holds ghost lists) the file gives the same run too.
func TestPrewarmCacheGivesTheSameRun(t *testing.T) {
	dir := t.TempDir()
	sc := bhScenario(t, sharedPrewarmYAML)
	other := bhScenario(t, sharedPrewarmYAML, "server.bgwriter_delay=50ms", "workload.phases.run.clients=8")
	fresh, freshOther := resultBytes(t, bhRun(t, sc)), resultBytes(t, bhRun(t, other))
	run := func(sc model.Scenario, want []byte) (read, written int, notes []string) {
		t.Helper()
		share := model.NewPrewarmCache(dir)
		r, err := model.RunWith(sc, model.Options{Prewarms: share})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(resultBytes(t, r), want) {
			t.Fatalf("a run with the prewarm cache differs from its own run")
		}
		return share.Files()
	}
	if read, written, notes := run(sc, fresh); read != 0 || written != 1 || len(notes) != 0 {
		t.Fatalf("first run: %d files read, %d written (%v), want 0 and 1", read, written, notes)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "prewarm-*.bin"))
	if len(files) != 1 {
		t.Fatalf("files in the cache: %v, want one", files)
	}
	for _, s := range []model.Scenario{sc, other} {
		want := fresh
		if s.Workload.Phases[1].Clients == 8 {
			want = freshOther
		}
		if read, written, notes := run(s, want); read != 1 || written != 0 || len(notes) != 0 {
			t.Fatalf("later run: %d files read, %d written (%v), want 1 and 0", read, written, notes)
		}
	}
	// A damaged file: one byte changed in the middle.
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x40
	if err := os.WriteFile(files[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if read, written, notes := run(sc, fresh); read != 0 || written != 1 || len(notes) != 1 || !strings.Contains(notes[0], "damaged") {
		t.Fatalf("damaged file: %d read, %d written, notes %v", read, written, notes)
	}
	if read, _, _ := run(sc, fresh); read != 1 {
		t.Fatalf("the damaged file was not replaced by a good one")
	}
	// Not pgbufsim's: kept as it was.
	if err := os.WriteFile(files[0], []byte("a user's notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if read, written, notes := run(sc, fresh); read != 0 || written != 0 || len(notes) != 2 {
		t.Fatalf("a foreign file: %d read, %d written, notes %v", read, written, notes)
	}
	if got, _ := os.ReadFile(files[0]); string(got) != "a user's notes\n" {
		t.Fatalf("a file that is not pgbufsim's was overwritten")
	}
	twoQ := bhScenario(t, sharedPrewarmYAML, "policies.replacement.name=2q")
	freshTwoQ := resultBytes(t, bhRun(t, twoQ))
	for i, want := range [][2]int{{0, 1}, {1, 0}} {
		if read, written, notes := run(twoQ, freshTwoQ); read != want[0] || written != want[1] || len(notes) != 0 {
			t.Fatalf("2q run %d: %d read, %d written (%v), want %v", i+1, read, written, notes, want)
		}
	}
}
