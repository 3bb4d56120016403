package model

import (
	"math"

	"github.com/pgbufsim/pgbufsim/sim"
)

// Result is what a run produces: summary.json is its JSON encoding (fields
// tagged json:"-" feed the charts and CSV instead). Names follow docs/metrics.md
// and PostgreSQL's counter names where one exists.
type Result struct {
	Scenario    string        `json:"scenario"`
	Seed        int64         `json:"seed"`
	Replicate   int           `json:"replicate"`
	Policy      string        `json:"policy"`
	Config      any           `json:"config,omitempty"` // filled by the caller (configs encodes it)
	Phases      []PhaseResult `json:"phases"`
	Totals      Metrics       `json:"totals"`
	Checkpoints []Checkpoint  `json:"checkpoints"`
	Runtime     Runtime       `json:"runtime"`

	// Header is the pgbench-style run header (transaction type, scaling
	// factor, key distribution lines...).
	Header []string `json:"-"`
	// Series is the time series (timeseries.csv).
	Series *Series `json:"-"`
	// LatencyCDF is the latency distribution over the non-warmup phases
	// (at most 200 points), which simulate compare overlays.
	LatencyCDF CDF `json:"latency_cdf"`
	// PGBenchLogs are pgbench's log files (-l, --aggregate-interval)
	// when output.pgbench_log is on: one per thread of each logged phase.
	PGBenchLogs []LogFile `json:"-"`
	// UsageFinal is the usage-count histogram at the end of the run.
	UsageFinal []int64 `json:"-"`
	// Marks are events to show on time charts (checkpoint start and end).
	Marks []Mark `json:"-"`
}

// Mark is a labelled instant of simulated time.
type Mark struct {
	TimeS float64
	Label string
}

// CDF is a sampled cumulative distribution (values in ms).
type CDF struct {
	ValuesMS  []float64 `json:"values_ms"`
	Fractions []float64 `json:"fractions"`
}

// PhaseResult is one phase's metrics.
type PhaseResult struct {
	Name     string  `json:"name"`
	Warmup   bool    `json:"warmup,omitempty"`
	StartS   float64 `json:"start_s"`
	ElapsedS float64 `json:"elapsed_s"`
	// ExecutionMS is the executor time of the phase's statements, summed,
	// as EXPLAIN ANALYZE's Execution Time counts it (ExecutorStart to
	// ExecutorEnd): without parse and plan, the round trip, the commit and
	// its WAL flush. The CPU a statement still owes when its work is done
	// is counted as if it ran at once (exact for one client on a free
	// core).
	ExecutionMS float64 `json:"execution_ms"`
	Clients     int     `json:"clients"`
	Metrics
}

// ScriptResult is one script of a weighted mix, as pgbench reports it.
type ScriptResult struct {
	Name string `json:"name"`
	// Weight and the share of transactions it targets (weight / total).
	Weight      int64   `json:"weight"`
	TargetShare float64 `json:"target_share"`
	// Transactions that ran this script, their share of all, per second.
	Transactions int64   `json:"transactions"`
	Share        float64 `json:"share"`
	TPS          float64 `json:"tps"`
	Failed       int64   `json:"failed"`
	// Skipped counts its transactions skipped under latency_limit.
	Skipped   int64 `json:"skipped"`
	LatencyMS Dist  `json:"latency_ms"`
}

// Runtime describes the cost of the run itself. The wall times and
// PeakHeapMB are filled by the caller (the model never reads the wall
// clock; Options.Stage tells it when each stage ends).
type Runtime struct {
	Events           int64   `json:"events"`
	SimulatedSeconds float64 `json:"simulated_seconds"`
	WallSeconds      float64 `json:"wall_seconds"`
	// The wall time's parts: building the tables and caches, the
	// prewarm, and the phases (with the result's assembly).
	BuildSeconds   float64 `json:"build_seconds"`
	PrewarmSeconds float64 `json:"prewarm_seconds"`
	RunSeconds     float64 `json:"run_seconds"`
	// Transactions of every phase, warm-ups included (all the run part
	// simulates); per transaction, the events and the run part's wall
	// time in microseconds.
	Transactions         int64   `json:"transactions"`
	EventsPerTransaction float64 `json:"events_per_transaction"`
	WallUsPerTransaction float64 `json:"wall_us_per_transaction"`
	EventsPerSecond      float64 `json:"events_per_second"`
	SimSpeed             float64 `json:"simulated_per_wall"`
	PeakHeapMB           float64 `json:"peak_heap_mb"`
	Pages                int64   `json:"pages"`
	BytesPerPage         float64 `json:"model_bytes_per_page,omitempty"`
}

