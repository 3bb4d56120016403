package model

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/policies"
)

// Scenario is one fully specified simulation: the server, the machine below
// it, the policies, the tables and the workload. configs.Load builds it from
// YAML (see configs/reference.yaml for every key with its meaning); a Go
// program may also build or modify one directly and call Run.
//
// Struct tags are read by internal/strictyaml: `unit` gives PostgreSQL-style
// units (bytes, or durations stored as int64 nanoseconds), `range` and
// `enum` the accepted values.
type Scenario struct {
	Name     string   `yaml:"name"`
	Seed     int64    `yaml:"seed" range:"0,"`
	Server   Server   `yaml:"server"`
	OS       OS       `yaml:"os"`
	Storage  Storage  `yaml:"storage"`
	Policies Policies `yaml:"policies"`
	Costs    Costs    `yaml:"costs"`
	// CostsFile names a costs file (simulate calibrate writes one) whose
	// costs: keys replace the defaults; the scenario's own costs: keys win
	// over it. The loader (package configs) applies it and clears this
	// field, so a run's recorded configuration holds the prices it used.
	CostsFile string   `yaml:"costs_file"`
	Tables    Tables   `yaml:"tables"`
	Workload  Workload `yaml:"workload"`
	Output    Output   `yaml:"output"`
	// Sweep, if present, makes the scenario a sweep: the sweep runner
	// (package sweep) expands it into one scenario per point and
	// replicate; model.Run ignores it.
	Sweep *Sweep `yaml:"sweep"`

	// Replicate numbers repeated runs of one sweep point; together with
	// Seed it derives every random stream. Not a YAML key: sweeps set it.
	Replicate int `yaml:"-"`
}

// Sweep is the `sweep:` block: axes map configuration paths to lists of
// values (their cartesian product is run), each point Replicates times.
type Sweep struct {
	Replicates int `yaml:"replicates" range:"1,100000"`
	// Axes is a mapping from a key path (e.g. server.shared_buffers) to a
	// list of values, kept raw (in file order) until the sweep runner
	// validates each value against the key.
	Axes yaml.Node `yaml:"axes"`
	// Metrics names the summary metrics sweep.html charts (dotted paths
	// into summary.json's totals, e.g. latency_ms.p99).
	Metrics []string `yaml:"metrics"`
}

// Defaults fills a new sweep block.
func (s *Sweep) Defaults() { s.Replicates = 1 }

// Server holds the PostgreSQL settings (GUC names as in postgresql.conf).
type Server struct {
	// Version selects version-dependent mechanics and defaults (see
	// docs/versions.md): the free list (<= 18), the strategy lock (one
	// global lock for the whole victim search up to 9.4), clog buffers,
	// checkpoint_completion_target's default, checksums' default.
	Version       string `yaml:"version" enum:"9.1|9.2|9.3|9.4|9.5|9.6|10|11|12|13|14|15|16|17|18|19"`
	SharedBuffers int64  `yaml:"shared_buffers" unit:"bytes,8kB" range:"128kB,1TB"`
	// CPUs is the number of cores backends' CPU bursts queue for.
	CPUs int `yaml:"cpus" range:"1,4096"`

	// Background writer (bgwriter.c, BgBufferSync in bufmgr.c).
	BgwriterDelay         int64   `yaml:"bgwriter_delay" unit:"duration,ms" range:"10ms,10s"`
	BgwriterLRUMaxpages   int     `yaml:"bgwriter_lru_maxpages" range:"0,1073741823"`
	BgwriterLRUMultiplier float64 `yaml:"bgwriter_lru_multiplier" range:"0,10"`
	// BgwriterFlushAfter and CheckpointFlushAfter are the sync_file_range
	// writeback hints (9.6+; -1 = the version's default: 512kB / 256kB, 0
	// before 9.6); 0 disables them.
	BgwriterFlushAfter int64 `yaml:"bgwriter_flush_after" unit:"bytes,8kB" range:"-1,2MB"`

	// Checkpointer (checkpointer.c, BufferSync in bufmgr.c).
	CheckpointTimeout int64 `yaml:"checkpoint_timeout" unit:"duration,s" range:"30s,1d"`
	// CheckpointCompletionTarget: -1 = the version's default (0.5 before
	// 14, 0.9 from 14).
	CheckpointCompletionTarget float64 `yaml:"checkpoint_completion_target" range:"-1,1"`
	CheckpointFlushAfter       int64   `yaml:"checkpoint_flush_after" unit:"bytes,8kB" range:"-1,2MB"`
	// MaxWALSize triggers a checkpoint by WAL volume from 9.5 (CheckPointSegments
	// = max_wal_size / 16MB / (1 + completion target), (2 + target) in 9.5-10);
	// CheckpointSegments is the setting it replaced (<= 9.4, default 3).
	MaxWALSize         int64 `yaml:"max_wal_size" unit:"bytes,MB" range:"2MB,"`
	CheckpointSegments int   `yaml:"checkpoint_segments" range:"1,"`

	// WAL.
	FullPageWrites bool `yaml:"full_page_writes"`
	WALLogHints    bool `yaml:"wal_log_hints"`
	// DataChecksums: null = the version's initdb default (on from 18).
	DataChecksums *bool `yaml:"data_checksums"`
	// SynchronousCommit: commit waits for its WAL flush (on). Off: the
	// commit wakes the WAL writer (XLogSetAsyncXactLSN), which flushes it
	// within a few wal_writer_delay, and hint bits for a transaction cannot
	// be set until its commit record is flushed.
	SynchronousCommit bool `yaml:"synchronous_commit"`
	// WALWriterDelay is wal_writer_delay, the WAL writer's round (it
	// hibernates, 25 rounds at a time, after 50 that found nothing:
	// walwriter.c).
	WALWriterDelay int64 `yaml:"wal_writer_delay" unit:"duration,ms" range:"1ms,10s"`
	// WALWriterFlushAfter is wal_writer_flush_after (9.6+): the WAL writer
	// fsyncs what it wrote only when wal_writer_delay has passed since its
	// last fsync or this much WAL is unflushed (XLogBackgroundFlush); 0
	// fsyncs at every round that writes.
	WALWriterFlushAfter int64 `yaml:"wal_writer_flush_after" unit:"bytes,8kB" range:"0,1GB"`
	// WALBuffers is wal_buffers (-1, the default: shared_buffers/32, at
	// least 64 kB, at most a WAL segment, XLOGChooseNumBuffers in xlog.c;
	// other values under 32 kB are taken as 32 kB, check_wal_buffers). A backend that inserts WAL into a
	// buffer page whose previous contents are not yet written writes them
	// itself (AdvanceXLInsertBuffer's XLogWrite: pg_stat_wal's
	// wal_buffers_full), one write() of costs.os_write per page.
	WALBuffers int64 `yaml:"wal_buffers" unit:"bytes,8kB" range:"-1,16MB"`
	// TransactionBuffers is the clog SLRU size in 17+ (0 = auto:
	// shared_buffers/512 in 16-buffer steps, 16..1024); earlier versions
	// size it from shared_buffers (docs/versions.md).
	TransactionBuffers int64 `yaml:"transaction_buffers" unit:"bytes,8kB" range:"0,1GB"`

	// Autovacuum (autovacuum.c): every naptime, tables whose dead tuples
	// exceed threshold + scale_factor x reltuples (or, 13+, whose inserts
	// exceed insert_threshold + insert_scale_factor x reltuples; -1
	// disables) get a worker, at most max_workers at once, throttled by the
	// cost-based delay.
	Autovacuum bool `yaml:"autovacuum"`
	// Autoprewarm is contrib/pg_prewarm's autoprewarm
	// (shared_preload_libraries = 'pg_prewarm', pg_prewarm.autoprewarm =
	// on): a restart dumps the blocks in shared buffers and a background
	// worker loads them again after it (docs/model.md "pg_prewarm").
	Autoprewarm bool `yaml:"autoprewarm"`
	// SystemCatalogs models the system catalogs' pages: what a new
	// connection, a relation's first use in a backend and a statement
	// kind's first plan read through shared buffers (docs/model.md).
	SystemCatalogs              bool    `yaml:"system_catalogs"`
	AutovacuumNaptime           int64   `yaml:"autovacuum_naptime" unit:"duration,s" range:"1s,1d"`
	AutovacuumMaxWorkers        int     `yaml:"autovacuum_max_workers" range:"1,262143"`
	AutovacuumVacuumThreshold   int64   `yaml:"autovacuum_vacuum_threshold" range:"0,"`
	AutovacuumVacuumScaleFactor float64 `yaml:"autovacuum_vacuum_scale_factor" range:"0,100"`
	// AutovacuumVacuumMaxThreshold caps threshold + scale_factor x
	// reltuples from PostgreSQL 18 (-1 disables the cap).
	AutovacuumVacuumMaxThreshold      int64   `yaml:"autovacuum_vacuum_max_threshold" range:"-1,"`
	AutovacuumVacuumInsertThreshold   int64   `yaml:"autovacuum_vacuum_insert_threshold" range:"-1,"`
	AutovacuumVacuumInsertScaleFactor float64 `yaml:"autovacuum_vacuum_insert_scale_factor" range:"0,100"`
	// A table is analyzed by autovacuum when the rows inserted, updated
	// and deleted by committed transactions since its last ANALYZE
	// (n_mod_since_analyze) exceed threshold + scale_factor x reltuples
	// (autovacuum.c relation_needs_vacanalyze).
	AutovacuumAnalyzeThreshold   int64   `yaml:"autovacuum_analyze_threshold" range:"0,"`
	AutovacuumAnalyzeScaleFactor float64 `yaml:"autovacuum_analyze_scale_factor" range:"0,100"`
	// DefaultStatisticsTarget sets ANALYZE's sample: 300 x target rows
	// (std_typanalyze), from as many blocks.
	DefaultStatisticsTarget int `yaml:"default_statistics_target" range:"1,10000"`
	// AutovacuumVacuumCostDelay: -1 = the version's default (20ms before
	// 12, 2ms from 12).
	AutovacuumVacuumCostDelay int64 `yaml:"autovacuum_vacuum_cost_delay" unit:"duration,ms" range:"-1ms,100ms"`
	VacuumCostLimit           int   `yaml:"vacuum_cost_limit" range:"1,10000"`
	VacuumCostPageHit         int   `yaml:"vacuum_cost_page_hit" range:"0,10000"`
	// VacuumCostPageMiss: -1 = the version's default (10 before 14, 2 from 14).
	VacuumCostPageMiss  int `yaml:"vacuum_cost_page_miss" range:"-1,10000"`
	VacuumCostPageDirty int `yaml:"vacuum_cost_page_dirty" range:"0,10000"`
	// VacuumBufferUsageLimit is the VACUUM ring (-1 = the version's
	// default: 256kB before 17, 2MB from 17).
	VacuumBufferUsageLimit int64 `yaml:"vacuum_buffer_usage_limit" unit:"bytes,kB" range:"-1,16GB"`
	// IOCombineLimit is io_combine_limit (17+): the most blocks a read
	// stream reads with one vectored read (128kB; at most 256kB in 17,
	// 1MB from 18). Earlier versions read block by block.
	IOCombineLimit int64 `yaml:"io_combine_limit" unit:"bytes,kB" range:"8kB,1MB"`
	// IOMethod is io_method (18+): sync (a stream's reads are done when
	// the scan needs them), worker (io_workers processes do them ahead of
	// the scan) or io_uring (the kernel does). "" = the version's default
	// (worker from 18; before 18 every read is synchronous).
	IOMethod  string `yaml:"io_method" enum:"|sync|worker|io_uring"`
	IOWorkers int    `yaml:"io_workers" range:"1,32"`
	// EffectiveIOConcurrency bounds a stream's reads in flight (18+ with
	// asynchronous I/O; -1 = the version's default: 1 before 18, 16 from
	// 18; 0 turns asynchronous reads off).
	EffectiveIOConcurrency int `yaml:"effective_io_concurrency" range:"-1,1000"`
	// MaintenanceIOConcurrency is the same for VACUUM's stream (18+; -1 =
	// the version's default: 10 before 18, 16 from 18).
	MaintenanceIOConcurrency int `yaml:"maintenance_io_concurrency" range:"-1,1000"`
}

