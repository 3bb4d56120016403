package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pgbufsim/pgbufsim/internal/outdir"
	"github.com/pgbufsim/pgbufsim/plots"
	"github.com/pgbufsim/pgbufsim/sweep"
)

// The files simulate compare writes into its output directory.
const (
	HTMLFile = "compare.html"
	TextFile = "compare.txt"
	CSVFile  = "compare.csv"
	// SweepDir holds the sweep that `simulate compare -config ... -sweep`
	// runs before comparing its points.
	SweepDir = "sweep"
	// DefaultOut is the output directory without -out.
	DefaultOut = "out/compare"
)

const usage = `usage: simulate compare A B [C...] [-names A,B,...] [-out DIR] [-q]
       simulate compare -config FILE -sweep path=a,b [-replicates N] [-set path=value]... [sweep flags] [-names A,B] [-out DIR] [-q]

Compares runs side by side (docs/compare.md). A, B, ... are run output
directories (LABEL=DIR names a side), or sweep output directories (one side
per point). The first side is the baseline: every difference is a side
minus it, paired by replicate number, with a paired 95% confidence interval
when there are replicates and a verdict (significant: the interval excludes
zero). With -config and -sweep, runs the sweep into DIR/sweep first (every
flag of a sweep applies) and compares its points.

Writes DIR/compare.html (the page to post), DIR/compare.txt (the text
summary, also printed unless -q) and DIR/compare.csv (every metric, every
side). DIR defaults to out/compare; it may only be new, empty or an earlier
compare output.

exit codes: 0 ok, 1 bad arguments or inputs (nothing written), 2 a sweep run failed

flags:
`

// Main is simulate compare.
func Main(args []string, stdout, stderr io.Writer) int {
	out, quiet, names, rest, err := splitOwnFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "simulate compare: %v\n\n%s", err, usage)
		return 1
	}
	if len(rest) == 0 || wantsHelp(rest) {
		fmt.Fprint(stderr, usage)
		fmt.Fprint(stderr, "  -names A,B,...\n    \tname the sides in order (e.g. master,patch), in place of their directory names or axis values\n"+
			"  -out DIR\n    \toutput directory (default out/compare)\n  -q\n    \tdo not print the text summary\n")
		if len(rest) == 0 {
			return 1
		}
		return 0
	}
	if out == "" {
		out = DefaultOut
	}
	out = filepath.Clean(out)
	if err := outdir.Check(out, outdir.Compare); err != nil {
		fmt.Fprintf(stderr, "simulate compare: -out %v\n", err)
		return 1
	}
	inputs := rest
	if runsSweep(rest) {
		// Everything the sweep and the comparison need is checked before
		// anything is written: the sweep's flags and configuration, and
		// that it gives two sides or more, as many as -names.
		sweepDir := filepath.Join(out, SweepDir)
		sweepArgs := append(append([]string(nil), rest...), "-out", sweepDir, "-q")
		plan, shards, code := sweep.Plan(sweepArgs, stderr)
		if plan == nil {
			return code
		}
		switch n := len(plan.Points); {
		case shards > 1:
			fmt.Fprintf(stderr, "simulate compare: -shard: a comparison needs every point; run the shards with simulate -config, merge them (simulate merge) and compare the merged directory\n")
			return 1
		case n < 2:
			fmt.Fprintf(stderr, "simulate compare: the sweep has %d point: a comparison needs two sides or more (give an axis with two values or more, -sweep path=a,b)\n", n)
			return 1
		case names != "" && len(strings.Split(names, ",")) != n:
			fmt.Fprintf(stderr, "simulate compare: -names gives %d names for the sweep's %d points\n", len(strings.Split(names, ",")), n)
			return 1
		}
		// DIR is claimed first, so that the sweep under it (which a
		// rerun resumes) is part of a compare output from the start.
		if err := os.MkdirAll(out, 0o755); err != nil {
			fmt.Fprintf(stderr, "simulate compare: %v\n", err)
			return 1
		}
		if err := outdir.WriteMarker(out, outdir.Compare); err != nil {
			fmt.Fprintf(stderr, "simulate compare: %v\n", err)
			return 1
		}
		code = sweep.Main(sweepArgs, io.Discard, stderr)
		if code != 0 {
			return code
		}
		inputs = []string{sweepDir}
	} else {
		for _, a := range rest {
			if strings.HasPrefix(a, "-") {
				fmt.Fprintf(stderr, "simulate compare: unknown flag %s (without -config, only -names, -out and -q apply)\n", a)
				return 1
			}
		}
	}
	sides, err := Load(inputs)
	if err == nil && names != "" {
		err = Rename(sides, strings.Split(names, ","))
	}
	if err != nil {
		fmt.Fprintf(stderr, "simulate compare: %v\n", err)
		return 1
	}
	c := New(sides)
	if err := c.Write(out); err != nil {
		fmt.Fprintf(stderr, "simulate compare: %v\n", err)
		return 2
	}
	if !quiet {
		c.WriteText(stdout)
	}
	fmt.Fprintf(stdout, "outputs: %s, %s, %s\n", filepath.Join(out, HTMLFile), filepath.Join(out, TextFile), filepath.Join(out, CSVFile))
	return 0
}

// splitOwnFlags takes -out DIR, -names LIST and -q from anywhere in args
// (flags may follow the directories) and returns the rest in order.
func splitOwnFlags(args []string) (out string, quiet bool, names string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		switch name {
		case "out", "names":
			if !hasVal {
				if i+1 >= len(args) {
					return "", false, "", nil, errors.New("-" + name + " needs a value")
				}
				i++
				val = args[i]
			}
			if name == "out" {
				out = val
			} else {
				names = val
			}
		case "q":
			quiet = true
		default:
			rest = append(rest, a)
		}
	}
	return out, quiet, names, rest, nil
}

// Rename names the sides in order (simulate compare -names master,patch).
func Rename(sides []*Side, names []string) error {
	if len(names) != len(sides) {
		return fmt.Errorf("-names gives %d name(s) for %d sides (one per side, in order: the first names the baseline)", len(names), len(sides))
	}
	seen := map[string]bool{}
	for i, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			return fmt.Errorf("-names: name %d is empty or repeated (%q)", i+1, n)
		}
		seen[n] = true
		sides[i].Name = n
	}
	return nil
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// runsSweep reports whether the arguments ask for a sweep (-config).
func runsSweep(args []string) bool {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "config" {
			return true
		}
	}
	return false
}

// Write renders every output in memory, then writes each file atomically
// (a temporary file renamed into place) into dir, which outdir.Check has
// allowed; the sweep a one-step compare ran stays in dir/sweep.
func (c *Comparison) Write(dir string) error {
	if err := outdir.Check(dir, outdir.Compare); err != nil {
		return err
	}
	var page bytes.Buffer
	if err := plots.Write(&page, c.Page(dir)); err != nil {
		return err
	}
	var text bytes.Buffer
	if err := c.WriteText(&text); err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{outdir.MarkerFile, outdir.Marker(outdir.Compare)},
		{CSVFile, c.CSV()},
		{TextFile, text.Bytes()},
		{HTMLFile, page.Bytes()},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := outdir.WriteFileAtomic(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}
