package replay

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/policies"
)

// Policy is one replacement policy to replay: a registry entry and its
// parameters.
type Policy struct {
	Spec policies.Spec
	// Params is a pointer to the policy's parameter struct (from
	// Spec.Params, defaults overridden by the user), or nil.
	Params any
	// Name is the label the policy prints (Replacement.Name()), e.g.
	// "clock-sweep(max_usage_count=3)".
	Name string
}

// ParsePolicy reads a policy as written on the command line or in a
// report: a registry name, optionally with parameters in the form
// Replacement.Name() prints them, `clock-sweep(max_usage_count=3,
// correlated_reference_period=3s)`. Values take the units the
// configuration takes (3s, 200ms, ...).
func ParsePolicy(s string) (Policy, error) {
	name, pairs, err := splitPolicy(s)
	if err != nil {
		return Policy{}, err
	}
	spec, err := policies.Lookup(name)
	if err != nil {
		return Policy{}, err
	}
	p := Policy{Spec: spec}
	if spec.Params != nil {
		p.Params = spec.Params()
	}
	if err := p.apply(pairs, fmt.Sprintf("policy %q", strings.TrimSpace(s))); err != nil {
		return Policy{}, err
	}
	return p, p.label()
}

// splitPolicy splits "name(k=v,k=v)" into the name and its k=v pairs.
func splitPolicy(s string) (string, [][2]string, error) {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if strings.ContainsAny(s, ")=,") || s == "" {
			return "", nil, fmt.Errorf("policy %q: expected NAME or NAME(key=value,...)", s)
		}
		return s, nil, nil
	}
	if !strings.HasSuffix(s, ")") {
		return "", nil, fmt.Errorf("policy %q: missing closing parenthesis", s)
	}
	name := strings.TrimSpace(s[:open])
	inner := strings.TrimSpace(s[open+1 : len(s)-1])
	if name == "" || strings.ContainsAny(inner, "()") {
		return "", nil, fmt.Errorf("policy %q: expected NAME(key=value,...)", s)
	}
	var pairs [][2]string
	if inner != "" {
		for _, kv := range strings.Split(inner, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return "", nil, fmt.Errorf("policy %q: parameter %q is not key=value", s, strings.TrimSpace(kv))
			}
			pairs = append(pairs, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		}
	}
	return name, pairs, nil
}

// SplitPolicies splits a comma-separated list of policies, keeping the
// commas inside a policy's parentheses.
func SplitPolicies(list string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(list[start:]))
}

// HasParam reports whether the policy has a parameter key.
func (p Policy) HasParam(key string) bool {
	for _, k := range p.paramKeys() {
		if k == key {
			return true
		}
	}
	return false
}

func (p Policy) paramKeys() []string {
	if p.Params == nil {
		return nil
	}
	return strictyaml.KeyPaths(reflect.TypeOf(p.Params))
}

// Set applies key=value pairs (from -param flags) on top of the policy's
// parameters and refreshes its label; origin names them in errors.
func (p *Policy) Set(pairs [][2]string, origin string) error {
	if err := p.apply(pairs, origin); err != nil {
		return err
	}
	return p.label()
}

// apply decodes pairs into p.Params strictly, with the configuration's
// units and ranges.
func (p *Policy) apply(pairs [][2]string, origin string) error {
	if len(pairs) == 0 {
		return nil
	}
	if p.Params == nil {
		return fmt.Errorf("%s: %s takes no parameters", origin, p.Spec.Name)
	}
	var doc strings.Builder
	for _, kv := range pairs {
		if !plainToken(kv[0]) || kv[0] == "" {
			return fmt.Errorf("%s: %q is not a parameter name", origin, kv[0])
		}
		if !plainToken(kv[1]) || kv[1] == "" {
			return fmt.Errorf("%s: %s=%q: a value may hold only letters, digits, '.', '+', '-' and '_'", origin, kv[0], kv[1])
		}
		fmt.Fprintf(&doc, "%s: %s\n", kv[0], kv[1])
	}
	d, err := strictyaml.Parse(origin, []byte(doc.String()))
	if err == nil {
		err = d.Decode(p.Params)
	}
	return unlined(err)
}

// unlined drops the line numbers of errors from a synthetic document: the
// user wrote one line, not a file.
func unlined(err error) error {
	var es strictyaml.Errors
	if errors.As(err, &es) {
		for _, e := range es {
			e.Line = 0
		}
	}
	return err
}

// plainToken reports a string safe to place in YAML unquoted.
func plainToken(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '.' || c == '+' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// label builds a policy once, which checks the parameters as the registry
// does (ranges and cross-field rules), and records its name.
func (p *Policy) label() error {
	pol, err := p.New()
	if err != nil {
		return err
	}
	p.Name = pol.Name()
	return nil
}

// New builds a fresh instance of the policy.
func (p Policy) New() (policies.Replacement, error) {
	if p.Params == nil {
		return p.Spec.New(nil)
	}
	return p.Spec.New(p.Params)
}
