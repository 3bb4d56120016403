package model

import (
	"fmt"
	"math"

	"github.com/pgbufsim/pgbufsim/model/bufpool"
	"github.com/pgbufsim/pgbufsim/model/catalog"
	"github.com/pgbufsim/pgbufsim/model/clog"
	"github.com/pgbufsim/pgbufsim/model/heap"
	"github.com/pgbufsim/pgbufsim/policies"
)

// A backend is one client connection's server process, written as a state
// machine: it runs a transaction's ops until it must wait (CPU, a client
// round trip, a read, another backend's read, the strategy lock, a WAL
// flush, a throttled write, its rate schedule), accumulating CPU cost
// between waits. Before each wait it takes one CPU burst of the accumulated
// cost on the shared CPU cores, so a buffer hit costs no event of its own.

// Event codes (sim.Handler arg).
const (
	evCPU         = iota // CPU burst done: start the pending wait
	evResume             // the wait is over
	evLockRelease        // strategy-lock hold time over
	evWake               // another backend's read of our page finished
	evClientDone         // the client program's CPU for the next statement is done
)

// Wait kinds.
const (
	wNone           = iota
	wRTT            // client round trip
	wIOWait         // another backend is reading the page
	wLock           // queue for the strategy lock (<= 9.4)
	wLockHold       // hold the strategy lock for the victim search
	wWALFlush       // XLogFlush
	wWALSegmentSync // XLogWrite's fsync of the WAL segment it finished writing
	wOSWrite        // pwrite into the OS cache (may be throttled)
	wRead           // pread through the OS cache
	wSleepUntil     // rate-limit schedule, \sleep, vacuum cost delay
	wCheckpoint     // CHECKPOINT: until the requested checkpoint ends
	wCPU            // only the CPU burst (a time slice, or the end of a transaction)
	wRowLock        // another transaction holds the row (XactLockTableWait)
	wClient         // the client program's CPU, on its pgbench thread
	wExtLock        // another backend holds the relation's extension lock
	wReadV          // a read stream's preadv of several blocks through the OS cache
	wSmgrRead       // smgrread of a block into private memory (pg_prewarm's read mode)
)

// cpuQuantum bounds one CPU burst: a backend doing long CPU-only work (a
// scan of cached pages) gives the core back at page boundaries after this
// much, like a time slice, so concurrent backends share the cores.
const cpuQuantum = 1 * 1000 * 1000

// Pin-flow stages (ReadBuffer / BufferAlloc / GetVictimBuffer).
const (
	psNone = iota
	psLookup
	psIOWait
	psVictim
	psVictimLocked
	psVictimChosen
	psVictimWrite
	psVictimWritten
	psAssign
	psExtendWritten
	psRead
)

