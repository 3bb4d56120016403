package configs

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/model"
)

// maxScriptBytes bounds a script file, as strictyaml.MaxBytes bounds a
// scenario.
const maxScriptBytes = strictyaml.MaxBytes

// applyRunOptions puts -f/-b scripts and -D variables into every phase
// that runs pgbench scripts (built-in or files): a phase of steps keeps its
// own. -random-seed sets every phase's random_seed. -f files are read relative to the working directory, as pgbench
// reads them.
func applyRunOptions(sc *model.Scenario, opts RunOptions) error {
	var mix []model.WeightedScript
	for _, a := range opts.Scripts {
		w := model.WeightedScript{Builtin: a.Builtin, File: a.File, Weight: a.Weight}
		if a.File != "" {
			text, err := readScript(a.File)
			if err != nil {
				return fmt.Errorf("-f %s: %v", a.File, err)
			}
			w.Text = text
		}
		mix = append(mix, w)
	}
	defs := map[string]string{}
	for _, d := range opts.Defines {
		k, v, ok := strings.Cut(d, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return fmt.Errorf("-D %s: expected NAME=VALUE (pgbench: invalid variable definition)", d)
		}
		defs[strings.TrimSpace(k)] = v
	}
	for i := range sc.Workload.Phases {
		ph := &sc.Workload.Phases[i]
		if opts.RandomSeed != nil {
			seed := *opts.RandomSeed
			ph.RandomSeed = &seed
		}
		steps := false
		for _, w := range ph.ScriptList() {
			steps = steps || len(w.Steps) > 0
		}
		if steps {
			continue
		}
		if len(mix) > 0 {
			ph.Script = model.Script{}
			ph.Scripts = nil
			if len(mix) == 1 && mix[0].Weight == 1 {
				ph.Script = model.Script{Builtin: mix[0].Builtin, File: mix[0].File, Text: mix[0].Text}
			} else {
				ph.Scripts = append([]model.WeightedScript(nil), mix...)
			}
		}
		if len(defs) > 0 {
			merged := map[string]string{}
			for k, v := range ph.Define {
				merged[k] = v
			}
			for k, v := range defs {
				merged[k] = v
			}
			ph.Define = merged
		}
	}
	return nil
}

// readScript reads a script file, refusing one larger than a scenario may
// be.
func readScript(path string) (string, error) {
	data, err := strictyaml.ReadFile(path, maxScriptBytes)
	var tl *strictyaml.TooLargeError
	switch {
	case errors.As(err, &tl):
		return "", fmt.Errorf("%v; a pgbench script is a few kB", err)
	case errors.Is(err, syscall.EISDIR):
		return "", fmt.Errorf("is a directory, not a script file")
	case err != nil:
		return "", fmt.Errorf("cannot read the script: %v", unwrapPathError(err))
	}
	if len(data) == 0 {
		return "", fmt.Errorf("the script is empty (pgbench: empty command list for script)")
	}
	return string(data), nil
}

// readScriptFiles reads the script files a scenario names (file: keys)
// into their text, relative to the scenario file's directory. A script
// that already has its text (a scenario encoded after loading, as
// summary.json and sweeps carry it) is not read again.
func readScriptFiles(sc *model.Scenario, doc *strictyaml.Document, baseDir string) strictyaml.Errors {
	var errs strictyaml.Errors
	read := func(path, file string, text *string) {
		if file == "" || *text != "" {
			return
		}
		full := file
		if !filepath.IsAbs(full) {
			full = filepath.Join(baseDir, file)
		}
		t, err := readScript(full)
		if err != nil {
			errs = append(errs, doc.Errorf(path, "%s: %v (relative paths are from the scenario file's directory)", full, err))
			return
		}
		*text = t
	}
	for i := range sc.Workload.Phases {
		ph := &sc.Workload.Phases[i]
		at := fmt.Sprintf("workload.phases[%d]", i)
		read(at+".script.file", ph.Script.File, &ph.Script.Text)
		for k := range ph.Scripts {
			read(fmt.Sprintf("%s.scripts[%d].file", at, k), ph.Scripts[k].File, &ph.Scripts[k].Text)
		}
	}
	return errs
}
