package storage

import (
	"slices"

	"github.com/pgbufsim/pgbufsim/sim"
)

// The deadline elevator, as Linux's block/deadline-iosched.c has it (the
// usual server choice of the 3.x kernels; block/mq-deadline.c keeps the
// algorithm): reads and writes wait in separate queues, each kept in arrival
// order (every request with a deadline: read_expire 500 ms, write_expire
// 5 s) and in sector order. The dispatcher serves a batch of up to
// fifo_batch (16) requests of one direction in ascending sector order from
// where the last one ended; a new batch prefers reads, but once reads have
// been chosen writes_starved (2) times while writes waited, it serves
// writes; and a batch starts at its direction's oldest request when that
// one's deadline has passed, else where the sector order left off.
//
// Cache flushes skip the elevator (Linux's flush machinery queues them
// ahead of it). WAL writes of SubmitSized sit in the write queue at
// positions past every data page: the WAL is elsewhere on the disk.
//
// The elevator hands requests to the device while fewer than QueueDepth
// are outstanding there (one per channel by default); the device serves
// them in order. Service times are drawn at that hand-over, from the head
// position left by the previous one, so sector ordering shortens seeks as
// it does on a disk.
const (
	readExpire    = 500 * sim.Millisecond
	writeExpire   = 5 * sim.Second
	writesStarved = 2
	fifoBatch     = 16
	walRegion     = int64(1) << 50 // sector key of WAL writes: after any data page
)

// Scheduler names.
const (
	SchedFIFO     = "fifo"
	SchedDeadline = "deadline"
)

// pending is a request waiting in the elevator.
type pending struct {
	op     Op
	addr   int64 // sector key; data page id, or walRegion+n for WAL writes
	npages int
	sized  int64 // SubmitSized: bytes (> 0); 0 for page requests
	flush  bool  // SubmitSized: followed by a cache flush
	seq    uint64
	expire int64
	r      *request
	gone   bool
}

func (p *pending) before(q *pending) bool {
	return p.addr < q.addr || p.addr == q.addr && p.seq < q.seq
}

// direction is one of the elevator's two queues.
type direction struct {
	fifo   []fifoEntry // arrival order; dispatched entries are skipped lazily
	head   int
	sorted []*pending // sector order, live entries only
}

// fifoEntry remembers the seq a request had when queued: pending structs
// are reused, and a stale entry must not come back to life.
type fifoEntry struct {
	p   *pending
	seq uint64
}

func (f fifoEntry) live() bool { return !f.p.gone && f.p.seq == f.seq }

func (q *direction) push(p *pending) {
	q.fifo = append(q.fifo, fifoEntry{p, p.seq})
	i, _ := slices.BinarySearchFunc(q.sorted, p, func(a, b *pending) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	q.sorted = slices.Insert(q.sorted, i, p)
}

func (q *direction) oldest() *pending {
	for q.head < len(q.fifo) && !q.fifo[q.head].live() {
		q.fifo[q.head] = fifoEntry{}
		q.head++
	}
	if q.head == len(q.fifo) {
		q.fifo, q.head = q.fifo[:0], 0
		return nil
	}
	if q.head > 64 && 2*q.head > len(q.fifo) {
		n := copy(q.fifo, q.fifo[q.head:])
		clear(q.fifo[n:])
		q.fifo, q.head = q.fifo[:n], 0
	}
	return q.fifo[q.head].p
}

// after is the first request in sector order past key, or nil.
func (q *direction) after(key *pending) *pending {
	i, _ := slices.BinarySearchFunc(q.sorted, key, func(a, b *pending) int {
		if b.before(a) {
			return 1
		}
		return -1
	})
	if i < len(q.sorted) {
		return q.sorted[i]
	}
	return nil
}

func (q *direction) remove(p *pending) {
	i, found := slices.BinarySearchFunc(q.sorted, p, func(a, b *pending) int {
		switch {
		case a == b:
			return 0
		case a.before(b):
			return -1
		}
		return 1
	})
	if !found {
		panic("storage: deadline: request missing from the sector list")
	}
	q.sorted = slices.Delete(q.sorted, i, i+1)
	p.gone = true
}

// elevator is a device's deadline state.
type elevator struct {
	dir      [2]direction // 0 reads, 1 writes
	flushes  []*pending
	n        int // requests waiting
	seq      uint64
	walNext  int64
	last     pending // key (addr, seq) of the last dispatch: where the sector order continues
	hasLast  bool
	lastDir  int
	batching int
	starved  int
	pool     []*pending
	// queue-length integral (waiter-ns), as sim.Resource keeps its own
	queueNs float64
	since   int64
}

func (e *elevator) account(now int64) {
	if dt := now - e.since; dt > 0 {
		e.queueNs += float64(e.n) * float64(dt)
		e.since = now
	}
}

func (d *Device) elevatorAdd(p *pending) {
	e := d.elev
	e.account(d.k.Now())
	e.seq++
	p.seq = e.seq
	p.gone = false
	switch {
	case p.op == Flush:
		e.flushes = append(e.flushes, p)
	case p.op == Read:
		p.expire = d.k.Now() + readExpire
		e.dir[0].push(p)
	default:
		p.expire = d.k.Now() + writeExpire
		e.dir[1].push(p)
	}
	e.n++
	d.elevatorDispatch()
}

// elevatorDispatch hands waiting requests to the device while it has room
// (QueueDepth, at least one per channel).
func (d *Device) elevatorDispatch() {
	e := d.elev
	depth := max(d.p.Channels, d.p.QueueDepth)
	for e.n > 0 && d.res.Busy()+d.res.QueueLen() < depth {
		p := e.pick(d.k.Now())
		e.account(d.k.Now())
		e.n--
		var svc int64
		switch {
		case p.op == Flush:
			svc = d.draw(d.p.FlushTime)
		case p.sized > 0:
			svc = d.sizedTime(p.sized, p.flush)
		default:
			svc = d.pageTime(p.op, p.addr, p.npages)
		}
		r := p.r
		p.r = nil
		e.pool = append(e.pool, p)
		d.res.Request(svc, r, 0)
	}
}

// pick chooses the next request (deadline_dispatch_requests).
func (e *elevator) pick(now int64) *pending {
	if len(e.flushes) > 0 {
		p := e.flushes[0]
		e.flushes = slices.Delete(e.flushes, 0, 1)
		return p
	}
	// Continue the current batch in sector order.
	if e.hasLast && e.batching < fifoBatch {
		if p := e.dir[e.lastDir].after(&e.last); p != nil {
			return e.take(e.lastDir, p)
		}
	}
	reads, writes := e.dir[0].oldest(), e.dir[1].oldest()
	dir := 1
	if reads != nil {
		dir = 0
		if writes != nil {
			if e.starved >= writesStarved {
				dir = 1
			} else {
				e.starved++
			}
		}
	}
	if dir == 1 {
		e.starved = 0
	}
	oldest := reads
	if dir == 1 {
		oldest = writes
	}
	p := oldest
	if e.hasLast && e.lastDir == dir && oldest.expire > now {
		if next := e.dir[dir].after(&e.last); next != nil {
			p = next
		}
	}
	e.batching = 0
	return e.take(dir, p)
}

func (e *elevator) take(dir int, p *pending) *pending {
	e.dir[dir].remove(p)
	e.batching++
	e.last = pending{addr: p.addr, seq: p.seq}
	e.hasLast, e.lastDir = true, dir
	return p
}

func (e *elevator) get() *pending {
	if n := len(e.pool); n > 0 {
		p := e.pool[n-1]
		e.pool = e.pool[:n-1]
		return p
	}
	return &pending{}
}
