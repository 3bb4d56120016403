package model_test

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/configs"
	"github.com/pgbufsim/pgbufsim/model"
)

// Helpers for the end-to-end behaviour tests (package model_test): a
// scenario is YAML, loaded like a user's file, and run through the public
// API.

func bhScenario(t testing.TB, yaml string, overrides ...string) model.Scenario {
	t.Helper()
	sc, err := configs.Parse(t.Name()+".yaml", []byte(yaml), overrides...)
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	return sc
}

func bhRun(t testing.TB, sc model.Scenario) *model.Result {
	t.Helper()
	r, err := model.Run(sc)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return r
}

func bhRunYAML(t testing.TB, yaml string, overrides ...string) *model.Result {
	t.Helper()
	return bhRun(t, bhScenario(t, yaml, overrides...))
}

// phase returns the named phase's metrics.
func bhPhase(t testing.TB, r *model.Result, name string) model.PhaseResult {
	t.Helper()
	for _, p := range r.Phases {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no phase %q", name)
	return model.PhaseResult{}
}
