package storage

import (
	"math"
	"testing"

	"github.com/pgbufsim/pgbufsim/sim"
)

// Behaviour of the block-device model: one FIFO queue shared by reads,
// writes and flushes (docs/model.md: "reads queue behind writeback bursts"),
// sequential requests cheaper than random ones, and lognormal service
// times whose mean and coefficient of variation are the preset's.

type doneAt struct {
	k     *sim.Kernel
	times []int64
}

func (d *doneAt) OnEvent(int64) { d.times = append(d.times, d.k.Now()) }

func fixedDevice(t *testing.T, k *sim.Kernel, channels int) *Device {
	t.Helper()
	d, err := New(k, "data", Params{Channels: channels, ReadTime: 10 * sim.Millisecond, WriteTime: 8 * sim.Millisecond, SeqTime: sim.Millisecond, FlushTime: 4 * sim.Millisecond}, sim.NewStream(1, 0, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A read submitted behind a burst of writes waits for all of them on a
// single-channel device (FIFO): its latency is the writes' service time plus
// its own. This is the mechanism of the seed's multi-second reads during a
// checkpoint's writeback.
func TestReadQueuesBehindWriteBurst(t *testing.T) {
	k := sim.NewKernel()
	d := fixedDevice(t, k, 1)
	for i := int64(0); i < 5; i++ {
		d.Submit(Write, 100*i, 1, nil, 0) // scattered: each a random write
	}
	got := &doneAt{k: k}
	d.Submit(Read, 7, 1, got, 0)
	k.Run()
	want := 5*8*sim.Millisecond + 10*sim.Millisecond
	if len(got.times) != 1 || got.times[0] != want {
		t.Fatalf("read completed at %v, want %d ns (5 random writes then the read)", got.times, want)
	}
	if d.ReadLatency.Max() != want {
		t.Fatalf("recorded read latency %d ns, want %d (queueing included)", d.ReadLatency.Max(), want)
	}
	// With 4 channels the same read waits only for one round of writes
	// ahead of it (writes 1-4 occupy the channels, the 5th write and the
	// read start when the first ones end).
	k = sim.NewKernel()
	d = fixedDevice(t, k, 4)
	for i := int64(0); i < 5; i++ {
		d.Submit(Write, 100*i, 1, nil, 0)
	}
	got = &doneAt{k: k}
	d.Submit(Read, 7, 1, got, 0)
	k.Run()
	if want := 8*sim.Millisecond + 10*sim.Millisecond; got.times[0] != want {
		t.Fatalf("4 channels: read completed at %d ns, want %d", got.times[0], want)
	}
}

// A request for the page right after the previous request's last page is
// sequential (no seek): SeqTime; a merged request of n pages costs one
// positioning plus n-1 sequential pages.
func TestSequentialRequestsAreCheap(t *testing.T) {
	k := sim.NewKernel()
	d := fixedDevice(t, k, 1)
	got := &doneAt{k: k}
	d.Submit(Read, 50, 1, got, 0)  // random: 10 ms
	d.Submit(Read, 51, 1, got, 0)  // next page: 1 ms
	d.Submit(Write, 52, 4, got, 0) // contiguous run of 4: 1 + 3 ms
	d.Submit(Write, 10, 4, got, 0) // seek: 8 + 3 ms
	k.Run()
	want := []int64{10, 11, 15, 26}
	for i, w := range want {
		if got.times[i] != w*sim.Millisecond {
			t.Fatalf("completion %d at %d ns, want %d ms (all: %v)", i, got.times[i], w, got.times)
		}
	}
	if d.Stats.PagesWrite != 8 || d.Stats.Writes != 2 || d.Stats.Reads != 2 {
		t.Fatalf("stats %+v", d.Stats)
	}
}

// Service times are lognormal with the preset's mean and coefficient of
// variation Jitter: mu = -s2/2, sigma^2 = s2 = ln(1 + cv^2) gives E = 1 and
// CV = cv. Over 40000 draws the sample mean is within 1.5 % and the CV
// within 5 % (standard errors 0.5 % and ~2 % at cv = 0.5).
func TestServiceTimeMeanAndJitter(t *testing.T) {
	k := sim.NewKernel()
	p := Presets["sata-ssd"]
	d, err := New(k, "data", p, sim.NewStream(7, 0, "device/data"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 40000
	var sum, sum2 float64
	for i := 0; i < n; i++ {
		x := float64(d.draw(p.ReadTime))
		sum += x
		sum2 += x * x
	}
	mean := sum / n
	cv := math.Sqrt(sum2/n-mean*mean) / mean
	if math.Abs(mean/float64(p.ReadTime)-1) > 0.015 {
		t.Errorf("mean service %.0f ns, want %d +-1.5%%", mean, p.ReadTime)
	}
	if math.Abs(cv/p.Jitter-1) > 0.05 {
		t.Errorf("coefficient of variation %.3f, want %.2f +-5%%", cv, p.Jitter)
	}
	// Same stream, same draws: the device is deterministic.
	d2, _ := New(k, "data", p, sim.NewStream(7, 0, "device/data"))
	d3, _ := New(k, "data", p, sim.NewStream(7, 0, "device/data"))
	for i := 0; i < 100; i++ {
		if a, b := d2.draw(p.ReadTime), d3.draw(p.ReadTime); a != b {
			t.Fatalf("draw %d differs between identical streams: %d vs %d", i, a, b)
		}
	}
}

// A WAL write (SubmitSized) of b bytes costs ceil(b/8 kB) sequential pages
// plus, with flush, one cache flush; it queues FIFO with data requests when
// the WAL shares the device (storage.wal: data).
func TestWALWriteCostAndSharedQueue(t *testing.T) {
	k := sim.NewKernel()
	d := fixedDevice(t, k, 1)
	got := &doneAt{k: k}
	d.SubmitSized(3*8192+1, true, got, 0) // 4 pages + flush = 4 + 4 ms
	d.Submit(Read, 99, 1, got, 0)         // behind it: + 10 ms
	k.Run()
	if got.times[0] != 8*sim.Millisecond || got.times[1] != 18*sim.Millisecond {
		t.Fatalf("completions %v, want [8ms 18ms]", got.times)
	}
	if d.Stats.Flushes != 1 || d.Stats.PagesWrite != 4 {
		t.Fatalf("stats %+v: want 1 flush, 4 pages", d.Stats)
	}
}

// With SeekSpan (a disk arm, preset hdd-7200) the positioning cost grows
// with the distance from the previous request: any non-contiguous request
// pays half a rotation, plus a seek reaching the full random time at
// SeekSpan pages: Seq + (Random - Seq) x (1/2 + 1/2 sqrt(min(1, d/span))).
func TestSeekTimeGrowsWithDistance(t *testing.T) {
	k := sim.NewKernel()
	d, err := New(k, "data", Params{Channels: 1, ReadTime: 10 * sim.Millisecond, WriteTime: 10 * sim.Millisecond, SeqTime: sim.Millisecond, FlushTime: sim.Millisecond, SeekSpan: 10000}, sim.NewStream(1, 0, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	got := &doneAt{k: k}
	d.Submit(Read, 0, 1, got, 0)     // from -2: distance 2
	d.Submit(Read, 1, 1, got, 0)     // contiguous
	d.Submit(Read, 2501, 1, got, 0)  // distance 2500: 1 + 9 x 0.75
	d.Submit(Read, 30000, 1, got, 0) // beyond the span: full 10 ms
	k.Run()
	short := sim.Millisecond + int64(float64(9*sim.Millisecond)*(0.5+0.5*math.Sqrt(2.0/10000)))
	want := []int64{short, short + sim.Millisecond, short + sim.Millisecond + 7750*sim.Microsecond, short + sim.Millisecond + 7750*sim.Microsecond + 10*sim.Millisecond}
	for i, w := range want {
		if got.times[i] != w {
			t.Fatalf("completion %d at %d ns, want %d (all %v)", i, got.times[i], w, got.times)
		}
	}
	if p := Presets["hdd-7200"]; p.SeekSpan == 0 || Presets["nvme"].SeekSpan != 0 || Presets["sata-ssd"].SeekSpan != 0 {
		t.Errorf("only the disk preset should seek: hdd %d, nvme %d, ssd %d", p.SeekSpan, Presets["nvme"].SeekSpan, Presets["sata-ssd"].SeekSpan)
	}
}

// A provisioned volume's IOPS cap: requests enter the queue no faster than
// the cap allows, in submission order, whatever the channels could do; a
// request larger than io_unit counts as several operations.
func TestIOPSCap(t *testing.T) {
	k := sim.NewKernel()
	d, err := New(k, "data", Params{Channels: 16, ReadTime: 100_000, WriteTime: 100_000, SeqTime: 100_000, TransferTime: 1_000, IOPS: 1000, IOUnit: 256 << 10}, sim.NewStream(1, 0, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	got := &doneAt{k: k}
	for i := int64(0); i < 100; i++ {
		d.Submit(Read, 1000*i, 1, got, 0)
	}
	k.Run()
	// Admitted at 0, 1, ..., 99 ms; each takes 100 us.
	if n := len(got.times); n != 100 || got.times[99] != 99*sim.Millisecond+100_000 {
		t.Fatalf("%d reads, the last done at %v; want 100, at 99.1 ms", n, got.times[len(got.times)-1])
	}
	// A 512 kB request is two operations: the next one waits 2 ms.
	k = sim.NewKernel()
	d, _ = New(k, "data", Params{Channels: 16, ReadTime: 100_000, WriteTime: 100_000, SeqTime: 100_000, TransferTime: 1_000, IOPS: 1000}, sim.NewStream(1, 0, "dev"))
	got = &doneAt{k: k}
	d.Submit(Read, 0, 64, got, 0)
	d.Submit(Read, 5000, 1, got, 0)
	k.Run()
	if got.times[0] != 100_000+63*1_000 || got.times[1] != 2*sim.Millisecond+100_000 {
		t.Fatalf("done at %v, want [163 us (64 pages: 100 us + 63 x 1 us transfer), 2.1 ms]", got.times)
	}
}

// The throughput cap: 128 kB requests against 1 MiB/s enter 125 ms apart.
func TestThroughputCap(t *testing.T) {
	k := sim.NewKernel()
	d, err := New(k, "data", Params{Channels: 4, ReadTime: 100_000, WriteTime: 100_000, SeqTime: 100_000, Throughput: 1 << 20}, sim.NewStream(1, 0, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	got := &doneAt{k: k}
	for i := int64(0); i < 4; i++ {
		d.Submit(Read, 100*i, 16, got, 0)
	}
	k.Run()
	for i, at := range got.times {
		if want := int64(i)*125*sim.Millisecond + 100_000 + 15*100_000; at != want {
			t.Fatalf("request %d done at %d, want %d", i, at, want)
		}
	}
}

// The cloud preset pays its latency on every request, contiguous or not,
// and streams the further pages of a request at transfer_time.
func TestCloudPresetLatencyPerRequest(t *testing.T) {
	p := Presets["cloud-gp3"]
	p.Jitter = 0
	k := sim.NewKernel()
	d, err := New(k, "data", p, sim.NewStream(1, 0, "dev"))
	if err != nil {
		t.Fatal(err)
	}
	got := &doneAt{k: k}
	d.Submit(Read, 10, 1, got, 0)
	k.Run()
	d.Submit(Read, 11, 16, got, 0) // contiguous with the previous
	k.Run()
	if got.times[0] != p.ReadTime || got.times[1]-got.times[0] != p.SeqTime+15*p.TransferTime || p.SeqTime != p.ReadTime {
		t.Fatalf("done at %v: want a full request latency each (%d ns), plus 15 x %d ns for the 16-page one", got.times, p.ReadTime, p.TransferTime)
	}
}