// Metrics are the counters and distributions of a phase or of the totals.
type Metrics struct {
	Transactions int64 `json:"transactions"`
	// Failed counts script executions aborted by an error (a deadlock),
	// as pgbench's "number of failed transactions"; they are not in
	// transactions or the latencies.
	Failed int64 `json:"failed"`
	// RowLockWaits counts waits for another transaction's row lock
	// (UPDATE/DELETE of a row being changed); Deadlocks the waits that
	// would have closed a cycle.
	RowLockWaits int64 `json:"row_lock_waits"`
	Deadlocks    int64 `json:"deadlocks"`
	// EPQRechecks counts UPDATE/DELETE statements that found the version
	// their snapshot sees updated by a transaction that committed after
	// it, with or without a wait, and went on with the row's newest
	// version (READ COMMITTED's EvalPlanQual).
	EPQRechecks int64 `json:"epq_rechecks"`
	// ExtensionLockWaits counts waits for a relation's extension lock;
	// ExtraBlocks the pages added beyond the extender's own:
	// RelationAddExtraBlocks' for the waiters (PostgreSQL 9.6-15), or
	// RelationAddBlocks' (16+: one per waiter, a COPY's growing
	// extensions).
	ExtensionLockWaits int64 `json:"extension_lock_waits"`
	ExtraBlocks        int64 `json:"extra_blocks"`
	// KeysNotFound counts keyed statements (select, update, delete by
	// key) whose key matched no row, e.g. a key expression that leaves
	// the table's key range: they descend the index and change nothing.
	KeysNotFound int64   `json:"keys_not_found"`
	TPS          float64 `json:"tps"`
	Skipped      int64   `json:"skipped"`
	Late         int64   `json:"late"`
	LatencyMS    Dist    `json:"latency_ms"`
	LagMS        Dist    `json:"lag_ms"`
	// Scripts breaks a weighted mix down by script (pgbench's "SQL script
	// N" sections); absent with one script.
	Scripts []ScriptResult `json:"scripts,omitempty"`
	// Statements are pgbench -r's per-command latencies, a list per
	// script (output.report_per_command).
	Statements [][]StatementResult `json:"statements,omitempty"`
	Buffers    Buffers             `json:"buffers"`
	OSCache    OSCache             `json:"os_cache"`
	Disk       Disk                `json:"disk"`
	WAL        WALM                `json:"wal"`
	Visibility Visibility          `json:"visibility"`
	CPU        CPU                 `json:"cpu"`

	// PostgreSQL's statistics views as the run's server.version has them
	// (docs/metrics.md maps every column).
	PGStatDatabase PGStatDatabase `json:"pg_stat_database"`
	// PGStatDatabaseShared is pg_stat_database's row for shared objects
	// (datid 0): the shared catalogs a connection reads at its start
	// (pg_database, pg_authid, ...) count there, not in the database's
	// row. Present when server.system_catalogs is on.
	PGStatDatabaseShared *PGStatDatabase     `json:"pg_stat_database_shared,omitempty"`
	StatioSys            *StatioSys          `json:"pg_statio_sys,omitempty"`
	BufferUsage          BufferUsage         `json:"buffer_usage"`
	WALUsage             WALUsage            `json:"wal_usage"`
	StatioTables         []RelationStats     `json:"pg_statio_user_tables"`
	StatioIndexes        []IndexStats        `json:"pg_statio_user_indexes"`
	StatUserTables       []TableStats        `json:"pg_stat_user_tables"`
	StatUserIndexes      []IndexScanStats    `json:"pg_stat_user_indexes"`
	RelationSize         []RelationSize      `json:"relation_size"`
	PGStatBgwriter       PGStatBgwriter      `json:"pg_stat_bgwriter"`
	PGStatCheckpointer   *PGStatCheckpointer `json:"pg_stat_checkpointer,omitempty"`
	PGStatIO             []IORow             `json:"pg_stat_io,omitempty"`
	PGBuffercache        PGBuffercache       `json:"pg_buffercache"`
}

// StatioSys sums pg_statio_sys_tables over the system catalogs (heap,
// index and TOAST blocks together), the shared ones included: the part of
// pg_stat_database (with its shared objects' row) that is not the user's
// relations. Present when server.system_catalogs is on.
type StatioSys struct {
	BlksHit  int64 `json:"blks_hit"`
	BlksRead int64 `json:"blks_read"`
}