type backend struct {
	// The command running (op.cmdNo) and when it began, for pgbench -r.
	curCmd int16
	// id is the backend's number (its place in e.backends), here to fill
	// curCmd's padding: a backend with its allocation header stays in
	// the 2048-byte size class.
	id       int32
	cmdStart int64
	// execStart is when the running statement's executor began (EXPLAIN
	// ANALYZE's Execution Time: ExecutorStart to ExecutorEnd), stamped at
	// its first step when execStamp is set.
	execStart int64
	execStamp bool
	// dropsFiles: the transaction will unlink relation files at commit
	// (a TRUNCATE's old relfilenode), so its commit flushes the WAL
	// whatever synchronous_commit says (RecordTransactionCommit).
	dropsFiles bool
	// cmdID numbers the transaction's statements from 1 (its command
	// counter, xact.c CommandCounterIncrement): versions a statement
	// writes carry it where its own scan must not see them (heap.Group.Cmd).
	cmdID uint16

	e      *engine
	client *client
	// raFiles is the kernel's readahead state of each segment file this
	// backend has read (mdfiles.go).
	raFiles openFiles

	// transaction program
	ops   []op
	pc    int
	sub   int
	level int
	inTxn bool

	// pin flow
	ps        int
	pinGid    int32
	pinSlot   int32
	pinRing   *bufpool.Ring
	pinExtend bool
	// extBulk: the extension under way is a page of a bulk extension whose
	// mdzeroextend the caller counts (16+); extFallocate: that call
	// fallocates (more than 8 pages), so the page is not written.
	extBulk, extFallocate bool
	// pinForkExt: the access allocates the buffer of a page a fork's
	// ExtendBufferedRelTo added (forkExtended): an extension whose
	// smgrzeroextend was counted with the call's first page.
	pinForkExt bool
	// pinNoRead: the access is a read stream's (StartReadBuffers): it ends
	// with the buffer assigned and its I/O in progress, read by the stream.
	pinNoRead bool
	// stream is the sequential scan's read stream (17+); readvGid and
	// readvN its preadv under way.
	stream  readStream
	aio     aioStream
	vacSlot int32 // VACUUM's page from its stream, and whether the stream read it
	vacMiss bool
	// lpdeadPages are the pages VACUUM's first pass left with LP_DEAD
	// items (in block order), lpdeadItems their count: the second heap
	// pass's work (lazy_vacuum_heap_rel).
	lpdeadPages []int32
	// ANALYZE (analyze.go): the sampled blocks, the next to read and to
	// advise, the live and dead tuples counted so far.
	anBlocks       []int32
	bm             bitmapState // a bitmap heap scan (bitmapscan.go)
	anNext, anPref int
	anLive, anDead int64
	inAnalyze      bool
	// invals counts the transaction's catalog cache invalidation messages,
	// which its commit record carries (ANALYZE's pg_statistic and
	// pg_class updates).
	invals      int
	lpdeadItems int64
	vacIndexes  bool // this VACUUM vacuumed the indexes
	readvGid    int32
	// smgrGid is the block of an smgrread under way (pg_prewarm's read
	// mode: no buffer).
	smgrGid  int32
	readvN   int32
	victim   int32
	ioReady  bool
	nextWait int32 // next backend waiting on the same slot's I/O
	lastMiss bool  // the last completed access read or extended its page
	// victimFromRing: the victim came from the ring's own slot
	victimFromRing bool

	// waiting
	pending int
	blocked bool
	inCPU   bool
	// woke: the next CPU burst starts a statement the backend slept
	// waiting for, or goes on after a heavyweight lock it slept on was
	// granted (it may pay costs.cpu_wakeup).
	woke bool
	// paced: the client's next burst follows its sleep until a scheduled
	// start (pgbench -R), whose lateness costs.client_wakeup already
	// holds, its core's wake included: that burst pays no cpu_wakeup.
	paced     bool
	cpu       int64
	walTarget int64
	// walSegmentSync is the end of a WAL segment this backend finished
	// writing and must fsync before it goes on (0: none).
	walSegmentSync int64
	writeGid       int32
	holdTime       int64
	lockWaited     bool
	wakeAt         int64

	// transaction timing
	scheduled int64
	started   int64
	zeroTxns  int // transactions in a row that took no simulated time
	txNo      int64
	done      bool
	abortThis bool // this execution ends in ROLLBACK (abort_fraction)
	worker    bool // an autovacuum worker, not a client
	apw       bool // pg_prewarm's autoprewarm worker (autoprewarm.go)

	// transaction and visibility state
	xid          uint32
	snap         snapshot
	snapValid    bool
	cachedXid    uint32 // transam.c's one-entry cache (cachedFetchXid)
	cachedStatus clog.Status
	hcache       *policies.HintCache
	commitLSN    int64
	// xactLastRecEnd is the end of the last WAL record the transaction
	// inserted (xlog.c XactLastRecEnd; 0: none yet).
	xactLastRecEnd int64
	csub           int
	pend           []pendStat
	rowLocks       []rowKey
	waitingOn      *rowLock
	lockReady      bool
	extReady       bool // granted the extension lock during a CPU burst
	rowWaited      bool // waited for a row lock: refresh the snapshot (EvalPlanQual)
	// rowRetry: woken by a row lock's holder's end when waiters race
	// (engine.rowRace), it is to lock the row again; recheckDone: its
	// recheck before the lock (costs.row_lock_recheck) is spent.
	rowRetry, recheckDone bool
	clientDone            bool // the client's CPU for the current statement is spent
	undo                  []rowUndo
	hintSets              heap.HintSets // checkPage's scratch sets of xids to hint
	failed                bool

	// the backend's pins (bufmgr.go) and per-relation insertion targets
	held    []int32
	vmPins  []int32 // VM pages pinned by the current heap operation
	touched int     // pages done by touchPages

	// System catalog work done by this connection (syscatalog.go): its
	// start, the relations it has opened, the statement kinds it has
	// planned.
	catConnected bool
	// touchedSlots: the buffer slots this process has accessed, a bit
	// each (firstTouch; nil while costs.buffer_first_touch is 0).
	touchedSlots slotBits
	// mappedSlots: the 64 kB stretches of the buffer pool this process
	// has mapped, a bit each (mapFault; nil while costs.buffer_map_fault
	// is 0).
	mappedSlots slotBits
	// ranExecutor: the process has run the executor (executor_first_run);
	// plansRun: the kinds of plan it has run, a bit each (planFirstRun).
	ranExecutor  bool
	plansRun     [2]uint64
	catSetupDone bool
	catSeen      []uint8 // by table ord: catOpened or catPlanned once its relation work is done
	catPlanned   []int
	catKinds     uint8
	catAnalyzed  bool     // the session ran an ANALYZE (its caches hold what the first one looked up)
	spcCached    bool     // the session's tablespace cache holds the default tablespace (catalogTablespace)
	catLooked    []string // catalog objects the session's plans looked up (pgscript.Lookups)
	catGroups    uint16   // the lookup groups whose pages it has read, a bit each (lookupGroup)
	catOps       []op
	catGids      []int32
	catalogWork  bool // the accesses are connection or planning work (not in buffer_usage)
	targets      []insertTarget
	idxTargets   []idxTarget

	// op progress (keyed statements, scans, inserts, vacuum)
	k                  keyedState
	rowOp              *op // a range's or IN list's UPDATE or DELETE current row, as its keyed statement (changeKey; allocated by the first)
	hio                hioState
	bt                 btState
	btgids             []int32
	probeGids          []int32 // a range plan's get_actual_variable_range pages (rangescan.go)
	chainBuf           []heap.Group
	blk, scanEnd       int32
	ring, bulkread     *bufpool.Ring
	bulkwrite, vacring *bufpool.Ring
	useVM, skipAV      bool
	insPending         bool // beside the other flags: a backend is at most 2040 bytes (Go's allocation header fills its 2048)
	vmHeld, vmSlot     int32
	scanSlot           int32
	scanN, scanDone    int64
	// filterPs is the current scan's filter price per tuple tested, in
	// picoseconds (filterPrice; 0: no filter).
	filterPs              int64
	insSlot, insBlk       int32
	rowsLeft, sinceCommit int64
	horizon               uint32
	filterCarry           int32 // the scan's filter: the fraction of a nanosecond not charged yet (chargeFilter)
	vcost                 int
	fsmGids               []int32
	// waitFrom is when the current wait began (after its CPU burst): an
	// I/O's time is its system call's CPU price plus the wait
	// (noteIOTime).
	waitFrom int64
}

