package strictyaml

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Every user-facing error shape, with its exact text. These strings are a
// contract (configs/reference.yaml: "file:line, closest key").
var errorCases = []struct {
	name, src, want string
}{
	{"unknown key with did-you-mean",
		"server:\n  version: '17'\n\n  shared_bufers: 1GB\n",
		`x.yaml:4: server.shared_bufers: unknown key (did you mean "shared_buffers"?)`},
	{"unknown key without a close match lists the keys",
		"storage:\n  disk: nvme\n",
		`x.yaml:2: storage.disk: unknown key (valid keys: data, wal)`},
	{"unknown top-level key",
		"sever: {cpus: 2}\n",
		`x.yaml:1: sever: unknown key (did you mean "server"?)`},
	{"key in another case",
		"server: {Shared_Buffers: 1GB}\n",
		`x.yaml:1: server.Shared_Buffers: unknown key (did you mean "shared_buffers"?)`},
	{"several unknown keys, one per line",
		"server:\n  a: 1\n  b: 2\n  c: 3\n  d: 4\n  e: 5\n",
		lines(
			`x.yaml:2: server.a: unknown key (valid keys: comment, version, shared_buffers, work_mem, cpus, bgwriter_delay, checkpoint_timeout, fsync, checkpoint_completion_target)`,
			`x.yaml:3: server.b: unknown key (valid keys: comment, version, shared_buffers, work_mem, cpus, bgwriter_delay, checkpoint_timeout, fsync, checkpoint_completion_target)`,
			`x.yaml:4: server.c: unknown key (valid keys: comment, version, shared_buffers, work_mem, cpus, bgwriter_delay, checkpoint_timeout, fsync, checkpoint_completion_target)`,
			`x.yaml:5: server.d: unknown key (valid keys: comment, version, shared_buffers, work_mem, cpus, bgwriter_delay, checkpoint_timeout, fsync, checkpoint_completion_target)`,
			`x.yaml:6: server.e: unknown key (valid keys: comment, version, shared_buffers, work_mem, cpus, bgwriter_delay, checkpoint_timeout, fsync, checkpoint_completion_target)`,
		)},
	{"invalid size (spec example)",
		"name: a\nseed: 2\nserver:\n  cpus: 2\n  version: '1'\n  fsync: on\n  shared_buffers: 64XB\n",
		`x.yaml:7: server.shared_buffers: invalid size "64XB" (use a number with a unit: 8kB, 128MB, 1GB)`},
	{"size unit in the wrong case",
		"server: {work_mem: 64mb}\n",
		`x.yaml:1: server.work_mem: invalid size "64mb" (units are case-sensitive: did you mean "64MB"?)`},
	{"invalid duration",
		"server: {checkpoint_timeout: 5 mins}\n",
		`x.yaml:1: server.checkpoint_timeout: invalid duration "5 mins" (did you mean "5min"?)`},
	{"duration without unit and without a default unit",
		"server: {checkpoint_timeout: 300}\n",
		`x.yaml:1: server.checkpoint_timeout: "300" needs a unit (use a number with a unit: us, ms, s, min, h, d; e.g. 200ms or 5min)`},
	{"duration garbage",
		"server: {bgwriter_delay: soon}\n",
		`x.yaml:1: server.bgwriter_delay: invalid duration "soon" (use a number with a unit: us, ms, s, min, h, d; e.g. 200ms or 5min)`},
	{"out of range, both bounds (spec example)",
		"\n\n\n\n\n\n\n\npolicies:\n  replacement:\n    max_usage_count: 20\n",
		`x.yaml:11: policies.replacement.max_usage_count: 20 is out of range [1, 15]`},
	{"out of range, lower bound only, in the field's unit",
		"server:\n  shared_buffers: 64kB\n",
		`x.yaml:2: server.shared_buffers: 64kB is out of range (minimum 128kB)`},
	{"out of range, duration bounds",
		"server: {bgwriter_delay: 20s}\n",
		`x.yaml:1: server.bgwriter_delay: 20s is out of range [10ms, 10s]`},
	{"out of range, float",
		"server: {checkpoint_completion_target: 1.5}\n",
		`x.yaml:1: server.checkpoint_completion_target: 1.5 is out of range [0, 1]`},
	{"enum with did-you-mean (spec example)",
		"workload:\n  phases:\n    - name: run\n      clients: 2\n      script: tpcb\n",
		`x.yaml:5: workload.phases[0].script: unknown value "tpcb" (valid: select-only, simple-update, tpcb-like; did you mean "tpcb-like"?)`},
	{"enum without a close match",
		"storage: {data: {preset: floppy}}\n",
		`x.yaml:1: storage.data.preset: unknown value "floppy" (valid: hdd-7200, ssd, nvme)`},
	{"mapping where a scalar was expected",
		"server:\n  cpus: {n: 4}\n",
		`x.yaml:2: server.cpus: expected an integer, got a mapping`},
	{"list where a size was expected",
		"server:\n  shared_buffers: [1GB]\n",
		`x.yaml:2: server.shared_buffers: expected a size, got a list`},
	{"scalar where a mapping was expected",
		"server: big\n",
		`x.yaml:1: server: expected a mapping, got "big"`},
	{"scalar where a list was expected",
		"workload: {phases: run}\n",
		`x.yaml:1: workload.phases: expected a list, got "run"`},
	{"list where a struct without seqshorthand was expected",
		"storage: {data: [nvme]}\n",
		`x.yaml:1: storage.data: expected a mapping, got a list`},
	{"empty value",
		"server:\n  cpus:\n",
		`x.yaml:2: server.cpus: missing value (write an integer, or remove the key to keep the default)`},
	{"empty value for a block",
		"server:\n",
		`x.yaml:1: server: missing value (write a mapping, or remove the key to keep the default)`},
	{"bad integer",
		"server: {cpus: four}\n",
		`x.yaml:1: server.cpus: invalid integer "four"`},
	{"fraction for an integer",
		"server: {cpus: 2.5}\n",
		`x.yaml:1: server.cpus: invalid integer "2.5"`},
	{"integer overflow",
		"server: {cpus: 99999999999999999999}\n",
		`x.yaml:1: server.cpus: "99999999999999999999" is too large`},
	{"negative for an unsigned field",
		"seed: -1\n",
		`x.yaml:1: seed: -1 must not be negative`},
	{"bad bool",
		"server: {fsync: maybe}\n",
		`x.yaml:1: server.fsync: expected true or false, got "maybe"`},
	{"bad float",
		"server: {checkpoint_completion_target: .nan}\n",
		`x.yaml:1: server.checkpoint_completion_target: invalid number ".nan"`},
	{"duplicate key",
		"server:\n  cpus: 2\n  fsync: on\n  cpus: 4\n",
		`x.yaml:4: server.cpus: duplicate key (already defined at line 2)`},
	{"duplicate top-level key",
		"seed: 1\nname: a\nseed: 2\n",
		`x.yaml:3: seed: duplicate key (already defined at line 1)`},
	{"key that is not a name",
		"server:\n  [a]: 1\n",
		`x.yaml:2: server: a key must be a plain name, not a list`},
	{"several errors sorted by line",
		"server:\n  cpus: 0\nname: [x]\nseed: 3\nstorage: {wal: {queue_depth: 0}}\n",
		lines(
			`x.yaml:2: server.cpus: 0 is out of range [1, 1024]`,
			`x.yaml:3: name: expected a string, got a list`,
			`x.yaml:5: storage.wal.queue_depth: 0 is out of range (minimum 1)`,
		)},
	{"Validate with a relative path is placed at that key",
		"workload:\n  phases:\n    - name: a\n      rate: -1\n",
		`x.yaml:4: workload.phases[0].rate: must not be negative`},
	{"Validate with a plain error is placed at the struct's key",
		"workload:\n  phases:\n    - script:\n        builtin: select-only\n        commands: [x]\n",
		`x.yaml:3: workload.phases[0].script: give builtin or commands, not both`},
	{"Validate on Tagged params, key absent: placed at the struct's key",
		"policies:\n  replacement: {name: 2q, a1in_fraction: 0}\n",
		`x.yaml:2: policies.replacement.kout_buffers: must be set when a1in_fraction is 0`},
	{"unknown Tagged parameter with did-you-mean over that variant's keys",
		"policies:\n  replacement:\n    name: clock-sweep\n    max_usage: 3\n",
		`x.yaml:4: policies.replacement.max_usage: unknown key (did you mean "max_usage_count"?)`},
	{"unknown Tagged parameter for a variant without parameters",
		"policies:\n  replacement: {name: lru, max_usage_count: 3}\n",
		`x.yaml:2: policies.replacement.max_usage_count: unknown key (valid keys: name)`},
	{"unknown Tagged value",
		"policies:\n  replacement: {name: clock}\n",
		`x.yaml:2: policies.replacement.name: unknown value "clock" (valid: clock-sweep, lru, 2q; did you mean "clock-sweep"?)`},
	{"unknown Tagged value in shorthand form is reported at the key written",
		"policies:\n  replacement: lru2\n",
		`x.yaml:2: policies.replacement: unknown value "lru2" (valid: clock-sweep, lru, 2q; did you mean "lru"?)`},
	{"Tagged params keep units and ranges",
		"policies:\n  replacement: {correlated_reference_period: 3}\n",
		`x.yaml:2: policies.replacement.correlated_reference_period: "3" needs a unit (use a number with a unit: us, ms, s, min, h, d; e.g. 200ms or 5min)`},
	{"shorthand value is checked and reported at the key written",
		"storage:\n  data: nvm\n",
		`x.yaml:2: storage.data: unknown value "nvm" (valid: hdd-7200, ssd, nvme; did you mean "nvme"?)`},
	{"map value errors name the map key",
		"tables:\n  pgbench: {scale: 0}\n",
		`x.yaml:2: tables.pgbench.scale: 0 is out of range (minimum 1)`},
	{"alias cycle",
		"sweep:\n  axes: &x [*x]\n",
		`x.yaml:2: sweep.axes[0]: alias "x" refers to a value that contains it`},
}

