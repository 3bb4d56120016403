// Package configs loads pgbufsim scenarios: YAML files (the shipped ones
// live in this directory; configs/reference.yaml documents every key),
// command-line overrides (`-set path=value`), PostgreSQL-style units,
// defaults for every key, version-dependent defaults, and validation with
// `file:line: key: problem (hint)` messages. The result is a
// model.Scenario ready for model.Run.
//
// A Go program uses the same entry points the CLI uses:
//
//	sc, err := configs.Load("configs/quickstart.yaml", "server.shared_buffers=64MB")
//	variant, err := configs.With(sc, "policies.replacement.name=lru")
//	res, err := model.Run(variant)
package configs

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/model"
)

var scenarioType = reflect.TypeFor[model.Scenario]()

// Load reads a scenario file, applies overrides ("path=value", e.g.
// "server.shared_buffers=64MB" or "workload.phases.run.clients=32") and
// returns the validated, fully defaulted scenario.
func Load(path string, overrides ...string) (model.Scenario, error) {
	data, err := readConfig(path, "scenario")
	if err != nil {
		return model.Scenario{}, fmt.Errorf("%s: cannot read the scenario: %v", path, unwrapPathError(err))
	}
	return Parse(path, data, overrides...)
}

// readConfig reads a scenario (what "scenario") or costs file of at most
// strictyaml.MaxBytes (8 MB), whatever it is (a device or a pipe is read
// only that far).
func readConfig(path, what string) ([]byte, error) {
	data, err := strictyaml.ReadFile(path, strictyaml.MaxBytes)
	var tl *strictyaml.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("%v; a %s file is a few kB", err, what)
	}
	return data, err
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Parse is Load for a scenario already in memory; name labels messages,
// and script files are read relative to its directory.
func Parse(name string, data []byte, overrides ...string) (model.Scenario, error) {
	return ParseWith(name, data, RunOptions{}, overrides...)
}

// RunOptions are pgbench's command-line options that replace or extend a
// scenario's scripts: -f FILE[@W] and -b NAME[@W] (Scripts, in order) and
// -D NAME=VALUE (Defines), and --random-seed N (RandomSeed: every phase's
// random_seed).
type RunOptions struct {
	Scripts    []ScriptArg
	Defines    []string
	RandomSeed *uint64
}

// ScriptArg is one -f or -b: a script file (read relative to the working
// directory, as pgbench reads it) or a built-in script, with its weight.
type ScriptArg struct {
	File, Builtin string
	Weight        int64
}

// ParseScriptArg parses pgbench's NAME[@WEIGHT] (pgbench.c
// parseScriptWeight: the weight is an integer in [0, INT_MAX]).
func ParseScriptArg(flag, arg string) (ScriptArg, error) {
	a := ScriptArg{Weight: 1}
	name := arg
	if i := strings.LastIndexByte(arg, '@'); i >= 0 {
		name = arg[:i]
		w, err := strconv.ParseInt(arg[i+1:], 10, 64)
		if err != nil || w < 0 || w > math.MaxInt32 {
			return a, fmt.Errorf("-%s %s: invalid weight specification: %q (an integer from 0 to %d)", flag, arg, arg[i+1:], math.MaxInt32)
		}
		a.Weight = w
	}
	if name == "" {
		return a, fmt.Errorf("-%s %s: a script name is needed before @", flag, arg)
	}
	if flag == "b" {
		a.Builtin = name
	} else {
		a.File = name
	}
	return a, nil
}

// LoadWith is Load with pgbench's script options applied.
func LoadWith(path string, opts RunOptions, overrides ...string) (model.Scenario, error) {
	data, err := readConfig(path, "scenario")
	if err != nil {
		return model.Scenario{}, fmt.Errorf("%s: cannot read the scenario: %v", path, unwrapPathError(err))
	}
	return ParseWith(path, data, opts, overrides...)
}

