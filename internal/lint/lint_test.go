// Package lint holds repository-wide rules as tests (pebble's internal/lint
// is the model): import directions between the project's packages, and the
// determinism rules of the simulation core.
package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/pgbufsim/pgbufsim"

type goFile struct {
	path string // relative to the repository root
	pkg  string // directory, e.g. "model/heap"
	test bool
	file *ast.File
	fset *token.FileSet
}

func repoFiles(t *testing.T) []goFile {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var out []goFile
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if name == ".git" || name == "testdata" || name == "out" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		out = append(out, goFile{path: rel, pkg: filepath.ToSlash(filepath.Dir(rel)), test: strings.HasSuffix(path, "_test.go"), file: f, fset: fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// Import directions (docs/model.md): cmd -> configs, plots, model -> policies,
// sim. sim and policies import no other package of the project; plots
// never runs the model; model never imports configs, plots or report.
func TestImportDirections(t *testing.T) {
	forbidden := map[string][]string{
		"sim":      {""}, // nothing of the project
		"policies": {""},
		"plots":    {"model", "configs", "report", "sweep", "replay", "compare"},
		"model":    {"configs", "plots", "report", "sweep", "replay", "compare", "cmd"},
	}
	for _, f := range repoFiles(t) {
		if f.test {
			continue
		}
		for dir, bans := range forbidden {
			if !under(f.pkg, dir) {
				continue
			}
			for _, imp := range f.file.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if !strings.HasPrefix(p, module+"/") {
					continue
				}
				target := strings.TrimPrefix(p, module+"/")
				for _, ban := range bans {
					if ban == "" && !under(target, dir) || ban != "" && under(target, ban) {
						t.Errorf("%s imports %s: %s must not depend on it (docs/model.md)", f.path, p, dir)
					}
				}
			}
		}
	}
}

// Determinism rules for the simulation core: no wall clock, no global
// math/rand, no goroutines, no finalizers in sim/, model/, policies/; no
// math/rand v1 or golang.org/x/exp anywhere.
func TestDeterminismRules(t *testing.T) {
	for _, f := range repoFiles(t) {
		for _, imp := range f.file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "math/rand" || strings.HasPrefix(p, "golang.org/x/exp") {
				t.Errorf("%s imports %s: use math/rand/v2 (and gonum)", f.path, p)
			}
		}
		core := under(f.pkg, "sim") || under(f.pkg, "model") || under(f.pkg, "policies")
		if !core || f.test {
			continue
		}
		full, err := parser.ParseFile(token.NewFileSet(), filepath.Join("../..", f.path), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(full, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: goroutine in the simulation core", f.path)
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					switch {
					case id.Name == "time" && (x.Sel.Name == "Now" || x.Sel.Name == "Since" || x.Sel.Name == "Sleep"):
						t.Errorf("%s: time.%s in the simulation core (simulated time only)", f.path, x.Sel.Name)
					case id.Name == "runtime" && x.Sel.Name == "SetFinalizer":
						t.Errorf("%s: runtime.SetFinalizer in the simulation core", f.path)
					case id.Name == "rand" && isGlobalRand(x.Sel.Name):
						t.Errorf("%s: global rand.%s in the simulation core (use a stream from sim.NewStream)", f.path, x.Sel.Name)
					}
				}
			}
			return true
		})
	}
}

func isGlobalRand(name string) bool {
	switch name {
	case "Int", "IntN", "Int32", "Int32N", "Int64", "Int64N", "Uint32", "Uint32N", "Uint64", "Uint64N", "UintN", "Float32", "Float64", "NormFloat64", "ExpFloat64", "Perm", "Shuffle", "N":
		return true
	}
	return false
}

// go.mod must not name golang.org/x/exp.
func TestGoModHasNoExp(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "golang.org/x/exp") {
		t.Error("go.mod names golang.org/x/exp: use math/rand/v2")
	}
}
