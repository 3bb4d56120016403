package pgcompare

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Settings are postgresql.conf parameters (GUCs) by name, for example
// {"shared_buffers": "16MB", "autovacuum": "off"}. Values are written quoted,
// so any value PostgreSQL accepts in postgresql.conf works.
type Settings map[string]string

// managedSettings are chosen by the harness: they confine the server to its
// own socket directory and loopback port, which is what guarantees that no
// other cluster is ever contacted. Callers may not override them.
var managedSettings = map[string]bool{
	"listen_addresses":        true,
	"port":                    true,
	"unix_socket_directories": true,
}

// requiredLibrary must be preloaded for the pg_stat_statements extension.
const requiredLibrary = "pg_stat_statements"

// gucNameRE accepts plain and extension-qualified GUC names; anything else
// could inject extra lines into postgresql.conf.
var gucNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// validate rejects names that are malformed or managed by the harness and
// values that span lines.
func (s Settings) validate() error {
	for k, v := range s {
		if !gucNameRE.MatchString(k) {
			return fmt.Errorf("setting %q: invalid parameter name", k)
		}
		if managedSettings[strings.ToLower(k)] {
			return fmt.Errorf("setting %q is managed by pgcompare and cannot be set", k)
		}
		if strings.ContainsAny(v, "\n\r\x00") {
			return fmt.Errorf("setting %q: value contains a line break or NUL", k)
		}
	}
	return nil
}

// merge returns a copy of s with over applied on top.
func (s Settings) merge(over Settings) Settings {
	out := make(Settings, len(s)+len(over))
	for k, v := range s {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// confLine renders one "name = 'value'" line, doubling single quotes as
// postgresql.conf requires.
func confLine(k, v string) string {
	return fmt.Sprintf("%s = '%s'\n", k, strings.ReplaceAll(v, "'", "''"))
}

// withPreload makes sure pg_stat_statements is in a shared_preload_libraries
// list, keeping any libraries the caller asked for.
func withPreload(list string) string {
	var libs []string
	for _, l := range strings.Split(list, ",") {
		if l = strings.TrimSpace(l); l != "" {
			libs = append(libs, l)
		}
	}
	for _, l := range libs {
		if l == requiredLibrary {
			return strings.Join(libs, ",")
		}
	}
	return strings.Join(append(libs, requiredLibrary), ",")
}

// renderConf returns the full postgresql.conf: initdb's original file, then
// the harness defaults, the caller's settings (sorted, for reproducible
// files) and finally the managed settings. PostgreSQL uses the last
// occurrence of a parameter, so this order gives callers control over
// everything except the managed settings.
func renderConf(base string, user Settings, port int, sockDir string) string {
	var b strings.Builder
	b.WriteString(base)
	b.WriteString("\n# ---- written by pgcompare; later lines win ----\n")
	b.WriteString(confLine("track_io_timing", "on"))
	keys := make([]string, 0, len(user))
	for k := range user {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	preload := ""
	for _, k := range keys {
		if strings.EqualFold(k, "shared_preload_libraries") {
			preload = user[k]
			continue
		}
		b.WriteString(confLine(k, user[k]))
	}
	b.WriteString(confLine("shared_preload_libraries", withPreload(preload)))
	b.WriteString(confLine("listen_addresses", "127.0.0.1"))
	b.WriteString(fmt.Sprintf("port = %d\n", port))
	b.WriteString(confLine("unix_socket_directories", sockDir))
	return b.String()
}