// OnEvent is the backend's sim.Handler.
func (b *backend) OnEvent(arg int64) {
	switch arg {
	case evCPU:
		b.inCPU = false
		b.startWait()
	case evResume:
		b.resume()
	case evLockRelease:
		b.e.stratLock.Release()
		b.resume()
	case evWake:
		b.resume()
	case evClientDone:
		b.client.thread.release()
		b.resume()
	}
}

// yield takes a CPU burst when a time slice's worth of CPU has
// accumulated; ops call it at page boundaries. It reports whether the
// backend blocked (the op must return false and resume at the same point).
func (b *backend) yield() bool {
	if b.cpu < cpuQuantum {
		return false
	}
	b.block(wCPU)
	return true
}

// block starts wait w, after a CPU burst of the accumulated cost if any.
func (b *backend) block(w int) {
	b.pending = w
	b.blocked = true
	if b.cpu > 0 {
		c := b.cpu
		b.cpu = 0
		b.inCPU = true
		b.e.cpuRequest(c, b.id, b.woke, b, evCPU)
		b.woke = false
		return
	}
	b.startWait()
}

func (b *backend) startWait() {
	e := b.e
	b.waitFrom = e.k.Now()
	switch b.pending {
	case wRTT:
		e.k.After(e.costs.ClientRoundTrip, b, evResume)
	case wIOWait:
		if b.ioReady {
			b.ioReady = false
			b.resume()
		}
	case wLock:
		b.lockWaited = false
		if e.stratLock.Acquire(b, evResume) {
			b.resume()
		} else {
			b.lockWaited = true
		}
	case wLockHold:
		e.k.After(b.holdTime, b, evLockRelease)
	case wWALFlush:
		if e.wal.Flush(b.walTarget, b, evResume) {
			b.resume()
		}
	case wWALSegmentSync:
		if e.wal.SyncSegment(b.walTarget, b, evResume) {
			b.resume()
		}
	case wOSWrite:
		if e.os.Write(b.writeGid, b, evResume) {
			b.resume()
		}
	case wRead:
		if e.os.Read(b.pinGid, b.readahead(b.pinGid), b, evResume) {
			b.resume()
		}
	case wReadV:
		if e.os.ReadV(b.readvGid, b.readvN, b.readahead(b.readvGid), b, evResume) {
			b.resume()
		}
	case wSmgrRead:
		if e.os.Read(b.smgrGid, b.readahead(b.smgrGid), b, evResume) {
			b.resume()
		}
	case wSleepUntil:
		e.k.Schedule(b.wakeAt, b, evResume)
	case wCheckpoint:
		// registered with the checkpointer, which resumes us
	case wCPU:
		b.resume()
	case wRowLock:
		if b.lockReady {
			b.lockReady = false
			b.resume()
		}
	case wClient:
		b.client.thread.acquire(b)
	case wExtLock:
		if b.extReady {
			b.extReady = false
			b.resume()
		}
	default:
		panic(fmt.Sprintf("backend %d: unknown wait %d", b.id, b.pending))
	}
}

