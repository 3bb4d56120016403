package model

import (
	"fmt"
	"strings"

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
	Tables   Tables   `yaml:"tables"`
	Workload Workload `yaml:"workload"`
	Output   Output   `yaml:"output"`

	// Replicate numbers repeated runs of one sweep point; together with
	// Seed it derives every random stream. Not a YAML key: sweeps set it.
	Replicate int `yaml:"-"`
}

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
	// Preset: hdd-7200, sata-ssd, nvme; for the WAL also "data" (WAL on
	// the data device, sharing its queue); "custom" takes every field.
	Preset   string `yaml:"preset" enum:"hdd-7200|sata-ssd|nvme|data|custom"`
	Channels int    `yaml:"channels" range:"0,1024"`
	// ReadTime and WriteTime are the mean service times of a random 8 kB
	// request; SeqTime that of a request contiguous with the previous one
	// (no seek); FlushTime the cost of a cache flush (fsync/fdatasync).
	ReadTime  int64   `yaml:"read_time" unit:"duration" range:"0,10s"`
	WriteTime int64   `yaml:"write_time" unit:"duration" range:"0,10s"`
	SeqTime   int64   `yaml:"seq_time" unit:"duration" range:"0,10s"`
	FlushTime int64   `yaml:"flush_time" unit:"duration" range:"0,10s"`
	Jitter    float64 `yaml:"jitter" range:"0,10"`
}

// Policies selects the pluggable policies.
type Policies struct {
	Replacement ReplacementConfig `yaml:"replacement" shorthand:"name"`
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
	// ClientRoundTrip is the client<->server latency per statement; it
	// delays the client but uses no server CPU.
	ClientRoundTrip int64 `yaml:"client_round_trip" unit:"duration" range:"0,1s"`
	// BufferHit is a shared-buffer lookup plus pin/unpin.
	BufferHit int64 `yaml:"buffer_hit" unit:"duration" range:"0,1s"`
	// SweepStep is one clock-sweep step (one buffer header inspected).
	SweepStep int64 `yaml:"sweep_step" unit:"duration" range:"0,1s"`
	// OSRead is a pread() of 8 kB served by the OS page cache; OSWrite a
	// pwrite() of 8 kB into it.
	OSRead  int64 `yaml:"os_read" unit:"duration" range:"0,1s"`
	OSWrite int64 `yaml:"os_write" unit:"duration" range:"0,1s"`
	// IndexLevel is the binary search within one B-tree page.
	IndexLevel int64 `yaml:"index_level" unit:"duration" range:"0,1s"`
	// TupleFetch reads one heap tuple; TupleUpdate is heap_update or
	// heap_insert of one tuple (excluding WAL); IndexInsert one index entry.
	TupleFetch  int64 `yaml:"tuple_fetch" unit:"duration" range:"0,1s"`
	TupleUpdate int64 `yaml:"tuple_update" unit:"duration" range:"0,1s"`
	IndexInsert int64 `yaml:"index_insert" unit:"duration" range:"0,1s"`
	// WALRecord is XLogInsert of one record; Commit the commit work
	// besides the WAL flush.
	WALRecord int64 `yaml:"wal_record" unit:"duration" range:"0,1s"`
	Commit    int64 `yaml:"commit" unit:"duration" range:"0,1s"`
}

// Tables declares the database.
type Tables struct {
	// PGBench builds pgbench's four tables at a scale factor (0 = none).
	PGBench PGBenchTables `yaml:"pgbench"`
}

// PGBenchTables is `pgbench -i -s scale -F fillfactor`.
type PGBenchTables struct {
	Scale      int `yaml:"scale" range:"0,1000000"`
	Fillfactor int `yaml:"fillfactor" range:"10,100"`
}

