package model_test

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

// Options.MemoryLimit stops a run whose live heap outgrows it with a
// *model.MemoryError naming the phase and the simulated time, and leaves a
// run that stays below it unchanged (the same bytes as without a limit).
func TestMemoryLimitStopsARunThatOutgrowsIt(t *testing.T) {
	sc := bhScenario(t, sharedPrewarmYAML)
	fresh := resultBytes(t, bhRun(t, sc))
	r, err := model.RunWith(sc, model.Options{MemoryLimit: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(resultBytes(t, r), fresh) {
		t.Fatalf("a run under its memory limit differs from one without")
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
