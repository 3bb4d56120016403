// Package outdir guards the places pgbufsim writes to, so that a command
// never loses a user's files: a run, sweep or trace-replay output may go
// only into a directory that does not exist yet, an empty directory, or a
// directory holding an earlier pgbufsim output of the same kind and
// nothing else; a single output file (a trace, a profile) may replace only
// a file that pgbufsim itself wrote. Everything else is refused with an
// *Error, which commands report as bad input (exit 1) before any work.
//
// Every output directory carries a marker file, MarkerFile, naming its
// kind. Directories written before the marker existed are recognised by
// their file names (a run's summary.json, a sweep's sweep-plan.json, a
// replay's mrc.csv) as long as they hold nothing else.
package outdir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
)

// MarkerFile is the name of the file that marks a pgbufsim output directory.
const MarkerFile = ".pgbufsim"

// Kind is what an output directory holds.
type Kind string

// Output kinds.
const (
	Run    Kind = "run"    // one simulation: summary.json, timeseries.csv, report.html
	Sweep  Kind = "sweep"  // a sweep: its plan, journal, tables and runs/
	Replay Kind = "replay" // a trace replay: mrc.csv, mrc.html
	// Compare is simulate compare's page, text and CSV, and (when it ran
	// the sweep itself) the sweep under sweep/.
	Compare Kind = "compare"
)

// Files names the files each kind may hold besides the marker (a sweep's
// "runs" is its directory of run outputs). Packages that write a kind's
// files register them here, so the check and the writer cannot disagree.
var Files = map[Kind][]string{
	Run:     {"summary.json", "timeseries.csv", "report.html", "pgbench_log"},
	Sweep:   {"sweep-plan.json", "sweep.journal", "sweep.csv", "sweep-summary.csv", "sweep-paired.csv", "sweep.html", "runs"},
	Replay:  {"mrc.csv", "mrc.html"},
	Compare: {"compare.html", "compare.txt", "compare.csv", "sweep"},
}

// signature is the file whose presence identifies an unmarked output of a
// kind written by an older pgbufsim.
var signature = map[Kind]string{Run: "summary.json", Sweep: "sweep-plan.json", Replay: "mrc.csv", Compare: "compare.csv"}

// Error is a refusal to write: the path is not ours to replace.
type Error struct {
	Path   string
	Reason string
	Hint   string
}

