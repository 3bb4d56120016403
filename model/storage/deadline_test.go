package storage

import (
	"testing"

	"github.com/pgbufsim/pgbufsim/sim"
)

// The deadline elevator's rules (block/deadline-iosched.c; deadline.go):
// reads wait for the current write batch only, writes get a batch after
// writes_starved read batches, batches run in ascending sector order, a
// batch starts at an expired request, flushes go first.

type order struct{ args []int64 }

func (o *order) OnEvent(arg int64) { o.args = append(o.args, arg) }

func deadlineDevice(t *testing.T, k *sim.Kernel, read int64) *Device {
	t.Helper()
	d, err := New(k, "data", Params{Channels: 1, ReadTime: read, WriteTime: 8 * sim.Millisecond, SeqTime: sim.Millisecond, FlushTime: 4 * sim.Millisecond, Scheduler: SchedDeadline}, sim.NewStream(1, 0, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// 40 scattered writes are queued, then a read: FIFO serves the read after
// all 40; deadline after the write batch in progress (fifo_batch = 16).
func TestDeadlineReadWaitsForOneWriteBatch(t *testing.T) {
	for _, tc := range []struct {
		sched string
		want  int64
	}{{SchedFIFO, 40*8*sim.Millisecond + 10*sim.Millisecond}, {SchedDeadline, 16*8*sim.Millisecond + 10*sim.Millisecond}} {
		k := sim.NewKernel()
		d, err := New(k, "data", Params{Channels: 1, ReadTime: 10 * sim.Millisecond, WriteTime: 8 * sim.Millisecond, SeqTime: sim.Millisecond, FlushTime: sim.Millisecond, Scheduler: tc.sched}, sim.NewStream(1, 0, "dev"))
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < 40; i++ {
			d.Submit(Write, 100*i, 1, nil, 0)
		}
		got := &doneAt{k: k}
		d.Submit(Read, 7, 1, got, 0)
		k.Run()
		if got.times[0] != tc.want {
			t.Errorf("%s: read completed at %d ns, want %d", tc.sched, got.times[0], tc.want)
		}
	}
}

// 100 reads, then one write: the first read batch started before the write
// arrived, two more are chosen while it waits (writes_starved = 2), then
// the write: it is the 49th request served.
func TestDeadlineWritesNotStarved(t *testing.T) {
	k := sim.NewKernel()
	d := deadlineDevice(t, k, 10*sim.Millisecond)
	o := &order{}
	for i := int64(0); i < 100; i++ {
		d.Submit(Read, 100*i, 1, o, i)
	}
	d.Submit(Write, 50, 1, o, -1)
	k.Run()
	pos := -1
	for i, a := range o.args {
		if a == -1 {
			pos = i
		}
	}
	if pos != 48 {
		t.Fatalf("the write was served %dth, want 49th (3 read batches of 16 first)", pos+1)
	}
}

// A batch continues in ascending sector order from the last request; when
// nothing lies above, the next batch starts at the oldest request.
func TestDeadlineSectorOrder(t *testing.T) {
	k := sim.NewKernel()
	d := deadlineDevice(t, k, 10*sim.Millisecond)
	o := &order{}
	for _, a := range []int64{1000, 500, 3000, 2000} {
		d.Submit(Read, a, 1, o, a)
	}
	k.Run()
	want := []int64{1000, 2000, 3000, 500}
	for i, w := range want {
		if o.args[i] != w {
			t.Fatalf("served %v, want %v", o.args, want)
		}
	}
}

// A batch starts at its direction's oldest request once that one's
// deadline (500 ms for reads) has passed, not where the sector order left
// off.
func TestDeadlineExpiredRequestStartsTheBatch(t *testing.T) {
	k := sim.NewKernel()
	d := deadlineDevice(t, k, 200*sim.Millisecond)
	o := &order{}
	d.Submit(Read, 0, 1, o, 0)         // dispatched at once
	d.Submit(Read, 10000, 1, o, 10000) // old, far away
	for a := int64(100); a <= 2000; a += 100 {
		d.Submit(Read, a, 1, o, a)
	}
	k.Run()
	var want []int64
	want = append(want, 0)
	for a := int64(100); a <= 1500; a += 100 { // the rest of the first batch of 16
		want = append(want, a)
	}
	want = append(want, 10000) // expired at 500 ms: starts the next batch
	for a := int64(1600); a <= 2000; a += 100 {
		want = append(want, a)
	}
	if len(o.args) != len(want) {
		t.Fatalf("served %d requests, want %d", len(o.args), len(want))
	}
	for i, w := range want {
		if o.args[i] != w {
			t.Fatalf("served %v, want %v", o.args, want)
		}
	}
}

// Cache flushes bypass the elevator: served as soon as a channel frees.
func TestDeadlineFlushFirst(t *testing.T) {
	k := sim.NewKernel()
	d := deadlineDevice(t, k, 10*sim.Millisecond)
	o := &order{}
	for i := int64(1); i <= 5; i++ {
		d.Submit(Write, 100*i, 1, o, i)
	}
	d.Submit(Flush, 0, 0, o, -1)
	k.Run()
	if o.args[0] != 1 || o.args[1] != -1 {
		t.Fatalf("served %v, want the flush right after the write in service", o.args)
	}
}

// The queue-length integral counts requests waiting in the elevator as the
// FIFO resource counts its own: three 10 ms reads submitted together wait
// 0, 10 and 20 ms, 30 ms of waiter-time.
func TestQueueIntegralBothSchedulers(t *testing.T) {
	for _, sched := range []string{SchedFIFO, SchedDeadline} {
		k := sim.NewKernel()
		d, err := New(k, "data", Params{Channels: 1, ReadTime: 10 * sim.Millisecond, WriteTime: 10 * sim.Millisecond, SeqTime: sim.Millisecond, FlushTime: sim.Millisecond, Scheduler: sched}, sim.NewStream(1, 0, "dev"))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []int64{100, 300, 500} {
			d.Submit(Read, a, 1, nil, 0)
		}
		if d.Waiting() != 2 {
			t.Errorf("%s: %d waiting, want 2", sched, d.Waiting())
		}
		k.Run()
		if q := d.QueueNs(); q != float64(30*sim.Millisecond) {
			t.Errorf("%s: queue integral %.0f waiter-ns, want %d", sched, q, 30*sim.Millisecond)
		}
	}
	if _, err := New(sim.NewKernel(), "data", Params{Channels: 1, Scheduler: "cfq"}, sim.NewStream(1, 0, "dev")); err == nil {
		t.Error("unknown scheduler accepted")
	}
}

// With QueueDepth, requests handed to the device are served in order: the
// elevator can put a read ahead only of what it still holds. 40 scattered
// writes, then a read, depth 20 on one channel: writes 1-16 (the first
// batch) and 17-20 (the second) are handed over at once; as they complete
// the second batch goes on to write 32; then the read is handed over,
// behind the 19 writes the device still holds: it completes after 32
// writes, not after 16 (depth 1) or 40 (FIFO).
func TestDeadlineQueueDepth(t *testing.T) {
	k := sim.NewKernel()
	d, err := New(k, "data", Params{Channels: 1, ReadTime: 10 * sim.Millisecond, WriteTime: 8 * sim.Millisecond, SeqTime: sim.Millisecond, FlushTime: sim.Millisecond, Scheduler: SchedDeadline, QueueDepth: 20}, sim.NewStream(1, 0, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 40; i++ {
		d.Submit(Write, 100*i, 1, nil, 0)
	}
	if d.Waiting() != 39 {
		t.Fatalf("%d waiting, want 39 (1 in service, 19 in the device queue, 20 in the elevator)", d.Waiting())
	}
	got := &doneAt{k: k}
	d.Submit(Read, 7, 1, got, 0)
	k.Run()
	if want := 32*8*sim.Millisecond + 10*sim.Millisecond; got.times[0] != want {
		t.Fatalf("read completed at %d ns, want %d", got.times[0], want)
	}
}