func TestErrorMessages(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeString(t, c.src)
			wantError(t, err, c.want)
		})
	}
}

// The file-level errors from Parse.
var parseErrorCases = []struct {
	name, src, want string
}{
	{"empty file", "", "x.yaml: empty configuration"},
	{"only comments", "# nothing here\n\n", "x.yaml: empty configuration"},
	{"only a document marker", "---\n", "x.yaml: empty configuration"},
	{"null document", "~\n", "x.yaml: empty configuration"},
	{"syntax error keeps yaml's line", "seed: 1\nname: a\nserver: a: b\n",
		"x.yaml:3: syntax error: mapping values are not allowed in this context"},
	{"syntax error on the first line", "server: a: b\n",
		"x.yaml:1: syntax error: mapping values are not allowed in this context"},
	{"unterminated quote", "seed: 1\nname: 'abc\n",
		"x.yaml:2: syntax error: found unexpected end of stream"},
	{"unknown anchor", "seed: 1\n\nname: *nope\n",
		"x.yaml:3: syntax error: unknown anchor 'nope' referenced"},
	{"second document", "seed: 1\n---\nseed: 2\n",
		"x.yaml:2: a second YAML document is not allowed (a configuration is one document; remove the ---)"},
	{"top level is a list", "- a\n- b\n",
		"x.yaml:1: the configuration must be a mapping of keys, not a list"},
	{"top level is a scalar", "hello\n",
		`x.yaml:1: the configuration must be a mapping of keys, not "hello"`},
	{"not UTF-8", "seed: 1\nname: \xff\n",
		"x.yaml:2: the file is not valid UTF-8 (save it as UTF-8)"},
	{"control character", "seed: 1\n\nname: a\x01b\n",
		"x.yaml:3: character U+0001 is not allowed in YAML"},
}

