package configs

import "strings"

// MetricTitle names a flattened summary metric (latency_ms.p99,
// buffers.hit_ratio) for a chart's title, axis or legend: what it measures
// and its unit, "p99 latency (ms)", "shared-buffer hit ratio". The JSON
// path stays the metric's name everywhere a program reads it (CSV headers,
// -metrics); this is only for readers. docs/metrics.md defines each one.
func MetricTitle(name string) string {
	if t, ok := metricTitles[name]; ok {
		return t
	}
	group, leaf := "", name
	if k := strings.LastIndexByte(name, '.'); k >= 0 {
		group, leaf = name[:k], name[k+1:]
	}
	if d, ok := distributions[group]; ok {
		return statTitle(leaf) + " " + d
	}
	words := strings.ReplaceAll(leaf, "_", " ")
	if g, ok := groupTitles[group]; ok {
		return g + ": " + words
	}
	if group != "" {
		return strings.ReplaceAll(group, "_", " ") + ": " + words
	}
	return words
}

// metricTitles are the metrics a sweep charts by default and others whose
// name alone says little.
var metricTitles = map[string]string{
	"tps":                            "throughput (transactions/s)",
	"transactions":                   "transactions completed",
	"failed":                         "failed transactions",
	"buffers.hit_ratio":              "shared-buffer hit ratio",
	"buffers.hits":                   "shared-buffer hits",
	"buffers.reads":                  "shared-buffer reads",
	"buffers.alloc":                  "buffers allocated (buffers_alloc)",
	"buffers.backend":                "buffers written by backends",
	"buffers.clean":                  "buffers written by the bgwriter",
	"buffers.checkpoint":             "buffers written by checkpoints",
	"buffers.sweep_steps_per_alloc":  "clock-sweep buffers inspected per allocation",
	"os_cache.hit_ratio":             "OS page-cache hit ratio",
	"disk.utilisation":               "data-device utilisation (fraction busy)",
	"disk.reads":                     "data-device reads",
	"wal.bytes":                      "WAL bytes",
	"wal.fpi":                        "WAL full-page images",
	"cpu.utilisation":                "CPU utilisation (fraction of cores)",
	"visibility.clog_slru_misses":    "clog SLRU misses (pg_xact reads)",
	"visibility.hint_dirtied_pages":  "pages dirtied only by hint bits",
	"visibility.all_visible_skips":   "all-visible pages skipped",
	"pg_buffercache.usagecount_avg":  "mean usage count (pg_buffercache)",
	"pg_stat_database.blks_hit":      "blks_hit (pg_stat_database)",
	"pg_stat_database.blks_read":     "blks_read (pg_stat_database)",
	"pg_stat_bgwriter.buffers_alloc": "buffers_alloc (pg_stat_bgwriter)",
}

// distributions are the summary's latency-like groups: count, mean,
// stddev, percentiles and max of a quantity in milliseconds.
var distributions = map[string]string{
	"latency_ms":   "latency (ms)",
	"lag_ms":       "schedule lag (ms)",
	"disk.read_ms": "data-device read latency (ms)",
}

var groupTitles = map[string]string{
	"buffers":    "shared buffers",
	"os_cache":   "OS page cache",
	"disk":       "data device",
	"wal":        "WAL",
	"visibility": "visibility",
	"cpu":        "CPU",
}

func statTitle(leaf string) string {
	switch leaf {
	case "mean":
		return "mean"
	case "stddev":
		return "standard deviation of"
	case "max":
		return "maximum"
	case "count":
		return "count of"
	case "p999":
		return "p99.9"
	}
	return leaf
}

// AxisTitle names sweep axis i for a chart: AxisLabel, except that the
// replacement policy's name reads "policy".
func AxisTitle(axes []SweepAxis, i int) string {
	if strings.HasSuffix(axes[i].Path, "replacement.name") {
		return "policy"
	}
	return AxisLabel(axes, i)
}
