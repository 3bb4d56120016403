package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCLIArgs feeds arbitrary command lines (arguments separated by NUL)
// to simulate, with -dry-run appended so that no simulation runs: whatever
// the flags, it must not panic, must exit 0, 1 or 2, and must write nothing
// (the working directory stays empty). Trace replay and merge read and
// write arbitrary paths, so inputs naming them are skipped here; their
// flag parsing is tested in their packages.
func FuzzCLIArgs(f *testing.F) {
	cfg, err := filepath.Abs("../../configs/quickstart.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"-config\x00" + cfg,
		"-config\x00" + cfg + "\x00-set\x00server.shared_buffers=64MB",
		"-config\x00" + cfg + "\x00-seed\x00-5",
		"-config\x00" + cfg + "\x00-out\x00.",
		"-config\x00" + cfg + "\x00-sweep\x00server.cpus=1,2\x00-replicates\x000",
		"-config\x00" + cfg + "\x00-set\x00workload.phases.run.rate=1e-300",
		"-config\x00" + cfg + "\x00-max-memory\x00-3GB",
		"-config\x00" + cfg + "\x00-duration\x005 parsecs",
		"-version", "-list-policies", "-nosuchflag", "",
	} {
		f.Add(seed)
	}
	wd, _ := os.Getwd()
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "trace") || strings.Contains(line, "merge") || strings.Contains(line, "profile") {
			t.Skip()
		}
		tmp := t.TempDir()
		if err := os.Chdir(tmp); err != nil {
			t.Fatal(err)
		}
		defer os.Chdir(wd)
		var args []string
		if line != "" {
			args = strings.Split(line, "\x00")
		}
		args = append(args, "-dry-run")
		code := run(args, io.Discard, io.Discard)
		if code < 0 || code > 2 {
			t.Fatalf("%q: exit %d", args, code)
		}
		if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
			t.Fatalf("%q wrote %v", args, entries)
		}
	})
}
