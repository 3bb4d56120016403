package replay

import (
	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/trace"
)

// feedClockSweep is feed for PostgreSQL's clock sweep, the policy most
// replays use: the same loop with the hit path calling the concrete
// Accessed, which the compiler inlines (an interface call cannot be). Hits
// are most requests, so this is worth about 10% of replay speed. Misses
// share replayer.miss. TestClockSweepFastPath checks that both loops give
// identical results.
func (r *replayer) feedClockSweep(pol *policies.ClockSweep, refs []trace.Ref) error {
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
			continue
		}
		if err := r.miss(idx, ref); err != nil {
			return err
		}
	}
	return nil
}