// ParseWith is Parse with pgbench's script options applied.
func ParseWith(name string, data []byte, opts RunOptions, overrides ...string) (model.Scenario, error) {
	doc, err := strictyaml.Parse(name, data)
	if err != nil {
		return model.Scenario{}, err
	}
	return decodeWith(doc, overrides, opts)
}

// With returns a copy of sc with overrides applied, validated like a file.
// It is how Go programs derive variants of a loaded scenario.
func With(sc model.Scenario, overrides ...string) (model.Scenario, error) {
	data, err := Encode(sc)
	if err != nil {
		return model.Scenario{}, err
	}
	// Choosing another replacement policy starts from that policy's
	// defaults: the encoded parameters belong to the old one.
	for _, o := range overrides {
		if path, _, err := SplitOverride(o); err == nil && (path == "policies.replacement.name" || path == "policies.replacement") {
			if data, err = dropPolicyParams(data); err != nil {
				return model.Scenario{}, err
			}
			break
		}
	}
	out, err := Parse(sc.Name+".yaml", data, overrides...)
	if err != nil {
		return model.Scenario{}, err
	}
	out.Replicate = sc.Replicate
	return out, nil
}

// dropPolicyParams removes every key of policies.replacement but its name.
func dropPolicyParams(data []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	if len(root.Content) == 0 {
		return data, nil
	}
	repl := mappingValue(mappingValue(root.Content[0], "policies"), "replacement")
	if repl == nil || repl.Kind != yaml.MappingNode {
		return data, nil
	}
	kept := repl.Content[:0]
	for i := 0; i+1 < len(repl.Content); i += 2 {
		if repl.Content[i].Value == "name" {
			kept = append(kept, repl.Content[i], repl.Content[i+1])
		}
	}
	repl.Content = kept
	return yaml.Marshal(&root)
}

// SplitOverride splits "path=value".
func SplitOverride(o string) (path, value string, err error) {
	path, value, ok := strings.Cut(o, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return "", "", fmt.Errorf("-set %s: expected path=value, e.g. -set server.shared_buffers=64MB", o)
	}
	return path, strings.TrimSpace(value), nil
}

func decode(doc *strictyaml.Document, overrides []string) (model.Scenario, error) {
	return decodeWith(doc, overrides, RunOptions{})
}

// decodeWith decodes a scenario; script files named in it are read
// relative to the directory of the document's file.
func decodeWith(doc *strictyaml.Document, overrides []string, opts RunOptions) (model.Scenario, error) {
	for _, o := range overrides {
		path, value, err := SplitOverride(o)
		if err != nil {
			return model.Scenario{}, err
		}
		if err := doc.Set(scenarioType, path, value); err != nil {
			return model.Scenario{}, err
		}
	}
	sc := model.DefaultScenario()
	if err := doc.Decode(&sc); err != nil {
		return model.Scenario{}, err
	}
	if err := applyCostsFile(&sc, doc); err != nil {
		return model.Scenario{}, err
	}
	if err := applyRunOptions(&sc, opts); err != nil {
		return model.Scenario{}, err
	}
	if errs := readScriptFiles(&sc, doc, filepath.Dir(doc.File())); len(errs) > 0 {
		return model.Scenario{}, errs
	}
	model.ResolveVersionDefaults(&sc)
	var errs strictyaml.Errors
	for _, p := range model.Check(sc) {
		errs = append(errs, doc.Errorf(p.Path, "%s", p.Msg))
	}
	if len(errs) > 0 {
		return model.Scenario{}, errs
	}
	return sc, nil
}

// Encode renders a scenario as YAML with every key, in units, so that the
// output loads back to the same scenario (summary.json carries it).
func Encode(sc model.Scenario) ([]byte, error) { return strictyaml.Encode(sc) }

// KeyPaths lists every configuration key path (for docs and tests).
func KeyPaths() []string { return strictyaml.KeyPaths(scenarioType) }
