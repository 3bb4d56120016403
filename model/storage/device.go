// Package storage models the block devices under PostgreSQL's data
// directory and WAL: k identical channels in front of one queue shared by
// reads, writes and cache flushes, with lognormal service times around a
// preset's means. The queue is FIFO by default: a read submitted behind a
// burst of writeback waits for all of it, which is where the multi-second
// worst cases of seed 002 come from. Scheduler "deadline" orders it as
// Linux's deadline elevator does (block/deadline-iosched.c): reads ahead of
// writes, sector-ordered batches, 500 ms / 5 s expiry.
//
// A request contiguous with the previous one submitted to the device (the
// next page of the same relation chunk) is charged SeqTime instead of a
// random ReadTime/WriteTime: sorted writeback and sequential scans are
// cheap on a disk, random access is not.
package storage

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/pgbufsim/pgbufsim/sim"
)

// Params are a device's service characteristics. Times are nanoseconds.
type Params struct {
	Channels  int
	ReadTime  int64   // random 8 kB read
	WriteTime int64   // random 8 kB write
	SeqTime   int64   // 8 kB contiguous with the previous request
	FlushTime int64   // cache flush (fsync, fdatasync)
	Jitter    float64 // coefficient of variation of each service time
	// SeekSpan, if non-zero, makes positioning time grow with the distance
	// from the previous request (a disk arm): a request d pages away costs
	// SeqTime + (Read/WriteTime - SeqTime) x (1/2 + 1/2 sqrt(min(1, d/SeekSpan))),
	// i.e. half a rotation for any non-contiguous request plus a seek that
	// reaches the full random time at SeekSpan pages. Sorted writeback and
	// checkpoint writes are therefore cheaper than random ones, as on a
	// real disk. 0: every non-contiguous request costs the full time (SSDs).
	SeekSpan int64
	// Scheduler orders the waiting requests: "fifo" (or "") serves them in
	// arrival order, so a read waits behind every write queued before it;
	// "deadline" is Linux's deadline elevator (deadline.go): reads first,
	// sector-ordered batches, expiry deadlines.
	Scheduler string
	// QueueDepth is how many requests the deadline scheduler hands to the
	// device at once (NCQ's 32 for a SATA disk, hundreds for a RAID
	// controller); the device serves what it holds in order, so the elevator
	// can only reorder what it has not handed over yet. 0 or less than
	// Channels means one per channel.
	QueueDepth int
	// TransferTime is the time of each page after the first within one
	// request (a readahead window, merged writeback); 0: SeqTime. A network
	// volume pays its latency per request, contiguous or not (SeqTime =
	// ReadTime), but moves the pages of a large request quickly.
	TransferTime int64
	// IOPS and Throughput cap the requests per second and the bytes per
	// second the device accepts (a provisioned cloud volume's limits; 0:
	// none). A request counts as ceil(bytes / IOUnit) operations (a cloud
	// volume counts I/O up to 256 KiB as one). Requests over the limits
	// wait, in submission order, before they reach the queue (a token
	// bucket without burst credit).
	IOPS, Throughput, IOUnit int64
}

// Presets are typical devices of their class. The figures are means of
// measured ranges for 8 kB requests: a 7200 rpm disk seeks ~4 ms plus half a
// rotation (4.2 ms) and streams ~80 MB/s; a SATA SSD reads 8 kB in ~120 us
// at low queue depth; an NVMe drive in ~80 us with many parallel queues.
var Presets = map[string]Params{
	"hdd-7200": {Channels: 1, ReadTime: 8_300_000, WriteTime: 8_300_000, SeqTime: 100_000, FlushTime: 4_000_000, Jitter: 0.35, SeekSpan: 1 << 20},
	"sata-ssd": {Channels: 4, ReadTime: 120_000, WriteTime: 60_000, SeqTime: 25_000, FlushTime: 500_000, Jitter: 0.5},
	"nvme":     {Channels: 16, ReadTime: 80_000, WriteTime: 25_000, SeqTime: 10_000, FlushTime: 50_000, Jitter: 0.5},
	// A provisioned network block volume at its baseline (Amazon EBS gp3:
	// 3000 IOPS counted in I/O of up to 256 KiB, 125 MiB/s; "single-digit
	// millisecond" latency, typically 0.5-1 ms for 8 kB): every request
	// crosses the network, contiguous or not, the pages of a large one
	// stream fast, and the caps decide what a scan or a checkpoint gets.
	"cloud-gp3": {Channels: 16, ReadTime: 700_000, WriteTime: 900_000, SeqTime: 700_000, TransferTime: 8_000, FlushTime: 1_000_000, Jitter: 0.3,
		IOPS: 3000, Throughput: 125 << 20, IOUnit: 256 << 10},
}

// PresetNames lists the presets in a stable order.
var PresetNames = []string{"hdd-7200", "sata-ssd", "nvme", "cloud-gp3"}