// OS models the operating system below PostgreSQL (Linux's vm.* sysctls
// with their kernel defaults).
type OS struct {
	// PageCache is the size of the OS page cache available to data files;
	// it is also the "dirtyable memory" the ratios below refer to.
	PageCache int64 `yaml:"page_cache" unit:"bytes" range:"0,64TB"`
	// Background writeback starts above dirty_background_ratio percent (or
	// dirty_background_bytes when non-zero); writers are throttled above
	// dirty_ratio percent (or dirty_bytes).
	DirtyBackgroundRatio float64 `yaml:"dirty_background_ratio" range:"0,100"`
	DirtyRatio           float64 `yaml:"dirty_ratio" range:"0,100"`
	DirtyBackgroundBytes int64   `yaml:"dirty_background_bytes" unit:"bytes" range:"0,"`
	DirtyBytes           int64   `yaml:"dirty_bytes" unit:"bytes" range:"0,"`
	// Pages dirty for longer than dirty_expire_centisecs are written by the
	// flusher, which wakes every dirty_writeback_centisecs (0 = never).
	DirtyExpireCentisecs    int `yaml:"dirty_expire_centisecs" range:"0,"`
	DirtyWritebackCentisecs int `yaml:"dirty_writeback_centisecs" range:"0,"`
	// NrRequests bounds the writeback requests in flight on the data
	// device (the block layer's queue depth); reads queue behind them.
	NrRequests int `yaml:"nr_requests" range:"1,100000"`
	// MaxWritebackBatch is the largest merged writeback request
	// (max_sectors_kb).
	MaxWritebackBatch int64 `yaml:"max_writeback_batch" unit:"bytes" range:"8kB,64MB"`
	// ReadAhead is the data device's readahead maximum
	// (/sys/block/DEV/queue/read_ahead_kb, 128 kB by default): buffered
	// reads of a file read ahead of a sequential reader in windows growing
	// up to it (mm/readahead.c); 0 turns readahead off.
	ReadAhead int64 `yaml:"read_ahead" unit:"bytes" range:"0,1GB"`
	// Start is the page cache's state when the run starts: "cold" (empty,
	// as after a reboot) or "loaded" (every relation's pages, clean, as a
	// load and a CHECKPOINT leave them on a running machine: CREATE TABLE
	// and INSERT, COPY, pgbench -i; the last ones loaded when they do not
	// all fit).
	Start string `yaml:"start" enum:"cold|loaded"`
}

// Storage names the devices under the data directory and the WAL.
type Storage struct {
	Data DeviceConfig `yaml:"data" shorthand:"preset"`
	WAL  DeviceConfig `yaml:"wal" shorthand:"preset"`
}

// DeviceConfig describes a block device: a preset, optionally with some
// fields overridden. Service times are means; each request draws its own
// time from a lognormal distribution with coefficient of variation Jitter.
type DeviceConfig struct {
	// Preset: hdd-7200, sata-ssd, nvme, cloud-gp3; for the WAL also "data"
	// (WAL on the data device, sharing its queue); "custom" takes every
	// field.
	Preset   string `yaml:"preset" enum:"hdd-7200|sata-ssd|nvme|cloud-gp3|data|custom"`
	Channels int    `yaml:"channels" range:"0,1024"`
	// ReadTime and WriteTime are the mean service times of a random 8 kB
	// request; SeqTime that of a request contiguous with the previous one
	// (no seek); FlushTime the cost of a cache flush (fsync/fdatasync).
	ReadTime  int64   `yaml:"read_time" unit:"duration" range:"0,10s"`
	WriteTime int64   `yaml:"write_time" unit:"duration" range:"0,10s"`
	SeqTime   int64   `yaml:"seq_time" unit:"duration" range:"0,10s"`
	FlushTime int64   `yaml:"flush_time" unit:"duration" range:"0,10s"`
	Jitter    float64 `yaml:"jitter" range:"0,10"`
	// SeekSpan makes positioning grow with the distance from the previous
	// request, reaching the full random time at this many pages (a disk
	// arm; 0 = the preset's: 1048576 pages for hdd-7200, none for SSDs).
	SeekSpan int64 `yaml:"seek_span" range:"0,"`
	// Scheduler orders the requests waiting for the device: fifo (arrival
	// order: a read waits behind every write queued before it) or deadline
	// (Linux's deadline elevator: reads first, sector-ordered batches of 16,
	// 500 ms / 5 s expiry; block/deadline-iosched.c).
	Scheduler string `yaml:"scheduler" enum:"fifo|deadline"`
	// QueueDepth: under deadline, how many requests the device (its NCQ or
	// RAID controller queue) holds and serves in order; the elevator only
	// reorders the rest. 0 = one per channel.
	QueueDepth int `yaml:"queue_depth" range:"0,100000"`
	// TransferTime is each further page's time within one multi-page
	// request (0 = the preset's; presets other than cloud-gp3: seq_time).
	TransferTime int64 `yaml:"transfer_time" unit:"duration" range:"0,1s"`
	// IOPS and Throughput cap what the device accepts per second (a
	// provisioned cloud volume; 0 = the preset's, none for local devices);
	// IOUnit is the size counted as one operation (0 = the preset's, 256 kB
	// where IOPS is capped).
	IOPS       int64 `yaml:"iops" range:"0,100000000"`
	Throughput int64 `yaml:"throughput" unit:"bytes" range:"0,1TB"`
	IOUnit     int64 `yaml:"io_unit" unit:"bytes" range:"0,1GB"`
}

// Policies selects the pluggable policies.
type Policies struct {
	Replacement ReplacementConfig `yaml:"replacement" shorthand:"name"`
	// HintCache is the 2011 hint-bit cache patch (policies.HintCache).
	HintCache policies.HintCacheParams `yaml:"hint_cache"`
	// AllVisible chooses what seqscans trust to skip per-tuple checks
	// (policies.AllVisibleParams).
	AllVisible policies.AllVisibleParams `yaml:"all_visible"`
}

// ReplacementConfig is a replacement policy name plus its parameters, whose
// keys depend on the policy (see `simulate -list-policies`).
type ReplacementConfig struct {
	Policy string
	Params any
}