func TestParseErrors(t *testing.T) {
	for _, c := range parseErrorCases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Parse("x.yaml", []byte(c.src))
			if doc != nil {
				t.Errorf("Parse returned a document along with the error")
			}
			wantError(t, err, c.want)
		})
	}
}

func TestErrorsListing(t *testing.T) {
	var src strings.Builder
	src.WriteString("server:\n")
	for i := 0; i < 13; i++ {
		fmt.Fprintf(&src, "  k%d: 1\n", i)
	}
	_, err := decodeString(t, src.String())
	var es Errors
	// Decoding stops after the eleventh problem: ten are listed and the
	// listing says checking stopped.
	if !errors.As(err, &es) || len(es) != maxCollected {
		t.Fatalf("want %d errors, got %v", maxCollected, err)
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != 11 || got[10] != "(and more errors: checking stopped here; fix these first)" || !strings.HasPrefix(got[9], "x.yaml:11: server.k9: unknown key") {
		t.Fatalf("listing:\n%s", err)
	}
	// errors.As reaches a single FieldError too, with its fields set.
	var fe *FieldError
	if !errors.As(err, &fe) || fe.File != "x.yaml" || fe.Line != 2 || fe.Path != "server.k0" || !strings.HasPrefix(fe.Msg, "unknown key") {
		t.Fatalf("first FieldError = %+v", fe)
	}
}

func TestUnknownValueError(t *testing.T) {
	err := UnknownValueError("tpcb", []string{"select-only", "simple-update", "tpcb-like"})
	want := `unknown value "tpcb" (valid: select-only, simple-update, tpcb-like; did you mean "tpcb-like"?)`
	if err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}

// A file with a huge number of bad keys stops after the first few
// problems instead of building millions of messages, and a file past
// MaxBytes is refused before it is parsed.
func TestManyErrorsAndHugeFiles(t *testing.T) {
	var src strings.Builder
	src.WriteString("server:\n")
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&src, "  k%d: 1\n", i)
	}
	_, err := decodeString(t, src.String())
	var es Errors
	if !errors.As(err, &es) || len(es) != maxCollected {
		t.Fatalf("200000 unknown keys: %d errors kept, want %d", len(es), maxCollected)
	}
	huge := strings.Repeat("# padding\n", MaxBytes/10+1)
	_, err = Parse("big.yaml", []byte("name: x\n"+huge))
	if err == nil || !strings.Contains(err.Error(), "more than the 8388608 (8 MB) a configuration may have") {
		t.Fatalf("a %d-byte file: %v", len(huge), err)
	}
}

// A tab used for indentation gets a hint, not only the parser's words.
func TestTabIndentationHint(t *testing.T) {
	for _, c := range []struct{ doc, at string }{
		{"server:\n\tshared_buffers: 1GB\n", "t.yaml:2:"}, // "cannot start any token"
		{"name: x\n\tserver: 1\n", "t.yaml:2:"},           // "a tab character that violates indentation"
	} {
		_, err := Parse("t.yaml", []byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.at) || !strings.Contains(err.Error(), "YAML indents with spaces only") {
			t.Errorf("%q: %v", c.doc, err)
		}
	}
}
