package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/pgbufsim/pgbufsim/calibrate"
	"github.com/pgbufsim/pgbufsim/compare"
	"github.com/pgbufsim/pgbufsim/replay"
	"github.com/pgbufsim/pgbufsim/sweep"
)

// wantsHelp reports whether the arguments ask for help (-h, -help,
// --help): simulate then describes every mode, not only the one the other
// arguments would select.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help", "--h":
			return true
		}
	}
	return false
}

// printHelp writes the help of every mode: a single run, sweeps, merge,
// compare and trace replay, each with its flags.
func printHelp(w io.Writer) {
	fs, _ := newRunFlags(w)
	fs.Usage()
	for _, m := range []struct {
		title string
		help  func(io.Writer)
	}{
		{"sweeps (a sweep: block or -sweep; docs/sweeps.md)", func(w io.Writer) { sweep.Main([]string{"-h"}, io.Discard, w) }},
		{"merging sweep shards", func(w io.Writer) { sweep.MergeMain([]string{"-h"}, io.Discard, w) }},
		{"comparing runs (simulate compare; docs/compare.md)", func(w io.Writer) { compare.Main([]string{"-h"}, io.Discard, w) }},
		{"calibrating to a server (simulate calibrate; docs/calibration.md)", func(w io.Writer) { calibrate.Main([]string{"-h"}, io.Discard, w) }},
		{"trace replay (-trace, or a config with a trace: block; docs/traces.md)", func(w io.Writer) { replay.Main([]string{"-h"}, io.Discard, w) }},
	} {
		fmt.Fprintf(w, "\n=== %s ===\n\n", m.title)
		m.help(w)
	}
}

// versionString describes this build: the module version when installed
// from a published module, else the VCS revision it was built from.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "pgbufsim (build information unavailable)"
	}
	v := bi.Main.Version
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = " with uncommitted changes"
			}
		}
	}
	out := "pgbufsim " + v
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		out += " (commit " + rev
		if when != "" {
			out += ", " + when
		}
		out += dirty + ")"
	}
	return out + ", " + bi.GoVersion
}