// TagKey, ParamsFor, SetTagged and Tagged make ReplacementConfig a
// strictyaml.Tagged value: `{name: clock-sweep, max_usage_count: 3}`.
func (r *ReplacementConfig) TagKey() string { return "name" }

// ParamsFor returns the defaulted parameter struct of the named policy.
func (r *ReplacementConfig) ParamsFor(name string) (any, error) {
	spec, err := policies.Lookup(name)
	if err != nil {
		return nil, err
	}
	if spec.Params == nil {
		return nil, nil
	}
	return spec.Params(), nil
}

// SetTagged stores a decoded policy selection.
func (r *ReplacementConfig) SetTagged(name string, params any) {
	if spec, err := policies.Lookup(name); err == nil {
		name = spec.Name
	}
	r.Policy, r.Params = name, params
}

// Tagged returns the policy name and parameters for encoding.
func (r *ReplacementConfig) Tagged() (string, any) {
	if r.Params == nil {
		if spec, err := policies.Lookup(r.Policy); err == nil && spec.Params != nil {
			return r.Policy, spec.Params()
		}
	}
	return r.Policy, r.Params
}

// Build instantiates the configured replacement policy.
func (r *ReplacementConfig) Build() (policies.Replacement, policies.Spec, error) {
	spec, err := policies.Lookup(r.Policy)
	if err != nil {
		return nil, spec, err
	}
	p, err := spec.New(r.Params)
	return p, spec, err
}