// Op is a request kind.
type Op uint8

// Request kinds.
const (
	Read Op = iota
	Write
	Flush
)

// Stats are a device's cumulative counters.
type Stats struct {
	Reads, Writes, Flushes uint64
	PagesRead, PagesWrite  uint64
}

// Device is one simulated block device.
type Device struct {
	Name     string
	k        *sim.Kernel
	res      *sim.Resource
	p        Params
	lognorm  distuv.LogNormal
	jitter   bool
	lastAddr int64

	Stats Stats
	// ReadLatency and ReadLatencyPhase record every read from submission
	// to completion (queueing included), in ns; the owner resets them per
	// time-series interval and per phase.
	ReadLatency      *sim.Histogram
	ReadLatencyPhase *sim.Histogram

	free []*request
	elev *elevator // nil under the FIFO scheduler

	// The rate limits' schedule: the earliest time the next request may
	// enter the queue (GCRA's theoretical arrival time).
	limited bool
	tat     int64
}

// New creates a device. rng feeds the service-time draws (a stream of its
// own, so device randomness never shifts the workload's).
func New(k *sim.Kernel, name string, p Params, rng *rand.Rand) (*Device, error) {
	if p.Channels < 1 {
		return nil, fmt.Errorf("device %s: channels must be >= 1", name)
	}
	d := &Device{
		Name: name, k: k, p: p,
		res:              sim.NewResource(k, name, p.Channels),
		lastAddr:         -2,
		ReadLatency:      sim.NewHistogram(),
		ReadLatencyPhase: sim.NewHistogram(),
	}
	switch p.Scheduler {
	case "", SchedFIFO:
	case SchedDeadline:
		d.elev = &elevator{since: k.Now()}
	default:
		return nil, fmt.Errorf("device %s: unknown scheduler %q (fifo or deadline)", name, p.Scheduler)
	}
	if p.IOPS < 0 || p.Throughput < 0 || p.IOUnit < 0 || p.TransferTime < 0 {
		return nil, fmt.Errorf("device %s: iops, throughput, io_unit and transfer_time must be >= 0", name)
	}
	if p.IOPS > 0 && p.IOUnit == 0 {
		p.IOUnit = 256 << 10
	}
	d.p = p
	d.limited = p.IOPS > 0 || p.Throughput > 0
	if p.Jitter > 0 {
		s2 := math.Log1p(p.Jitter * p.Jitter)
		d.lognorm = distuv.LogNormal{Mu: -s2 / 2, Sigma: math.Sqrt(s2), Src: rng}
		d.jitter = true
	}
	return d, nil
}

// Params returns the device's parameters.
func (d *Device) Params() Params { return d.p }

// Resource exposes the channels (utilisation; under the FIFO scheduler
// also the queue).
func (d *Device) Resource() *sim.Resource { return d.res }

// QueueNs is the integral over time of the number of requests waiting for
// a channel (waiter-ns) since the device was created, whichever scheduler
// holds them.
func (d *Device) QueueNs() float64 {
	q := d.res.Stats().QueueNs
	if e := d.elev; e != nil {
		e.account(d.k.Now())
		q += e.queueNs
	}
	return q
}

// Waiting is the number of requests waiting for a channel now.
func (d *Device) Waiting() int {
	n := d.res.QueueLen()
	if d.elev != nil {
		n += d.elev.n
	}
	return n
}

type request struct {
	d      *Device
	op     Op
	submit int64
	done   sim.Handler
	arg    int64

	// A request held back by the rate limits, until it is admitted.
	addr   int64
	npages int
	sized  int64
	flush  bool
}

// evAdmit is a held-back request's admission; 0 is its completion.
const evAdmit = 1

func (r *request) OnEvent(arg int64) {
	d := r.d
	if arg == evAdmit {
		if r.sized > 0 {
			d.sizedNow(r, r.sized, r.flush)
		} else {
			d.submitNow(r, r.op, r.addr, r.npages)
		}
		return
	}
	if d.elev != nil {
		d.elevatorDispatch() // a channel just became free
	}
	if r.op == Read {
		lat := d.k.Now() - r.submit
		d.ReadLatency.Record(lat)
		d.ReadLatencyPhase.Record(lat)
	}
	done, arg := r.done, r.arg
	r.done = nil
	d.free = append(d.free, r)
	if done != nil {
		done.OnEvent(arg)
	}
}

// Submit queues a request for npages contiguous pages starting at addr (a
// global page id; Flush ignores both). done.OnEvent(arg) fires when it
// completes; done may be nil for fire-and-forget writeback.
func (d *Device) Submit(op Op, addr int64, npages int, done sim.Handler, arg int64) {
	switch op {
	case Read:
		d.Stats.Reads++
		d.Stats.PagesRead += uint64(npages)
	case Write:
		d.Stats.Writes++
		d.Stats.PagesWrite += uint64(npages)
	case Flush:
		d.Stats.Flushes++
	}
	r := d.newRequest(op, done, arg)
	if d.limited && op != Flush && d.hold(r, int64(npages)*8192) {
		r.addr, r.npages, r.sized = addr, npages, 0
		return
	}
	d.submitNow(r, op, addr, npages)
}