func (b *backend) resume() {
	b.blocked = false
	b.pending = wNone
	b.advance()
}

// advance runs the current transaction until it blocks or ends.
func (b *backend) advance() {
	e := b.e
	for !b.blocked && !b.done {
		if e.failed() {
			return
		}
		if b.walSegmentSync > 0 {
			// The WAL segment b finished writing is fsynced by b
			// (writeFullWALBuffers), after the CPU of its inserts.
			b.walTarget, b.walSegmentSync = b.walSegmentSync, 0
			if e.wal.NeedsFlush(b.walTarget) {
				b.block(wWALSegmentSync)
				continue
			}
		}
		if !b.inTxn {
			b.beginTxn()
			continue
		}
		if b.pc >= len(b.ops) {
			if b.cpu > 0 {
				b.block(wCPU) // the transaction ends when its CPU work is done
				continue
			}
			if b.worker {
				e.workerDone(b)
				return
			}
			if b.apw {
				b.done = true
				e.removeProc(b)
				return
			}
			b.endTxn()
			continue
		}
		o := &b.ops[b.pc]
		if b.sub == 0 && b.cpu >= cpuQuantum {
			b.block(wCPU)
			continue
		}
		if o.cmdNo != 0 && o.cmdNo != b.curCmd && b.client != nil && b.client.phase.cmdStats != nil {
			if b.cpu > 0 {
				// The CPU still due is the last statement's work: its
				// result is sent after it, and pgbench's clock for the
				// command stops when the result comes (pgbench.c
				// advanceConnectionState, CSTATE_END_COMMAND). The burst
				// is the one block(wClient) would take: the same request
				// at the same instant.
				b.block(wCPU)
				continue
			}
			b.nextCommand(o.cmdNo)
		}
		if b.sub == 0 && o.stmt && e.costs.Client > 0 && !b.clientDone && b.client != nil && !b.worker {
			// pgbench reads the last result and sends this statement
			// (after the backend's own pending CPU).
			b.clientDone = true
			b.block(wClient)
			continue
		}
		if b.sub == 0 {
			b.clientDone = false
			b.sub = 1
			if o.stmt || b.worker {
				b.takeSnapshot() // READ COMMITTED: a snapshot per statement
				if b.cmdID < math.MaxUint16 {
					b.cmdID++
				}
			}
			if o.stmt {
				b.execStamp = true
				// The backend slept until this statement's message came:
				// the burst that starts it may wake a core (cpu_wakeup).
				b.woke = b.client != nil && !b.worker
				b.cpu += e.costs.Statement
				if o.t != nil {
					b.cpu += e.costs.StatementTable
					if scansTable(o) {
						b.cpu += e.costs.StatementScan
					}
				}
				if o.kind == opUpdate || o.kind == opUpdateAll || o.kind == opUpdateRange || o.kind == opUpdateList {
					b.cpu += e.costs.StatementUpdate
				}
				if e.costs.ClientRoundTrip > 0 {
					b.block(wRTT)
					continue
				}
			}
		}
		if b.execStamp {
			// The executor starts after parse and plan (the statement
			// prices, CPU still due) and the round trip.
			b.execStamp = false
			b.execStart = e.k.Now() + b.cpu
			if !b.ranExecutor && planned(o) && e.costs.ExecutorFirstRun > 0 {
				b.ranExecutor = true
				b.cpu += e.costs.ExecutorFirstRun
			}
		}
		if !b.exec(o) {
			if b.blocked {
				return
			}
			continue // the transaction was aborted (deadlock): go to its end
		}
		if o.stmt && b.client != nil {
			b.client.phase.execNS += e.k.Now() + b.cpu - b.execStart
		}
		if len(b.held) > 0 {
			b.releaseAll() // the statement's pins end with it
		}
		e.lastProgress = e.k.Now()
		b.pc++
		b.sub = 0
		b.level = 0
	}
}

// modify WAL-logs a change to the pinned page in slot and dirties it, with
// a full-page image on the page's first change since the checkpoint's redo
// point (XLogRecordAssemble with full_page_writes on).
func (b *backend) modify(slot, gid int32, recBytes int64) {
	e := b.e
	bytes := recBytes
	b.cpu += e.costs.WALRecord
	fpi := uint64(0)
	if e.fullPageWrites && e.fpiCycle[gid] != e.cycle {
		e.fpiCycle[gid] = e.cycle
		bytes += e.fpiBytes(gid)
		e.wal.Stats.FPI++
		fpi = 1
	}
	lsn := b.walInsert(1, bytes, fpi)
	if e.pool.MarkDirty(slot, lsn) {
		e.noteDirtied(b)
	}
}

