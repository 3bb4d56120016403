package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pgbufsim/pgbufsim/configs"
)

// PlanFile is DIR/sweep-plan.json: what a sweep directory was made for,
// enough to rebuild its outputs (merge) without the scenario file.
const PlanFile = "sweep-plan.json"

// planJSON is the plan file's content. Scenarios are represented by their
// configuration hash.
type planJSON struct {
	Name       string     `json:"name"`
	Seed       int64      `json:"seed"`
	Replicates int        `json:"replicates"`
	Metrics    []string   `json:"metrics"`
	Axes       []axisJSON `json:"axes"`
	Points     []pointRef `json:"points"`
}

type axisJSON struct {
	Path   string   `json:"path"`
	Values []string `json:"values"`
}

type pointRef struct {
	ID     string   `json:"id"`
	Values []string `json:"values"`
	Config string   `json:"config"`
}

// ConfigHash identifies a point's fully defaulted configuration (the YAML
// configs.Encode writes, which is what summary.json's config holds): the
// first 16 hex digits of its SHA-256. A resumed sweep reuses a finished run
// only when its hash is unchanged.
func ConfigHash(p configs.SweepPoint) (string, error) {
	y, err := configs.Encode(p.Scenario)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(y)
	return hex.EncodeToString(sum[:8]), nil
}

// planHashes returns every point's configuration hash.
func planHashes(plan *configs.SweepPlan) ([]string, error) {
	out := make([]string, len(plan.Points))
	for i, p := range plan.Points {
		h, err := ConfigHash(p)
		if err != nil {
			return nil, fmt.Errorf("point %s: %v", p.ID, err)
		}
		out[i] = h
	}
	return out, nil
}

func encodePlan(plan *configs.SweepPlan, hashes []string) ([]byte, error) {
	pj := planJSON{Name: plan.Name, Seed: plan.Seed, Replicates: plan.Replicates, Metrics: plan.Metrics,
		Axes: []axisJSON{}, Points: []pointRef{}}
	for _, a := range plan.Axes {
		pj.Axes = append(pj.Axes, axisJSON{Path: a.Path, Values: a.Values})
	}
	for i, p := range plan.Points {
		pj.Points = append(pj.Points, pointRef{ID: p.ID, Values: p.Values, Config: hashes[i]})
	}
	b, err := json.MarshalIndent(pj, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// PlanError is a sweep-plan.json that does not read as one (edited or
// truncated): bad input, with the way out.
type PlanError struct {
	Path string
	Err  error
}

func (e *PlanError) Error() string {
	return fmt.Sprintf("%s: the sweep's plan is damaged (%v); re-run the sweep's own command into this directory with -force to rewrite it, or run the sweep again elsewhere", e.Path, e.Err)
}

// readPlan loads DIR/sweep-plan.json as a plan without scenarios, plus
// the points' configuration hashes and the file's bytes.
func readPlan(dir string) (*configs.SweepPlan, []string, []byte, error) {
	data, err := os.ReadFile(filepath.Join(dir, PlanFile))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil, nil, fmt.Errorf("%s: not a sweep directory (no %s)", dir, PlanFile)
		}
		return nil, nil, nil, err
	}
	var pj planJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&pj); err != nil {
		return nil, nil, nil, &PlanError{Path: filepath.Join(dir, PlanFile), Err: err}
	}
	plan := &configs.SweepPlan{Name: pj.Name, Seed: pj.Seed, Replicates: pj.Replicates, Metrics: pj.Metrics}
	for _, a := range pj.Axes {
		plan.Axes = append(plan.Axes, configs.SweepAxis{Path: a.Path, Values: a.Values})
	}
	hashes := make([]string, len(pj.Points))
	for i, p := range pj.Points {
		if len(p.Values) != len(plan.Axes) {
			return nil, nil, nil, &PlanError{Path: filepath.Join(dir, PlanFile), Err: fmt.Errorf("point %s has %d values for %d axes", p.ID, len(p.Values), len(plan.Axes))}
		}
		plan.Points = append(plan.Points, configs.SweepPoint{Index: i, ID: p.ID, Values: p.Values})
		hashes[i] = p.Config
	}
	if plan.Replicates < 1 {
		return nil, nil, nil, &PlanError{Path: filepath.Join(dir, PlanFile), Err: errors.New("replicates must be at least 1")}
	}
	return plan, hashes, data, nil
}
