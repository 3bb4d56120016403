package model

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pgbufsim/pgbufsim/internal/strictyaml"
	"github.com/pgbufsim/pgbufsim/model/storage"
	"github.com/pgbufsim/pgbufsim/policies"
)

// Problem is a scenario error located at a key path (display form, e.g.
// `workload.phases[0].set.aid`); the configuration loader turns it into a
// file:line message.
type Problem struct {
	Path string
	Msg  string
}

func (p Problem) Error() string { return p.Path + ": " + p.Msg }

// Check validates the rules that involve several keys or need the model's
// knowledge (policy registry, script variables, expressions). It does not
// build the database, so it is cheap at any scale.
func Check(sc Scenario) []Problem {
	var ps []Problem
	add := func(path, format string, args ...any) {
		ps = append(ps, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if _, err := Version(sc.Server.Version); err != nil {
		add("server.version", "%v", err)
	}
	checkLogOptions(sc, add)
	if v, err := Version(sc.Server.Version); err == nil && v < 1800 && sc.Server.IOMethod != "" && sc.Server.IOMethod != "sync" {
		add("server.io_method", "io_method %s needs PostgreSQL 18 or later (server.version is %s: every read is synchronous before 18); set server.version: \"18\" or remove io_method", sc.Server.IOMethod, sc.Server.Version)
	}
	if sc.Server.SharedBuffers/8192 < 16 {
		add("server.shared_buffers", "%d buffers is below PostgreSQL's minimum of 16 (128kB)", sc.Server.SharedBuffers/8192)
	}
	if sc.Storage.Data.Preset == "data" {
		add("storage.data.preset", "\"data\" means \"on the data device\" and is only valid for storage.wal (valid: %v, custom)", storage.PresetNames)
	}
	for _, d := range []struct {
		name string
		cfg  DeviceConfig
	}{{"data", sc.Storage.Data}, {"wal", sc.Storage.WAL}} {
		if d.cfg.Preset != "custom" {
			continue
		}
		if d.cfg.Channels < 1 || d.cfg.ReadTime <= 0 || d.cfg.WriteTime <= 0 || d.cfg.SeqTime <= 0 {
			add("storage."+d.name, "a custom device needs channels, read_time, write_time and seq_time (flush_time and jitter may be 0)")
		}
	}
	if spec, err := policies.Lookup(sc.Policies.Replacement.Policy); err != nil {
		add("policies.replacement.name", "%v", err)
	} else if spec.Offline {
		add("policies.replacement.name", "%q needs to know the future, so it only works in trace replay (simulate -trace FILE -policy %s); choose an online policy for a live simulation", spec.Name, spec.Name)
	}
	if t := sc.Server.CheckpointCompletionTarget; t != -1 && t < 0 {
		add("server.checkpoint_completion_target", "%g: the fraction of the checkpoint interval to spread writes over is in [0, 1], or -1 for the version's default", t)
	}
	needPGBench := false
	for _, ph := range sc.Workload.Phases {
		for _, w := range ph.ScriptList() {
			if w.Builtin != "" {
				needPGBench = true
			}
		}
	}
	if needPGBench && sc.Tables.PGBench.Scale < 1 {
		add("tables.pgbench.scale", "a built-in pgbench script needs pgbench tables: set a scale >= 1")
	}
	// Every relation the run creates has a name of its own, as in
	// PostgreSQL (pg_class_relname_nsp_index): pgbench's tables and their
	// primary keys, each declared relation (name_1 .. name_N with count),
	// its primary key (NAME_pkey), and the system catalogs. Groups (count
	// > 1) are checked by their pattern, not name by name.
	type claimant struct{ by, key string } // who names the relation, at which key ("" for the catalogs)
	owner := map[string]claimant{sysCatalogName: {by: "the system catalogs"}}
	claim := func(name, by, key string) {
		if prev, ok := owner[name]; ok {
			add(key, "relation %q is %s and also %s: relation names must differ (rename one)", name, prev.by, by)
			return
		}
		owner[name] = claimant{by, key}
	}
	if sc.Tables.PGBench.Scale > 0 {
		for _, n := range []string{"pgbench_accounts", "pgbench_branches", "pgbench_tellers", "pgbench_history", "pgbench_accounts_pkey", "pgbench_branches_pkey", "pgbench_tellers_pkey"} {
			claim(n, "a pgbench table or index (tables.pgbench)", "tables.pgbench.scale")
		}
	}
	type group struct {
		prefix, by, key string
		n               int
		index           bool
	}
	var groups []group
	for i, tc := range sc.Tables.Relations {
		at := "tables.relations[" + strconv.Itoa(i) + "]"
		by := at + " (" + tc.Name + ")"
		if tc.Count > 1 {
			for _, g := range groups {
				if g.prefix == tc.Name {
					add(at+".name", "relations %q_1.. are %s and also %s: relation names must differ (rename one)", tc.Name, g.by, by)
				}
			}
			groups = append(groups, group{tc.Name, by, at + ".name", tc.Count, tc.Index})
		} else {
			claim(tc.Name, by, at+".name")
			if tc.Index {
				claim(tc.Name+"_pkey", by+"'s primary key", at+".name")
			}
		}
		if _, _, err := tableLayout(tc); err != nil {
			add(at+".row_width", "%v", err)
		}
	}
	// inGroup reports whether name is one of g's relations.
	inGroup := func(name string, g group) bool {
		member := func(n string) bool { // n is prefix_i, 1 <= i <= g.n
			num, ok := strings.CutPrefix(n, g.prefix+"_")
			if !ok || num == "" || num[0] == '0' {
				return false
			}
			m, err := strconv.Atoi(num)
			return err == nil && m >= 1 && m <= g.n
		}
		if member(name) {
			return true
		}
		base, isKey := strings.CutSuffix(name, "_pkey")
		return isKey && g.index && member(base)
	}
	for _, name := range slices.Sorted(maps.Keys(owner)) {
		for _, g := range groups {
			if inGroup(name, g) {
				key := owner[name].key
				if key == "" {
					key = g.key
				}
				add(key, "relation %q is %s and also one of %s: relation names must differ (rename one)", name, owner[name].by, g.by)
			}
		}
	}
	if _, err := EstimateRun(sc); err != nil {
		if pe, ok := err.(Problem); ok {
			ps = append(ps, pe)
		} else {
			add("tables", "%v", err)
		}
	}
	// The kernel keeps background writeback below the dirty limit by
	// quietly halving it (mm/page-writeback.c domain_dirty_limits: bg_thresh
	// >= thresh -> thresh / 2); a simulator input that would be changed
	// behind the user's back is refused instead.
	if o := sc.OS; o.PageCache > 0 {
		bg, lim := float64(o.PageCache)*o.DirtyBackgroundRatio/100, float64(o.PageCache)*o.DirtyRatio/100
		bgKey, limKey := "os.dirty_background_ratio", "os.dirty_ratio"
		if o.DirtyBackgroundBytes > 0 {
			bg, bgKey = float64(o.DirtyBackgroundBytes), "os.dirty_background_bytes"
		}
		if o.DirtyBytes > 0 {
			lim, limKey = float64(o.DirtyBytes), "os.dirty_bytes"
		}
		if lim > 0 && bg >= lim {
			add(bgKey, "background writeback would start at %s of dirty pages, not below the %s throttling limit (%s); the kernel would silently use half the limit instead: set it below %s", SizeText(int64(bg)), limKey, SizeText(int64(lim)), limKey)
		}
	}
	if len(sc.Workload.Phases) == 0 {
		add("workload.phases", "the scenario has no phase to run")
	}
	names := map[string]int{}
	for i, ph := range sc.Workload.Phases {
		at := "workload.phases[" + strconv.Itoa(i) + "]"
		if j, dup := names[ph.Name]; dup {
			add(at+".name", "phase name %q is already used by workload.phases[%d]; phase names must be unique", ph.Name, j)
		}
		names[ph.Name] = i
		if v, err := Version(sc.Server.Version); err == nil && v < 1500 && ph.RandomSeed != nil {
			add(at+".random_seed", "replaying pgbench's random sequence needs server.version 15 or later (pgbench's pg_prng); pgbench %s drew from erand48 states, which the simulator does not reproduce: leave random_seed out (the phase then draws from the scenario's seed)", sc.Server.Version)
		}
		if ph.Restart && sc.Server.Autovacuum {
			add(at+".restart", "a restart needs server.autovacuum: false (it would terminate running autovacuum workers, which the model does not do); turn autovacuum off, or run a vacuum step instead")
		}
		if err := ph.Validate(); err != nil {
			if fe, ok := err.(*strictyaml.FieldError); ok {
				add(at+"."+fe.Path, "%s", fe.Msg)
			} else {
				add(at, "%v", err)
			}
		}
		if _, err := phaseScripts(ph, sc, nil); err != nil {
			if pe, ok := err.(Problem); ok {
				add(at+"."+pe.Path, "%s", pe.Msg)
			} else {
				add(at+".script", "%v", err)
			}
		}
	}
	return ps
}

// checkLogOptions checks the pgbench log options as pgbench's main does
// (with its messages), and the log prefix as a plain file name.
func checkLogOptions(sc Scenario, add func(path, format string, args ...any)) {
	o := sc.Output
	if o.Progress%sec != 0 {
		add("output.progress", "%s: pgbench -P reports every whole number of seconds", time.Duration(o.Progress))
	}
	if o.ProgressTimestamp && o.Progress == 0 {
		add("output.progress_timestamp", "--progress-timestamp is allowed only under --progress (set output.progress)")
	}
	if !validLogPrefix(o.LogPrefix) {
		add("output.log_prefix", "%q is not a plain file name: use letters, digits, _ . and - (not starting with . or -)", o.LogPrefix)
	}
	if o.SamplingRate > 0 && !o.PGBenchLog {
		add("output.sampling_rate", "log sampling (--sampling-rate) is allowed only when logging transactions (set output.pgbench_log: true)")
	}
	if o.AggregateInterval == 0 {
		return
	}
	if !o.PGBenchLog {
		add("output.aggregate_interval", "log aggregation is allowed only when actually logging transactions (set output.pgbench_log: true)")
	}
	if o.SamplingRate > 0 {
		add("output.sampling_rate", "log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
	}
	if o.AggregateInterval%sec != 0 {
		add("output.aggregate_interval", "%s: pgbench aggregates over a whole number of seconds", time.Duration(o.AggregateInterval))
		return
	}
	agg := o.AggregateInterval / sec
	for i, ph := range sc.Workload.Phases {
		if ph.Duration == 0 || ph.Warmup && !o.LogWarmup {
			continue
		}
		d := ph.Duration / sec
		switch {
		case agg > d:
			add(fmt.Sprintf("workload.phases[%d].duration", i), "number of seconds for aggregation (%d) must not be higher than test duration (%d)", agg, d)
		case ph.Duration%sec != 0 || d%agg != 0:
			add(fmt.Sprintf("workload.phases[%d].duration", i), "duration (%s) must be a multiple of aggregation interval (%d s)", time.Duration(ph.Duration), agg)
		}
	}
}

// validLogPrefix reports whether a log prefix is a plain file name.
func validLogPrefix(p string) bool {
	if p == "" || len(p) > 100 || p[0] == '.' || p[0] == '-' {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