// fpiBytes is the size of a full-page image of gid in a record
// (XLogRecordAssemble): the page less its hole, the free space between
// pd_lower and pd_upper, which the image leaves out, and the image's
// headers. A heap page's hole is its free tuple slots; a B-tree page's a
// tenth of it, as CREATE INDEX and _bt_split's rightmost splits leave
// leaves at fillfactor 90 (BTREE_DEFAULT_FILLFACTOR); a system catalog
// page (pg_statistic's, the only one the model writes) has
// catalogPageHole bytes free (catalogPageHole18 from 18), the rightmost leaf of its index
// (pg_statistic_relid_att_inh_index, where a new table's entries go) an
// image of walFPIStatisticLeaf; other pages (visibility map) are taken as
// full.
func (e *engine) fpiBytes(gid int32) int64 {
	rel, blk := e.cat.Locate(gid)
	t := e.db.heapTable(rel)
	if rel == e.db.sysCatalog && e.sc.Server.SystemCatalogs {
		if blk == analyzeStatisticLeafPage {
			return walFPIStatisticLeaf
		}
		if e.ver >= 1800 {
			return walFPI - catalogPageHole18
		}
		return walFPI - catalogPageHole
	}
	if t == nil {
		if e.cat.Rel(rel).Kind == catalog.BTree {
			return walFPI - 8192/10
		}
		return walFPI
	}
	slot := int64((8192 - 24) / max(t.heap.MaxRows, 1)) // a tuple and its line pointer
	hole := min(int64(t.heap.Free(blk))*slot, 8192-24)
	return walFPI - max(hole, 0)
}

// modifyN WAL-logs n changes of recBytes each to the pinned page in
// slot, as n calls of modify would (a full-page image with the first).
func (b *backend) modifyN(slot, gid int32, n, recBytes int64) {
	if n <= 0 {
		return
	}
	b.modify(slot, gid, recBytes)
	if n > 1 {
		e := b.e
		b.cpu += (n - 1) * e.costs.WALRecord
		lsn := b.walInsert(n-1, recBytes, 0)
		e.pool.MarkDirty(slot, lsn)
	}
}

// noteVictim remembers whether the victim is the ring's own buffer, for
// pg_stat_io's reuses and evictions (countVictim).
func (b *backend) noteVictim() {
	r := b.pinRing
	b.victimFromRing = r != nil && r.FromRing()
}

// countVictim counts a claimed victim that holds a valid page as a ring's
// reuse of its own buffer or an eviction (pg_stat_io reuses, evictions),
// where GetVictimBuffer does (bufmgr.c, 16+): after the ring's
// StrategyRejectBuffer has passed it and it is written, before the last
// checks that may still give it back (InvalidateVictimBuffer, and
// BufferAlloc finding the page read in meanwhile). A victim the ring
// rejects is neither: the backend takes another buffer, which counts.
func (b *backend) countVictim(s int32) {
	p := b.e.pool
	if p.Tag[s] < 0 || p.Flags[s]&bufpool.Valid == 0 {
		return
	}
	io := &b.e.stats.io[b.backendType()][ringContext(b.pinRing)]
	if b.victimFromRing {
		io.reuses++
	} else {
		io.evictions++
	}
}

// reading says a buffer access blocked and is waiting to be resumed: the
// caller must ask for the same page again, whatever the state it decided
// on has become meanwhile (the decision was taken when the pin started).
func (b *backend) reading() bool { return b.ps != psNone }

// access returns the slot of gid once it is pinned and valid; false means
// the backend blocked and will come back here when the wait is over.
// extend asks for a new, zero-filled page (ReadBuffer(P_NEW)).
// write says whether the caller will modify the page (for the
// page-reference trace only).
func (b *backend) access(gid int32, ring *bufpool.Ring, extend, write bool) (int32, bool) {
	if b.e.err != nil {
		return -1, false // the run has failed: unwind
	}
	if b.ps != psNone && gid != b.pinGid {
		// A blocked access must be resumed for the page it started on
		// (see reading); anything else is a defect of the model, and the
		// run's counters would go to the wrong relation: stop it.
		r1, k1 := b.e.cat.Locate(gid)
		r2, k2 := b.e.cat.Locate(b.pinGid)
		b.e.fail(fmt.Errorf("internal error: backend %d asked for %s block %d while its access to %s block %d is unfinished; please report this with the scenario", b.id, b.e.cat.Rel(r1).Name, k1, b.e.cat.Rel(r2).Name, k2))
		return -1, false
	}
	if b.ps == psNone {
		b.e.accesses++
		b.ps = psLookup
		b.pinForkExt = false
		if len(b.e.forkExtended) > 0 && !extend && b.extendedForkPage(gid) {
			extend, b.pinForkExt = true, true
		}
		b.pinGid, b.pinRing, b.pinExtend = gid, ring, extend
		if f := b.e.pageRef; f != nil {
			rel, blk := b.e.cat.Locate(gid)
			f(b.e.k.Now()-b.e.t0, b.e.cat.Rel(rel).Name, blk, write)
		}
	}
	return b.pinStep()
}

