package configs

import (
	"fmt"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/model"
)

// CostsFileDoc is a costs file (docs/calibration.md): a costs: block with
// any of the scenario's costs keys, and the calibration: record simulate
// calibrate writes beside it (which server, when, what it measured), which
// the loader reads past.
type CostsFileDoc struct {
	Costs       model.Costs `yaml:"costs"`
	Calibration yaml.Node   `yaml:"calibration"`
}

// applyCostsFile applies a costs file under the scenario's own costs keys:
// defaults, then the file's keys, then the scenario's (and -set's).
// costs_file is relative to the scenario file (simulate -costs FILE passes
// an absolute path as -set costs_file=...). The scenario is decoded again
// over the file's prices, which is how its own keys come out on top.
func applyCostsFile(sc *model.Scenario, doc *strictyaml.Document) error {
	path := sc.CostsFile
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(doc.File()), path)
	}
	where := func(err error) error {
		return doc.Errorf("costs_file", "%v (the path is relative to the scenario file)", err)
	}
	data, err := readConfig(path, "costs")
	if err != nil {
		return where(fmt.Errorf("cannot read the costs file %s: %v", path, unwrapPathError(err)))
	}
	costs, err := ParseCostsFile(path, data)
	if err != nil {
		return err // names the costs file's own line
	}
	fresh := model.DefaultScenario()
	fresh.Costs = costs
	if err := doc.Decode(&fresh); err != nil {
		return err
	}
	fresh.CostsFile = ""
	*sc = fresh
	return nil
}

// ParseCostsFile reads a costs file's prices over the defaults, with the
// loader's strictness: unknown keys, bad units and out-of-range prices are
// errors naming file:line and the key.
func ParseCostsFile(name string, data []byte) (model.Costs, error) {
	doc, err := strictyaml.Parse(name, data)
	if err != nil {
		return model.Costs{}, err
	}
	f := CostsFileDoc{Costs: model.DefaultCosts()}
	if err := doc.Decode(&f); err != nil {
		return model.Costs{}, err
	}
	return f.Costs, nil
}

// CostsOverride turns simulate -costs FILE into the override that applies
// it (costs_file with an absolute path), after checking that the file
// reads as a costs file, so that a bad one is reported as -costs's.
func CostsOverride(file string) (string, error) {
	data, err := readConfig(file, "costs")
	if err != nil {
		return "", fmt.Errorf("-costs %s: cannot read it: %v", file, unwrapPathError(err))
	}
	if _, err := ParseCostsFile(file, data); err != nil {
		return "", err
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", fmt.Errorf("-costs %s: %v", file, err)
	}
	return "costs_file=" + abs, nil
}