// Costs are the CPU prices the model charges (and one client-side delay).
// Defaults are calibrated in docs/validation.md.
type Costs struct {
	// Statement is the per-statement executor overhead (parse, plan,
	// executor start/end under pgbench's simple query protocol).
	Statement int64 `yaml:"statement" unit:"duration" range:"0,1s"`
	// StatementTable is the further executor overhead of a statement that
	// reads or writes a table (SELECT 1 pays none): planning it
	// (get_relation_info and the index paths of planner.c), opening and
	// locking the table and its indexes, the plan's scan node. 0 by
	// default, as before this price existed; simulate calibrate measures it
	// (docs/calibration.md), and on the development machine it is about
	// 40 us.
	StatementTable int64 `yaml:"statement_table" unit:"duration" range:"0,1s"`
	// StatementScan is the further planning of a statement that scans its
	// table (a SELECT, UPDATE or DELETE reading it by a sequential, index
	// or bitmap scan), which an INSERT ... VALUES does not plan: the
	// relation's size estimates (get_relation_info's
	// RelationGetNumberOfBlocks of the heap and each index), the
	// restriction clauses' selectivity, and a path for the sequential scan
	// and each index with a matching clause, costed and compared
	// (set_base_rel_pathlists in allpaths.c). PostgreSQL 15's
	// pg_stat_statements (track_planning) gives 10 us of planning for a
	// lookup by primary key and 5 us for a one-row INSERT on the
	// development machine. 0 by default; simulate calibrate fits it.
	StatementScan int64 `yaml:"statement_scan" unit:"duration" range:"0,1s"`
	// StatementUpdate is an UPDATE statement's further executor overhead
	// over a statement that reads or inserts: ExecUpdate's path around
	// heap_update (the ModifyTable node over its scan, projecting the new
	// version, locking the row's old version, the EvalPlanQual state).
	// 0 by default; simulate calibrate measures it (on the development
	// machine PostgreSQL 15 spends about 35 us more on a keyed UPDATE than
	// on a keyed SELECT plus an INSERT's heap and index work).
	StatementUpdate int64 `yaml:"statement_update" unit:"duration" range:"0,1s"`
	// ClientRoundTrip is the client<->server latency per statement; it
	// delays the client but uses no server CPU.
	ClientRoundTrip int64 `yaml:"client_round_trip" unit:"duration" range:"0,1s"`
	// Client is the client program's own CPU per statement (pgbench
	// building the query, libpq sending it and reading the result). A
	// pgbench thread runs one client at a time, so its clients' client
	// CPU serialises; with workload.client_host: server it runs on the
	// server's cores, competing with the backends.
	Client int64 `yaml:"client" unit:"duration" range:"0,1s"`
	// ClientWakeup is how late a rate-limited client that slept until its
	// scheduled start begins (the timer slack of pgbench's poll(), plus
	// being scheduled): schedule lag is never exactly 0.
	ClientWakeup int64 `yaml:"client_wakeup" unit:"duration" range:"0,1s"`
	// BufferHit is a shared-buffer lookup plus pin/unpin.
	BufferHit int64 `yaml:"buffer_hit" unit:"duration" range:"0,1s"`
	// BufferFirstTouch is what a backend process's first access to a
	// shared buffer costs more: the minor page faults that map the
	// buffer's pages into the process, which fork does not copy for a
	// shared mapping (docs/model.md "A backend"). Once per buffer slot
	// and process: a new session pays it for every buffer it touches, a
	// long one only at first. 0 by default (simulate calibrate measures
	// it: a new connection's first warm scan against its second; 0.17 us
	// a buffer on the development machine, without huge pages).
	BufferFirstTouch int64 `yaml:"buffer_first_touch" unit:"duration" range:"0,1s"`
	// BufferMapFault is what a backend process's first touch of a 64 kB
	// stretch of the shared buffers costs: the one minor page fault that
	// maps it, eight buffers at a time (Linux's fault-around maps the
	// aligned 64 kB, fault_around_bytes, of pages already in memory
	// around the faulting address: mm/memory.c do_fault_around). So a
	// sequential scan pays it once per eight buffers in consecutive slots
	// and a lookup once for each leaf and heap page in a stretch of the
	// pool the process has not touched. Measured on PostgreSQL 15 on the
	// development machine (the backend's minflt in /proc): a new session's
	// warm count(*) of 1725 pages made 194 faults and took 0.75 ms more
	// than the same scan again (3.9 us a fault); a lookup whose leaf the
	// session had not touched made one fault and took 8 us more. It
	// supersedes buffer_first_touch's price per buffer (costs files
	// written before it carry that one). 0 by default.
	BufferMapFault int64 `yaml:"buffer_map_fault" unit:"duration" range:"0,1s"`
	// ExecutorFirstRun is what a backend's first execution of a planned
	// statement costs more than the next: a process forked from the
	// postmaster runs the executor's code and allocates its memory
	// contexts' first blocks for the first time (page faults on both).
	// Measured on PostgreSQL 15 (EXPLAIN ANALYZE's Execution Time, a new
	// session): SELECT 1 took 19-23 us the first time and 2-3 us after.
	// Utility commands (VACUUM, CHECKPOINT, BEGIN) do not pay it. 0 by
	// default.
	ExecutorFirstRun int64 `yaml:"executor_first_run" unit:"duration" range:"0,1s"`
	// PlanFirstRun is what a backend's first execution of each kind of
	// plan costs more (beyond executor_first_run), per node of the plan:
	// the code of its nodes run for the first time in the process. A kind
	// is the statement and its access path: a SELECT by key by an index
	// scan, an index-only scan or a sequential scan (one node), an UPDATE
	// or DELETE by key and an INSERT (ModifyTable over its scan or source:
	// two), a count(*) (Aggregate over Seq Scan: two), a range by each of
	// its four plans (its scan and the aggregate above it: two, a bitmap
	// scan three), a whole-table UPDATE or DELETE (two), pg_prewarm (one).
	// Measured on PostgreSQL 15 after a session's SELECT 1 (first
	// execution against the second, the page faults of the data included):
	// an index scan lookup 5-10 us more, a count(*) of one page 19-22, an
	// INSERT 20-30, an UPDATE by key 20-40, an index-only lookup 27-33.
	// 0 by default.
	PlanFirstRun int64 `yaml:"plan_first_run" unit:"duration" range:"0,1s"`
	// BufferFirstUse is what the first use of a shared buffer since the
	// server started costs the backend that puts a page there (a read's
	// copy, an extension's zeroed page): the kernel allocates and zeroes
	// the segment's two 4 kB pages under it, which PostgreSQL never
	// touched before (they are mapped at start-up, not written). Once per
	// buffer until the next restart. Measured on PostgreSQL 15 on the
	// development machine right after a restart: 1725 reads into buffers
	// never used took 13.4-14.9 ms of I/O time, the same into buffers a
	// dropped table had used 3.7-4.5 ms (about 6 us a buffer more). 0 by
	// default.
	BufferFirstUse int64 `yaml:"buffer_first_use" unit:"duration" range:"0,1s"`
	// BufferAlloc is what a buffer miss costs besides the lookup, the
	// victim search and the I/O: bufmgr.c BufferAlloc's remapping of the
	// victim (BufTableDelete of its old tag and BufTableInsert of the new
	// one under their mapping partition locks, the header's reset) and
	// the read's StartBufferIO / TerminateBufferIO, for a page read in or
	// a relation extended. 0 by default (simulate calibrate fits it from
	// its ring scans, which pay it on every page).
	BufferAlloc int64 `yaml:"buffer_alloc" unit:"duration" range:"0,1s"`
	// SweepStep is one clock-sweep step (one buffer header inspected).
	SweepStep int64 `yaml:"sweep_step" unit:"duration" range:"0,1s"`
	// LWLockHold is the strategy lock's hold time per victim search besides
	// the sweep steps (acquire, pin, release: cache-line transfers).
	LWLockHold int64 `yaml:"lwlock_hold" unit:"duration" range:"0,1s"`
	// LockHandoff is the time a contended LWLock (the <= 9.4 strategy lock)
	// stays unusable while its next holder is woken from its semaphore.
	LockHandoff int64 `yaml:"lock_handoff" unit:"duration" range:"0,1s"`
	// OSRead is a pread() of 8 kB served by the OS page cache; OSWrite a
	// pwrite() of 8 kB into it.
	OSRead  int64 `yaml:"os_read" unit:"duration" range:"0,1s"`
	OSWrite int64 `yaml:"os_write" unit:"duration" range:"0,1s"`
	// IndexLevel is the binary search within one B-tree page.
	IndexLevel int64 `yaml:"index_level" unit:"duration" range:"0,1s"`
	// TupleFetch reads one heap tuple; TupleUpdate is heap_update or
	// heap_insert of one tuple (excluding WAL); IndexInsert one index entry.
	TupleFetch int64 `yaml:"tuple_fetch" unit:"duration" range:"0,1s"`
	// IndexOnlyTuple is what an index-only scan spends on an index entry
	// whose heap page the visibility map says is all-visible, where an
	// index scan would fetch the heap tuple (TupleFetch): _bt_next and
	// _bt_checkkeys on the leaf, index_getnext_tid, StoreIndexTuple
	// (nodeIndexonlyscan.c IndexOnlyNext; the map bit's test is VMTest).
	// Measured on PostgreSQL 15 on the development machine: 88 ns an
	// entry for count(*) of 10000 keys, warm; it was priced as a heap
	// fetch (300 ns) before this price existed.
	IndexOnlyTuple int64 `yaml:"index_only_tuple" unit:"duration" range:"0,1s"`
	TupleUpdate    int64 `yaml:"tuple_update" unit:"duration" range:"0,1s"`
	// TupleUpdateOld is what an UPDATE spends on a row beyond writing its
	// new version (TupleUpdate, as heap_insert writes one): ExecUpdate's
	// new tuple built from the old one, heap_update's work on the old
	// version (HeapDetermineColumnsInfo's comparison of the columns, the
	// xmax and infomask of the old tuple, the multixact and lock checks,
	// the second page's lock). Measured on PostgreSQL 15 on the development
	// machine: an UPDATE of every row of a 5000-row table of two integers
	// took 0.90-1.15 us a row where an INSERT of as many took 0.50, and
	// 100000 rows of 105 bytes 1.2-1.5 against 0.73. 0 by default
	// (simulate calibrate fits it from update-bulk).
	TupleUpdateOld int64 `yaml:"tuple_update_old" unit:"duration" range:"0,1s"`
	IndexInsert    int64 `yaml:"index_insert" unit:"duration" range:"0,1s"`
	// TupleDelete is heap_delete of one tuple (excluding WAL): it stamps
	// the old version's xmax and infomask and forms no new tuple, so
	// PostgreSQL spends well under heap_insert's time on it (a bulk DELETE
	// ran 0.3 us a row on the development machine, an INSERT ... SELECT
	// 0.7). Its default is tuple_update's, as both were one price before.
	TupleDelete int64 `yaml:"tuple_delete" unit:"duration" range:"0,1s"`
	// TupleByte is what a new tuple (heap_insert's, heap_update's new
	// version) costs more per byte of its user data: heap_form_tuple and
	// the executor's projection of wider rows, the copy into the page,
	// the WAL record's data and its CRC. In picoseconds (duration_ps:
	// "1.9ns"), as whole nanoseconds would round it by half. 0 by default
	// (simulate calibrate fits it from bulk inserts of narrow and of wide
	// rows).
	TupleByte int64 `yaml:"tuple_byte" unit:"duration_ps" range:"0,1s"`
	// TextChar is what a SELECT's expression spends per byte of a
	// column's text it walks character by character, for each such call
	// a row evaluates (length, char_length and character_length:
	// pg_mbstrlen_with_len in a multibyte encoding, once; upper and lower
	// three times: pgscript.Statement.TextWalks), in picoseconds.
	// Measured on PostgreSQL 15 on the development machine (UTF8): 1.7-1.8
	// ns a byte, where a 100-byte row's scan beside it costs 0.05 us.
	TextChar int64 `yaml:"text_char" unit:"duration_ps" range:"0,1s"`
	// FilterTuple is what a scan's filter (a WHERE condition the scan
	// tests on each row it reads: a sequential scan's, or the Filter of
	// a range read by one) costs on a tuple it passes: ExecScan's
	// ResetExprContext and ExecQual, the deform of the columns the
	// condition reads, its first operator (execScan.c ExecScan,
	// execExprInterp.c). FilterReject is what it costs instead on a
	// tuple it rejects, which ExecScan does not return to the node above
	// (no aggregate transition, no projection): less. FilterOperator is
	// each further operator it evaluates on a tuple (an AND's next
	// comparison, BETWEEN's second, an IN list's next value; PostgreSQL
	// 14 and later probe a list of nine or more constants by hash, once).
	// Measured on PostgreSQL 15 on the development machine, a warm
	// sequential scan of 100000 rows of (int, text) whose count(*) took
	// 40 ns a row: WHERE id > 0 (every row passes) 25-30 ns a row more,
	// WHERE id < 0 (none) 9-14 ns more, a second and a third comparison
	// about 7 ns each.
	FilterTuple    int64 `yaml:"filter_tuple" unit:"duration" range:"0,1s"`
	FilterReject   int64 `yaml:"filter_reject" unit:"duration" range:"0,1s"`
	FilterOperator int64 `yaml:"filter_operator" unit:"duration" range:"0,1s"`
	// WALRecord is XLogInsert of one record; Commit the commit work
	// besides the WAL flush.
	WALRecord int64 `yaml:"wal_record" unit:"duration" range:"0,1s"`
	Commit    int64 `yaml:"commit" unit:"duration" range:"0,1s"`
	// Transaction is what every transaction costs to start and end,
	// read-only ones included, besides a writer's commit record (xact.c
	// StartTransaction and CommitTransaction: the snapshot's release,
	// resource owners, ProcArrayEndTransaction, pgstat's counts): once
	// per transaction, so once per statement in autocommit and once for a
	// BEGIN ... END block. 0 by default (simulate calibrate fits it).
	Transaction int64 `yaml:"transaction" unit:"duration" range:"0,1s"`
	// ContextSwitch is what a CPU burst costs more when it begins on a
	// core another process (a backend, a pgbench thread) ran on last: the
	// switch and the caches it finds cold. A process returns to its last
	// core when that one is free (Linux wakes a task on its previous CPU
	// when it can), so with no more processes than cores it is never
	// paid; with more, most bursts pay it. 0 by default (simulate
	// calibrate fits it from its several-client experiments).
	ContextSwitch int64 `yaml:"context_switch" unit:"duration" range:"0,1s"`
	// RowLockWait is the CPU a backend spends because it waited for
	// another transaction's row lock, once that one ended: the
	// heavyweight locks' acquire, sleep and release (heap_acquire_tuplock,
	// XactLockTableWait: LockAcquire, ProcSleep with its deadlock timer,
	// LockRelease) and, under READ COMMITTED, the newest version's lock
	// and recheck (heap_lock_tuple, EvalPlanQual's executor state), beyond
	// the page reads the model makes of them. On the development machine
	// PostgreSQL 15 spent 225-248 us of CPU a transaction when four
	// clients on two cores updated one row each in BEGIN; UPDATE; SELECT 1;
	// END (every transaction waits), against 164-192 updating random rows:
	// about 50 us a wait, of which the model's context switches and
	// wake-ups are part (the waiter's own wake-up is CPUWakeup's, paid
	// when its core sat idle). 0 by default; simulate calibrate fits it
	// from its several-client update of one row against the same
	// transactions on random rows.
	RowLockWait int64 `yaml:"row_lock_wait" unit:"duration" range:"0,1s"`
	// RowLockRecheck is the CPU a woken row-lock waiter spends before it
	// can lock the row's newest version (XactLockTableWait's return,
	// heap_update's recheck returning TM_Updated, table_tuple_lock up to
	// heap_lock_tuple), with the cores' fair scheduler only, where the
	// waiters race for the row (docs/model.md "Row locks"): measured on
	// PostgreSQL 15 with perf's uprobes at 4 us (median; 9 at p90). It
	// comes on top of row_lock_wait, which is spent once the row is
	// locked.
	RowLockRecheck int64 `yaml:"row_lock_recheck" unit:"duration" range:"0,1s"`
	// CPUWakeup is how long a CPU burst of a backend or a pgbench thread
	// that slept on a message (or a backend on a heavyweight lock, woken
	// by the holder's release) waits for its core when that core sat
	// idle: the CPU leaving its
	// idle state, in a virtual machine the hypervisor waking the halted
	// vCPU (cpuidle's exit latency; Linux's haltpoll driver polls a while
	// first). A core handed from one burst to the next never idles, so
	// one client and its backend, taking turns, pay it on nearly every
	// burst and more processes than cores almost never: what lets one
	// client's latency exceed what several clients' throughput says the
	// CPU work costs. 0 by default (simulate calibrate fits it).
	CPUWakeup int64 `yaml:"cpu_wakeup" unit:"duration" range:"0,1s"`
	// CPUWakeupCold is how much of a process's CPU work after such a
	// wake-up runs at half speed: the process finds little of its working
	// set in the core's caches after sleeping long enough for the core to
	// idle, and fetches it again as it runs, so the first CPUWakeupCold of
	// its work (over however many bursts, until it next wakes a core)
	// takes twice as long and the rest runs at full speed. Measured on the
	// development machine (PostgreSQL 15, 2 vCPUs): one client's index
	// lookup costs 8-10 us more over SELECT 1 than four clients'
	// throughput says, while lookups of 10 to 3000 keys cost one client
	// the same per key as four. 0 by default (simulate calibrate fits it
	// beside cpu_wakeup).
	CPUWakeupCold int64 `yaml:"cpu_wakeup_cold" unit:"duration" range:"0,1s"`
	// CPUHaltAfter is how long a core can sit idle and still count as
	// idle to the scheduler's wake-up placement; after it the core has
	// halted. On a virtual machine whose idle vCPUs halt, a vCPU the
	// hypervisor descheduled after its halt polling reads as preempted
	// (vcpu_is_preempted), which select_idle_sibling (kernel/sched/fair.c)
	// does not take for an idle CPU: a process woken by a message from a
	// process that blocks at once (a socket's synchronous wake-up) then
	// runs on the waker's core, which it frees (wake_affine_idle): no
	// cpu_wakeup, a context_switch. So a paced client (pgbench -R) and
	// its backend share a core while a flat-out one runs apart from it
	// (measured with taskset on the development machine: docs/model.md
	// "A backend"). With cpu_wakeup set only. 0 (the default) turns it
	// off: every wake-up goes to the process's last core if free.
	CPUHaltAfter int64 `yaml:"cpu_halt_after" unit:"duration" range:"0,1s"`
	// CPUBalanceTick is how often a balancer tick comes: one that finds
	// a core busy kicks the halted cores to take load
	// (nohz_balancer_kick, and whatever else stirs an idle vCPU): they
	// count as idle again, and the next wake-up goes to one of them, so
	// two processes that shared a core part again once they run flat
	// out. With cpu_halt_after only; 0 (the default) means 4 ms, a tick
	// at CONFIG_HZ=250.
	CPUBalanceTick int64 `yaml:"cpu_balance_tick" unit:"duration" range:"0,10s"`
	// CPUHaltCold is how much of a process's CPU work after it slept for
	// cpu_halt_after or more runs at half speed, on whichever core it
	// runs: its working set went colder over milliseconds asleep than
	// between the quick exchanges cpu_wakeup_cold prices (PostgreSQL 15's
	// paced select-only took 0.030 ms more than a paced SELECT 1, flat
	// out 0.010 more, on the development machine). With cpu_halt_after
	// only; 0 (the default) means cpu_wakeup_cold's span. simulate
	// calibrate fits it from an index lookup under pgbench -R.
	CPUHaltCold int64 `yaml:"cpu_halt_cold" unit:"duration" range:"0,1s"`
	// CPUSlice turns on the fair scheduler's model of the cores (EEVDF,
	// Linux 6.6 and later: kernel/sched/fair.c; docs/model.md "The
	// cores' scheduler") with this base slice (sysctl_sched_base_slice
	// times 1 + log2 of the CPU count): a run queue per core, each
	// process's virtual runtime, lag and deadline, bursts served earliest
	// eligible deadline first, and a woken process preempting a running
	// one that is past lag parity. 0 (the default): the cores serve
	// bursts to their end in arrival order from one queue.
	CPUSlice int64 `yaml:"cpu_slice" unit:"duration" range:"0,1s"`
	// CPUMigrationCost is how recently a process must have run to stay
	// on its core's run queue while another core idles
	// (sysctl_sched_migration_cost, task_hot): such a one moves only at
	// the next balancing tick. With cpu_slice only; 0 means 0.5 ms.
	CPUMigrationCost int64 `yaml:"cpu_migration_cost" unit:"duration" range:"0,1s"`
	// CPUClientGroup puts pgbench's threads, when they run on the
	// server's cores (workload.client_host local), in a scheduling group
	// of their own apart from the server's processes, as Linux's
	// autogroup does for two sessions (kernel/sched/autogroup.c:
	// pg_ctl starts the postmaster in a session of its own) and cgroups
	// do for two services: the cores are shared between the groups
	// first, then among each group's processes. With cpu_slice only.
	CPUClientGroup bool `yaml:"cpu_client_group"`
	// CPUWakeAffine lets a process woken by a message from another core
	// move to its waker's core when the waker is alone there or its own
	// core is the busier (kernel/sched/fair.c wake_affine, which stock
	// Linux applies to pgbench's one-to-many wake-ups). On by default;
	// false keeps a woken process on its previous core unless another is
	// idle, closer to the development machine's migration counts
	// (docs/model.md "The cores' scheduler"). With cpu_slice only.
	CPUWakeAffine bool `yaml:"cpu_wake_affine"`
	// StallInterval and Stall describe the rare stalls of a real server's
	// CPU (the hypervisor running another guest on the vCPU, an interrupt
	// storm, a page fault's reclaim): while a process runs, stalls arrive
	// at random with StallInterval of CPU time between them on average (a
	// Poisson process in CPU time, counted over every burst on every
	// core), and each holds the core for an exponentially distributed
	// time of mean Stall. They make a real server's latency tail: one
	// client's select-only transactions at a p99 twice their mean, where
	// fixed prices alone give 1.0x. 0 (no stalls) by default; simulate
	// calibrate measures both from the tail of its SELECT 1 experiment
	// (docs/calibration.md).
	StallInterval int64 `yaml:"stall_interval" unit:"duration" range:"0,1000s"`
	Stall         int64 `yaml:"stall" unit:"duration" range:"0,1s"`

	// FSMPage is one free-space-map page visited by a search or an update
	// (fsm_search_avail, fsm_set_avail).
	FSMPage int64 `yaml:"fsm_page" unit:"duration" range:"0,1s"`
	// PruneTuple is heap_page_prune's work per tuple it examines (line
	// pointers, HOT chains, HeapTupleSatisfiesVacuum).
	PruneTuple int64 `yaml:"prune_tuple" unit:"duration" range:"0,1s"`
	// Sequential scans: per page (pin, lock, prune check, line-pointer
	// walk) and per tuple (executor work of count(*)).
	ScanPage    int64 `yaml:"scan_page" unit:"duration" range:"0,1s"`
	TupleDeform int64 `yaml:"tuple_deform" unit:"duration" range:"0,1s"`
	// Visibility (docs/model.md): the hinted fast path of
	// HeapTupleSatisfiesMVCC; a snapshot xip entry searched; a proc-array
	// entry visited (TransactionIdIsInProgress, GetSnapshotData); the
	// transam.c one-entry cache; a clog SLRU hit and miss (the miss reads
	// pg_xact through the OS cache); SetHintBits; the CPU of a hint-bit
	// full-page image; a hint-cache probe; a VM bit test.
	HintedCheck      int64 `yaml:"hinted_check" unit:"duration" range:"0,1s"`
	XipPerXact       int64 `yaml:"xip_per_xact" unit:"duration" range:"0,1s"`
	ProcArrayPerProc int64 `yaml:"procarray_per_proc" unit:"duration" range:"0,1s"`
	TransamCacheHit  int64 `yaml:"transam_cache_hit" unit:"duration" range:"0,1s"`
	ClogSLRUHit      int64 `yaml:"clog_slru_hit" unit:"duration" range:"0,1s"`
	ClogSLRUMiss     int64 `yaml:"clog_slru_miss" unit:"duration" range:"0,1s"`
	SetHintBits      int64 `yaml:"set_hint_bits" unit:"duration" range:"0,1s"`
	HintFPI          int64 `yaml:"hint_fpi" unit:"duration" range:"0,1s"`
	HintCacheProbe   int64 `yaml:"hint_cache_probe" unit:"duration" range:"0,1s"`
	VMTest           int64 `yaml:"vm_test" unit:"duration" range:"0,1s"`
	// TupleCold is what a tuple a scan visits (or a visibility check
	// reads) costs more on a page found in shared buffers than on one the
	// backend has just read in: a pread() copies the page through the
	// CPU's caches, a buffer hit finds it in memory they no longer hold.
	// A tuple pays min(1, its bytes on the page / 128) of it: narrow
	// tuples share the 128 bytes the processor fetches at once. 0 by
	// default (simulate calibrate fits it from its warm scans of narrow
	// and medium rows and its warm and ring scans of a hinted table).
	TupleCold int64 `yaml:"tuple_cold" unit:"duration" range:"0,1s"`
	// VacuumTuple is HeapTupleSatisfiesVacuum plus pruning work per tuple.
	VacuumTuple int64 `yaml:"vacuum_tuple" unit:"duration" range:"0,1s"`
	// AnalyzeValue is ANALYZE's work per sampled row and column: copying
	// the row into the reservoir, then sorting and summarising the
	// column's values (compute_scalar_stats).
	AnalyzeValue int64 `yaml:"analyze_value" unit:"duration" range:"0,1s"`
}

