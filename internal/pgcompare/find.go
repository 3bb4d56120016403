package pgcompare

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// requiredBinaries are the programs a usable bindir must contain.
var requiredBinaries = []string{"initdb", "pg_ctl", "postgres", "pgbench"}

// versionRE extracts "15.18" from "postgres (PostgreSQL) 15.18 (Debian ...)";
// development builds such as "17beta1" yield "17".
var versionRE = regexp.MustCompile(`\(PostgreSQL\)\s+(\d+(?:\.\d+)?)`)

// Find locates the PostgreSQL binaries: $PGBIN if set, else the output of
// `pg_config --bindir`, else the newest /usr/lib/postgresql/*/bin (Debian) or
// /usr/local/pgsql/bin. It returns the directory and the server version, for
// example "15.18". The error lists every place that was tried and why it was
// rejected. A $PGBIN that is set but unusable is an error rather than being
// skipped, so that an explicit choice is never silently replaced.
func Find() (bindir string, version string, err error) {
	if d := os.Getenv("PGBIN"); d != "" {
		v, err := checkBindir(d)
		if err != nil {
			return "", "", fmt.Errorf("find PostgreSQL: $PGBIN=%s: %w", d, err)
		}
		return d, v, nil
	}
	var tried []string
	for _, d := range candidateBindirs(&tried) {
		v, err := checkBindir(d)
		if err == nil {
			return d, v, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %v", d, err))
	}
	return "", "", fmt.Errorf("find PostgreSQL binaries (set $PGBIN to override); tried: %s",
		strings.Join(tried, "; "))
}

// candidateBindirs lists directories to check in order of preference. Failures
// to even produce a candidate (no pg_config) are appended to tried.
func candidateBindirs(tried *[]string) []string {
	var dirs []string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	} else {
		*tried = append(*tried, fmt.Sprintf("pg_config --bindir: %v", err))
	}
	debian, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Prefer the newest major version, comparing numerically so 9.6 < 15.
	sort.Slice(debian, func(i, j int) bool {
		return majorOfPath(debian[i]) > majorOfPath(debian[j])
	})
	if len(debian) == 0 {
		*tried = append(*tried, "/usr/lib/postgresql/*/bin: no match")
	}
	dirs = append(dirs, debian...)
	return append(dirs, "/usr/local/pgsql/bin")
}

// majorOfPath returns the version component of /usr/lib/postgresql/<v>/bin as
// a float (so "9.6" sorts below "15"), or 0 if it is not a number.
func majorOfPath(p string) float64 {
	f, err := strconv.ParseFloat(filepath.Base(filepath.Dir(p)), 64)
	if err != nil {
		return 0
	}
	return f
}

// checkBindir verifies that dir holds all required binaries and returns the
// version reported by its postgres binary.
func checkBindir(dir string) (string, error) {
	for _, b := range requiredBinaries {
		st, err := os.Stat(filepath.Join(dir, b))
		if err != nil {
			return "", fmt.Errorf("missing %s", b)
		}
		if st.IsDir() || st.Mode()&0o111 == 0 {
			return "", fmt.Errorf("%s is not executable", b)
		}
	}
	// "postgres --version" is allowed as root; only running a server is not.
	out, err := exec.Command(filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("postgres --version: %w", err)
	}
	return parseVersion(string(out))
}

// parseVersion extracts the version number from `postgres --version` output.
func parseVersion(out string) (string, error) {
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("unrecognised version output %q", strings.TrimSpace(out))
	}
	return m[1], nil
}

// majorVersion returns the major number of a version such as "15.18" or
// "9.6.24" (for which it returns 9; pre-10 releases are unsupported anyway).
func majorVersion(v string) (int, error) {
	head, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(head)
	if err != nil {
		return 0, errors.New("bad version " + strconv.Quote(v))
	}
	return n, nil
}