func (e *Error) Error() string {
	s := e.Path + ": " + e.Reason
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// IsRefusal reports whether err is (or wraps) an *Error.
func IsRefusal(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// Marker returns the marker file's contents for kind.
func Marker(kind Kind) []byte {
	return []byte("pgbufsim " + string(kind) + " output\n" +
		"This directory was written by pgbufsim; the next pgbufsim " + string(kind) + " into it replaces it.\n")
}

// pgbenchLogName matches the pgbench log files of a run: PREFIX.PID and
// PREFIX.PID.THREAD with the model's pseudo process ids (10000 + the phase's
// index, model.LogPIDBase).
var pgbenchLogName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*\.1[0-9]{4}(\.[0-9]+)?$`)

// IsRunFile reports whether name is a file a run writes: one of
// Files[Run], or a pgbench log file.
func IsRunFile(name string) bool {
	return slices.Contains(Files[Run], name) || pgbenchLogName.MatchString(name)
}

// WriteMarker writes dir's marker file.
func WriteMarker(dir string, kind Kind) error {
	return os.WriteFile(filepath.Join(dir, MarkerFile), Marker(kind), 0o644)
}

// KindOf reports what output dir holds: its marker's kind, or, without a
// marker, the kind whose signature file it has. ok is false when dir is not
// a pgbufsim output directory (or cannot be read).
func KindOf(dir string) (kind Kind, ok bool) {
	if b, err := os.ReadFile(filepath.Join(dir, MarkerFile)); err == nil {
		first, _, _ := strings.Cut(string(b), "\n")
		for _, k := range []Kind{Run, Sweep, Replay, Compare} {
			if first == "pgbufsim "+string(k)+" output" {
				return k, true
			}
		}
		return "", false
	}
	for _, k := range []Kind{Run, Sweep, Replay, Compare} {
		if st, err := os.Stat(filepath.Join(dir, signature[k])); err == nil && st.Mode().IsRegular() {
			return k, true
		}
	}
	return "", false
}

// Check reports whether an output of kind may be written at dir: nil when
// dir does not exist, is an empty directory, or holds an earlier output of
// the same kind and nothing else; an *Error saying why not otherwise.
func Check(dir string, kind Kind) error {
	if err := checkPathName(dir); err != nil {
		return err
	}
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return checkParent(dir)
	}
	if err != nil {
		return &Error{Path: dir, Reason: "cannot be inspected: " + unwrap(err).Error()}
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return &Error{Path: dir, Reason: "is a symbolic link; pgbufsim replaces output directories and will not follow a link to do it", Hint: "give the directory it points to, or another name"}
	}
	if !st.IsDir() {
		return &Error{Path: dir, Reason: "is a file, not a directory; the " + string(kind) + "'s outputs would replace it", Hint: "choose a directory name for -out"}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &Error{Path: dir, Reason: "cannot be read: " + unwrap(err).Error()}
	}
	if len(entries) == 0 {
		return nil
	}
	got, ok := KindOf(dir)
	if !ok {
		return &Error{Path: dir, Reason: "is a directory that pgbufsim did not write (" + describeEntries(entries) + "); writing the " + string(kind) + " there would replace it",
			Hint: "choose a new or empty directory for -out"}
	}
	if got != kind {
		return &Error{Path: dir, Reason: "holds a pgbufsim " + string(got) + " output, not a " + string(kind) + " output",
			Hint: "choose another directory for -out"}
	}
	var foreign []string
	for _, e := range entries {
		if e.Name() != MarkerFile && !slices.Contains(Files[kind], e.Name()) && !(kind == Run && IsRunFile(e.Name())) && !isLeftover(e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		return &Error{Path: dir, Reason: fmt.Sprintf("holds an earlier pgbufsim %s output but also %s, which pgbufsim did not write and would lose", kind, listNames(foreign)),
			Hint: "move those files away, or choose another directory for -out"}
	}
	if kind == Sweep {
		return checkRuns(filepath.Join(dir, "runs"))
	}
	return nil
}

// checkRuns checks a sweep's runs/ directory: point directories holding
// replicate directories, each an earlier run output.
func checkRuns(runs string) error {
	points, err := os.ReadDir(runs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Error{Path: runs, Reason: "cannot be read: " + unwrap(err).Error()}
	}
	for _, p := range points {
		pdir := filepath.Join(runs, p.Name())
		if !p.IsDir() {
			return &Error{Path: pdir, Reason: "is not a run directory pgbufsim wrote", Hint: "move it away, or choose another directory for -out"}
		}
		reps, err := os.ReadDir(pdir)
		if err != nil {
			return &Error{Path: pdir, Reason: "cannot be read: " + unwrap(err).Error()}
		}
		for _, r := range reps {
			if isLeftover(r.Name()) {
				continue
			}
			rdir := filepath.Join(pdir, r.Name())
			if !r.IsDir() || !replicateName.MatchString(r.Name()) {
				return &Error{Path: rdir, Reason: "is not a run directory pgbufsim wrote", Hint: "move it away, or choose another directory for -out"}
			}
			if err := Check(rdir, Run); err != nil {
				return err
			}
		}
	}
	return nil
}

var replicateName = regexp.MustCompile(`^r[0-9]+$`)

// isLeftover matches the temporary names pgbufsim's atomic writes use
// (".NAME.tmp-*", ".NAME.tmp*"), which a killed process may leave behind.
func isLeftover(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp")
}

// checkPathName refuses paths that name the working directory, its parent
// or the file-system root: replacing one of them can never be what a user
// means.
func checkPathName(dir string) error {
	if dir == "" {
		return &Error{Path: `""`, Reason: "an empty output path", Hint: "give -out a directory name"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return &Error{Path: dir, Reason: "cannot be resolved: " + err.Error()}
	}
	wd, _ := os.Getwd()
	switch {
	case abs == filepath.Dir(abs):
		return &Error{Path: dir, Reason: "is the root directory", Hint: "choose a directory of its own for -out"}
	case wd != "" && (abs == wd || strings.HasPrefix(wd, abs+string(filepath.Separator))):
		return &Error{Path: dir, Reason: "is the working directory or one of its parents", Hint: "choose a directory of its own for -out, e.g. out/NAME"}
	}
	return nil
}

// checkParent refuses a new directory whose parent exists as a file.
func checkParent(dir string) error {
	for p := filepath.Dir(filepath.Clean(dir)); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return &Error{Path: dir, Reason: p + " is a file, so no directory can be made under it", Hint: "choose another path for -out"}
			}
			return nil
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// CheckFile reports whether an output file may be written at path: nil
// when nothing is there or the file is one pgbufsim wrote (ours reports
// that, given the path); an *Error otherwise. what names the file in
// messages ("the trace", "the CPU profile").
func CheckFile(path, what string, ours func(path string) bool) error {
	if path == "" {
		return &Error{Path: `""`, Reason: "an empty file name for " + what}
	}
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return checkParent(path)
	}
	if err != nil {
		return &Error{Path: path, Reason: "cannot be inspected: " + unwrap(err).Error()}
	}
	switch {
	case st.IsDir():
		return &Error{Path: path, Reason: "is a directory; " + what + " is a file", Hint: "give a file name"}
	case !st.Mode().IsRegular():
		return &Error{Path: path, Reason: "is not a regular file; " + what + " would replace it", Hint: "give another file name"}
	case st.Size() > 0 && (ours == nil || !ours(path)):
		return &Error{Path: path, Reason: "exists and is not " + what + " pgbufsim wrote; writing " + what + " would replace it",
			Hint: "remove it first, or give another file name"}
	}
	return nil
}

// SafeName turns a scenario name into one path element for a default
// output directory: letters, digits, '.', '_' and '-' are kept, anything
// else (path separators included) becomes '_', and leading dots are
// dropped, so the name can neither climb out of out/ nor hide.
func SafeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := strings.TrimLeft(b.String(), ".")
	if len(s) > 100 {
		s = s[:100]
	}
	if s == "" {
		s = "unnamed"
	}
	return s
}

func describeEntries(entries []fs.DirEntry) string {
	names := make([]string, 0, 3)
	for _, e := range entries {
		if len(names) == 3 {
			break
		}
		names = append(names, e.Name())
	}
	s := listNames(names)
	if len(entries) > 3 {
		s += fmt.Sprintf(" and %d more", len(entries)-3)
	}
	return "it holds " + s
}

func listNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) > 5 {
		return strings.Join(q[:5], ", ") + fmt.Sprintf(" and %d more", len(q)-5)
	}
	return strings.Join(q, ", ")
}

func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WriteFileAtomic writes data to path (mode 0644) through a temporary file
// in the same directory and a rename, so a reader (or a crash) never sees
// half a file; the temporary file's name is a leftover (isLeftover) that
// a later Check ignores.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, 0o644)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