// Tables declares the database.
type Tables struct {
	// PGBench builds pgbench's four tables at a scale factor (0 = none).
	PGBench PGBenchTables `yaml:"pgbench"`
	// Relations are user-declared heap tables (and groups of identical
	// tables).
	Relations []TableConfig `yaml:"relations"`
}

// TableConfig declares a heap table, or a group of Count identical tables
// named NAME_1 .. NAME_Count.
type TableConfig struct {
	Name string `yaml:"name"`
	// Size: Rows, or Pages (with RowsPerPage or RowWidth giving the rows).
	Rows  int64 `yaml:"rows" range:"0,"`
	Pages int64 `yaml:"pages" range:"0,2147483647"` // block numbers are 31 bits
	// Tuple width: RowWidth bytes of user data per row (the 24-byte tuple
	// header and the 4-byte line pointer are added), or RowsPerPage.
	RowWidth    int `yaml:"row_width" range:"0,8000"`
	RowsPerPage int `yaml:"rows_per_page" range:"0,291"`
	Fillfactor  int `yaml:"fillfactor" range:"10,100"`
	Count       int `yaml:"count" range:"1,1000000"`
	// State of the initially loaded rows: vacuumed (hinted, all-visible,
	// as after VACUUM), hinted (hint bits set, not all-visible), or fresh
	// (inserted by one committed transaction, never read).
	State string `yaml:"state" enum:"vacuumed|hinted|fresh"`
	// Index builds a B-tree primary key on the row number, needed by
	// select/update/delete steps with a key.
	Index bool `yaml:"index"`
	// Key names the indexed column in SQL scripts (WHERE key = :v is a
	// lookup through the index).
	Key string `yaml:"key"`
	// Columns is the table's number of columns (the key and the rest of
	// the row): ANALYZE computes and writes statistics for each.
	Columns int `yaml:"columns" range:"1,1600"`
	// LoadOrder is the order the initial load wrote the rows in: key
	// (INSERT ... SELECT FROM generate_series, pgbench -i: the key's
	// pg_stats.correlation is 1) or random (... ORDER BY random(): about
	// 0, so a range of keys is scattered over the heap and the planner
	// prices index, bitmap heap and sequential scans for it).
	LoadOrder string `yaml:"load_order" enum:"key|random"`
}

