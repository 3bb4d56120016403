package model

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/model/btree"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/heap"
	"github.com/pgbufsim/pgbufsim/policies"
)

// MaxPages is the largest number of page ids a run can hold: pages are
// numbered with int32 ids (catalog.GID), in chunks of catalog.ChunkPages
// per relation, with an eighth more reserved for growth. 2^31 pages of
// 8 kB are 16 TB.
const MaxPages = math.MaxInt32

// Estimate is what a scenario will need before it runs: the page-id space
// of its relations and the memory of the model's state, per part, so that
// an impossible run is refused before anything is allocated.
type Estimate struct {
	// Pages is the page-id space the relations take (whole chunks),
	// Reserved the space allocated at start (Pages plus room to grow).
	Pages, Reserved int64
	// Bytes is the estimated peak memory of the run; Parts breaks it down,
	// largest first.
	Bytes int64
	Parts []EstimatePart
	// SharedPrewarm is the memory of a kept copy of the run's prewarm
	// (prewarmshare.go: the pool with its policy's state, the page-to-
	// buffer map and the page cache's order), which a sweep holds beside
	// its runs while later runs still need it; 0 without a prewarm.
	SharedPrewarm int64
}

// EstimatePart is one component of an Estimate.
type EstimatePart struct {
	// Key is the configuration key that drives this part (to name in a
	// refusal: "lower this key").
	Key   string
	What  string
	Bytes int64
}

// Measured costs of the model's state (docs/performance.md "Memory"):
// per page id of the reserved space (full-page-image cycle, buffer mapping,
// OS page cache LRU links, flags and dirty time), per heap block (page
// state index and all-visible bit), per buffer slot besides the policy's
// own (tag, flags, LSN, pins, free list, I/O waiters), per client backend
// (backend, client and their random streams, without snapshots and hint
// cache), per snapshot entry, per time-series value (kept and rendered),
// and the fixed cost of the process (runtime, chart assets, histograms).
const (
	bytesPerPageID    = 26
	bytesPerHeapBlock = 7
	bytesPerSlot      = 28
	bytesPerBackend   = 4352
	// bytesPerBitmapEntry is an item of a bitmap heap scan's bitmap
	// (bmEntry: a block and a row).
	bytesPerBitmapEntry = 16
	// a backend's catalog work list: up to a few hundred pages and ops
	bytesPerBackendCatalog = 1024
	bytesPerXipEntry       = 4
	bytesPerSeriesCell     = 40
	bytesFixed             = 48 << 20
)

