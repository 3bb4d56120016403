package configs

// Sweeps (configs/reference.yaml; docs/sweeps.md). A scenario's `sweep:` block maps
// key paths to lists of values; command-line axes (`-sweep path=v1,v2`) add
// to it or replace a file axis with the same path. The cartesian product of
// the axes is expanded here into one validated scenario per point, before
// anything runs, so a bad axis path or value is reported like any other
// configuration problem: `x.yaml:14: server.shared_buffers: invalid size
// "64XB" (...)`, or `-sweep server.shared_buffers=32MB,64XB: ...`. The sweep
// package runs the points.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/model"
)

// DefaultSweepMetrics are charted and tabled when a sweep names none.
var DefaultSweepMetrics = []string{"tps", "latency_ms.mean", "latency_ms.p99", "buffers.hit_ratio"}

// maxSweepPoints bounds the cartesian product, so that a typo such as an
// extra zero in a generated list fails fast instead of expanding forever.
const maxSweepPoints = 100000

// SweepPlan is a sweep expanded into points. Points are in the stable
// order the runner, the outputs and -shard use: the cartesian product with
// the first axis varying slowest, values in the order written.
type SweepPlan struct {
	// Name is the scenario's name; Seed the base seed every point shares
	// (replicate r of every point runs with Seed and Replicate = r, so all
	// points see the same arrivals and keys: common random numbers).
	Name       string
	Seed       int64
	Replicates int
	// Metrics are the summary metrics tables and charts show (dotted
	// paths into summary.json's totals, see MetricNames).
	Metrics []string
	Axes    []SweepAxis
	Points  []SweepPoint
}

// SweepAxis is one swept key.
type SweepAxis struct {
	// Path is the key path as written, e.g. server.shared_buffers.
	Path string
	// Values are the values as written (collections in YAML flow form).
	Values []string
}

// SweepPoint is one combination of axis values.
type SweepPoint struct {
	// Index is the point's place in the stable order.
	Index int
	// ID is a readable, filesystem-safe name that starts with the index:
	// p03-shared_buffers=64MB-name=lru.
	ID string
	// Values[i] is the value of Axes[i] at this point.
	Values []string
	// Scenario is the point's validated scenario (Sweep nil, Replicate 0).
	Scenario model.Scenario
}

// Runs is the number of runs the plan makes (points x replicates).
func (p *SweepPlan) Runs() int { return len(p.Points) * p.Replicates }

// Index returns the index of the point whose axis values are values (one
// per axis, in axis order, as written), or -1 when there is none.
func (p *SweepPlan) Index(values ...string) int {
	for i, pt := range p.Points {
		if slices.Equal(pt.Values, values) {
			return i
		}
	}
	return -1
}

// IsSweep reports whether a scenario file has a sweep: block, which is
// how the CLI tells a sweep from a single run. A file that cannot be read
// or parsed is not a sweep (loading it then reports the problem).
func IsSweep(path string) bool {
	data, err := readConfig(path, "scenario")
	if err != nil {
		return false
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return false
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "sweep" {
			return m.Content[i+1].Tag != "!!null"
		}
	}
	return false
}

// LoadSweep reads a scenario file and expands its sweep. overrides are
// -set "path=value" texts (applied to every point), axes are -sweep
// "path=v1,v2,..." texts (see ParseAxis).
func LoadSweep(path string, overrides, axes []string) (*SweepPlan, error) {
	data, err := readConfig(path, "scenario")
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the scenario: %v", path, unwrapPathError(err))
	}
	return ParseSweep(path, data, overrides, axes)
}

// SweepOf expands a sweep of an already loaded scenario, as a Go program
// would: axes are "path=v1,v2,..." texts; replicates > 0 replaces the
// scenario's own count (sc.Sweep.Replicates, 1 without a sweep block).
//
// The encoded scenario names every parameter of its replacement policy;
// those at the policy's defaults are left out, so that an axis may change
// the policy's name (policies.replacement.name=clock-sweep,lru) without
// clock-sweep's parameters being refused by lru.
func SweepOf(sc model.Scenario, replicates int, axes ...string) (*SweepPlan, error) {
	data, err := Encode(sc)
	if err != nil {
		return nil, err
	}
	if data, err = dropDefaultPolicyParams(data, sc.Policies.Replacement.Policy); err != nil {
		return nil, err
	}
	var ov []string
	if replicates > 0 {
		ov = append(ov, "sweep.replicates="+strconv.Itoa(replicates))
	}
	return ParseSweep(sc.Name+".yaml", data, ov, axes)
}

