package policies

import (
	"sync"
	"testing"
)

// Replay benchmarks: a pre-generated Zipf(0.9) trace of dense page ids
// (10^6 references over 10^5 pages, cache 10^4 slots = 10 %) through each
// policy, with the loop a trace-replay driver or the buffer pool would run
// (page->slot table, free slots first, then Victim; interface calls). One
// op is one full replay; ns/request and requests/s are reported, plus the
// hit ratio as a sanity check that the runs are comparable.
//
// BenchmarkReplayFloor is perfkit's clockfloor "array" mode on the same
// trace in the same process: the bare clock sweep with no interface, the
// floor to compare clock-sweep with (the machines are noisy; compare
// within one run).
//
//	go test ./policies -run '^$' -bench Replay -count 5 | benchstat -

const (
	benchPages    = 100000
	benchRequests = 1000000
	benchSlots    = benchPages / 10
)

var benchTrace = sync.OnceValue(func() struct {
	ids  []int32
	next []int64
} {
	raw := zipfTrace(seededRNG(2024), benchPages, 0.9, benchRequests)
	ids := make([]int32, len(raw))
	for i, p := range raw {
		ids[i] = int32(p)
	}
	next := make([]int64, len(ids))
	last := make([]int64, benchPages)
	for i := range last {
		last[i] = NeverAgain
	}
	for i := len(ids) - 1; i >= 0; i-- {
		next[i] = last[ids[i]]
		last[ids[i]] = int64(i)
	}
	return struct {
		ids  []int32
		next []int64
	}{ids, next}
})

func reportReplay(b *testing.B, hits int) {
	perReq := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / benchRequests
	b.ReportMetric(perReq, "ns/request")
	b.ReportMetric(1e9/perReq, "requests/s")
	b.ReportMetric(float64(hits)/benchRequests, "hit-ratio")
}

func BenchmarkReplay(b *testing.B) {
	tr := benchTrace()
	for _, name := range policyNames() {
		b.Run(name, func(b *testing.B) {
			spec, err := Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			slotOf := make([]int32, benchPages)
			pageOf := make([]int32, benchSlots)
			var hits, steps, victims int
			for b.Loop() {
				pol, err := spec.New(nil)
				if err != nil {
					b.Fatal(err)
				}
				frames := &Frames{Pins: make([]int32, benchSlots)}
				pol.Init(frames)
				clair, _ := pol.(Clairvoyant)
				for i := range slotOf {
					slotOf[i] = -1
				}
				free := int32(0)
				hits, steps, victims = 0, 0, 0
				for i, p := range tr.ids {
					now := int64(i)
					if s := slotOf[p]; s >= 0 {
						pol.Accessed(s, now, false)
						if clair != nil {
							clair.NextUse(s, tr.next[i])
						}
						hits++
						continue
					}
					var s int32
					if free < benchSlots {
						s = free
						free++
					} else {
						var n int
						s, n = pol.Victim(now)
						steps += n
						victims++
						slotOf[pageOf[s]] = -1
					}
					slotOf[p] = s
					pageOf[s] = p
					pol.Loaded(s, uint64(p), now, false)
					if clair != nil {
						clair.NextUse(s, tr.next[i])
					}
				}
			}
			reportReplay(b, hits)
			b.ReportMetric(float64(steps)/float64(victims), "steps/victim")
		})
	}
}

// BenchmarkReplayClockSweepDirect is BenchmarkReplay/clock-sweep calling
// the concrete *ClockSweep, without interface dispatch: the difference is
// what a pool could save with a type switch on its hot path.
func BenchmarkReplayClockSweepDirect(b *testing.B) {
	tr := benchTrace()
	slotOf := make([]int32, benchPages)
	pageOf := make([]int32, benchSlots)
	var hits int
	for b.Loop() {
		pol, _ := NewClockSweep(DefaultClockSweepParams())
		frames := &Frames{Pins: make([]int32, benchSlots)}
		pol.Init(frames)
		for i := range slotOf {
			slotOf[i] = -1
		}
		free := int32(0)
		hits = 0
		for i, p := range tr.ids {
			now := int64(i)
			if s := slotOf[p]; s >= 0 {
				pol.Accessed(s, now, false)
				hits++
				continue
			}
			var s int32
			if free < benchSlots {
				s = free
				free++
			} else {
				s, _ = pol.Victim(now)
				slotOf[pageOf[s]] = -1
			}
			slotOf[p] = s
			pageOf[s] = p
			pol.Loaded(s, uint64(p), now, false)
		}
	}
	reportReplay(b, hits)
}

// BenchmarkReplayFloor: the clock sweep written inline over dense arrays,
// as perfkit/cmd/clockfloor's array mode (usage 0..5, new page at 1).
func BenchmarkReplayFloor(b *testing.B) {
	tr := benchTrace()
	slotOf := make([]int32, benchPages)
	slotPage := make([]int32, benchSlots)
	usage := make([]uint8, benchSlots)
	var hits int
	for b.Loop() {
		for i := range slotOf {
			slotOf[i] = -1
		}
		for i := range slotPage {
			slotPage[i] = -1
			usage[i] = 0
		}
		hand := 0
		hits = 0
		for _, p := range tr.ids {
			if s := slotOf[p]; s >= 0 {
				if usage[s] < 5 {
					usage[s]++
				}
				hits++
				continue
			}
			for usage[hand] != 0 {
				usage[hand]--
				if hand++; hand == benchSlots {
					hand = 0
				}
			}
			if old := slotPage[hand]; old >= 0 {
				slotOf[old] = -1
			}
			slotPage[hand] = p
			slotOf[p] = int32(hand)
			usage[hand] = 1
			if hand++; hand == benchSlots {
				hand = 0
			}
		}
	}
	reportReplay(b, hits)
}
