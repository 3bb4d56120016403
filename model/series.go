package model

import (
	"fmt"

	"github.com/pgbufsim/pgbufsim/sim"
)

// Series is the run's time series: one row per output.interval of
// simulated time (timeseries.csv). Rates are per second over the interval;
// levels (dirty buffers, queue length) are sampled at its end.
type Series struct {
	Columns []string
	TimeS   []float64
	Phase   []string
	Rows    [][]float64 // Rows[i][j] is column j at TimeS[i]

	// UsageTimeS and Usage sample the usage-count histogram (at most
	// maxUsageSamples times per run, evenly, because each sample visits
	// every buffer).
	UsageTimeS []float64
	Usage      [][]int64
}

// Column names of timeseries.csv (after time_s and phase).
var seriesColumns = []string{
	"tps",
	"latency_mean_ms", "latency_p50_ms", "latency_p90_ms", "latency_p99_ms", "latency_max_ms",
	"buffers_hits_per_s", "buffers_reads_per_s", "buffers_alloc_per_s",
	"buffers_clean_per_s", "buffers_backend_per_s", "buffers_checkpoint_per_s",
	"sweep_steps_per_alloc",
	"dirty_buffers", "os_dirty_mb", "os_cache_hits_per_s", "os_cache_misses_per_s",
	"disk_reads_per_s", "disk_writes_per_s", "disk_queue", "disk_utilisation",
	"disk_read_p50_ms", "disk_read_p99_ms", "disk_read_max_ms",
	"wal_mb_per_s", "wal_flushes_per_s", "wal_fpi_per_s", "wal_fpi_hint_per_s",
	"cpu_utilisation",
	"tuples_checked_per_s", "hint_bit_hits_per_s", "transam_cache_hits_per_s", "clog_slru_hits_per_s", "clog_slru_misses_per_s",
	"hint_cache_hits_per_s", "hint_bits_set_per_s", "hint_dirtied_pages_per_s", "all_visible_skips_per_s", "vm_lookups_per_s",
}

// Col returns the index of a column, or -1.
func (s *Series) Col(name string) int {
	for i, c := range s.Columns {
		if c == name {
			return i
		}
	}
	return -1
}

// Column returns one column's values.
func (s *Series) Column(name string) []float64 {
	j := s.Col(name)
	if j < 0 {
		return nil
	}
	out := make([]float64, len(s.Rows))
	for i, r := range s.Rows {
		out[i] = r[j]
	}
	return out
}

func newSeries() *Series { return &Series{Columns: seriesColumns} }

const maxUsageSamples = 120

// stallLimit is how long (simulated) a phase may go without any statement
// finishing before the run fails as stuck, instead of running for ever.
const stallLimit = int64(6 * 3600 * 1e9)

// sampler closes a time-series row every interval.
type sampler struct {
	e          *engine
	every      int64
	last       counters
	lastT      int64
	lat        *sim.Histogram
	txns       int64
	usageEvery int64
}

func (s *sampler) start() {
	s.lat = sim.NewHistogram()
	s.last = s.e.snapshot()
	s.lastT = s.e.k.Now()
	s.e.k.After(s.every, s, 0)
	// Sample the usage histogram at most maxUsageSamples times over the
	// planned run length (durations known in advance; otherwise every
	// interval until the cap).
	planned := int64(0)
	for _, p := range s.e.sc.Workload.Phases {
		planned += p.Duration
	}
	s.usageEvery = 1
	if planned > 0 {
		s.usageEvery = max(1, planned/s.every/maxUsageSamples)
	}
}

// OnEvent closes the interval ending now.
func (s *sampler) OnEvent(int64) {
	if s.e.cur == nil {
		return
	}
	if now := s.e.k.Now(); now-max(s.e.lastProgress, s.e.cur.start) > stallLimit {
		s.e.fail(fmt.Errorf("phase %q: no statement finished for %d simulated hours while clients are active: the workload cannot progress (or the model is stuck)", s.e.cur.cfg.Name, stallLimit/int64(3600e9)))
		return
	}
	s.row()
	s.e.k.After(s.every, s, 0)
}

// flush closes the final interval if at least half of it has elapsed (a
// sliver of an interval would show as a spike in every rate).
func (s *sampler) flush() {
	if s.e.k.Now()-s.lastT >= s.every/2 || len(s.e.series.Rows) == 0 {
		s.row()
	}
}

func (s *sampler) row() {
	e := s.e
	now := e.k.Now()
	cur := e.snapshot()
	d := cur.minus(s.last)
	secs := float64(now-s.lastT) / 1e9
	per := func(v int64) float64 { return round6(float64(v) / secs) }
	ms := func(ns int64) float64 { return round6(float64(ns) / 1e6) }
	dur := float64(now - s.lastT)
	rd := e.dataDev.ReadLatency
	row := []float64{
		per(s.txns),
		round6(s.lat.Mean() / 1e6), ms(s.lat.Quantile(0.5)), ms(s.lat.Quantile(0.9)), ms(s.lat.Quantile(0.99)), ms(s.lat.Max()),
		per(d.n[cHits]), per(d.n[cReads]), per(d.n[cAlloc]),
		per(d.n[cClean]), per(d.n[cBackend]), per(d.n[cCheckpoint]),
		ratio(float64(d.n[cSweepSteps]), float64(d.n[cAlloc]-d.n[cFreePops])),
		float64(e.pool.DirtyCount()), round6(float64(e.os.DirtyPages()) * 8192 / (1 << 20)), per(d.n[cOSHits]), per(d.n[cOSMisses]),
		per(d.n[cDiskReads]), per(d.n[cDiskWrites]), round6(d.f[fDiskQueue] / dur), round6(d.f[fDiskBusy] / dur / float64(e.dataDev.Params().Channels)),
		ms(rd.Quantile(0.5)), ms(rd.Quantile(0.99)), ms(rd.Max()),
		round6(float64(d.n[cWALBytes]) / (1 << 20) / secs), per(d.n[cWALFlushes]), per(d.n[cFPI]), per(d.n[cFPIHint]),
		round6(d.f[fCPUBusy] / dur / float64(e.sc.Server.CPUs)),
		per(d.n[cTuplesChecked]), per(d.n[cHintBitHits]), per(d.n[cTransamCacheHits]), per(d.n[cClogSLRUHits]), per(d.n[cClogSLRUMisses]),
		per(d.n[cHintCacheHits]), per(d.n[cHintBitsSet]), per(d.n[cHintDirtiedPages]), per(d.n[cAllVisibleSkips]), per(d.n[cVMLookups]),
	}
	ser := e.series
	ser.TimeS = append(ser.TimeS, e.at(now))
	name := ""
	if e.cur != nil {
		name = e.cur.cfg.Name
	}
	ser.Phase = append(ser.Phase, name)
	ser.Rows = append(ser.Rows, row)
	if n := int64(len(ser.Rows)); (n-1)%s.usageEvery == 0 && len(ser.Usage) < maxUsageSamples {
		if h := e.pool.UsageHistogram(); h != nil {
			ser.UsageTimeS = append(ser.UsageTimeS, e.at(now))
			ser.Usage = append(ser.Usage, h)
		}
	}
	s.last = cur
	s.lastT = now
	s.txns = 0
	s.lat.Reset()
	rd.Reset()
}