// PGStatDatabase is pg_stat_database's buffer columns for the database:
// every ReadBuffer of every process, hit or not (up to 15 a relation
// extension counts as a read).
//
// BlkReadTime and BlkWriteTime (ms, 9.2+) are the time its processes
// spent reading and writing data blocks, as with track_io_timing on:
// pgstat_count_buffer_read_time / _write_time add each I/O's time in whole
// microseconds, and only processes connected to the database count
// (client backends, autovacuum workers: not the background writer nor the
// checkpointer). From 17 relation extensions count as writes.
type PGStatDatabase struct {
	BlksHit      int64    `json:"blks_hit"`
	BlksRead     int64    `json:"blks_read"`
	BlkReadTime  *float64 `json:"blk_read_time,omitempty"`
	BlkWriteTime *float64 `json:"blk_write_time,omitempty"`
}

// BufferUsage is pgBufferUsage summed over the client backends: what
// EXPLAIN (ANALYZE, BUFFERS) shows for a phase of one statement, and
// pg_stat_statements for the workload's statements.
//
// BlkReadTime and BlkWriteTime (ms, 9.2+) are its I/O timings, as with
// track_io_timing on: EXPLAIN's "I/O Timings: shared read=... write=...",
// pg_stat_statements' blk_read_time and blk_write_time
// (shared_blk_read_time, shared_blk_write_time from 17).
type BufferUsage struct {
	SharedBlksHit     int64    `json:"shared_blks_hit"`
	SharedBlksRead    int64    `json:"shared_blks_read"`
	SharedBlksDirtied int64    `json:"shared_blks_dirtied"`
	SharedBlksWritten int64    `json:"shared_blks_written"`
	BlkReadTime       *float64 `json:"blk_read_time,omitempty"`
	BlkWriteTime      *float64 `json:"blk_write_time,omitempty"`
}

// WALUsage is pgWalUsage summed over the client backends: the WAL their
// statements wrote, as EXPLAIN (ANALYZE, WAL) shows it for a phase of one
// statement and pg_stat_statements' wal_records, wal_fpi and wal_bytes for
// the workload's (commit records are not a statement's: they are left
// out, as EXPLAIN leaves them out).
type WALUsage struct {
	Records int64 `json:"wal_records"`
	FPI     int64 `json:"wal_fpi"`
	Bytes   int64 `json:"wal_bytes"`
}

// PGStatBgwriter is pg_stat_bgwriter; the columns 17 moved to
// pg_stat_checkpointer and pg_stat_io are left out from 17 on.
type PGStatBgwriter struct {
	CheckpointsTimed    *int64 `json:"checkpoints_timed,omitempty"`
	CheckpointsReq      *int64 `json:"checkpoints_req,omitempty"`
	BuffersCheckpoint   *int64 `json:"buffers_checkpoint,omitempty"`
	BuffersClean        int64  `json:"buffers_clean"`
	MaxwrittenClean     int64  `json:"maxwritten_clean"`
	BuffersBackend      *int64 `json:"buffers_backend,omitempty"`
	BuffersBackendFsync *int64 `json:"buffers_backend_fsync,omitempty"`
	BuffersAlloc        int64  `json:"buffers_alloc"`
}

// PGStatCheckpointer is pg_stat_checkpointer (17+).
type PGStatCheckpointer struct {
	NumTimed       int64 `json:"num_timed"`
	NumRequested   int64 `json:"num_requested"`
	BuffersWritten int64 `json:"buffers_written"`
}

// PGBuffercache is what pg_buffercache shows at the end of the phase:
// pg_buffercache_summary() and pg_buffercache_usage_counts() (both 16+;
// for earlier versions the same figures as the pg_buffercache view gives
// them by grouping).
type PGBuffercache struct {
	BuffersUsed   int64           `json:"buffers_used"`
	BuffersUnused int64           `json:"buffers_unused"`
	BuffersDirty  int64           `json:"buffers_dirty"`
	BuffersPinned int64           `json:"buffers_pinned"`
	UsagecountAvg float64         `json:"usagecount_avg"`
	UsageCounts   []UsageCountRow `json:"usage_counts"`
	// Relations are the relations with the most resident buffers (at most
	// 20, pg_catalog always among them when it has buffers; forks folded
	// into their relation), as pg_buffercache's view grouped by relation
	// and usagecount shows them.
	Relations []RelationUsage `json:"relations"`
}

// RelationUsage is one relation's resident buffers by usage count.
type RelationUsage struct {
	Relname     string  `json:"relname"`
	Buffers     int64   `json:"buffers"`
	UsageCounts []int64 `json:"usage_counts"`
}