// Defaults fills a new table declaration.
func (t *TableConfig) Defaults() {
	t.RowWidth = 100
	t.Fillfactor = 100
	t.Count = 1
	t.State = "vacuumed"
	t.Key = "id"
	t.Columns = 2
	t.LoadOrder = "key"
}

// Validate checks a table declaration.
func (t *TableConfig) Validate() error {
	if strings.TrimSpace(t.Name) == "" {
		return &strictyaml.FieldError{Path: "name", Msg: "every table needs a name"}
	}
	if t.Rows > 0 && t.Pages > 0 {
		return &strictyaml.FieldError{Path: "pages", Msg: "give the size as rows or as pages, not both"}
	}
	return nil
}

// PGBenchTables is `pgbench -i -s scale -F fillfactor`.
type PGBenchTables struct {
	Scale      int `yaml:"scale" range:"0,1000000"`
	Fillfactor int `yaml:"fillfactor" range:"10,100"`
}

// Workload is a sequence of phases.
type Workload struct {
	Phases []Phase `yaml:"phases"`
	// Prewarm replays the page references of this many transactions of
	// the first phase's script through shared buffers and the OS page
	// cache before the run, instantly and without I/O, spaced at the
	// phase's rate (or 1 ms apart): the run starts with caches in the state
	// that workload leaves them in (a long-running server), not empty.
	Prewarm int64 `yaml:"prewarm" range:"0,1000000000"`
	// ClientHost is where the client program runs: "server" (pgbench on
	// the database machine, the usual setup: its CPU uses the server's
	// cores) or "remote" (its CPU only delays the client).
	ClientHost string `yaml:"client_host" enum:"server|remote"`
}

// Phase runs a group of pgbench-like clients for a duration or a number of
// transactions per client.
type Phase struct {
	Name string `yaml:"name"`
	// Clients is pgbench -c; Threads pgbench -j (each thread runs its own
	// Poisson schedule under Rate).
	Clients int `yaml:"clients" range:"1,100000"`
	Threads int `yaml:"threads" range:"1,100000"`
	// Duration (pgbench -T) or Transactions per client (pgbench -t);
	// exactly one must be set.
	Duration     int64 `yaml:"duration" unit:"duration" range:"0,"`
	Transactions int64 `yaml:"transactions" range:"0,2147483647"`
	// Rate is pgbench -R in transactions per second over all clients (0 =
	// as fast as possible); LatencyLimit is pgbench -L.
	Rate         float64 `yaml:"rate" range:"0,"`
	LatencyLimit int64   `yaml:"latency_limit" unit:"duration" range:"0,"`
	Script       Script  `yaml:"script" shorthand:"builtin" seqshorthand:"steps"`
	// Scripts is a weighted mix instead of one script (pgbench -b NAME@W
	// ... -f FILE@W): each transaction picks one script, with probability
	// weight / total weight (pgbench.c chooseScript).
	Scripts []WeightedScript `yaml:"scripts"`
	// AbortFraction of the script's transactions end in ROLLBACK instead
	// of COMMIT (a transaction that wrote leaves an aborted xid).
	AbortFraction float64 `yaml:"abort_fraction" range:"0,1"`
	// Set overrides the script's variables with pgbench expressions, e.g.
	// aid: "random_gaussian(1, 100000 * :scale, 5)".
	Set map[string]string `yaml:"set"`
	// Define sets variables of script files before they run (pgbench
	// -D NAME=VALUE); define scale is pgbench -s for script files.
	Define map[string]string `yaml:"define"`
	// RandomSeed is pgbench --random-seed N (15+): the phase's clients draw
	// their keys, its threads their --rate schedule, script choice and log
	// sampling from pg_prng states seeded exactly as pgbench seeds them,
	// so the phase replays the key sequence of a pgbench run with that
	// seed, the same in every replicate. Unset: streams of the
	// simulator's own, derived from seed and replicate.
	RandomSeed *uint64 `yaml:"random_seed"`
	// Warmup phases run but stay out of the summary's totals.
	Warmup bool `yaml:"warmup"`
	// Pause is idle time before the phase (before its restart, if any):
	// no client runs, the background writer, the checkpointer, the WAL
	// writer and autovacuum go on, as between two pgbench runs. Its
	// counters belong to no phase and not to the totals.
	Pause int64 `yaml:"pause" unit:"duration" range:"0,24h"`
	// Restart restarts the server before the phase (pg_ctl restart: a
	// shutdown checkpoint writes every dirty buffer, then shared buffers,
	// the clog buffers and every backend's caches start empty; the OS page
	// cache keeps what it holds). Needs server.autovacuum: false.
	Restart bool `yaml:"restart"`
	// DropOSCache empties the OS page cache of clean pages before the
	// phase (echo 1 > /proc/sys/vm/drop_caches), after Restart if both.
	DropOSCache bool `yaml:"drop_os_cache"`
	// Program is the client program that runs a script file: pgbench
	// (the default: its setup connection first, pgbench.c main's
	// doConnect, then one connection per client) or psql (each client's
	// one connection runs the statements, with no setup connection, as
	// psql -f does). A built-in script is pgbench's; steps have no setup
	// connection either way.
	Program string `yaml:"program" enum:"pgbench|psql|"`
}

// Bounds of a phase's rate (pgbench -R) in transactions per second: below
// MinRate the mean gap between transactions exceeds 10^4 s (and a Poisson
// draw could leave int64 nanoseconds), above MaxRate no server is meant;
// and a phase may schedule at most MaxScheduled transactions.
const (
	MinRate      = 1e-4
	MaxRate      = 1e7
	MaxScheduled = 1e10
)

// Defaults fills a new phase (strictyaml calls it for each list element).
// A phase without a script runs tpcb-like (set by ResolveVersionDefaults,
// so that a list of steps given as the script does not mix with it).
func (p *Phase) Defaults() {
	p.Clients = 1
	p.Threads = 1
}

// Script is a built-in pgbench script, a list of steps, or a pgbench
// script file (docs/pgbench.md).
type Script struct {
	Builtin string `yaml:"builtin" enum:"tpcb-like|simple-update|select-only|"`
	Steps   []Step `yaml:"steps"`
	// File is a pgbench script file (pgbench -f), relative to the
	// scenario's file; the loader reads it into Text, which is what
	// runs (and what summary.json records). Text alone is a script
	// written inline.
	File string `yaml:"file"`
	Text string `yaml:"text"`
}

// WeightedScript is one script of a mix: a built-in or a list of steps,
// with pgbench's integer weight (0 is allowed: the script is never
// chosen) and, for steps, the name reports give it.
type WeightedScript struct {
	Builtin string `yaml:"builtin" enum:"tpcb-like|simple-update|select-only|"`
	Steps   []Step `yaml:"steps"`
	File    string `yaml:"file"`
	Text    string `yaml:"text"`
	Name    string `yaml:"name"`
	Weight  int64  `yaml:"weight" range:"0,2147483647"`
}