func (b *backend) pinStep() (int32, bool) {
	e := b.e
	p := e.pool
	now := e.k.Now()
	for {
		switch b.ps {
		case psLookup:
			// One ReadBuffer is one hit, one read or one extension, counted
			// once when its outcome is known: a lookup retried after a
			// victim was given back (BufferAlloc's retry) is still the same
			// access (ReadBuffer_common counts after BufferAlloc returns).
			if s := p.Lookup(b.pinGid); s >= 0 {
				if b.holds(s) {
					// PinBuffer with a private refcount: the shared
					// state, usage_count included, is not touched.
					p.Frames.Pins[s]++
				} else {
					p.Pin(s, now, b.pinRing != nil)
				}
				b.cpu += e.costs.BufferHit
				if p.Flags[s]&bufpool.Valid != 0 {
					p.Stats.Hits++
					e.noteAccess(b, b.pinGid, 1, 0, 0, ringContext(b.pinRing))
					b.lastMiss = false
					b.ps = psNone
					return s, true
				}
				// Another backend is reading it: WaitIO. BufferAlloc
				// reports it found (a hit) once the read is done.
				b.pinSlot = s
				b.nextWait = e.ioWaitHead[s]
				e.ioWaitHead[s] = b.id
				b.ps = psIOWait
				b.block(wIOWait)
				return -1, false
			}
			b.cpu += e.costs.BufferHit
			b.ps = psVictim
		case psIOWait:
			p.Stats.Hits++
			e.noteAccess(b, b.pinGid, 1, 0, 0, ringContext(b.pinRing))
			b.lastMiss = false
			b.ps = psNone
			return b.pinSlot, true
		case psVictim:
			if e.stratLock != nil {
				b.ps = psVictimLocked
				b.block(wLock)
				return -1, false
			}
			slot, steps := p.GetVictim(b.pinRing, now)
			b.cpu += int64(steps) * e.costs.SweepStep
			b.victim = slot
			b.noteVictim()
			b.ps = psVictimChosen
		case psVictimLocked:
			// BufFreelistLock (<= 9.4) is held for the whole search.
			slot, steps := p.GetVictim(b.pinRing, now)
			b.victim = slot
			b.noteVictim()
			b.holdTime = e.costs.LWLockHold + e.costs.SweepStep*int64(steps)
			if b.lockWaited {
				// A contended LWLock is handed over by waking a sleeping
				// waiter (PGSemaphoreUnlock); the lock is useless to
				// everyone until that process runs.
				b.holdTime += e.costs.LockHandoff
			}
			b.ps = psVictimChosen
			b.block(wLockHold)
			return -1, false
		case psVictimChosen:
			s := b.victim
			if s < 0 {
				e.fail(fmt.Errorf("no unpinned buffers available (shared_buffers %d buffers, all pinned)", p.N))
				return -1, false
			}
			if p.Flags[s]&bufpool.Dirty == 0 {
				b.ps = psAssign
				continue
			}
			lsn := p.LSN[s]
			if e.wal.NeedsFlush(lsn) && p.RejectFromRing(b.pinRing, s) {
				p.GiveBack(s, now)
				b.ps = psVictim
				continue
			}
			b.ps = psVictimWrite
			if e.wal.NeedsFlush(lsn) {
				b.walTarget = lsn
				b.block(wWALFlush)
				return -1, false
			}
		case psVictimWrite:
			s := b.victim
			if p.Frames.Pins[s] > 1 {
				// Someone pinned the victim during our WAL flush (and may
				// be changing it): give it back and look again.
				p.GiveBack(s, now)
				b.ps = psLookup
				continue
			}
			if p.Flags[s]&bufpool.Dirty == 0 {
				// Cleaned by someone else meanwhile (StartBufferIO
				// finds nothing to do).
				b.ps = psAssign
				continue
			}
			if lsn := p.LSN[s]; e.wal.NeedsFlush(lsn) {
				// Changed again while we waited: flush further first.
				b.walTarget = lsn
				b.block(wWALFlush)
				return -1, false
			}
			b.writeGid = p.Tag[s]
			p.MarkClean(s)
			e.bufWrites.backend++
			e.noteBackendWrite(b, ringContext(b.pinRing))
			e.noteWrite(b.writeGid)
			b.cpu += e.costs.OSWrite
			b.ps = psVictimWritten
			b.block(wOSWrite)
			return -1, false
		case psVictimWritten:
			// FlushBuffer's smgrwrite: the pwrite and any wait for the
			// kernel's dirty limit.
			b.noteIOTime(ringContext(b.pinRing), ioWrite, e.costs.OSWrite+now-b.waitFrom)
			b.ps = psAssign
		case psAssign:
			s := b.victim
			b.countVictim(s)
			if p.Frames.Pins[s] > 1 || p.Flags[s]&bufpool.Dirty != 0 || p.Lookup(b.pinGid) >= 0 {
				// Someone pinned or re-dirtied the victim while we wrote
				// it, or read our page in meanwhile: give it back and
				// start over (InvalidateVictimBuffer / BufferAlloc).
				p.GiveBack(s, now)
				b.ps = psLookup
				continue
			}
			p.Assign(s, b.pinGid, now, b.pinRing != nil)
			b.pinSlot = s
			b.lastMiss = true
			// BufferAlloc's remapping and the I/O's bookkeeping
			// (StartBufferIO, TerminateBufferIO), for a read and an
			// extension alike.
			b.cpu += e.costs.BufferAlloc
			if b.pinExtend {
				p.Stats.Extends++
				e.noteAccess(b, b.pinGid, 0, 0, 1, ringContext(b.pinRing))
				// smgrextend writes the new block (zeros) through the OS
				// right away; pg_stat_bgwriter counted it in
				// buffers_backend (md.c mdextend -> register_dirty_segment).
				// From 16 a page of a bulk extension (RelationAddBlocks,
				// hio.go) is part of one mdzeroextend its caller counts,
				// and one of more than 8 pages is fallocated, not written.
				if !b.extBulk && !b.pinForkExt {
					e.bufWrites.backend++
					e.bufWrites.extends++
					e.stats.io[b.backendType()][ringContext(b.pinRing)].extendOps++
				}
				if b.extFallocate {
					b.ps = psExtendWritten
					continue
				}
				b.writeGid = b.pinGid
				e.bufWrites.zeroed++
				e.noteWrite(b.writeGid)
				b.cpu += e.costs.OSWrite
				b.ps = psExtendWritten
				b.block(wOSWrite)
				return -1, false
			}
			p.Stats.Reads++
			e.noteAccess(b, b.pinGid, 0, 1, 0, ringContext(b.pinRing))
			if b.pinNoRead {
				// A read stream's StartReadBuffers: the buffer is ours,
				// its I/O in progress; the stream reads it together with
				// its neighbours (readstream.go).
				b.ps = psNone
				return s, true
			}
			e.stats.io[b.backendType()][ringContext(b.pinRing)].readOps++
			b.ps = psRead
			b.cpu += e.costs.OSRead
			b.block(wRead)
			return -1, false
		case psExtendWritten, psRead:
			if b.ps == psRead {
				// ReadBuffer_common's smgrread: the copy out of the page
				// cache and any wait for the device.
				b.noteIOTime(ringContext(b.pinRing), ioRead, e.costs.OSRead+now-b.waitFrom)
			} else if !b.extFallocate {
				// smgrextend writing the new page (a fallocated one took
				// no time in the model).
				b.noteIOTime(ringContext(b.pinRing), ioExtend, e.costs.OSWrite+now-b.waitFrom)
			}
			s := b.pinSlot
			p.ReadDone(s)
			e.wakeIOWaiters(s)
			b.ps = psNone
			return s, true
		default:
			panic(fmt.Sprintf("backend %d: pin stage %d", b.id, b.ps))
		}
	}
}