// UsageCountRow is one row of pg_buffercache_usage_counts().
type UsageCountRow struct {
	UsageCount int   `json:"usage_count"`
	Buffers    int64 `json:"buffers"`
	Dirty      int64 `json:"dirty"`
	Pinned     int64 `json:"pinned"`
}

// Visibility counts the work of deciding tuple visibility
// (docs/model.md). Tuple counts are per tuple examined; pages
// per page.
type Visibility struct {
	TuplesChecked      int64 `json:"tuples_checked"`        // tuples whose visibility was tested
	AllVisibleSkips    int64 `json:"all_visible_skips"`     // scan pages whose tuple checks were skipped (all-visible)
	HintBitHits        int64 `json:"hint_bit_hits"`         // tuples answered by their hint bits
	ClogLookups        int64 `json:"clog_lookups"`          // TransactionLogFetch calls
	TransamCacheHits   int64 `json:"transam_cache_hits"`    // ... answered by transam.c's one-entry cache
	ClogSLRUHits       int64 `json:"clog_slru_hits"`        // ... by a clog SLRU buffer
	ClogSLRUMisses     int64 `json:"clog_slru_misses"`      // ... by reading a pg_xact page
	ProcarrayScans     int64 `json:"procarray_scans"`       // TransactionIdIsInProgress proc-array scans
	HintBitsSet        int64 `json:"hint_bits_set"`         // tuples that got a hint bit
	HintDirtiedPages   int64 `json:"hint_dirtied_pages"`    // clean pages dirtied only by hint bits
	HintCacheHits      int64 `json:"hint_cache_hits"`       // tuples answered by the hint-bit cache
	HintCacheMisses    int64 `json:"hint_cache_misses"`     // page visits the cache could not answer
	VMLookups          int64 `json:"vm_lookups"`            // VM bit tests by scans (all_visible: vm)
	ClogWrites         int64 `json:"clog_writes"`           // clog pages written (eviction, checkpoint)
	AllVisiblePagesSet int64 `json:"all_visible_pages_set"` // pages VACUUM marked all-visible
	PrunedTuples       int64 `json:"pruned_tuples"`         // dead tuples removed by pruning
}

// Dist summarises a distribution in milliseconds. Percentiles come from a
// log-linear histogram with <= 1 % relative error; mean, stddev
// (population, as pgbench prints it) and max are exact.
type Dist struct {
	Count  int64   `json:"count"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P95    float64 `json:"p95"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p999"`
	Max    float64 `json:"max"`
}

// Buffers are the shared-buffer counters (pg_stat_bgwriter / pg_stat_io
// names).
type Buffers struct {
	Hits            int64   `json:"hits"`
	Reads           int64   `json:"reads"`
	HitRatio        float64 `json:"hit_ratio"`
	Alloc           int64   `json:"alloc"`
	Clean           int64   `json:"clean"`
	MaxwrittenClean int64   `json:"maxwritten_clean"`
	Backend         int64   `json:"backend"`
	BackendExtend   int64   `json:"backend_extend"`
	Checkpoint      int64   `json:"checkpoint"`
	Evictions       int64   `json:"evictions"`
	SweepSteps      int64   `json:"sweep_steps"`
	CompletePasses  int64   `json:"complete_passes"`
	StepsPerAlloc   float64 `json:"sweep_steps_per_alloc"`
	FreeListPops    int64   `json:"freelist_pops"`
	RingReuses      int64   `json:"ring_reuses"`
	Dirtied         int64   `json:"dirtied"`
	UsageHistogram  []int64 `json:"usage_histogram"`
}

// OSCache are the page-cache counters.
type OSCache struct {
	Hits            int64   `json:"hits"`
	Misses          int64   `json:"misses"`
	HitRatio        float64 `json:"hit_ratio"`
	WritebackPages  int64   `json:"writeback_pages"`
	ThrottledWrites int64   `json:"throttled_writes"`
	// ReadaheadPages are pages the kernel's readahead read before any
	// read asked for them; InflightWaits are reads that found their page
	// cached but still being read (mm/readahead.c, mm/filemap.c).
	ReadaheadPages int64 `json:"readahead_pages"`
	InflightWaits  int64 `json:"inflight_waits"`
	// ReadCalls are the pread() and preadv() calls PostgreSQL made of
	// relation and pg_xact files: one per block read up to 16, one per read stream's
	// vectored read from 17 (docs/model.md "Read streams").
	ReadCalls int64 `json:"read_calls"`
	// AdviceCalls are posix_fadvise(POSIX_FADV_WILLNEED) calls: one per
	// block pg_prewarm's prefetch mode advises (a block not in shared
	// buffers).
	AdviceCalls int64   `json:"advice_calls"`
	PeakDirtyMB float64 `json:"peak_dirty_mb"`
}

