package replay

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/trace"
)

// Methods that produce a Result.
const (
	// MethodReplay is a replay of every request through the policy.
	MethodReplay = "replay"
	// MethodStack is LRU's exact one-pass stack-distance curve.
	MethodStack = "stack-distance"
	// MethodSHARDS is LRU's curve estimated by SHARDS sampling; the rate
	// is appended, e.g. "shards(rate=0.01)".
	MethodSHARDS = "shards"
)

// Result is the outcome of replaying a trace at one cache size.
type Result struct {
	// Policy is the policy's name with its non-default parameters
	// (Replacement.Name()).
	Policy string
	// Slots is the cache size in pages.
	Slots int
	// Method says how the figures were obtained (MethodReplay,
	// MethodStack, or MethodSHARDS with its rate).
	Method string
	// Requests, Hits and Misses count references; Hits+Misses = Requests.
	// For SHARDS they are estimates scaled to the whole trace.
	Requests, Hits, Misses int64
	// MissRatio is Misses/Requests (0 for an empty trace).
	MissRatio float64
	// Distinct is the number of distinct pages referenced.
	Distinct int64
	// Evictions counts misses that displaced a resident page (the other
	// misses filled empty slots).
	Evictions int64
}

// maxSlots bounds a cache: slots are int32 in package policies.
const maxSlots = math.MaxInt32

// batchSize is the number of references decoded per reader call.
const batchSize = 1024

// Run replays refs through a new policy built from spec and params (nil:
// the defaults) with slots cache slots. An offline policy (OPT) takes each
// reference's next use from refs when the format carries it and otherwise
// loads the trace into memory to compute it.
func Run(refs trace.Reader, spec policies.Spec, params any, slots int) (Result, error) {
	pol, err := spec.New(params)
	if err != nil {
		return Result{}, err
	}
	return RunPolicy(refs, pol, slots)
}

// RunPolicy is Run with a policy instance, which must be fresh (Init not
// yet called); afterwards the caller may inspect it, e.g. call Check.
func RunPolicy(refs trace.Reader, pol policies.Replacement, slots int) (Result, error) {
	if slots < 1 || slots > maxSlots {
		return Result{}, fmt.Errorf("cache of %d slots: must be 1..%d", slots, maxSlots)
	}
	r := newReplayer(pol, slots, 0)
	br := trace.Batched(refs)
	if r.clair != nil {
		// Peek: if the format has no next-use positions, load the trace,
		// compute them, and replay from memory.
		buf := make([]trace.Ref, batchSize)
		n, err := br.ReadRefs(buf)
		if n == 0 {
			if err != nil && err != io.EOF {
				return Result{}, err
			}
			return r.result(), nil
		}
		rest := &concat{head: buf[:n], rest: br, err: err}
		if buf[0].NextUse == 0 {
			t, err := trace.Load(rest, "")
			if err != nil {
				return Result{}, err
			}
			br = t.Reader(true)
		} else {
			br = rest
		}
	}
	if err := r.drain(br); err != nil {
		return Result{}, err
	}
	return r.result(), nil
}

// drain replays everything br yields.
func (r *replayer) drain(br trace.BatchReader) error {
	buf := make([]trace.Ref, batchSize)
	for {
		n, err := br.ReadRefs(buf)
		if n > 0 {
			if ferr := r.feed(buf[:n]); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// concat reads head, then rest; err is what the read that produced head
// returned with it.
type concat struct {
	head []trace.Ref
	rest trace.BatchReader
	err  error
}

func (c *concat) Next() (trace.Ref, error) {
	var one [1]trace.Ref
	n, err := c.ReadRefs(one[:])
	if n == 1 {
		return one[0], nil
	}
	return trace.Ref{}, err
}

func (c *concat) ReadRefs(dst []trace.Ref) (int, error) {
	if len(c.head) > 0 {
		n := copy(dst, c.head)
		c.head = c.head[n:]
		return n, nil
	}
	if c.err != nil {
		return 0, c.err
	}
	return c.rest.ReadRefs(dst)
}

var errNoNextUse = errors.New("has no next-use position, which an offline policy needs (the trace mixes references with and without them)")
