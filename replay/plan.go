package replay

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pgbufsim/pgbufsim/internal/sysmem"
	"github.com/pgbufsim/pgbufsim/trace"
)

// plan is a validated invocation with the trace open.
type plan struct {
	s        settings
	file     *trace.File
	policies []Policy
	sizes    []Size
}

// prepare validates everything that can be checked before reading the
// trace, then opens it.
func prepare(s settings) (*plan, error) {
	p := &plan{s: s}
	seen := map[string]bool{}
	for _, text := range s.policies {
		pol, err := ParsePolicy(text)
		if err != nil {
			return nil, err
		}
		p.policies = append(p.policies, pol)
	}
	for _, kv := range s.params {
		used := false
		for i := range p.policies {
			if p.policies[i].HasParam(kv[0]) {
				if err := p.policies[i].Set([][2]string{kv}, "-param "+kv[0]+"="+kv[1]); err != nil {
					return nil, err
				}
				used = true
			}
		}
		if !used {
			return nil, fmt.Errorf("-param %s: none of the listed policies has a parameter %q%s", kv[0], kv[0], paramHint(p.policies))
		}
	}
	for _, pol := range p.policies {
		if seen[pol.Name] {
			return nil, fmt.Errorf("policy %s is listed twice", pol.Name)
		}
		seen[pol.Name] = true
	}
	for _, c := range s.cache {
		zs, err := ParseSizes(c)
		if err != nil {
			return nil, err
		}
		p.sizes = append(p.sizes, zs...)
	}
	if s.shards != 0 {
		if err := checkRate(s.shards); err != nil {
			return nil, err
		}
	}
	f, err := trace.Open(s.file, s.opt)
	if err != nil {
		return nil, err
	}
	p.file = f
	return p, nil
}

// emptyTrace is the error for a trace without references: nothing to
// replay is bad input, whatever the format.
func emptyTrace(name string) error {
	return &trace.Error{File: name, Msg: "the trace is empty: it holds no page references"}
}

// paramHint lists the parameters the policies do have.
func paramHint(pols []Policy) string {
	var parts []string
	for _, p := range pols {
		if keys := p.paramKeys(); len(keys) > 0 {
			parts = append(parts, p.Spec.Name+": "+strings.Join(keys, ", "))
		}
	}
	if len(parts) == 0 {
		return " (they take no parameters)"
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// run replays: streaming for one policy at one absolute size, otherwise
// from memory for every policy and size.
func (p *plan) run() (*report, error) {
	rep := &report{title: p.s.name, traceName: p.file.Name, format: p.file.Format,
		compression: p.file.Compression, xaxis: p.s.xaxis}
	if len(p.policies) == 1 && len(p.sizes) == 1 && !p.sizes[0].IsPercent &&
		!(p.policies[0].Spec.Name == "lru" && p.s.shards > 0) {
		pol, err := p.policies[0].New()
		if err != nil {
			return nil, err
		}
		start := time.Now()
		res, err := RunPolicy(p.file, pol, p.sizes[0].Slots)
		elapsed := time.Since(start)
		if err != nil {
			return nil, err
		}
		if res.Requests == 0 {
			return nil, emptyTrace(p.file.Name)
		}
		rep.requests, rep.distinct = res.Requests, res.Distinct
		rep.addPoint(p.sizes[0].Text, res, elapsed.Nanoseconds())
		rep.curves = []Curve{{Policy: res.Policy, Points: []Result{res}}}
		rep.slots = []int{res.Slots}
		return rep, nil
	}
	// Every policy and size replays from memory: bound the trace by the
	// memory this process may use (4 bytes per reference, 12 with opt's
	// next-use positions, and 40 per distinct page) and refuse past it.
	perRef := int64(4)
	for _, pol := range p.policies {
		if pol.Spec.Offline {
			perRef = 12
		}
	}
	maxRefs := int64(math.MaxInt32)
	if avail, ok := sysmem.Available(); ok {
		maxRefs = min(maxRefs, avail/(perRef+4))
	}
	t, err := trace.LoadMax(p.file, p.file.Name, maxRefs)
	if err != nil {
		return nil, err
	}
	if t.Len() == 0 {
		return nil, emptyTrace(p.file.Name)
	}
	rep.requests, rep.distinct = int64(t.Len()), int64(t.Distinct())
	// Sizes in pages, ascending and unique; each keeps the first text
	// that produced it.
	texts := map[int]string{}
	for _, z := range p.sizes {
		c := z.Resolve(t.Distinct())
		if _, ok := texts[c]; !ok {
			texts[c] = z.Text
			rep.slots = append(rep.slots, c)
		}
	}
	sort.Ints(rep.slots)
	clock := func() int64 { return time.Now().UnixNano() }
	cs, elapsed, err := curves(t, p.policies, rep.slots, CurveOptions{ShardsRate: p.s.shards,
		LRUReplay: p.s.lruReplay, Workers: p.s.workers}, clock)
	if err != nil {
		return nil, err
	}
	rep.curves = cs
	for i, c := range cs {
		for j, res := range c.Points {
			rep.addPoint(texts[res.Slots], res, elapsed[i][j])
		}
	}
	return rep, nil
}