// Workload is a sequence of phases.
type Workload struct {
	Phases []Phase `yaml:"phases"`
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
	Transactions int64 `yaml:"transactions" range:"0,"`
	// Rate is pgbench -R in transactions per second over all clients (0 =
	// as fast as possible); LatencyLimit is pgbench -L.
	Rate         float64 `yaml:"rate" range:"0,"`
	LatencyLimit int64   `yaml:"latency_limit" unit:"duration" range:"0,"`
	Script       Script  `yaml:"script" shorthand:"builtin"`
	// Set overrides the script's variables with pgbench expressions, e.g.
	// aid: "random_gaussian(1, 100000 * :scale, 5)".
	Set map[string]string `yaml:"set"`
	// Warmup phases run but stay out of the summary's totals.
	Warmup bool `yaml:"warmup"`
}

// Defaults fills a new phase (strictyaml calls it for each list element).
func (p *Phase) Defaults() {
	p.Clients = 1
	p.Threads = 1
	p.Script = Script{Builtin: "tpcb-like"}
}

// Script is a built-in pgbench script.
type Script struct {
	Builtin string `yaml:"builtin" enum:"tpcb-like|simple-update|select-only"`
}

// Output controls what a run records.
type Output struct {
	// Interval is the time-series sampling interval (simulated time).
	Interval int64 `yaml:"interval" unit:"duration" range:"1ms,1h"`
	// PGBenchLog writes DIR/pgbench_log in pgbench's -l format.
	PGBenchLog bool `yaml:"pgbench_log"`
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
			Version:                    "17",
			SharedBuffers:              128 << 20,
			CPUs:                       4,
			BgwriterDelay:              200 * ms,
			BgwriterLRUMaxpages:        100,
			BgwriterLRUMultiplier:      2.0,
			BgwriterFlushAfter:         -1,
			CheckpointTimeout:          300 * sec,
			CheckpointCompletionTarget: -1,
			CheckpointFlushAfter:       -1,
			MaxWALSize:                 1 << 30,
			CheckpointSegments:         3,
			FullPageWrites:             true,
		},
		OS: OS{
			PageCache:               4 << 30,
			DirtyBackgroundRatio:    10,
			DirtyRatio:              20,
			DirtyExpireCentisecs:    3000,
			DirtyWritebackCentisecs: 500,
			NrRequests:              128,
			MaxWritebackBatch:       512 << 10,
		},
		Storage: Storage{
			Data: DeviceConfig{Preset: "sata-ssd"},
			WAL:  DeviceConfig{Preset: "data"},
		},
		Policies: Policies{Replacement: ReplacementConfig{Policy: "clock-sweep"}},
		Costs:    DefaultCosts(),
		Tables:   Tables{PGBench: PGBenchTables{Fillfactor: 100}},
		Output:   Output{Interval: 1e9},
	}
}

// DefaultCosts are the CPU prices used unless a scenario overrides them.
func DefaultCosts() Costs {
	const us = 1000
	return Costs{
		Statement:       25 * us,
		ClientRoundTrip: 15 * us,
		BufferHit:       150,
		SweepStep:       8,
		OSRead:          2 * us,
		OSWrite:         3 * us,
		IndexLevel:      300,
		TupleFetch:      300,
		TupleUpdate:     1500,
		IndexInsert:     1000,
		WALRecord:       500,
		Commit:          5 * us,
	}
}

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
	if p.Threads > p.Clients {
		return &strictyaml.FieldError{Path: "threads", Msg: fmt.Sprintf("%d threads for %d clients (pgbench requires threads <= clients)", p.Threads, p.Clients)}
	}
	return nil
}

// ResolveVersionDefaults replaces the "version default" sentinels of
// DefaultScenario (keys whose PostgreSQL default changed between releases)
// by server.version's values. The loader calls it after decoding, so the
// fully defaulted configuration shows the values actually used.
func ResolveVersionDefaults(sc *Scenario) {
	v, err := Version(sc.Server.Version)
	if err != nil {
		return
	}
	s := &sc.Server
	if s.CheckpointCompletionTarget < 0 {
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
	if s.DataChecksums == nil {
		on := v >= 1800
		s.DataChecksums = &on
	}
}
