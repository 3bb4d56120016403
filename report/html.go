package report

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/model"
	"github.com/pgbufsim/pgbufsim/plots"
)

// maxPoints bounds each time-series chart; longer series are downsampled
// with LTTB, which keeps spikes.
const maxPoints = 2000

// HTML renders report.html: one self-contained page (echarts inlined, no
// network access) with the run's summary and charts. It contains nothing
// that depends on the wall clock, so the same run gives the same bytes.
func HTML(sc model.Scenario, res *model.Result) ([]byte, error) {
	page := Page(sc, res)
	var b bytes.Buffer
	if err := plots.Write(&b, page); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Page builds the report page's content (exported so Go programs can add
// sections before writing it).
func Page(sc model.Scenario, res *model.Result) plots.Page {
	s := res.Series
	t := s.TimeS
	col := s.Column
	var marks []plots.Mark
	for _, ph := range res.Phases {
		marks = append(marks, plots.Mark{X: ph.StartS, Label: "phase " + ph.Name})
	}
	for _, m := range res.Marks {
		marks = append(marks, plots.Mark{X: m.TimeS, Label: m.Label})
	}
	line := func(id, title, yname string, series ...plots.Series) *plots.Chart {
		c := &plots.Chart{ID: id, Title: title, Kind: "line", XName: "simulated time (s)", YName: yname, XType: "time-seconds", X: t, Series: series, Marks: marks}
		downsample(c)
		return c
	}
	ser := func(name, column string) plots.Series { return plots.Series{Name: name, Y: col(column)} }
	right := func(s plots.Series) plots.Series { s.YAxis = 1; return s }

	p := plots.Page{
		Title:    "pgbufsim: " + res.Scenario,
		Subtitle: fmt.Sprintf("seed %d · replicate %d · policy %s · PostgreSQL %s · shared_buffers %s · %d simulated s", res.Seed, res.Replicate, res.Policy, sc.Server.Version, sizeText(sc.Server.SharedBuffers), int64(res.Runtime.SimulatedSeconds)),
	}
	p.Sections = append(p.Sections,
		plots.Section{Heading: "Run", Text: joinLines(res.Header)},
		plots.Section{Heading: "Summary: transactions and latency", Table: latencyTable(res)},
		plots.Section{Heading: "Summary: buffers and I/O", Table: buffersTable(res)},
	)
	if tb := scriptTable(res); tb != nil {
		p.Sections = append(p.Sections, plots.Section{Heading: "Scripts of the mix", Table: tb})
	}
	p.Sections = append(p.Sections,
		plots.Section{Chart: line("latency", "Transaction latency over time (per interval)", "ms",
			ser("max", "latency_max_ms"), ser("p99", "latency_p99_ms"), ser("p90", "latency_p90_ms"), ser("p50", "latency_p50_ms"), ser("mean", "latency_mean_ms"))},
		plots.Section{Chart: cdfChart(res)},
		plots.Section{Chart: line("tps", "Throughput", "transactions/s", ser("tps", "tps"))},
		plots.Section{Chart: line("buffers", "Shared buffers: lookups and allocations", "per second",
			ser("hits", "buffers_hits_per_s"), ser("reads", "buffers_reads_per_s"), ser("buffers_alloc", "buffers_alloc_per_s"))},
		plots.Section{Chart: line("writers", "Buffers written, by whom", "buffers/s",
			ser("backends", "buffers_backend_per_s"), ser("bgwriter", "buffers_clean_per_s"), ser("checkpointer", "buffers_checkpoint_per_s"))},
		plots.Section{Chart: withY2(line("dirty", "Dirty memory", "dirty shared buffers",
			ser("dirty shared buffers", "dirty_buffers"), right(ser("OS dirty MB", "os_dirty_mb"))), "OS dirty MB")},
		plots.Section{Chart: withY2(line("device", "Data device: queue and utilisation", "requests queued",
			ser("queue length", "disk_queue"), right(ser("utilisation", "disk_utilisation"))), "utilisation (fraction of time busy)")},
		plots.Section{Chart: line("reads", "Data device read latency (queueing included)", "ms",
			ser("max", "disk_read_max_ms"), ser("p99", "disk_read_p99_ms"), ser("p50", "disk_read_p50_ms"))},
		plots.Section{Chart: line("sweep", "Clock sweep: buffers inspected per allocation", "steps/alloc", ser("steps per alloc", "sweep_steps_per_alloc"))},
		plots.Section{Chart: withY2(line("wal", "WAL", "MB/s", ser("WAL MB/s", "wal_mb_per_s"), right(ser("full-page images/s", "wal_fpi_per_s"))), "full-page images/s")},
		plots.Section{Chart: line("cpu", "CPU utilisation", "fraction of cores busy", ser("cpu", "cpu_utilisation"))},
		// Hint bits answer most checks, by two or three orders of magnitude:
		// the caches and the SLRU get the right-hand axis, or they would
		// lie flat on zero under it.
		plots.Section{Chart: withY2(line("clog", "Visibility checks: where commit status was answered", "hint bits per second",
			ser("hint bits (left axis)", "hint_bit_hits_per_s"), right(ser("hint-bit cache", "hint_cache_hits_per_s")), right(ser("transam cache", "transam_cache_hits_per_s")),
			right(ser("clog SLRU hit", "clog_slru_hits_per_s")), right(ser("clog SLRU miss", "clog_slru_misses_per_s"))), "cache and SLRU lookups per second")},
		plots.Section{Chart: withY2(line("hints", "Hint bits: set, pages dirtied only by hints, hint FPIs", "tuples per second",
			ser("hint bits set (tuples, left axis)", "hint_bits_set_per_s"), right(ser("pages dirtied by hints", "hint_dirtied_pages_per_s")),
			right(ser("hint FPIs", "wal_fpi_hint_per_s")), right(ser("all-visible pages skipped", "all_visible_skips_per_s"))), "pages per second")},
	)
	if res.UsageFinal != nil {
		p.Sections = append(p.Sections, plots.Section{Chart: usageChart(res.UsageFinal)})
		if h := usageHeat(s); h != nil {
			p.Sections = append(p.Sections, plots.Section{Chart: h})
		}
	}
	if len(res.Checkpoints) > 0 {
		p.Sections = append(p.Sections, plots.Section{Heading: "Checkpoints", Table: checkpointTable(res)})
	}
	dbTable, usageTable := statDatabaseTables(res)
	p.Sections = append(p.Sections, plots.Section{Heading: "pg_stat_database (times in ms, as with track_io_timing on)", Table: dbTable},
		plots.Section{Heading: "The client backends' buffer and WAL usage: EXPLAIN (ANALYZE, BUFFERS, WAL), pg_stat_statements", Table: usageTable})
	if blocks, tuples := relationTables(res); blocks != nil {
		p.Sections = append(p.Sections, plots.Section{Heading: "Per relation, run totals: pg_statio_user_tables and pg_statio_user_indexes", Table: blocks},
			plots.Section{Heading: "Per relation, run totals: pg_stat_user_tables, and the size at the end (pages)", Table: tuples})
	}
	if counts, times := statIOTables(res); counts != nil {
		p.Sections = append(p.Sections, plots.Section{Heading: "pg_stat_io (object relation), run totals", Table: counts},
			plots.Section{Heading: "pg_stat_io's times (ms, as with track_io_timing on), run totals", Table: times})
	}
	if tb := buffercacheTable(res); tb != nil {
		p.Sections = append(p.Sections, plots.Section{Heading: "pg_buffercache at the end: the relations with the most buffers, by usage count", Table: tb})
	}
	p.Sections = append(p.Sections, plots.Section{Heading: "Files", Links: []plots.Link{
		{Text: "summary.json", Href: "summary.json"}, {Text: "timeseries.csv", Href: "timeseries.csv"},
	}})
	return p
}

// withY2 names a chart's right-hand axis, and marks every series that is
// zero throughout as such in the legend (drawn, it would hide under the
// axis line).
func withY2(c *plots.Chart, name string) *plots.Chart {
	c.Y2Name = name
	for i := range c.Series {
		if allZero(c.Series[i].Y) {
			c.Series[i].Name += " (0 throughout)"
		}
	}
	return c
}

func allZero(y []float64) bool {
	for _, v := range y {
		if v != 0 {
			return false
		}
	}
	return true
}

func downsample(c *plots.Chart) {
	if len(c.X) <= maxPoints {
		return
	}
	// Downsample each series on its own, then keep the x of the first
	// series' picks for all (LTTB picks per series, so we resample every
	// series at the union of picked indices instead).
	keep := map[int]bool{0: true, len(c.X) - 1: true}
	idx := make([]float64, len(c.X))
	for i := range idx {
		idx[i] = float64(i)
	}
	for _, s := range c.Series {
		xs, _ := plots.LTTB(idx, s.Y, maxPoints/len(c.Series))
		for _, x := range xs {
			keep[int(x)] = true
		}
	}
	var order []int
	for i := range c.X {
		if keep[i] {
			order = append(order, i)
		}
	}
	pick := func(v []float64) []float64 {
		out := make([]float64, len(order))
		for j, i := range order {
			out[j] = v[i]
		}
		return out
	}
	c.X = pick(c.X)
	for i := range c.Series {
		c.Series[i].Y = pick(c.Series[i].Y)
	}
}

// scriptTable breaks a weighted mix down per phase and script (pgbench's
// "SQL script N" sections); nil without a mix.
func scriptTable(res *model.Result) *plots.Table {
	tb := &plots.Table{
		Header: []string{"phase", "script", "weight", "target share", "transactions", "share", "tps", "failed", "lat mean ms", "p50", "p90", "p99", "max"},
		Align:  []string{"l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r"},
	}
	for _, ph := range res.Phases {
		for _, s := range ph.Scripts {
			tb.Rows = append(tb.Rows, []string{ph.Name, s.Name, strconv.FormatInt(s.Weight, 10), f3(s.TargetShare), strconv.FormatInt(s.Transactions, 10), f3(s.Share), f1(s.TPS),
				strconv.FormatInt(s.Failed, 10), f3(s.LatencyMS.Mean), f3(s.LatencyMS.P50), f3(s.LatencyMS.P90), f3(s.LatencyMS.P99), f3(s.LatencyMS.Max)})
		}
	}
	if len(tb.Rows) == 0 {
		return nil
	}
	return tb
}

// phaseRows gives one row per phase and a totals row (over the phases
// that are not warm-up), each from cells(metrics).
func phaseRows(res *model.Result, cells func(elapsed float64, m model.Metrics) []string) [][]string {
	var rows [][]string
	total := 0.0
	for _, ph := range res.Phases {
		if !ph.Warmup {
			total += ph.ElapsedS
		}
		rows = append(rows, append([]string{phaseLabel(ph)}, cells(ph.ElapsedS, ph.Metrics)...))
	}
	return append(rows, append([]string{"totals (not warm-up)"}, cells(total, res.Totals)...))
}

// phaseLabel names a phase, and says it is a warm-up unless its name does.
func phaseLabel(ph model.PhaseResult) string {
	if ph.Warmup && !strings.Contains(strings.ToLower(ph.Name), "warm") {
		return ph.Name + " (warm-up)"
	}
	return ph.Name
}

// latencyTable is the summary's first half: what pgbench reports.
func latencyTable(res *model.Result) *plots.Table {
	return &plots.Table{
		Header: []string{"phase", "elapsed s", "transactions", "tps", "latency mean ms", "p50 ms", "p90 ms", "p99 ms", "max ms"},
		Align:  []string{"l", "r", "r", "r", "r", "r", "r", "r", "r"},
		Rows: phaseRows(res, func(elapsed float64, m model.Metrics) []string {
			return []string{f1(elapsed), strconv.FormatInt(m.Transactions, 10), f1(m.TPS), f3(m.LatencyMS.Mean), f3(m.LatencyMS.P50), f3(m.LatencyMS.P90), f3(m.LatencyMS.P99), f3(m.LatencyMS.Max)}
		}),
	}
}

// buffersTable is the summary's second half: the buffer manager's and the
// storage's counters.
func buffersTable(res *model.Result) *plots.Table {
	return &plots.Table{
		Header: []string{"phase", "shared hit ratio", "buffers_alloc", "backend writes", "bgwriter writes", "checkpoint writes", "OS cache hit ratio", "data disk utilisation"},
		Align:  []string{"l", "r", "r", "r", "r", "r", "r", "r"},
		Rows: phaseRows(res, func(_ float64, m model.Metrics) []string {
			return []string{f4(m.Buffers.HitRatio), strconv.FormatInt(m.Buffers.Alloc, 10), strconv.FormatInt(m.Buffers.Backend, 10),
				strconv.FormatInt(m.Buffers.Clean, 10), strconv.FormatInt(m.Buffers.Checkpoint, 10), f4(m.OSCache.HitRatio), f3(m.Disk.Utilisation)}
		}),
	}
}

// statDatabaseTables are pg_stat_database's buffer and I/O-time columns,
// and the client backends' pgBufferUsage and pgWalUsage, per phase
// (docs/metrics.md).
func statDatabaseTables(res *model.Result) (db, usage *plots.Table) {
	ms := func(v *float64) string {
		if v == nil {
			return ""
		}
		return f3(*v)
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	db = &plots.Table{
		Header: []string{"phase", "blks_hit", "blks_read", "blk_read_time", "blk_write_time"},
		Rows: phaseRows(res, func(_ float64, m model.Metrics) []string {
			d := m.PGStatDatabase
			return []string{i(d.BlksHit), i(d.BlksRead), ms(d.BlkReadTime), ms(d.BlkWriteTime)}
		}),
	}
	usage = &plots.Table{
		Header: []string{"phase", "shared hit", "read", "dirtied", "written", "I/O read ms", "I/O write ms", "WAL records", "FPI", "bytes"},
		Rows: phaseRows(res, func(_ float64, m model.Metrics) []string {
			u, w := m.BufferUsage, m.WALUsage
			return []string{i(u.SharedBlksHit), i(u.SharedBlksRead), i(u.SharedBlksDirtied), i(u.SharedBlksWritten), ms(u.BlkReadTime), ms(u.BlkWriteTime),
				i(w.Records), i(w.FPI), i(w.Bytes)}
		}),
	}
	return db, usage
}

// maxRelationRows bounds the per-relation tables (a scenario may have
// thousands of tables); summary.json has them all.
const maxRelationRows = 50

// relationTables are every user table's (and its primary key's) block and
// row statistics over the run, the most accessed first; nil without
// tables.
func relationTables(res *model.Result) (blocks, tuples *plots.Table) {
	m := res.Totals
	if len(m.StatioTables) == 0 {
		return nil, nil
	}
	tup := map[string]model.TableStats{}
	for _, t := range m.StatUserTables {
		tup[t.Relname] = t
	}
	pages := map[string]int64{}
	for _, r := range m.RelationSize {
		pages[r.Kind+" "+r.Relname] = r.Main
	}
	rows := slices.Clone(m.StatioTables)
	sort.SliceStable(rows, func(a, b int) bool {
		x, y := rows[a], rows[b]
		return x.HeapBlksHit+x.HeapBlksRead+x.IdxBlksHit+x.IdxBlksRead > y.HeapBlksHit+y.HeapBlksRead+y.IdxBlksHit+y.IdxBlksRead
	})
	blocks = &plots.Table{Header: []string{"relname", "heap_blks_hit", "heap_blks_read", "hit ratio", "idx_blks_hit", "idx_blks_read", "hit ratio"}, Sortable: true}
	tuples = &plots.Table{Header: []string{"relname", "seq_scan", "seq_tup_read", "idx_scan", "idx_tup_fetch", "n_tup_ins", "n_tup_upd", "n_tup_hot_upd", "n_tup_del", "table pages"}, Sortable: true}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	ratio := func(hit, read int64) string {
		if hit+read == 0 {
			return ""
		}
		return f4(float64(hit) / float64(hit+read))
	}
	for n, r := range rows {
		if n == maxRelationRows {
			// A note in the first column, the others blank: every row has
			// the header's cells.
			note := fmt.Sprintf("(%d more in summary.json)", len(rows)-n)
			more := func(t *plots.Table) []string {
				row := make([]string, len(t.Header))
				row[0] = note
				return row
			}
			blocks.Rows, tuples.Rows = append(blocks.Rows, more(blocks)), append(tuples.Rows, more(tuples))
			break
		}
		t := tup[r.Relname]
		blocks.Rows = append(blocks.Rows, []string{r.Relname, i(r.HeapBlksHit), i(r.HeapBlksRead), ratio(r.HeapBlksHit, r.HeapBlksRead), i(r.IdxBlksHit), i(r.IdxBlksRead), ratio(r.IdxBlksHit, r.IdxBlksRead)})
		opt := func(v *int64) string { // NULL in the view: no index
			if v == nil {
				return ""
			}
			return i(*v)
		}
		tuples.Rows = append(tuples.Rows, []string{r.Relname, i(t.SeqScan), i(t.SeqTupRead), opt(t.IdxScan), opt(t.IdxTupFetch), i(t.NTupIns), i(t.NTupUpd), i(t.NTupHotUpd), i(t.NTupDel), i(pages["table "+r.Relname])})
	}
	return blocks, tuples
}

// statIOTables are pg_stat_io's rows over the run (16+), the counts and
// the times; nil before 16.
func statIOTables(res *model.Result) (counts, times *plots.Table) {
	if len(res.Totals.PGStatIO) == 0 {
		return nil, nil
	}
	counts = &plots.Table{Header: []string{"backend_type", "context", "reads", "writes", "extends", "hits", "evictions", "reuses", "fsyncs"}}
	times = &plots.Table{Header: []string{"backend_type", "context", "read_time", "write_time", "extend_time", "fsync_time"}}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	for _, r := range res.Totals.PGStatIO {
		counts.Rows = append(counts.Rows, []string{r.BackendType, r.Context, i(r.Reads), i(r.Writes), i(r.Extends), i(r.Hits), i(r.Evictions), i(r.Reuses), i(r.Fsyncs)})
		times.Rows = append(times.Rows, []string{r.BackendType, r.Context, f3(r.ReadTime), f3(r.WriteTime), f3(r.ExtendTime), f3(r.FsyncTime)})
	}
	return counts, times
}

// buffercacheTable is pg_buffercache's relations at the end of the run;
// nil when no buffer is used.
func buffercacheTable(res *model.Result) *plots.Table {
	bc := res.Totals.PGBuffercache
	if len(bc.Relations) == 0 {
		return nil
	}
	width := 0
	for _, r := range bc.Relations {
		width = max(width, len(r.UsageCounts))
	}
	tb := &plots.Table{Header: []string{"relname", "buffers"}}
	for u := range width {
		tb.Header = append(tb.Header, fmt.Sprintf("usage_count %d", u))
	}
	for _, r := range bc.Relations {
		row := []string{r.Relname, strconv.FormatInt(r.Buffers, 10)}
		for u := range width {
			v := int64(0)
			if u < len(r.UsageCounts) {
				v = r.UsageCounts[u]
			}
			row = append(row, strconv.FormatInt(v, 10))
		}
		tb.Rows = append(tb.Rows, row)
	}
	return tb
}

func checkpointTable(res *model.Result) *plots.Table {
	tb := &plots.Table{Header: []string{"reason", "start s", "writes done s", "end s", "buffers to write", "written", "files synced", "sync s", "WAL since previous MB"}}
	for _, c := range res.Checkpoints {
		end := f1(c.EndS)
		if !c.Complete {
			end = "running at the end"
		}
		tb.Rows = append(tb.Rows, []string{c.Reason, f1(c.StartS), f1(c.WriteS), end, strconv.Itoa(c.ToWrite), strconv.FormatInt(c.Written, 10), strconv.Itoa(c.Files), f3(c.SyncS), f1(float64(c.WALBytes) / (1 << 20))})
	}
	return tb
}

func cdfChart(res *model.Result) *plots.Chart {
	return &plots.Chart{
		ID: "latency_cdf", Title: "Latency distribution (CDF, non-warmup phases)", Kind: "line",
		XName: "latency (ms)", YName: "fraction of transactions", XType: "log",
		X: res.LatencyCDF.ValuesMS, Series: []plots.Series{{Name: "CDF", Y: res.LatencyCDF.Fractions}},
	}
}

func usageChart(h []int64) *plots.Chart {
	c := &plots.Chart{ID: "usage", Title: "Usage-count histogram at the end of the run", Kind: "bar", XName: "usage_count", YName: "buffers", XType: "category"}
	y := make([]float64, len(h))
	for i, v := range h {
		c.Categories = append(c.Categories, strconv.Itoa(i))
		y[i] = float64(v)
	}
	c.Series = []plots.Series{{Name: "buffers", Y: y}}
	return c
}

func usageHeat(s *model.Series) *plots.Chart {
	if len(s.Usage) < 2 {
		return nil
	}
	h := &plots.Heat{Unit: "buffers"}
	for _, t := range s.UsageTimeS {
		h.XLabels = append(h.XLabels, strconv.FormatFloat(t, 'f', -1, 64))
	}
	levels := len(s.Usage[0])
	for u := 0; u < levels; u++ {
		h.YLabels = append(h.YLabels, strconv.Itoa(u))
		row := make([]float64, len(s.Usage))
		for i, hist := range s.Usage {
			if u < len(hist) {
				row[i] = float64(hist[u])
			}
		}
		h.Values = append(h.Values, row)
	}
	return &plots.Chart{ID: "usage_heat", Title: "Usage-count histogram over time (colour: buffers at each usage_count)", Kind: "heatmap", XName: "simulated time (s)", YName: "usage_count", Heat: h}
}

func joinLines(ls []string) string {
	var b bytes.Buffer
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}

func sizeText(b int64) string {
	switch {
	case b%(1<<30) == 0:
		return strconv.FormatInt(b>>30, 10) + "GB"
	case b%(1<<20) == 0:
		return strconv.FormatInt(b>>20, 10) + "MB"
	case b%(1<<10) == 0:
		return strconv.FormatInt(b>>10, 10) + "kB"
	}
	return strconv.FormatInt(b, 10) + "B"
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
func f3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
func f4(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
