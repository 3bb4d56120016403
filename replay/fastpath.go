package replay

import (
	"fmt"

	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/trace"
)

// feedClockSweep is feed for PostgreSQL's clock sweep, the policy most
// replays use: the same steps as feed and replayer.miss, with concrete
// calls instead of interface calls (Accessed, on every hit, is inlined; an
// interface call cannot be) and the hot counters in locals. Measured about
// 10% faster than the generic loop. TestClockSweepFastPath checks that it
// gives exactly what the generic loop gives.
func (r *replayer) feedClockSweep(pol *policies.ClockSweep, refs []trace.Ref) error {
	now, hits, misses := r.now, r.hits, r.misses
	defer func() { r.now, r.hits, r.misses = now, hits, misses }()
	state, dense := r.state, r.dense
	for i := range refs {
		ref := &refs[i]
		now++
		var idx int
		if dense && ref.Key < uint64(len(state)) {
			idx = int(ref.Key)
		} else {
			// index may grow the table or switch it to hashing.
			var err error
			if idx, err = r.index(ref.Key); err != nil {
				return err
			}
			state, dense = r.state, r.dense
		}
		s := state[idx]
		if s > 0 {
			hits++
			pol.Accessed(s-1, now, false)
			continue
		}
		misses++
		if s == unseen {
			r.distinct++
			r.maxKey = max(r.maxKey, idx)
		}
		v, _ := pol.Victim(now)
		if v < 0 || int(v) >= len(r.occupant) {
			return fmt.Errorf("%s: Victim returned slot %d with nothing pinned (policy bug)", pol.Name(), v)
		}
		if o := r.occupant[v]; o >= 0 {
			r.evictions++
			state[o] = absent
		}
		r.occupant[v] = int32(idx)
		state[idx] = v + 1
		pol.Loaded(v, ref.Key, now, false)
	}
	return nil
}