// dropDefaultPolicyParams removes from an encoded scenario's
// policies.replacement block the parameters whose values are the policy's
// defaults.
func dropDefaultPolicyParams(data []byte, policy string) ([]byte, error) {
	def := model.DefaultScenario()
	def.Policies.Replacement = model.ReplacementConfig{Policy: policy}
	defData, err := Encode(def)
	if err != nil {
		return nil, err
	}
	var doc, defDoc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(defData, &defDoc); err != nil {
		return nil, err
	}
	block, defBlock := mappingAt(&doc, "policies", "replacement"), mappingAt(&defDoc, "policies", "replacement")
	if block == nil || defBlock == nil {
		return data, nil
	}
	var kept []*yaml.Node
	for i := 0; i+1 < len(block.Content); i += 2 {
		k, v := block.Content[i], block.Content[i+1]
		if k.Value != "name" {
			if dv := mappingValue(defBlock, k.Value); dv != nil && dv.Kind == yaml.ScalarNode && v.Kind == yaml.ScalarNode && dv.Value == v.Value {
				continue
			}
		}
		kept = append(kept, k, v)
	}
	block.Content = kept
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// mappingAt follows keys from a document's root mapping.
func mappingAt(doc *yaml.Node, keys ...string) *yaml.Node {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	n := doc.Content[0]
	for _, k := range keys {
		if n = mappingValue(n, k); n == nil {
			return nil
		}
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	return n
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// ParseAxis splits a command-line axis "path=v1,v2,v3" into the path and
// the values. The values are read as the items of a YAML flow list, so a
// value may be quoted or be a collection: `name="a,b",{name: lru}`.
func ParseAxis(s string) (path string, values []*yaml.Node, err error) {
	path, list, ok := strings.Cut(s, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" || strings.TrimSpace(list) == "" {
		return "", nil, fmt.Errorf("-sweep %s: expected path=v1,v2,..., e.g. -sweep server.shared_buffers=32MB,64MB,128MB", s)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("["+list+"]"), &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.SequenceNode {
		msg := "cannot read the values as a comma-separated list"
		if err != nil {
			msg += " (" + strings.TrimPrefix(err.Error(), "yaml: ") + ")"
		}
		return "", nil, fmt.Errorf("-sweep %s: %s", s, msg)
	}
	return path, doc.Content[0].Content, nil
}

// ParseSweep is LoadSweep for a scenario already in memory.
func ParseSweep(name string, data []byte, overrides, axes []string) (*SweepPlan, error) {
	base, err := strictyaml.Parse(name, data)
	if err != nil {
		return nil, err
	}
	for _, o := range overrides {
		path, value, err := SplitOverride(o)
		if err != nil {
			return nil, err
		}
		if err := base.Set(scenarioType, path, value); err != nil {
			return nil, err
		}
	}
	sc, err := decode(base.Clone(), nil)
	if err != nil {
		return nil, err
	}
	plan := &SweepPlan{Name: sc.Name, Seed: sc.Seed, Replicates: 1, Metrics: DefaultSweepMetrics}
	var list []*axisSpec
	if sc.Sweep != nil {
		plan.Replicates = sc.Sweep.Replicates
		if len(sc.Sweep.Metrics) > 0 {
			plan.Metrics = sc.Sweep.Metrics
		}
		if list, err = fileAxes(base, &sc.Sweep.Axes); err != nil {
			return nil, err
		}
		if err := checkMetrics(base, plan.Metrics); err != nil {
			return nil, err
		}
	}
	fromFlags := map[string]string{}
	for _, a := range axes {
		path, nodes, err := ParseAxis(a)
		if err != nil {
			return nil, err
		}
		if prev, dup := fromFlags[path]; dup {
			return nil, fmt.Errorf("-sweep %s: the axis %s is already given by -sweep %s; give its values once, comma-separated", a, path, prev)
		}
		fromFlags[path] = a
		spec := &axisSpec{path: path, nodes: nodes, flag: "-sweep " + a}
		if i := slices.IndexFunc(list, func(x *axisSpec) bool { return x.path == path }); i >= 0 {
			list[i] = spec // like -set, the command line replaces the file
		} else {
			list = append(list, spec)
		}
	}
	if err := checkAxes(base, list); err != nil {
		return nil, err
	}
	n := 1
	for _, a := range list {
		plan.Axes = append(plan.Axes, SweepAxis{Path: a.path, Values: a.texts()})
		n *= len(a.nodes)
		if n > maxSweepPoints {
			return nil, fmt.Errorf("%s: the sweep has more than %d points (the product of the axes' lengths); split it", name, maxSweepPoints)
		}
	}
	return plan, expand(base, plan, list)
}

// axisSpec is one axis before expansion: its value nodes, and where it
// came from (a -sweep flag, or the file's sweep.axes).
type axisSpec struct {
	path  string
	nodes []*yaml.Node
	flag  string // the -sweep text; empty for a file axis
}

func (a *axisSpec) texts() []string {
	out := make([]string, len(a.nodes))
	for i, n := range a.nodes {
		out[i] = nodeText(n)
	}
	return out
}

// apply sets value i of the axis in doc.
func (a *axisSpec) apply(doc *strictyaml.Document, i int) error {
	if a.flag == "" {
		return doc.SetNode(scenarioType, a.path, a.nodes[i])
	}
	return a.flagError(doc.Set(scenarioType, a.path, nodeText(a.nodes[i])))
}

// flagError restates errors in a value that came from a -sweep flag, which
// strictyaml words as coming from `-set path=value`, as the flag's.
func (a *axisSpec) flagError(err error) error {
	var es strictyaml.Errors
	if a.flag == "" || !errors.As(err, &es) {
		return err
	}
	out := make(strictyaml.Errors, len(es))
	for i, fe := range es {
		out[i] = fe
		if strings.HasPrefix(fe.File, "-set "+a.path+"=") {
			path := fe.Path
			if path == "" {
				path = a.path
			}
			out[i] = &strictyaml.FieldError{File: a.flag, Path: path, Msg: fe.Msg}
		}
	}
	return out
}

// context says which axis value an error came with, when the error is
// not at the value itself (a key elsewhere that the value makes invalid).
func (a *axisSpec) context(err error, i int) error {
	var es strictyaml.Errors
	if !errors.As(err, &es) {
		return err
	}
	out := make(strictyaml.Errors, len(es))
	for k, fe := range es {
		out[k] = fe
		atValue := fe.File == a.flag || (a.flag == "" && fe.Line == a.nodes[i].Line)
		if !atValue && !strings.Contains(fe.Msg, "(with sweep axis ") {
			out[k] = &strictyaml.FieldError{File: fe.File, Line: fe.Line, Path: fe.Path,
				Msg: fe.Msg + fmt.Sprintf(" (with sweep axis %s = %s)", a.path, nodeText(a.nodes[i]))}
		}
	}
	return out
}

// locate gives an error about value i of a file axis that strictyaml could
// not place (a key the value created, checked by a Validate method) the
// value's line, and says which value it was.
func (a *axisSpec) locate(err error, file string, i int) error {
	var es strictyaml.Errors
	if a.flag != "" || !errors.As(err, &es) {
		return err
	}
	out := make(strictyaml.Errors, len(es))
	for k, fe := range es {
		out[k] = fe
		if fe.Line == 0 && fe.File == file {
			out[k] = &strictyaml.FieldError{File: file, Line: a.nodes[i].Line, Path: fe.Path,
				Msg: fe.Msg + fmt.Sprintf(" (with sweep axis %s = %s)", a.path, nodeText(a.nodes[i]))}
		}
	}
	return out
}

// nodeText renders a value node as one line: a scalar as written, a
// collection in YAML flow form.
func nodeText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	c := *n
	c.Style |= yaml.FlowStyle
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if enc.Encode(&c) != nil || enc.Close() != nil {
		return n.Value
	}
	return strings.TrimSpace(buf.String())
}

// fileAxes reads sweep.axes: a mapping from key path to a list of values.
func fileAxes(doc *strictyaml.Document, axes *yaml.Node) ([]*axisSpec, error) {
	if axes.Kind == 0 || axes.Tag == "!!null" {
		return nil, nil
	}
	if axes.Kind != yaml.MappingNode {
		return nil, strictyaml.Errors{doc.Errorf("sweep.axes", "give a mapping from key paths to lists of values, e.g. server.shared_buffers: [32MB, 64MB]")}
	}
	var out []*axisSpec
	var errs strictyaml.Errors
	for i := 0; i+1 < len(axes.Content); i += 2 {
		k, v := axes.Content[i], axes.Content[i+1]
		fe := func(msg string) *strictyaml.FieldError {
			return &strictyaml.FieldError{File: doc.File(), Line: k.Line, Path: "sweep.axes." + k.Value, Msg: msg}
		}
		switch {
		case v.Kind != yaml.SequenceNode:
			errs = append(errs, fe("give a list of values, e.g. [32MB, 64MB]"))
		case len(v.Content) == 0:
			errs = append(errs, fe("the list of values is empty"))
		case strings.HasPrefix(k.Value, "sweep.") || k.Value == "sweep":
			errs = append(errs, fe("the sweep block itself cannot be swept"))
		default:
			out = append(out, &axisSpec{path: k.Value, nodes: v.Content})
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// checkAxes applies each value of each axis alone to the base document and
// decodes it, so a bad path or value is reported once, at its own line,
// before the product is expanded. A duplicate value would make two
// identical points, which is refused too.
func checkAxes(base *strictyaml.Document, list []*axisSpec) error {
	var errs strictyaml.Errors
	add := func(err error) {
		var es strictyaml.Errors
		if errors.As(err, &es) {
			errs = append(errs, es...)
		} else {
			errs = append(errs, &strictyaml.FieldError{Msg: err.Error()})
		}
	}
	for _, a := range list {
		if a.flag != "" && (strings.HasPrefix(a.path, "sweep.") || a.path == "sweep") {
			add(fmt.Errorf("%s: the sweep block itself cannot be swept", a.flag))
			continue
		}
		seen := map[string]bool{}
		for i, n := range a.nodes {
			text := nodeText(n)
			if seen[text] {
				fe := &strictyaml.FieldError{File: base.File(), Line: n.Line, Path: a.path, Msg: fmt.Sprintf("value %q is listed twice", text)}
				if a.flag != "" {
					fe.File, fe.Line = a.flag, 0
				}
				errs = append(errs, fe)
				continue
			}
			seen[text] = true
			doc := base.Clone()
			if err := a.apply(doc, i); err != nil {
				add(err) // a bad path: the other values would say the same
				break
			}
			if _, err := decode(doc, nil); err != nil {
				add(a.context(a.locate(a.flagError(err), base.File(), i), i))
			}
		}
	}
	if len(errs) > 0 {
		return dedupe(errs)
	}
	return nil
}

// expand decodes every point of the product. A problem that only a
// combination of values has (threads > clients) is reported here.
func expand(base *strictyaml.Document, plan *SweepPlan, list []*axisSpec) error {
	total := 1
	for _, a := range list {
		total *= len(a.nodes)
	}
	width := len(strconv.Itoa(max(total-1, 0)))
	idx := make([]int, len(list))
	var errs strictyaml.Errors
	for p := 0; p < total; p++ {
		// Mixed radix with the first axis most significant.
		rest := p
		for i := len(list) - 1; i >= 0; i-- {
			idx[i] = rest % len(list[i].nodes)
			rest /= len(list[i].nodes)
		}
		doc := base.Clone()
		values := make([]string, len(list))
		var err error
		for i, a := range list {
			values[i] = plan.Axes[i].Values[idx[i]]
			if err = a.apply(doc, idx[i]); err != nil {
				break
			}
		}
		var sc model.Scenario
		if err == nil {
			sc, err = decode(doc, nil)
		}
		if err != nil {
			var es strictyaml.Errors
			if !errors.As(err, &es) {
				return err
			}
			for _, fe := range es {
				errs = append(errs, &strictyaml.FieldError{File: fe.File, Line: fe.Line, Path: fe.Path,
					Msg: fe.Msg + " (at sweep point " + pointLabel(plan.Axes, values) + ")"})
			}
			if len(errs) >= 10 {
				break
			}
			continue
		}
		sc.Sweep = nil
		sc.Replicate = 0
		plan.Points = append(plan.Points, SweepPoint{
			Index:    p,
			ID:       pointID(p, width, plan.Axes, values),
			Values:   values,
			Scenario: sc,
		})
	}
	if len(errs) > 0 {
		return dedupe(errs)
	}
	return nil
}

func dedupe(es strictyaml.Errors) strictyaml.Errors {
	seen := map[string]bool{}
	var out strictyaml.Errors
	for _, e := range es {
		if s := e.Error(); !seen[s] {
			seen[s] = true
			out = append(out, e)
		}
	}
	return out
}

func pointLabel(axes []SweepAxis, values []string) string {
	parts := make([]string, len(axes))
	for i := range axes {
		parts[i] = axes[i].Path + "=" + values[i]
	}
	return strings.Join(parts, ", ")
}

// maxIDValue bounds each value's share of a point ID, keeping directory
// names short; the index prefix keeps IDs unique whatever is cut.
const maxIDValue = 32

// pointID names a point: its zero-padded index, then each axis's short
// name and value, with anything but letters, digits and ._+= replaced.
func pointID(index, width int, axes []SweepAxis, values []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "p%0*d", width, index)
	for i := range axes {
		b.WriteByte('-')
		b.WriteString(safeName(AxisLabel(axes, i)))
		b.WriteByte('=')
		v := safeName(values[i])
		if len(v) > maxIDValue {
			v = v[:maxIDValue]
		}
		b.WriteString(v)
	}
	return b.String()
}

// AxisLabel is a short name for axis i: the last key of its path, or the
// whole path when another axis ends in the same key.
func AxisLabel(axes []SweepAxis, i int) string {
	last := func(p string) string {
		p = strings.TrimRight(p, "]")
		if k := strings.LastIndexAny(p, ".["); k >= 0 {
			return p[k+1:]
		}
		return p
	}
	short := last(axes[i].Path)
	for j, a := range axes {
		if j != i && last(a.Path) == short {
			return axes[i].Path
		}
	}
	return short
}

// safeName keeps letters, digits and .+=- and turns every other run of
// characters into one '_', trimmed at the ends: `{name: lru}` becomes
// name_lru.
func safeName(s string) string {
	var b strings.Builder
	gap := false
	for _, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(".+=-", c)
		if !ok {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteByte('_')
		}
		gap = false
		b.WriteRune(c)
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// checkMetrics refuses a sweep.metrics entry that names no metric. The
// hint lists the metrics of the same group (latency_ms.*), or the groups.
func checkMetrics(doc *strictyaml.Document, metrics []string) error {
	names := MetricNames()
	var errs strictyaml.Errors
	for i, m := range metrics {
		if slices.Contains(names, m) {
			continue
		}
		group, _, _ := strings.Cut(m, ".")
		var near, groups []string
		for _, n := range names {
			g, _, nested := strings.Cut(n, ".")
			if g == group && nested {
				near = append(near, n)
			}
			if nested {
				g += ".*"
			}
			if !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
		if len(near) == 0 {
			near = groups
		}
		errs = append(errs, doc.Errorf("sweep.metrics."+strconv.Itoa(i), "%s (metrics are the numbers under totals in summary.json, as dotted paths)",
			strings.Replace(strictyaml.UnknownValueError(m, near).Error(), "unknown value", "unknown metric", 1)))
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// Metric is one flattened summary metric: its dotted path in
// summary.json's totals (latency_ms.p99) and its value as JSON writes it.
type Metric struct {
	Name, Value string
}

// FlattenMetrics turns a run's totals into dotted-path metrics, in the
// order summary.json lists them. Every number is included, so a metric the
// model adds appears in sweeps without changes here; lists (histograms)
// are left out.
func FlattenMetrics(m model.Metrics) ([]Metric, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []Metric
	var walk func(prefix string) error
	walk = func(prefix string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '[' {
				for dec.More() {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return err
					}
				}
				_, err := dec.Token()
				return err
			}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				name := k.(string)
				if prefix != "" {
					name = prefix + "." + name
				}
				if err := walk(name); err != nil {
					return err
				}
			}
			_, err := dec.Token()
			return err
		case json.Number:
			out = append(out, Metric{Name: prefix, Value: t.String()})
		}
		return nil
	}
	if err := walk(""); err != nil && err != io.EOF {
		return nil, err
	}
	return out, nil
}

// MetricNames lists every metric a sweep can report, in summary order.
func MetricNames() []string {
	ms, _ := FlattenMetrics(model.Metrics{})
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	return names
}
