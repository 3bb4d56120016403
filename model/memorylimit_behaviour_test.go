package model_test

import (
	"bytes"
	"errors"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// Options.MemoryLimit stops a run whose live heap outgrows it with a
// *model.MemoryError naming the phase and the simulated time, and leaves a
// run that stays below it unchanged (the same bytes as without a limit).
func TestMemoryLimitStopsARunThatOutgrowsIt(t *testing.T) {
	sc := bhScenario(t, sharedPrewarmYAML)
	fresh := resultBytes(t, bhRun(t, sc))
	// The heap watch (simulate's collector pacing) sees the live heap
	// and changes nothing: pace the collector hard while it runs.
	var seen []int64
	watch := func(live int64) {
		seen = append(seen, live)
		debug.SetGCPercent(1)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	r, err := model.RunWith(sc, model.Options{MemoryLimit: 1 << 40, HeapWatch: watch})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resultBytes(t, r), fresh) {
		t.Fatalf("a run under its memory limit, its collector paced, differs from one without")
	}
	if len(seen) == 0 || slices.Max(seen) <= 0 {
		t.Fatalf("the heap watch saw %d readings (%v): want the live heap every 65536 events", len(seen), seen)
	}
	// The limit is checked against the live heap of the last collection:
	// make sure there was one.
	runtime.GC()
	_, err = model.RunWith(sc, model.Options{MemoryLimit: 1})
	var me *model.MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("a run over its memory limit: %v, want a *model.MemoryError", err)
	}
	if me.Phase != "warm" || me.Live <= 1 || me.Limit != 1 {
		t.Fatalf("memory error %+v: want phase warm, its live heap and limit 1", me)
	}
}
