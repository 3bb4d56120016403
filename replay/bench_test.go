package replay

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/trace"
)

// Replay benchmarks. BenchmarkReplayClockSweep is the replay loop as the
// CLI runs it for one policy at one size: an oracleGeneral trace decoded
// while replaying (from memory here, so the disk is not measured), through
// PostgreSQL's clock sweep at a cache of 10% of the pages. The trace is
// perfkit's shape scaled down: Zipf(0.9) over 10^6 pages, 2*10^6 requests
// (perfkit's tracegen writes 10^7; see docs/performance.md for the
// measurement on that one, against clockfloor). One op is one replay.
//
//	go test ./replay -run '^$' -bench Replay -count 5 | benchstat -
//
// Custom metrics: requests/s and ns/request; B/page is the memory the
// replay allocates per distinct page (an upper bound on what it touches:
// the direct-indexed key table is reserved whole and the operating system
// supplies only the pages written).

const (
	benchPages    = 1_000_000
	benchRequests = 2_000_000
	benchSlots    = benchPages / 10
)

// benchTrace is the benchmark trace in oracleGeneral bytes (ids 1..pages
// through a seeded permutation, next_access_vtime filled in, as tracegen
// writes them).
var benchTrace = sync.OnceValue(func() []byte {
	rng := rand.New(rand.NewPCG(2024, 11))
	keys := zipfKeys(rng, benchPages, 0.9, benchRequests)
	for i := range keys {
		keys[i]++ // tracegen's ids start at 1
	}
	next := make([]int64, len(keys))
	last := map[uint64]int64{}
	for i := len(keys) - 1; i >= 0; i-- {
		next[i] = -1
		if j, ok := last[keys[i]]; ok {
			next[i] = j
		}
		last[keys[i]] = int64(i) + 1
	}
	buf := make([]byte, 24*len(keys))
	for i, k := range keys {
		r := buf[24*i:]
		binary.LittleEndian.PutUint32(r, uint32(i/1000))
		binary.LittleEndian.PutUint64(r[4:], k)
		binary.LittleEndian.PutUint32(r[12:], 8192)
		binary.LittleEndian.PutUint64(r[16:], uint64(next[i]))
	}
	return buf
})

func reportReplay(b *testing.B, requests int64, distinct int64, allocated uint64) {
	perReq := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(requests)
	b.ReportMetric(perReq, "ns/request")
	b.ReportMetric(1e9/perReq, "requests/s")
	b.ReportMetric(float64(allocated)/float64(b.N)/float64(distinct), "B/page")
}

func BenchmarkReplayClockSweep(b *testing.B) {
	data := benchTrace()
	spec, _ := policies.Lookup("clock-sweep")
	var res Result
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		f, err := trace.NewReader(bytes.NewReader(data), "bench.oracleGeneral", trace.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res, err = Run(f, spec, nil, benchSlots); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	reportReplay(b, res.Requests, res.Distinct, after.TotalAlloc-before.TotalAlloc)
	b.ReportMetric(res.MissRatio, "miss-ratio")
}

// BenchmarkReplayPolicies replays the loaded benchmark trace (dense ids,
// no decoding) through every policy, as the miss-ratio-curve code does.
func BenchmarkReplayPolicies(b *testing.B) {
	f, _ := trace.NewReader(bytes.NewReader(benchTrace()), "bench.oracleGeneral", trace.Options{})
	tr, err := trace.Load(f, "bench")
	if err != nil {
		b.Fatal(err)
	}
	tr.NextUse()
	for _, name := range allPolicies() {
		b.Run(name, func(b *testing.B) {
			p := mustPolicy(b, name)
			var res Result
			for range b.N {
				if res, err = replayLoaded(tr, p, benchSlots); err != nil {
					b.Fatal(err)
				}
			}
			perReq := float64(b.Elapsed().Nanoseconds()) / float64(b.N) / float64(res.Requests)
			b.ReportMetric(perReq, "ns/request")
			b.ReportMetric(1e9/perReq, "requests/s")
			b.ReportMetric(res.MissRatio, "miss-ratio")
		})
	}
}

// BenchmarkLRUCurve is the one-pass exact LRU curve (stack distances) and
// its SHARDS estimate at rate 0.01, over the loaded benchmark trace.
func BenchmarkLRUCurve(b *testing.B) {
	f, _ := trace.NewReader(bytes.NewReader(benchTrace()), "bench.oracleGeneral", trace.Options{})
	tr, err := trace.Load(f, "bench")
	if err != nil {
		b.Fatal(err)
	}
	sizes := []int{10000, 20000, 50000, 100000, 200000}
	b.Run("stack-distance", func(b *testing.B) {
		for range b.N {
			lruCurve(tr, sizes)
		}
		b.ReportMetric(float64(tr.Len())*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	})
	b.Run("shards-0.01", func(b *testing.B) {
		for range b.N {
			if _, err := shardsCurve(tr, sizes, 0.01); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(tr.Len())*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	})
}