// EstimateRun computes the page-id space and memory a scenario will need.
// It reads only the scenario (no table is built), so it is cheap at any
// scale. The error reports a page-id space that does not fit.
func EstimateRun(sc Scenario) (Estimate, error) {
	ResolveVersionDefaults(&sc)
	ver, err := Version(sc.Server.Version)
	if err != nil {
		return Estimate{}, err
	}
	var est Estimate
	add := func(key, what string, b float64) {
		if b >= 1 {
			est.Parts = append(est.Parts, EstimatePart{Key: key, What: what, Bytes: int64(math.Min(b, math.MaxInt64/4))})
		}
	}
	perVM := int64(heapPerVMPage(ver))
	chunks := func(blocks int64) int64 {
		return (blocks + catalog.ChunkPages - 1) / catalog.ChunkPages * catalog.ChunkPages
	}
	var rels []relSize
	var bitmapBytes float64 // the largest bitmap one backend can build, for bitmapKey's table
	var bitmapKey string
	if s := int64(sc.Tables.PGBench.Scale); s > 0 {
		ff := sc.Tables.PGBench.Fillfactor
		for _, t := range []struct {
			rows  int64
			tuple int
			fill  int
			pkey  bool
		}{{accountsPerScale * s, accountsTuple, ff, true}, {tellersPerScale * s, tellersTuple, ff, true}, {branchesPerScale * s, branchesTuple, ff, true}, {0, historyTuple, 100, false}} {
			per, _, err := heap.LayoutTuple(t.tuple, t.fill)
			if err != nil {
				return Estimate{}, err
			}
			r := relSize{key: "tables.pgbench.scale", heap: (t.rows + int64(per) - 1) / int64(per), count: 1}
			if t.pkey {
				r.index = int64(btree.New(max(t.rows, 1)).NBlocks())
			}
			rels = append(rels, r)
		}
	}
	for i, tc := range sc.Tables.Relations {
		per, _, err := tableLayout(tc)
		if err != nil {
			return Estimate{}, err
		}
		rows := tc.Rows
		if tc.Pages > 0 {
			rows = tc.Pages * int64(per)
		}
		key := "tables.relations[" + strconv.Itoa(i) + "]"
		switch {
		case tc.Pages > 0:
			key += ".pages"
		case tc.Count > 1:
			key += ".count"
		default:
			key += ".rows"
		}
		r := relSize{key: key, heap: (rows + int64(per) - 1) / int64(per), count: int64(tc.Count)}
		if tc.Index {
			bt := btree.New(max(rows, 1))
			r.index = int64(bt.NBlocks())
			if tc.LoadOrder == "random" {
				// A range of its key can be read by a bitmap heap scan,
				// whose bitmap a backend holds whole (bitmapscan.go: an
				// entry per index item, a block number per page).
				n := largestBitmapRange(float64(r.heap), float64(max(rows, 1)), float64(r.index), float64(bt.Height()-1))
				if b := float64(n)*bytesPerBitmapEntry + float64(min(n, r.heap))*4; b > bitmapBytes {
					bitmapBytes, bitmapKey = b, key
				}
			}
		}
		rels = append(rels, r)
	}
	byKey := map[string]float64{}
	var heapBlocks, pages float64
	for _, r := range rels {
		vm := int64(0)
		if r.heap > 0 {
			vm = (r.heap + perVM - 1) / perVM
		}
		// The free space map fork takes a chunk too (its pages for up to
		// 16 M heap pages fit one).
		fsm := int64(0)
		if r.heap > 0 {
			fsm = int64(fsmLeafBlock(int32(min(r.heap-1, math.MaxInt32)/fsmSlotsPerPage))) + 1
		}
		space := chunks(r.heap) + chunks(vm) + chunks(fsm)
		if r.index > 0 {
			space += chunks(r.index)
		}
		// Saturating: a sum past the id space is refused below anyway.
		p := float64(space) * float64(r.count)
		byKey[r.key] += p
		heapBlocks += float64(r.heap) * float64(r.count)
		pages += p
	}
	pages += catalog.ChunkPages // pg_xact
	if sc.Server.SystemCatalogs {
		// pg_catalog (syscatalog.go): the core and the regions outside
		// it, and the user relations' rows, which grow with their number.
		var n int64
		for _, r := range rels {
			n += r.count
			if r.index > 0 {
				n += r.count
			}
		}
		_, _, _, sys := sysCatalogLayout(n)
		pages += float64(chunks(sys) + catalog.ChunkPages) // and pg_global
	}
	if need := pages + max(pages/8, 64*1024); need > MaxPages {
		key, worst := "", 0.0
		for _, k := range sortedKeys(byKey) {
			if byKey[k] > worst {
				key, worst = k, byKey[k]
			}
		}
		return est, Problem{Path: key, Msg: fmt.Sprintf("the relations need %.3g page ids (%s of 8 kB pages, allocated in chunks of %d per relation), %.3g with an eighth to grow, more than the %d (16 TB) a run can address; make the tables smaller or fewer",
			pages, sizeText(pages*8192), catalog.ChunkPages, need, MaxPages)}
	}
	est.Pages = int64(pages)
	est.Reserved = est.Pages + max(est.Pages/8, 64*1024)
	for _, k := range sortedKeys(byKey) {
		add(k, "per-page state of the relations (buffer mapping, page cache, page ids)", byKey[k]*(1+1.0/8)*bytesPerPageID)
	}
	add(firstKey(rels), "heap page states", heapBlocks*bytesPerHeapBlock)

	nbuf := float64(sc.Server.SharedBuffers / 8192)
	policyBytes := 64.0
	if spec, err := policies.Lookup(sc.Policies.Replacement.Policy); err == nil && spec.BytesPerSlot > 0 {
		policyBytes = float64(spec.BytesPerSlot)
	}
	add("server.shared_buffers", "buffer descriptors and the replacement policy's state", nbuf*(bytesPerSlot+policyBytes))
	if sc.Costs.BufferFirstUse > 0 {
		add("costs.buffer_first_use", "the map of the buffers used since the server started", nbuf/8)
	}
	if sc.Workload.Prewarm > 0 {
		// Tag, flags, LSN and pins per buffer (17 bytes) and the policy's,
		// 4 bytes per page id of the buffer map, 4 per page-cache page.
		cached := min(float64(sc.OS.PageCache/8192), float64(est.Reserved))
		est.SharedPrewarm = int64(nbuf*(17+policyBytes) + float64(est.Reserved)*4 + cached*4)
	}

	hint := 0.0
	if hc := sc.Policies.HintCache; hc.Enabled {
		hint = float64(hc.Size) * float64(hc.BlockXids) / 8
	}
	if sc.Server.SystemCatalogs {
		// Each backend remembers the relations it has opened (one byte per
		// table) and keeps its catalog work's page list (syscatalog.go).
		var tables int64
		for _, r := range rels {
			tables += r.count
		}
		hint += float64(tables) + bytesPerBackendCatalog
	}
	var seconds float64
	for i, ph := range sc.Workload.Phases {
		key := "workload.phases[" + strconv.Itoa(i) + "].clients"
		c := float64(ph.Clients)
		add(key, "client backends and their hint caches", c*(bytesPerBackend+hint))
		if sc.Costs.BufferFirstTouch > 0 {
			add(key, "each backend's map of the buffers it has touched (costs.buffer_first_touch)", c*nbuf/8)
		}
		if sc.Costs.BufferMapFault > 0 {
			add(key, "each backend's map of the 64 kB of buffers it has mapped (costs.buffer_map_fault)", c*nbuf/(8*faultAroundSlots))
		}
		if bitmapBytes > 0 {
			add(key, "bitmap heap scans' bitmaps (ranges of "+bitmapKey[:strings.LastIndex(bitmapKey, ".")]+", loaded in random order)", c*bitmapBytes)
		}
		// Each backend's snapshot can come to list every running xid of
		// the phase (GetSnapshotData's xip array): quadratic in clients.
		add(key, "snapshots (they grow during the run)", c*(c+float64(sc.Server.AutovacuumMaxWorkers))*bytesPerXipEntry)
		d := float64(ph.Duration) / 1e9
		if ph.Duration == 0 && ph.Rate > 0 {
			d = float64(ph.Transactions) * c / ph.Rate
		}
		seconds += d + float64(ph.Pause)/1e9
		if o := sc.Output; o.PGBenchLog && (!ph.Warmup || o.LogWarmup) {
			switch {
			case o.AggregateInterval > 0:
				add("output.aggregate_interval", "the aggregated pgbench logs, kept until the end", d*1e9/float64(o.AggregateInterval)*float64(min(ph.Threads, ph.Clients))*160)
			case ph.Rate > 0:
				rate := o.SamplingRate
				if rate == 0 {
					rate = 1
				}
				add("output.pgbench_log", "the pgbench logs, kept until the end", d*ph.Rate*rate*48)
			}
		}
	}
	if sc.Output.Interval > 0 {
		add("output.interval", "the time series, kept and rendered", seconds*1e9/float64(sc.Output.Interval)*float64(len(seriesColumns)+2)*bytesPerSeriesCell)
	}
	add("", "the process itself (runtime, charts, histograms)", bytesFixed)
	sort.SliceStable(est.Parts, func(i, j int) bool { return est.Parts[i].Bytes > est.Parts[j].Bytes })
	for _, p := range est.Parts {
		est.Bytes += p.Bytes
		if est.Bytes > math.MaxInt64/4 {
			est.Bytes = math.MaxInt64 / 4
		}
	}
	return est, nil
}

// Driver returns the configuration key of the estimate's largest part.
func (est Estimate) Driver() EstimatePart {
	for _, p := range est.Parts {
		if p.Key != "" {
			return p
		}
	}
	return EstimatePart{}
}

// relSize is one declared relation's size for the estimate.
type relSize struct {
	key                string
	heap, index, count int64
}

func firstKey(rels []relSize) string {
	if len(rels) == 0 {
		return "tables"
	}
	return rels[0].key
}

func sortedKeys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// sizeText renders bytes with a binary unit.
func sizeText(b float64) string {
	for _, u := range []string{"B", "kB", "MB", "GB", "TB", "PB"} {
		if b < 1024 || u == "PB" {
			return strconv.FormatFloat(b, 'f', 1, 64) + " " + u
		}
		b /= 1024
	}
	return ""
}

// SizeText renders a byte count as PostgreSQL writes sizes (1.5 GB).
func SizeText(b int64) string { return sizeText(float64(b)) }
