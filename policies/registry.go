package policies

import (
	"fmt"
	"sort"
	"strings"
)

// Spec describes one replacement policy to the registry.
type Spec struct {
	// Name is the registry name users write in YAML and on the command
	// line (lower case, e.g. "clock-sweep").
	Name string
	// Summary is one line for `simulate -list-policies`.
	Summary string
	// Reference cites the paper or PostgreSQL source the policy follows.
	Reference string
	// Offline marks policies that need future knowledge (OPT): usable in
	// trace replay only; a live simulation refuses them with an error.
	Offline bool
	// Params returns a pointer to a fresh parameter struct filled with the
	// defaults, or nil if the policy has no parameters. Fields carry `yaml`
	// tags, and optionally `unit:"duration"` / `unit:"bytes"` (int64 fields
	// holding nanoseconds / bytes) and `range:"min,max"`, which the
	// configuration loader understands, and a `doc` tag shown by
	// -list-policies.
	Params func() any
	// New builds a policy from a value returned by Params (possibly
	// modified by the loader), or from nil for the defaults.
	New func(params any) (Replacement, error)
	// BytesPerSlot is the memory the policy keeps per buffer slot at its
	// default parameters, measured (TestBytesPerSlot); the model's memory
	// estimate uses it (0: assume 64).
	BytesPerSlot int
}

// registry lists every replacement policy. Adding a policy adds one line.
var registry = []Spec{
	clockSweepSpec,
	lruSpec,
	twoQSpec,
	arcSpec,
	sieveSpec,
	optSpec,
	fifoSpec,
	clockSpec,
	lfuSpec,
	s3fifoSpec,
}

// All returns every registered policy, sorted by name.
func All() []Spec {
	out := append([]Spec(nil), registry...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a policy by name (case-insensitive). The error lists the
// valid names and suggests the closest one.
func Lookup(name string) (Spec, error) {
	for _, s := range registry {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
	}
	names := make([]string, 0, len(registry))
	for _, s := range All() {
		names = append(names, s.Name)
	}
	msg := fmt.Sprintf("unknown replacement policy %q (valid: %s)", name, strings.Join(names, ", "))
	if best := closest(name, names); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return Spec{}, fmt.Errorf("%s", msg)
}

// closest returns the candidate with the smallest edit distance to s, if it
// is close enough to be a plausible typo.
func closest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= 1+len(s)/3 {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
