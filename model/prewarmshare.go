package model

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/oscache"
	"github.com/pgbufsim/pgbufsim/policies"
)

// Sharing a prewarm among runs. A long prewarm (workload.prewarm, a few
// million transactions replayed through the pool: prewarm.go) is most of
// the wall time of a short run over a large database, and a sweep repeats
// it for every point although most axes (the background writer, the
// checkpointer, storage, costs, I/O settings) cannot change it: the
// prewarm moves no simulated time for any process, writes nothing and
// makes no I/O, so what it leaves behind (the buffer pool with its
// replacement policy's state, and the OS page cache) depends only on the
// tables, the pool, the page cache's size, the first phase's transactions
// and the seed. PrewarmKey names that; a PrewarmShare computes the state
// once per key and copies it into every run with the same key. A copied
// run gives the same bytes as one that prewarmed itself
// (TestSharedPrewarmGivesTheSameRun).

// PrewarmKey identifies what a run's prewarm leaves behind: two scenarios
// with the same key leave the same pool and page cache. It is a hash of
// the scenario (version defaults resolved) without the keys that the
// prewarm cannot see; TestPrewarmKeyIgnoresOnlyWhatThePrewarmCannotSee
// checks, key by key, that each of those leaves the prewarmed state
// unchanged. A key added to the scenario is part of the hash unless it is
// listed here, so a new key can only cost sharing, never correctness.
func PrewarmKey(sc Scenario) string {
	ResolveVersionDefaults(&sc)
	// The seed and the replicate derive the prewarm's keys: kept.
	sc.Name, sc.Sweep = "", nil
	sc.Output = Output{}
	sc.Costs, sc.CostsFile = Costs{}, ""
	sc.Storage = Storage{}
	s := &sc.Server
	s.CPUs = 0
	s.BgwriterDelay, s.BgwriterLRUMaxpages, s.BgwriterLRUMultiplier, s.BgwriterFlushAfter = 0, 0, 0, 0
	s.CheckpointTimeout, s.CheckpointCompletionTarget, s.CheckpointFlushAfter = 0, 0, 0
	s.MaxWALSize, s.CheckpointSegments = 0, 0
	s.FullPageWrites, s.WALLogHints, s.SynchronousCommit, s.WALWriterDelay = false, false, false, 0
	s.WALBuffers, s.WALWriterFlushAfter = 0, 0
	s.AutovacuumNaptime, s.AutovacuumMaxWorkers = 0, 0
	s.AutovacuumVacuumThreshold, s.AutovacuumVacuumScaleFactor, s.AutovacuumVacuumMaxThreshold = 0, 0, 0
	s.AutovacuumVacuumInsertThreshold, s.AutovacuumVacuumInsertScaleFactor = 0, 0
	s.AutovacuumAnalyzeThreshold, s.AutovacuumAnalyzeScaleFactor = 0, 0
	s.AutovacuumVacuumCostDelay, s.VacuumCostLimit = 0, 0
	s.VacuumCostPageHit, s.VacuumCostPageMiss, s.VacuumCostPageDirty = 0, 0, 0
	s.VacuumBufferUsageLimit, s.IOCombineLimit, s.IOMethod, s.IOWorkers = 0, 0, "", 0
	s.EffectiveIOConcurrency, s.MaintenanceIOConcurrency = 0, 0
	sc.OS = OS{PageCache: sc.OS.PageCache, Start: sc.OS.Start}
	sc.Policies.HintCache = policies.HintCacheParams{}
	sc.Policies.AllVisible = policies.AllVisibleParams{}
	phases := make([]Phase, len(sc.Workload.Phases))
	copy(phases, sc.Workload.Phases)
	for i := range phases {
		phases[i].Duration, phases[i].Transactions, phases[i].LatencyLimit = 0, 0, 0
		phases[i].Name = ""
		if i > 0 {
			phases[i].Clients, phases[i].Threads, phases[i].Rate = 0, 0, 0
		}
	}
	sc.Workload.Phases = phases
	b, err := json.Marshal(sc)
	if err != nil {
		// Every scenario the loader accepts encodes; one that does not
		// gets a key of its own and is never shared.
		return "unshared:" + err.Error()
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// PrewarmShare lets runs with the same PrewarmKey share one prewarm: the
// first run to need it prewarms and keeps a copy of its pool and page
// cache; the others copy that instead of prewarming. Runs may use one
// share from several goroutines at once (a sweep's -parallel); a run
// itself stays single-threaded. A share keeps each state until its
// expected users have all taken it (Expect), or for as long as the share
// lives when no use was announced.
type PrewarmShare struct {
	mu      sync.Mutex
	entries map[string]*prewarmEntry
	// Counters: prewarms computed, and runs that copied one.
	computed, copied int
	// dir, when set, keeps the prewarms on disk across processes
	// (prewarmcache.go); read and written count its files, notes says
	// why one was not used or not written.
	dir           string
	read, written int
	notes         []string
}

type prewarmEntry struct {
	mu       sync.Mutex // held while the state is computed
	state    *prewarmState
	expected int // runs announced by Expect; 0 = not announced
	used     int
}

// prewarmState is what a prewarm leaves behind, kept apart from any run.
type prewarmState struct {
	pool *bufpool.Pool
	os   *oscache.LRU
	// What the copy must match, checked before copying: a mismatch means
	// the key missed something, and the run prewarms itself instead.
	gidSpace  int32
	relations int
	policy    string
}

// NewPrewarmShare returns an empty share.
func NewPrewarmShare() *PrewarmShare {
	return &PrewarmShare{entries: map[string]*prewarmEntry{}}
}

// NewPrewarmCache returns an empty share that also keeps its prewarms in
// dir, for later processes (simulate -prewarm-cache DIR): a run whose
// prewarm is there reads it instead of prewarming (prewarmcache.go).
func NewPrewarmCache(dir string) *PrewarmShare {
	return &PrewarmShare{entries: map[string]*prewarmEntry{}, dir: dir}
}

// Files returns how many prewarms the share read from its directory and
// how many it wrote there, and what it could not use or write, one
// sentence each.
func (s *PrewarmShare) Files() (read, written int, notes []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read, s.written, append([]string(nil), s.notes...)
}

func (s *PrewarmShare) note(read, written bool, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if read {
		s.read++
	}
	if written {
		s.written++
	}
	if msg != "" {
		s.notes = append(s.notes, msg)
	}
}

// Expect announces a run of sc, so that the share keeps sc's prewarm only
// while runs still need it, and only when more than one will. Calling it
// is optional; a sweep calls it for every run before starting them. It
// returns sc's PrewarmKey, or "" when sc has no prewarm.
func (s *PrewarmShare) Expect(sc Scenario) string {
	if sc.Workload.Prewarm <= 0 {
		return ""
	}
	key := PrewarmKey(sc)
	s.mu.Lock()
	defer s.mu.Unlock()
	ent := s.entries[key]
	if ent == nil {
		ent = &prewarmEntry{}
		s.entries[key] = ent
	}
	ent.expected++
	return key
}

// Counts returns how many prewarms the share computed and how many runs
// copied one instead.
func (s *PrewarmShare) Counts() (computed, copied int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.computed, s.copied
}

// Keys returns the number of distinct prewarms among the announced runs.
func (s *PrewarmShare) Keys() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}

// sharedPrewarm is the prewarm of a run with a share: it copies the
// key's state if there is one, or prewarms and keeps a copy for the runs
// to come. It returns false if the run was interrupted.
func (e *engine) sharedPrewarm(s *PrewarmShare, n int64) (bool, error) {
	key := PrewarmKey(e.sc)
	s.mu.Lock()
	ent := s.entries[key]
	if ent == nil {
		ent = &prewarmEntry{}
		s.entries[key] = ent
	}
	s.mu.Unlock()
	ent.mu.Lock()
	defer ent.mu.Unlock()
	defer s.release(key, ent)
	if ent.state == nil && s.dir != "" {
		st, err := e.readPrewarmFile(s.dir, key)
		switch {
		case err == nil && e.fitsPrewarm(st):
			ent.state = st
			s.note(true, false, "")
		case err == nil:
			s.note(false, false, fmt.Sprintf("prewarm cache: %s does not fit this run: prewarming", prewarmFile(s.dir, key)))
		case !errors.Is(err, errNoPrewarmFile):
			s.note(false, false, fmt.Sprintf("prewarm cache: %v: prewarming", err))
		}
	}
	if ent.state != nil && e.fitsPrewarm(ent.state) {
		if err := e.copyPrewarm(ent.state); err != nil {
			return false, fmt.Errorf("copying the shared prewarm (a bug; please report it): %v", err)
		}
		s.count(false)
		if e.opt.ProgressLine != nil && e.sc.Output.Progress > 0 {
			e.opt.ProgressLine(fmt.Sprintf("prewarm: %d transactions, copied from an earlier run with the same prewarm", n))
		}
		e.prewarmDone(n)
		return true, nil
	}
	if e.sc.OS.Start == "loaded" {
		e.loadPageCache()
	}
	if !e.prewarmReferences(n) {
		return false, nil
	}
	s.count(true)
	keep := ent.state == nil && (ent.expected == 0 || ent.used+1 < ent.expected)
	if keep || s.dir != "" {
		// Kept only when a later run will use it: a failure to save
		// (a policy that cannot copy its state) just means no sharing.
		st, err := e.savePrewarm()
		if err == nil && s.dir != "" {
			if werr := writePrewarmFile(s.dir, key, st); werr != nil {
				s.note(false, false, fmt.Sprintf("prewarm cache: not written: %v", werr))
			} else {
				s.note(false, true, "")
			}
		} else if err != nil && s.dir != "" {
			s.note(false, false, fmt.Sprintf("prewarm cache: not written: %v", err))
		}
		if keep {
			ent.state = st
		}
	}
	e.prewarmDone(n)
	return true, nil
}

func (s *PrewarmShare) count(computed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if computed {
		s.computed++
	} else {
		s.copied++
	}
}

// release notes one use of the entry and drops its state once every
// announced run has had it.
func (s *PrewarmShare) release(key string, ent *prewarmEntry) {
	ent.used++
	if ent.expected > 0 && ent.used >= ent.expected {
		ent.state = nil
		s.mu.Lock()
		delete(s.entries, key)
		s.mu.Unlock()
	}
}

// savePrewarm copies the prewarmed pool and page cache out of the run.
func (e *engine) savePrewarm() (*prewarmState, error) {
	lru, err := e.os.SaveLRU()
	if err != nil {
		return nil, err
	}
	repl, _, err := e.sc.Policies.Replacement.Build()
	if err != nil {
		return nil, err
	}
	pool := bufpool.New(e.pool.N, repl, e.ver <= 1800)
	if err := pool.CopyStateFrom(e.pool); err != nil {
		return nil, err
	}
	return &prewarmState{pool: pool, os: lru, gidSpace: e.cat.GIDSpace(), relations: e.cat.NumRelations(), policy: e.policy}, nil
}

// fitsPrewarm checks that st was made for a run like this one (the same
// relations, pool and policy); a mismatch would mean PrewarmKey missed a
// key, and the run then prewarms itself.
func (e *engine) fitsPrewarm(st *prewarmState) bool {
	return st.gidSpace == e.cat.GIDSpace() && st.relations == e.cat.NumRelations() &&
		st.policy == e.policy && st.pool.N == e.pool.N && (e.ver <= 1800) == st.pool.HaveFreeList()
}

// copyPrewarm makes the run's pool and page cache those of st, as though
// the run had prewarmed itself (after build, before any process starts).
func (e *engine) copyPrewarm(st *prewarmState) error {
	if err := e.os.RestoreLRU(st.os); err != nil {
		return err
	}
	if err := e.pool.CopyStateFrom(st.pool); err != nil {
		return err
	}
	e.stats = pgStats{}
	return nil
}