// Defaults gives a script of a mix pgbench's default weight, 1.
func (w *WeightedScript) Defaults() { w.Weight = 1 }

// MaxScripts is pgbench's limit on the scripts of a run (MAX_SCRIPTS).
const MaxScripts = 128

// ScriptList is the phase's scripts as a mix: Scripts, or Script alone
// with weight 1.
func (p Phase) ScriptList() []WeightedScript {
	if len(p.Scripts) > 0 {
		return p.Scripts
	}
	return []WeightedScript{{Builtin: p.Script.Builtin, Steps: p.Script.Steps, File: p.Script.File, Text: p.Script.Text, Weight: 1}}
}

// Step is one operation of a custom script; exactly one field is set.
// Without begin/commit every step is a transaction of its own.
type Step struct {
	Begin  bool `yaml:"begin"`
	Commit bool `yaml:"commit"`
	// Abort ends the explicit transaction with ROLLBACK.
	Abort   bool        `yaml:"abort"`
	Seqscan *TableStep  `yaml:"seqscan" shorthand:"table"`
	Select  *KeyStep    `yaml:"select"`
	Insert  *InsertStep `yaml:"insert"`
	Update  *KeyStep    `yaml:"update"`
	Delete  *KeyStep    `yaml:"delete" shorthand:"table"`
	Vacuum  *TableStep  `yaml:"vacuum" shorthand:"table"`
	// Analyze is ANALYZE t: a sample of the table's blocks read through
	// the VACUUM ring, statistics written to pg_statistic.
	Analyze    *TableStep `yaml:"analyze" shorthand:"table"`
	Checkpoint bool       `yaml:"checkpoint"`
	Sleep      int64      `yaml:"sleep" unit:"duration" range:"0,"`
	// Copy appends rows as COPY does (a BulkInsertState: each page read
	// once, through the BULKWRITE ring; into a table truncated in the same
	// transaction, without the free space map).
	Copy *InsertStep `yaml:"copy"`
	// Truncate empties the table (TRUNCATE: a new relation file; its
	// buffers are dropped without being written).
	Truncate *TableStep `yaml:"truncate" shorthand:"table"`
	// Prewarm is contrib/pg_prewarm's SELECT pg_prewarm('t', mode, 'main',
	// first_block, last_block): the table's blocks loaded into shared
	// buffers (buffer), read through the OS cache without them (read), or
	// advised to the kernel (prefetch).
	Prewarm *PrewarmStep `yaml:"prewarm" shorthand:"table"`
}

// PrewarmStep is a pg_prewarm call on a table's main fork.
type PrewarmStep struct {
	Table string `yaml:"table"`
	Pick  string `yaml:"pick" enum:"client|random|cycle"`
	Mode  string `yaml:"mode" enum:"buffer|read|prefetch"`
	// FirstBlock and LastBlock bound the blocks done; -1 (the default) is
	// pg_prewarm's NULL: the relation's first and last blocks when the
	// statement runs.
	FirstBlock int64 `yaml:"first_block" range:"-1,"`
	LastBlock  int64 `yaml:"last_block" range:"-1,"`
}

// Defaults fills a new prewarm step.
func (p *PrewarmStep) Defaults() {
	p.Pick, p.Mode, p.FirstBlock, p.LastBlock = "client", "buffer", -1, -1
}

// TableStep names a table. For a group of tables, Pick chooses the member:
// "client" (client id modulo the group size, the default), "random", or
// "cycle" (the client's transaction number modulo the group size: one
// execution per member in turn, as a script looping over the tables).
type TableStep struct {
	Table string `yaml:"table"`
	Pick  string `yaml:"pick" enum:"client|random|cycle"`
}

// Defaults fills a new table step.
func (t *TableStep) Defaults() { t.Pick = "client" }

// KeyStep is a select, update or delete of the row whose number a pgbench
// expression gives (delete or update without a key changes every row).
type KeyStep struct {
	Table string `yaml:"table"`
	Pick  string `yaml:"pick" enum:"client|random|cycle"`
	Key   string `yaml:"key"`
}

// Defaults fills a new key step.
func (k *KeyStep) Defaults() { k.Pick = "client" }

// InsertStep appends rows (INSERT ... SELECT): in one transaction, or
// committing every CommitEvery rows.
type InsertStep struct {
	Table       string `yaml:"table"`
	Pick        string `yaml:"pick" enum:"client|random|cycle"`
	Rows        int64  `yaml:"rows" range:"1,1073741824"`
	CommitEvery int64  `yaml:"commit_every" range:"0,"`
}

// Defaults fills a new insert step.
func (i *InsertStep) Defaults() { i.Pick = "client"; i.Rows = 1 }

// Validate checks that exactly one operation is given.
func (s *Step) Validate() error {
	n := 0
	for _, set := range []bool{s.Begin, s.Commit, s.Abort, s.Seqscan != nil, s.Select != nil, s.Insert != nil, s.Update != nil, s.Delete != nil, s.Vacuum != nil, s.Analyze != nil, s.Checkpoint, s.Sleep > 0, s.Copy != nil, s.Truncate != nil, s.Prewarm != nil} {
		if set {
			n++
		}
	}
	if n == 0 && s.Sleep < 0 {
		return fmt.Errorf("sleep: a duration is > 0 (this one is negative)")
	}
	if n == 0 {
		return fmt.Errorf("the step does nothing (sleep: 0s, checkpoint: false?): a step is exactly one of begin, commit, abort, seqscan, select, insert, copy, update, delete, truncate, vacuum, prewarm, checkpoint: true, sleep: DURATION > 0; remove it or give one")
	}
	if n != 1 {
		return fmt.Errorf("a step is exactly one of begin, commit, abort, seqscan, select, insert, copy, update, delete, truncate, vacuum, prewarm, checkpoint, sleep (found %d)", n)
	}
	return nil
}

// Output controls what a run records.
type Output struct {
	// Interval is the time-series sampling interval (simulated time).
	Interval int64 `yaml:"interval" unit:"duration" range:"1ms,1h"`
	// PGBenchLog writes pgbench's transaction logs (pgbench -l): one file
	// per thread of each phase, DIR/PREFIX.PID[.THREAD] (docs/pgbench.md).
	PGBenchLog bool `yaml:"pgbench_log"`
	// LogPrefix is pgbench --log-prefix.
	LogPrefix string `yaml:"log_prefix"`
	// SamplingRate is pgbench --sampling-rate: the fraction of
	// transactions logged (0 = all).
	SamplingRate float64 `yaml:"sampling_rate" range:"0,1"`
	// AggregateInterval is pgbench --aggregate-interval: a line per
	// interval instead of per transaction (whole seconds; 0 = off).
	AggregateInterval int64 `yaml:"aggregate_interval" unit:"duration" range:"0,"`
	// LogWarmup logs warm-up phases too (they are separate pgbench runs,
	// left out by default).
	LogWarmup bool `yaml:"log_warmup"`
	// Progress is pgbench -P: a progress line on stderr every this many
	// seconds of each phase (simulated time; 0 = off); ProgressTimestamp
	// is --progress-timestamp (Unix times instead of seconds elapsed).
	Progress          int64 `yaml:"progress" unit:"duration" range:"0,"`
	ProgressTimestamp bool  `yaml:"progress_timestamp"`
	// ReportPerCommand is pgbench -r: each script command's average
	// latency and failures, in the summary and summary.json.
	ReportPerCommand bool `yaml:"report_per_command"`
}

const (
	ms  = int64(1e6)
	sec = int64(1e9)
)

// DefaultScenario returns a scenario with every key at its default.
func DefaultScenario() Scenario {
	return Scenario{
		Name: "unnamed",
		Seed: 1,
		Server: Server{
			Version:                           "17",
			SharedBuffers:                     128 << 20,
			CPUs:                              4,
			BgwriterDelay:                     200 * ms,
			BgwriterLRUMaxpages:               100,
			BgwriterLRUMultiplier:             2.0,
			BgwriterFlushAfter:                -1,
			CheckpointTimeout:                 300 * sec,
			CheckpointCompletionTarget:        -1,
			CheckpointFlushAfter:              -1,
			MaxWALSize:                        1 << 30,
			CheckpointSegments:                3,
			FullPageWrites:                    true,
			SynchronousCommit:                 true,
			WALWriterDelay:                    200 * ms,
			WALWriterFlushAfter:               1 << 20,
			WALBuffers:                        -8192, // -1 in its 8 kB units: auto
			Autovacuum:                        true,
			SystemCatalogs:                    true,
			AutovacuumNaptime:                 60 * sec,
			AutovacuumMaxWorkers:              3,
			AutovacuumVacuumThreshold:         50,
			AutovacuumVacuumScaleFactor:       0.2,
			AutovacuumVacuumMaxThreshold:      100_000_000,
			AutovacuumVacuumInsertThreshold:   1000,
			AutovacuumVacuumInsertScaleFactor: 0.2,
			AutovacuumAnalyzeThreshold:        50,
			AutovacuumAnalyzeScaleFactor:      0.1,
			DefaultStatisticsTarget:           100,
			AutovacuumVacuumCostDelay:         -1,
			VacuumCostLimit:                   200,
			VacuumCostPageHit:                 1,
			VacuumCostPageMiss:                -1,
			VacuumCostPageDirty:               20,
			VacuumBufferUsageLimit:            -1,
			IOCombineLimit:                    128 << 10,
			IOWorkers:                         3,
			EffectiveIOConcurrency:            -1,
			MaintenanceIOConcurrency:          -1,
		},
		OS: OS{
			PageCache:               4 << 30,
			DirtyBackgroundRatio:    10,
			DirtyRatio:              20,
			DirtyExpireCentisecs:    3000,
			DirtyWritebackCentisecs: 500,
			NrRequests:              128,
			MaxWritebackBatch:       512 << 10,
			ReadAhead:               128 << 10,
			Start:                   "cold",
		},
		Storage: Storage{
			Data: DeviceConfig{Preset: "sata-ssd", Scheduler: "fifo"},
			WAL:  DeviceConfig{Preset: "data", Scheduler: "fifo"},
		},
		Policies: Policies{
			Replacement: ReplacementConfig{Policy: "clock-sweep"},
			HintCache:   policies.DefaultHintCacheParams(),
			AllVisible:  policies.DefaultAllVisibleParams(),
		},
		Costs:    DefaultCosts(),
		Tables:   Tables{PGBench: PGBenchTables{Fillfactor: 100}},
		Workload: Workload{ClientHost: "server"},
		Output:   Output{Interval: 1e9, LogPrefix: "pgbench_log"},
	}
}

