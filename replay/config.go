package replay

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/trace"
)

// ConfigFile is a trace-replay configuration: a YAML document with a
// top-level `trace:` mapping.
//
//	name: pgbench-mrc            # optional: the report's title
//	trace:
//	  file: pgbench.oracleGeneral.zst   # relative to this file
//	  format: auto
//	  policies: [clock-sweep, "clock-sweep(max_usage_count=3)", {name: 2q}, lru, opt]
//	  cache: [1%, 2%, 5%, 10%, 20%]
//	  out: out/pgbench-mrc              # relative to the working directory
//	  shards: 0          # > 0: LRU by SHARDS sampling at this rate
//	  x_axis: auto       # auto, log or value
//	  csv: {id_column: 2, op_column: 0, header: auto, delimiter: "", string_ids: false}
type ConfigFile struct {
	Name  string      `yaml:"name"`
	Trace TraceConfig `yaml:"trace"`
}

// TraceConfig is the `trace:` mapping.
type TraceConfig struct {
	File     string        `yaml:"file"`
	Format   string        `yaml:"format" enum:"|auto|text|csv|lcs-csv|lcs-txt|oracleGeneral"`
	Policies []PolicyEntry `yaml:"policies"`
	Cache    []string      `yaml:"cache"`
	Out      string        `yaml:"out"`
	Shards   float64       `yaml:"shards" range:"0,1"`
	XAxis    string        `yaml:"x_axis" enum:"|auto|log|value"`
	CSV      CSVConfig     `yaml:"csv"`
}

// CSVConfig holds the lcs-csv and string-id reader options.
type CSVConfig struct {
	IDColumn  int    `yaml:"id_column" range:"0,100000"`
	OpColumn  int    `yaml:"op_column" range:"0,100000"`
	Header    string `yaml:"header" enum:"|auto|true|false"`
	Delimiter string `yaml:"delimiter"`
	StringIDs bool   `yaml:"string_ids"`
}

// options converts to trace.Options.
func (c CSVConfig) options(format string) trace.Options {
	return trace.Options{Format: format, IDColumn: c.IDColumn, OpColumn: c.OpColumn,
		Header: c.Header, Delimiter: c.Delimiter, StringIDs: c.StringIDs}
}

// PolicyEntry is one element of `policies:`, written as a name
// (`clock-sweep`), a name with parameters as reports print it
// (`clock-sweep(max_usage_count=3)`), or a mapping (`{name: clock-sweep,
// max_usage_count: 3}`). It implements strictyaml.Tagged.
type PolicyEntry struct {
	Policy Policy
	text   string
}

// TagKey implements strictyaml.Tagged.
func (e *PolicyEntry) TagKey() string { return "name" }

// ParamsFor implements strictyaml.Tagged: the parameters of the named
// policy, with those written in parentheses already applied.
func (e *PolicyEntry) ParamsFor(value string) (any, error) {
	p, err := ParsePolicy(value)
	if err != nil {
		return nil, err
	}
	e.Policy = p
	return p.Params, nil
}

// SetTagged implements strictyaml.Tagged.
func (e *PolicyEntry) SetTagged(value string, params any) {
	e.text = value
	e.Policy.Params = params
}

// Tagged implements strictyaml.Tagged.
func (e *PolicyEntry) Tagged() (string, any) { return e.text, e.Policy.Params }

// Validate checks the decoded parameters together (ranges, rules in New)
// and sets the label.
func (e *PolicyEntry) Validate() error { return e.Policy.label() }

// LoadConfig reads a trace-replay configuration file. A relative trace
// file is taken relative to the configuration's directory, so the two can
// move together; a relative out directory, like -out, is relative to the
// working directory.
func LoadConfig(path string) (ConfigFile, error) {
	data, err := strictyaml.ReadFile(path, strictyaml.MaxBytes)
	if err != nil {
		return ConfigFile{}, err
	}
	doc, err := strictyaml.Parse(path, data)
	if err != nil {
		return ConfigFile{}, err
	}
	var cfg ConfigFile
	if err := doc.Decode(&cfg); err != nil {
		return ConfigFile{}, err
	}
	t := &cfg.Trace
	if t.File == "" {
		if doc.Line("trace") == 0 {
			return cfg, doc.Errorf("trace", "missing: a trace-replay configuration needs a trace: mapping with at least file and cache")
		}
		return cfg, doc.Errorf("trace.file", "missing: name the trace file")
	}
	if len(t.Cache) == 0 && doc.Line("trace.cache") != 0 {
		// Absent, -cache may still give it; given empty, it is a mistake.
		return cfg, doc.Errorf("trace.cache", "empty: give the cache sizes to replay at (pages, bytes such as 64MB, or a percentage such as 5%%)")
	}
	for i, s := range t.Cache {
		if _, err := ParseSizes(s); err != nil {
			return cfg, doc.Errorf(fmt.Sprintf("trace.cache[%d]", i), "%v", err)
		}
	}
	if d := t.CSV.Delimiter; len(d) > 1 && d != `\t` && !strings.EqualFold(d, "tab") {
		return cfg, doc.Errorf("trace.csv.delimiter", "must be one character (or \\t), not %q", d)
	}
	dir := filepath.Dir(path)
	if t.File != "-" && !filepath.IsAbs(t.File) {
		t.File = filepath.Join(dir, t.File)
	}
	return cfg, nil
}
