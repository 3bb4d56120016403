package replay

import (
	"fmt"

	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/trace"
)

// Page states in replayer.state. A resident page holds its slot plus one,
// so that the zero value means "never referenced": a freshly allocated
// state slice needs no initialisation, and the operating system supplies
// its pages lazily, as they are touched.
const (
	unseen = 0  // never referenced
	absent = -1 // referenced before, not resident now
)

// denseFloor is the key range a replay may always index directly: 4 Mi
// keys, 16 MB of state.
const denseFloor = 1 << 22

// denseFactor bounds a direct-indexed key range beyond denseFloor to this
// many entries per distinct page seen, so sparse keys switch to hashing
// before the slice wastes memory.
const denseFactor = 8

// replayer is the state of one replay. Page keys map to an index into
// state: the key itself while keys are small (dense mode), else an id from
// an open-addressing Interner (hash mode). occupant maps a slot back to its
// page's index, so eviction is O(1).
type replayer struct {
	pol   policies.Replacement
	clair policies.Clairvoyant // non-nil for offline policies

	dense    bool
	state    []int32
	in       *trace.Interner // hash mode
	occupant []int32         // slot -> state index, -1 if empty
	hint     uint64          // first size of the dense slice
	maxKey   int             // largest key seen in dense mode (set on first references, which miss)

	now                     int64 // 1-based index of the current request
	hits, misses, evictions int64
	distinct                int64
}

// newReplayer sets up a replay; hint is the expected key range (0: unknown).
func newReplayer(pol policies.Replacement, slots int, hint int) *replayer {
	if hint <= 0 {
		// Unknown: reserve the whole direct-indexed range. Untouched
		// pages of a zeroed allocation cost no memory.
		hint = denseFloor
	}
	r := &replayer{pol: pol, dense: true, occupant: make([]int32, slots), hint: uint64(min(hint, denseFloor))}
	for i := range r.occupant {
		r.occupant[i] = -1
	}
	if c, ok := pol.(policies.Clairvoyant); ok {
		r.clair = c
	}
	// Replay never pins: the pins stay zero.
	pol.Init(&policies.Frames{Pins: make([]int32, slots)})
	return r
}

// feed replays a batch of references.
func (r *replayer) feed(refs []trace.Ref) error {
	if c, ok := r.pol.(*policies.ClockSweep); ok {
		return r.feedClockSweep(c, refs)
	}
	pol := r.pol
	for i := range refs {
		ref := &refs[i]
		r.now++
		var idx int
		if r.dense && ref.Key < uint64(len(r.state)) {
			idx = int(ref.Key)
		} else {
			var err error
			if idx, err = r.index(ref.Key); err != nil {
				return err
			}
		}
		if s := r.state[idx]; s > 0 {
			r.hits++
			pol.Accessed(s-1, r.now, false)
			if r.clair != nil {
				if err := r.tell(s-1, ref.NextUse); err != nil {
					return err
				}
			}
			continue
		}
		if err := r.miss(idx, ref); err != nil {
			return err
		}
	}
	return nil
}

// tell passes a next-use position to an offline policy.
func (r *replayer) tell(slot int32, next int64) error {
	if next == 0 {
		return fmt.Errorf("reference %d %v", r.now, errNoNextUse)
	}
	r.clair.NextUse(slot, next)
	return nil
}

// index finds (or makes room for) key when the fast path does not apply:
// it grows the dense slice, switches to hash mode, or looks key up in the
// hash table.
func (r *replayer) index(key uint64) (int, error) {
	if r.dense {
		limit := max(denseFloor, denseFactor*uint64(r.distinct))
		if key < limit {
			n := max(2*uint64(len(r.state)), key+1, r.hint)
			n = min(n, limit)
			grown := make([]int32, n)
			copy(grown, r.state)
			r.state = grown
			return int(key), nil
		}
		r.toHash()
	}
	id, isNew, ok := r.in.Intern(key)
	if !ok {
		return 0, fmt.Errorf("more than %d distinct pages", trace.MaxInterned)
	}
	if isNew {
		r.state = append(r.state, unseen)
	}
	return int(id), nil
}

// toHash moves from direct indexing to the hash table: every key seen so
// far (all at most maxKey, so untouched parts of the slice stay untouched)
// is interned in key order (deterministic), and state and occupant are
// renumbered by id.
func (r *replayer) toHash() {
	in := trace.NewInterner(int(2*r.distinct) + 1024)
	st := make([]int32, 0, 2*r.distinct+1024)
	for k, s := range r.state[:min(len(r.state), r.maxKey+1)] {
		if s != unseen {
			in.Intern(uint64(k))
			st = append(st, s)
		}
	}
	for slot, o := range r.occupant {
		if o >= 0 {
			id, _ := in.Lookup(uint64(o))
			r.occupant[slot] = int32(id)
		}
	}
	r.dense, r.state, r.in = false, st, in
}

// result summarises the replay.
func (r *replayer) result() Result {
	res := Result{
		Policy:    r.pol.Name(),
		Slots:     len(r.occupant),
		Method:    MethodReplay,
		Requests:  r.now,
		Hits:      r.hits,
		Misses:    r.misses,
		Distinct:  r.distinct,
		Evictions: r.evictions,
	}
	if r.now > 0 {
		res.MissRatio = float64(r.misses) / float64(r.now)
	}
	return res
}

// miss handles a reference to a page that is not resident.
func (r *replayer) miss(idx int, ref *trace.Ref) error {
	r.misses++
	if r.state[idx] == unseen {
		r.distinct++
		r.maxKey = max(r.maxKey, idx)
	}
	v, _ := r.pol.Victim(r.now)
	if v < 0 || int(v) >= len(r.occupant) {
		return fmt.Errorf("%s: Victim returned slot %d with nothing pinned (policy bug)", r.pol.Name(), v)
	}
	if o := r.occupant[v]; o >= 0 {
		r.evictions++
		r.state[o] = absent
	}
	r.occupant[v] = int32(idx)
	r.state[idx] = v + 1
	r.pol.Loaded(v, ref.Key, r.now, false)
	if r.clair != nil {
		return r.tell(v, ref.NextUse)
	}
	return nil
}