// wakeIOWaiters resumes every backend waiting for slot's read.
func (e *engine) wakeIOWaiters(slot int32) {
	for id := e.ioWaitHead[slot]; id >= 0; {
		w := e.backends[id]
		id = w.nextWait
		w.nextWait = -1
		if w.inCPU {
			w.ioReady = true
		} else {
			e.k.Schedule(e.k.Now(), w, evWake)
		}
	}
	e.ioWaitHead[slot] = -1
}

// beginTxn starts the client's next transaction, following pgbench's
// schedule (pgbench.c advanceConnectionState): under a rate limit the
// thread's Poisson schedule gives the start time; under a latency limit a
// slot already too late is skipped.
func (b *backend) beginTxn() {
	e := b.e
	c := b.client
	ph := c.phase
	now := e.k.Now()
	if ph.cfg.Transactions > 0 && b.txNo >= ph.cfg.Transactions {
		b.finish()
		return
	}
	if b.wakeAt > 0 { // woke up at the scheduled start
		b.wakeAt = 0
		if ph.cfg.Duration > 0 && now >= ph.end {
			b.finish() // done sleeping, but the run is over
			return
		}
		b.started = now
		b.buildTxn()
		return
	}
	// pgbench -T: once the duration is over no transaction starts, whatever
	// the schedule (advanceConnectionState: CSTATE_END_TX and
	// CSTATE_THROTTLE go to CSTATE_FINISHED when timer_exceeded); the
	// transactions still running finish and are counted.
	timerExceeded := ph.cfg.Duration > 0 && now >= ph.end
	if timerExceeded {
		b.finish()
		return
	}
	// CSTATE_CHOOSE_SCRIPT: the script is chosen before the schedule, so
	// transactions skipped under --latency-limit carry it too.
	if th := c.thread; th.choose != nil {
		c.scriptNo = ph.mix.choose(th.choose)
		c.script = ph.mix.scripts[c.scriptNo]
	}
	if ph.cfg.Rate > 0 {
		th := c.thread
		th.trigger += th.poisson()
		sched := th.trigger
		if lim := ph.cfg.LatencyLimit; lim > 0 {
			for sched < now-lim && (ph.cfg.Transactions == 0 || b.txNo < ph.cfg.Transactions) {
				if ph.cfg.Duration > 0 && sched >= ph.end {
					break
				}
				ph.skip(b, sched)
				b.txNo++
				th.trigger += th.poisson()
				sched = th.trigger
			}
			if ph.cfg.Transactions > 0 && b.txNo >= ph.cfg.Transactions {
				b.finish()
				return
			}
		}
		if ph.cfg.Duration > 0 && sched >= ph.end {
			b.finish()
			return
		}
		b.scheduled = sched
		if sched > now {
			// The thread sleeps in poll() until the scheduled start and
			// wakes a little late (timer slack, scheduling).
			b.wakeAt = sched + e.costs.ClientWakeup
			b.paced = true
			b.block(wSleepUntil)
			return
		}
		b.started = now
		b.buildTxn()
		return
	}
	b.scheduled, b.started = now, now
	b.buildTxn()
}