// DefaultCosts are the CPU prices used unless a scenario overrides them.
func DefaultCosts() Costs {
	const us = 1000
	return Costs{
		CPUWakeAffine:    true,
		RowLockRecheck:   4 * us,
		Statement:        25 * us,
		ClientRoundTrip:  15 * us,
		Client:           12 * us,
		ClientWakeup:     50 * us,
		BufferHit:        150,
		SweepStep:        8,
		LockHandoff:      10 * us,
		LWLockHold:       500,
		OSRead:           2 * us,
		OSWrite:          3 * us,
		IndexLevel:       300,
		TupleFetch:       300,
		IndexOnlyTuple:   85,
		TextChar:         1800,
		FilterTuple:      27,
		FilterReject:     12,
		FilterOperator:   7,
		TupleUpdate:      1500,
		TupleDelete:      1500,
		IndexInsert:      1000,
		WALRecord:        500,
		Commit:           5 * us,
		ScanPage:         1500,
		FSMPage:          200,
		PruneTuple:       40,
		TupleDeform:      22,
		HintedCheck:      5,
		XipPerXact:       0,
		ProcArrayPerProc: 2,
		TransamCacheHit:  10,
		ClogSLRUHit:      45,
		ClogSLRUMiss:     1600,
		SetHintBits:      5,
		HintFPI:          5500,
		HintCacheProbe:   3,
		VMTest:           15,
		VacuumTuple:      30,
		AnalyzeValue:     600,
	}
}

// perByte is a price in picoseconds per byte (costs.tuple_byte,
// costs.text_char) for n bytes, in nanoseconds.
func perByte(ps, n int64) int64 { return ps * n / 1000 }

// Validate checks rules that involve several keys of a phase. The
// configuration loader calls it after decoding the phase, and places the
// error at the named key's line.
func (p *Phase) Validate() error {
	if strings.TrimSpace(p.Name) == "" {
		return &strictyaml.FieldError{Path: "name", Msg: "every phase needs a name (reports and sweeps refer to phases by name)"}
	}
	if (p.Duration > 0) == (p.Transactions > 0) {
		return &strictyaml.FieldError{Path: "duration", Msg: "set exactly one of duration and transactions (pgbench -T or -t)"}
	}
	if kinds(p.Script.Builtin != "", len(p.Script.Steps) > 0, p.Script.File != "" || p.Script.Text != "") > 1 {
		return &strictyaml.FieldError{Path: "script", Msg: "give one of a built-in script name, a list of steps, or a script file (file or text)"}
	}
	if len(p.Scripts) > 0 {
		if p.Script.Builtin != "" || len(p.Script.Steps) > 0 || p.Script.File != "" || p.Script.Text != "" {
			return &strictyaml.FieldError{Path: "scripts", Msg: "give either script (one script) or scripts (a weighted mix), not both"}
		}
		if len(p.Scripts) > MaxScripts {
			return &strictyaml.FieldError{Path: "scripts", Msg: fmt.Sprintf("%d scripts; pgbench allows at most %d", len(p.Scripts), MaxScripts)}
		}
		var total int64
		for i, w := range p.Scripts {
			at := fmt.Sprintf("scripts[%d]", i)
			if kinds(w.Builtin != "", len(w.Steps) > 0, w.File != "" || w.Text != "") != 1 {
				return &strictyaml.FieldError{Path: at, Msg: "give each script of the mix one of builtin: NAME, steps: [...] or file: FILE.sql"}
			}
			if w.Builtin != "" && w.Name != "" {
				return &strictyaml.FieldError{Path: at + ".name", Msg: "a built-in script has its own name; name is for a list of steps"}
			}
			total += w.Weight
		}
		if total == 0 {
			return &strictyaml.FieldError{Path: "scripts", Msg: "the scripts' weights add up to 0 (pgbench: total script weight must not be zero); give one a weight >= 1"}
		}
	}
	if p.Rate != 0 && (p.Rate < MinRate || p.Rate > MaxRate) {
		return &strictyaml.FieldError{Path: "rate", Msg: fmt.Sprintf("%g transactions per second is outside [%g, %g] (0 = as fast as possible, pgbench without -R)", p.Rate, MinRate, MaxRate)}
	}
	if p.Rate > 0 && p.Duration > 0 && p.Rate*float64(p.Duration)/1e9 > MaxScheduled {
		return &strictyaml.FieldError{Path: "rate", Msg: fmt.Sprintf("%g transactions per second for %s schedules %.3g transactions, more than the %.0g a run may schedule; lower the rate or the duration", p.Rate, time.Duration(p.Duration), p.Rate*float64(p.Duration)/1e9, MaxScheduled)}
	}
	if p.Transactions > 0 && float64(p.Transactions)*float64(max(p.Clients, 1)) > MaxScheduled {
		return &strictyaml.FieldError{Path: "transactions", Msg: fmt.Sprintf("%d transactions per client for %d clients is %.3g transactions, more than the %.0g a phase may run; lower it", p.Transactions, p.Clients, float64(p.Transactions)*float64(p.Clients), MaxScheduled)}
	}
	if p.Threads > p.Clients {
		return &strictyaml.FieldError{Path: "threads", Msg: fmt.Sprintf("%d threads for %d clients (pgbench requires threads <= clients)", p.Threads, p.Clients)}
	}
	return nil
}

// kinds counts the true flags.
func kinds(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}

// ResolveVersionDefaults replaces the "version default" sentinels of
// DefaultScenario (keys whose PostgreSQL default changed between releases)
// by server.version's values. The loader calls it after decoding, so the
// fully defaulted configuration shows the values actually used.
func ResolveVersionDefaults(sc *Scenario) {
	for i := range sc.Workload.Phases {
		if ph := &sc.Workload.Phases[i]; ph.Script.Builtin == "" && len(ph.Script.Steps) == 0 && ph.Script.File == "" && ph.Script.Text == "" && len(ph.Scripts) == 0 {
			ph.Script.Builtin = "tpcb-like"
		}
	}
	v, err := Version(sc.Server.Version)
	if err != nil {
		return
	}
	s := &sc.Server
	if s.CheckpointCompletionTarget == -1 {
		s.CheckpointCompletionTarget = 0.9
		if v < 1400 {
			s.CheckpointCompletionTarget = 0.5
		}
	}
	if s.BgwriterFlushAfter < 0 {
		s.BgwriterFlushAfter = 512 << 10
		if v < 906 {
			s.BgwriterFlushAfter = 0
		}
	}
	if s.CheckpointFlushAfter < 0 {
		s.CheckpointFlushAfter = 256 << 10
		if v < 906 {
			s.CheckpointFlushAfter = 0
		}
	}
	if s.AutovacuumVacuumCostDelay < 0 {
		s.AutovacuumVacuumCostDelay = 2 * ms
		if v < 1200 {
			s.AutovacuumVacuumCostDelay = 20 * ms
		}
	}
	if s.EffectiveIOConcurrency < 0 {
		s.EffectiveIOConcurrency = 16
		if v < 1800 {
			s.EffectiveIOConcurrency = 1
		}
	}
	if s.MaintenanceIOConcurrency < 0 {
		s.MaintenanceIOConcurrency = 16
		if v < 1800 {
			s.MaintenanceIOConcurrency = 10
		}
	}
	if s.IOMethod == "" && v >= 1800 {
		s.IOMethod = "worker"
	}
	if s.VacuumCostPageMiss < 0 {
		s.VacuumCostPageMiss = 2
		if v < 1400 {
			s.VacuumCostPageMiss = 10
		}
	}
	if s.VacuumBufferUsageLimit < 0 {
		s.VacuumBufferUsageLimit = 2 << 20
		if v < 1700 {
			s.VacuumBufferUsageLimit = 256 << 10
		}
	}
	if s.DataChecksums == nil {
		on := v >= 1800
		s.DataChecksums = &on
	}
}