// hold charges a request of bytes to the rate limits and reports whether
// it must wait: then it is admitted later (evAdmit), in submission order.
func (d *Device) hold(r *request, bytes int64) bool {
	ios := max(1, (bytes+d.p.IOUnit-1)/max(d.p.IOUnit, 1))
	var cost int64
	if d.p.IOPS > 0 {
		cost = ios * 1_000_000_000 / d.p.IOPS
	}
	if d.p.Throughput > 0 {
		cost = max(cost, int64(float64(bytes)*1e9/float64(d.p.Throughput)))
	}
	now := d.k.Now()
	at := max(now, d.tat)
	d.tat = at + cost
	if at == now {
		return false
	}
	d.k.Schedule(at, r, evAdmit)
	return true
}

// submitNow puts an admitted page request in the queue.
func (d *Device) submitNow(r *request, op Op, addr int64, npages int) {
	if d.elev != nil {
		p := d.elev.get()
		p.op, p.addr, p.npages, p.sized, p.flush, p.r = op, addr, npages, 0, false, r
		d.elevatorAdd(p)
		return
	}
	var svc int64
	if op == Flush {
		svc = d.draw(d.p.FlushTime)
	} else {
		svc = d.pageTime(op, addr, npages)
	}
	d.res.Request(svc, r, 0)
}

// pageTime draws the service time of a page request from the head position
// the previous request left, and moves the head.
func (d *Device) pageTime(op Op, addr int64, npages int) int64 {
	base := d.p.ReadTime
	if op == Write {
		base = d.p.WriteTime
	}
	switch dist := addr - d.lastAddr; {
	case dist == 1:
		base = d.p.SeqTime
	case d.p.SeekSpan > 0:
		if dist < 0 {
			dist = -dist
		}
		f := math.Sqrt(min(1, float64(dist)/float64(d.p.SeekSpan)))
		base = d.p.SeqTime + int64(float64(base-d.p.SeqTime)*(0.5+0.5*f))
	}
	per := d.p.SeqTime
	if d.p.TransferTime > 0 {
		per = d.p.TransferTime
	}
	svc := d.draw(base) + int64(npages-1)*per
	d.lastAddr = addr + int64(npages) - 1
	return svc
}

// SubmitSized queues a write of an arbitrary number of bytes (a WAL
// write), charged as a sequential transfer, followed by a cache flush when
// flush is true (fdatasync), as one request.
func (d *Device) SubmitSized(bytes int64, flush bool, done sim.Handler, arg int64) {
	d.Stats.Writes++
	d.Stats.PagesWrite += uint64(sizedPages(bytes))
	if flush {
		d.Stats.Flushes++
	}
	r := d.newRequest(Write, done, arg)
	if d.limited && d.hold(r, bytes) {
		r.sized, r.flush = bytes, flush
		return
	}
	d.sizedNow(r, bytes, flush)
}

// sizedNow puts an admitted sized write in the queue.
func (d *Device) sizedNow(r *request, bytes int64, flush bool) {
	if d.elev != nil {
		p := d.elev.get()
		p.op, p.addr, p.npages, p.sized, p.flush, p.r = Write, walRegion+d.elev.walNext, 0, bytes, flush, r
		d.elev.walNext += sizedPages(bytes)
		d.elevatorAdd(p)
		return
	}
	d.res.Request(d.sizedTime(bytes, flush), r, 0)
}

func sizedPages(bytes int64) int64 {
	return max(1, (bytes+8191)/8192)
}

// sizedTime draws the service time of a SubmitSized write.
func (d *Device) sizedTime(bytes int64, flush bool) int64 {
	svc := d.draw(d.p.SeqTime) * sizedPages(bytes)
	if d.p.TransferTime > 0 {
		// One request's latency, then its pages stream.
		svc = d.draw(d.p.SeqTime) + (sizedPages(bytes)-1)*d.p.TransferTime
	}
	d.lastAddr = -2 // the WAL is elsewhere on the device: the next data request seeks
	if flush {
		svc += d.draw(d.p.FlushTime)
	}
	return svc
}

func (d *Device) newRequest(op Op, done sim.Handler, arg int64) *request {
	var r *request
	if n := len(d.free); n > 0 {
		r = d.free[n-1]
		d.free = d.free[:n-1]
	} else {
		r = &request{d: d}
	}
	r.op, r.submit, r.done, r.arg = op, d.k.Now(), done, arg
	return r
}

func (d *Device) draw(mean int64) int64 {
	if !d.jitter || mean == 0 {
		return mean
	}
	return int64(float64(mean) * d.lognorm.Rand())
}
