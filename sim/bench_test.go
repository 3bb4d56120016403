package sim

import (
	"fmt"
	"math"
	"testing"
)

// benchProc reschedules itself at an exponential-looking delay drawn from a
// precomputed table, so the benchmark measures the kernel, not the RNG.
type benchProc struct {
	k      *Kernel
	delays *[1024]int64
	i      int
}

func (p *benchProc) OnEvent(arg int64) {
	p.i = (p.i + 1) & 1023
	p.k.After(p.delays[p.i], p, arg)
}

func expDelays(name string, mean float64) *[1024]int64 {
	r := NewStream(1, 0, name)
	var d [1024]int64
	for i := range d {
		d[i] = int64(r.ExpFloat64() * mean)
	}
	return &d
}

// BenchmarkKernel measures one event fired plus one scheduled (a process
// rescheduling itself) with 100 processes keeping ~100 events pending — the
// shape of a pgbench run with 100 clients. One op = one event.
func BenchmarkKernel(b *testing.B) {
	for _, pending := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
			k := NewKernel()
			delays := expDelays("bench/kernel", float64(Millisecond))
			for i := range pending {
				p := &benchProc{k: k, delays: delays, i: i * 7}
				k.Schedule(delays[i%1024], p, int64(i))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				k.Step()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// benchClient is a closed-loop client of a Resource: think, request
// service, repeat. Each cycle is two events (think done, service done).
type benchClient struct {
	k      *Kernel
	res    *Resource
	delays *[1024]int64
	i      int
}

func (c *benchClient) OnEvent(arg int64) {
	c.i = (c.i + 1) & 1023
	if arg == 0 { // think time over: ask for a server
		c.res.Request(c.delays[c.i], c, 1)
		return
	}
	c.k.After(c.delays[c.i]*12, c, 0) // served: think
}

// BenchmarkResource runs 40 closed-loop clients (think 12x the mean service
// time) against 4 servers: an offered load of about 3 servers, so requests
// sometimes start at once and sometimes queue. One op = one event.
func BenchmarkResource(b *testing.B) {
	k := NewKernel()
	res := NewResource(k, "cpu", 4)
	delays := expDelays("bench/resource", float64(Millisecond))
	for i := range 40 {
		k.Schedule(0, &benchClient{k: k, res: res, delays: delays, i: i * 7}, 0)
	}
	for range 10_000 { // warm up: grow the waiter ring to its working size
		k.Step()
	}
	res.ResetStats()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		k.Step()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(res.Stats().Utilisation, "utilisation")
}

// BenchmarkHistogramRecord records exponential latencies (mean 1 ms, so
// they spread over ~20 octaves of buckets).
func BenchmarkHistogramRecord(b *testing.B) {
	h := NewHistogram()
	vals := expDelays("bench/histogram", float64(Millisecond))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		h.Record(vals[i&1023])
	}
	if h.Count() != uint64(b.N) {
		b.Fatal("lost records")
	}
}

// BenchmarkHistogramReset is the per-interval cost: record a second's worth
// of a 1000-tps run, then Reset.
func BenchmarkHistogramReset(b *testing.B) {
	h := NewHistogram()
	vals := expDelays("bench/histogram", float64(Millisecond))
	b.ReportAllocs()
	for range b.N {
		for _, v := range vals[:1000] {
			h.Record(v)
		}
		h.Reset()
	}
}

func BenchmarkHistogramQuantile(b *testing.B) {
	h := NewHistogram()
	for _, v := range expDelays("bench/histogram", float64(Millisecond)) {
		h.Record(v)
	}
	b.ReportAllocs()
	b.ResetTimer()
	s := int64(0)
	for range b.N {
		s += h.Quantile(0.99)
	}
	if s == math.MinInt64 {
		b.Fatal("unreachable")
	}
}

// BenchmarkNewStream is the cost of deriving one stream (once per purpose
// per run, so it only needs to be cheap enough for thousands of clients).
func BenchmarkNewStream(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		_ = NewStream(1, 0, "arrivals/client/42")
	}
}