func (b *backend) buildTxn() {
	c := b.client
	c.lists = c.lists[:0]
	b.ops = b.withCatalogOps(c.script.txn(b, c.keys, c.vals, b.ops[:0]), c.script)
	b.abortThis = c.phase.cfg.AbortFraction > 0 && c.extra.Float64() < c.phase.cfg.AbortFraction
	b.pc, b.sub, b.level = 0, 0, 0
	b.inTxn = true
}

func (b *backend) endTxn() {
	if b.client.phase.cmdStats != nil {
		b.nextCommand(0)
	}
	now := b.e.k.Now()
	if now == b.started {
		// A transaction that took no simulated time (a script of \sleep 0
		// and meta commands): many in a row mean the phase cannot reach
		// its end.
		if b.zeroTxns++; b.zeroTxns >= maxZeroTimeTxns {
			b.e.fail(fmt.Errorf("phase %q: a client ran %d transactions in a row that took no simulated time (its script's statements are all \\sleep 0 or meta commands): the phase could never end; give the script a statement or a \\sleep longer than 0", b.client.phase.cfg.Name, b.zeroTxns))
			return
		}
	} else {
		b.zeroTxns = 0
	}
	b.client.phase.complete(b, now)
	b.txNo++
	b.inTxn = false
}

func (b *backend) finish() {
	if b.done {
		return
	}
	b.done = true
	b.e.removeProc(b)
	b.client.phase.clientDone()
}

// maxZeroTimeTxns is how many transactions in a row a client may run in
// no simulated time before the run is stopped as unable to end.
const maxZeroTimeTxns = 1_000_000

// poisson is pgbench's getPoissonRand: an exponential inter-arrival time
// with the given mean, drawn in whole microseconds.
func (t *thread) poisson() int64 {
	u := 1.0 - t.rng.Float64() // (0, 1]
	us := math.Floor(-math.Log(u)*t.meanUs + 0.5)
	// The loader bounds rates so that no gap reaches this (a mean gap of
	// at most 10^4 s, and -log(u) <= 37.5 for a float64 u): keep the
	// conversion defined anyway.
	return int64(min(us, maxPoissonUs)) * 1000
}

// maxPoissonUs caps one arrival gap at about 29 simulated years.
const maxPoissonUs = 1e15

// nextCommand ends the command running (its time since it began goes to
// pgbench -r's per-statement latency) and starts cmd (0: none).
func (b *backend) nextCommand(cmd int16) {
	now := b.e.k.Now()
	c := b.client
	if b.curCmd != 0 {
		st := &c.phase.cmdStats[c.scriptNo][b.curCmd-1]
		if b.failed {
			st.failures++
		} else {
			st.count++
			st.sum += now - b.cmdStart
		}
	}
	b.curCmd, b.cmdStart = cmd, now
}