// Disk describes the data device (and the WAL device under "wal_").
type Disk struct {
	Reads          int64   `json:"reads"`
	ReadPages      int64   `json:"read_pages"` // 8 kB pages those reads brought in (readahead merges many into one)
	Writes         int64   `json:"writes"`
	ReadMS         Dist    `json:"read_ms"`
	Utilisation    float64 `json:"utilisation"`
	MeanQueue      float64 `json:"mean_queue"`
	WALWrites      int64   `json:"wal_writes"`
	WALUtilisation float64 `json:"wal_utilisation"`
}

// WALM are the WAL counters.
type WALM struct {
	Records int64 `json:"records"`
	Bytes   int64 `json:"bytes"`
	Flushes int64 `json:"flushes"`
	FPI     int64 `json:"fpi"`
	FPIHint int64 `json:"fpi_hint"`
	// BuffersFull is pg_stat_wal's wal_buffers_full (14+): WAL buffer
	// pages a backend wrote itself because the WAL buffers were full;
	// Writes its wal_write, every write() of WAL (a flush's, the WAL
	// writer's, and those).
	BuffersFull int64 `json:"buffers_full"`
	Writes      int64 `json:"writes"`
}

// CPU describes the server's cores.
type CPU struct {
	Utilisation float64 `json:"utilisation"`
	BusySeconds float64 `json:"busy_seconds"`
	// ContextSwitches counts CPU bursts that began on a core another
	// process ran on last (priced by costs.context_switch; counted only
	// when that price is set).
	ContextSwitches int64 `json:"context_switches,omitempty"`
	// Wakeups counts CPU bursts of a backend or pgbench thread that found
	// their core idle and waited costs.cpu_wakeup for it to wake (counted
	// only when that price is set; the wake is not busy time).
	Wakeups int64 `json:"wakeups,omitempty"`
	// WakeColdSeconds is the CPU time the work after those wake-ups took
	// more on cold caches (costs.cpu_wakeup_cold; present only when that
	// price is set): busy time, part of BusySeconds.
	WakeColdSeconds float64 `json:"wake_cold_seconds,omitempty"`
	// Stalls counts the CPU's stalls (costs.stall_interval, costs.stall;
	// counted only when both are set): the stall holds its core and is
	// busy time.
	Stalls int64 `json:"stalls,omitempty"`
	// Preemptions counts the times a running process lost its core
	// before its burst ended (costs.cpu_slice: a woken process's
	// wake-up preemption, or a used-up slice with others waiting): the
	// involuntary context switches of /proc/PID/sched
	// (nr_involuntary_switches). Migrations counts bursts that ran on
	// another core than their process's last (se.nr_migrations).
	// Present only with costs.cpu_slice.
	Preemptions      int64 `json:"preemptions,omitempty"`
	WakerPreemptions int64 `json:"waker_preemptions,omitempty"`
	Migrations       int64 `json:"migrations,omitempty"`
}

// distOf summarises a histogram of nanosecond values in milliseconds.
func distOf(h *sim.Histogram) Dist {
	if h.Count() == 0 {
		return Dist{}
	}
	ms := func(ns int64) float64 { return round6(float64(ns) / 1e6) }
	return Dist{
		Count:  int64(h.Count()),
		Mean:   round6(h.Mean() / 1e6),
		Stddev: round6(h.StdDev() / 1e6),
		P50:    ms(h.Quantile(0.50)),
		P90:    ms(h.Quantile(0.90)),
		P95:    ms(h.Quantile(0.95)),
		P99:    ms(h.Quantile(0.99)),
		P999:   ms(h.Quantile(0.999)),
		Max:    ms(h.Max()),
	}
}

// round6 keeps six significant decimals so JSON output is stable and short.
func round6(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1e6) / 1e6
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return round6(a / b)
}

// PGBenchLogLines returns the lines of every pgbench log file of the run,
// file after file (in phase and thread order).
func (r *Result) PGBenchLogLines() []byte {
	var out []byte
	for _, l := range r.PGBenchLogs {
		out = append(out, l.Data...)
	}
	return out
}

// StatementResult is one script command's line of pgbench -r: its text
// (the command's first line), average latency and failures.
type StatementResult struct {
	Command   string  `json:"command"`
	Count     int64   `json:"count"`
	LatencyMS float64 `json:"latency_ms"`
	Failures  int64   `json:"failures"`
}
