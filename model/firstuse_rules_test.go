package model_test

import (
	"math"
	"testing"
)

// costs.buffer_first_use is paid once per shared buffer between two
// server starts, by the backend that first puts a page in it: after a
// restart every read of a scan lands in a buffer never used (each pays
// it), the same scan again hits (only its new session's few catalog reads
// pay), and after the next restart the buffers are new again. With buffer_first_touch also set, a buffer's
// first use is not charged its first touch as well (the allocating fault
// maps the page).
func TestBufferFirstUseOncePerBufferAndStart(t *testing.T) {
	const doc = `name: first-use
server: {version: "15", shared_buffers: 128MB, autovacuum: false, cpus: 2}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, state: vacuumed}
workload:
  phases:
    - {name: scan1, transactions: 1, restart: true, script: [{seqscan: t}]}
    - {name: scan2, transactions: 1, script: [{seqscan: t}]}
    - {name: scan3, transactions: 1, restart: true, script: [{seqscan: t}]}
`
	free := bhRunYAML(t, doc)
	priced := bhRunYAML(t, doc, "costs.buffer_first_use=10us")
	both := bhRunYAML(t, doc, "costs.buffer_first_use=10us", "costs.buffer_first_touch=1us")
	touchOnly := bhRunYAML(t, doc, "costs.buffer_first_touch=1us")
	for _, name := range []string{"scan1", "scan2", "scan3"} {
		f, p := bhPhase(t, free, name), bhPhase(t, priced, name)
		// Every read lands in a buffer not used since the start: the
		// free list hands out new ones while it has them.
		fresh := float64(p.Buffers.Reads)
		if name == "scan2" && fresh > 20 {
			t.Fatalf("scan2 read %.0f pages, want the table's pages hits (a few catalog pages read)", fresh)
		}
		if name != "scan2" && fresh < 1700 {
			t.Fatalf("%s read %.0f pages, want the table's 1700 and more", name, fresh)
		}
		if d, want := p.CPU.BusySeconds-f.CPU.BusySeconds, fresh*10e-6; math.Abs(d-want) > 1e-6+0.001*want {
			t.Errorf("%s: busy %.6f s more at 10 us a first use, want %.0f buffers used for the first time = %.6f s", name, d, fresh, want)
		}
		b, o := bhPhase(t, both, name), bhPhase(t, touchOnly, name)
		// The first touches left are the ones of buffers used before: in
		// scan2, its new session's touches of scan1's buffers.
		if d, want := b.CPU.BusySeconds-p.CPU.BusySeconds, o.CPU.BusySeconds-f.CPU.BusySeconds-fresh*1e-6; math.Abs(d-want) > 1e-6 {
			t.Errorf("%s: first touches with first uses priced cost %.6f s, want those of buffers used before %.6f s", name, d, want)
		}
	}
}

// A buffer's first use is a write fault, which maps its own page and
// does no fault-around: the session that read a table into buffers never
// used pays buffer_map_fault when it reads them again, once per 64 kB
// (the 1725 pages, read after the restart into consecutive free buffers,
// lie in 216 stretches of eight), and nothing for the read itself.
func TestBufferFirstUseMapsNoStretch(t *testing.T) {
	const doc = `name: first-use-map
server: {version: "15", shared_buffers: 128MB, autovacuum: false, cpus: 2, system_catalogs: false}
os: {page_cache: 2GB, start: loaded}
tables:
  relations:
    - {name: t, rows: 100000, row_width: 105, state: vacuumed}
workload:
  phases:
    - {name: scan1, transactions: 1, restart: true, script: [{seqscan: t}]}
    - {name: twice, transactions: 2, restart: true, script: [{seqscan: t}]}
`
	use := bhRunYAML(t, doc, "costs.buffer_first_use=10us")
	both := bhRunYAML(t, doc, "costs.buffer_first_use=10us", "costs.buffer_map_fault=1us")
	if d := bhPhase(t, both, "scan1").CPU.BusySeconds - bhPhase(t, use, "scan1").CPU.BusySeconds; math.Abs(d) > 1e-9 {
		t.Errorf("one scan into new buffers: %.6f s of map faults, want none (each first use maps its own page)", d)
	}
	reads := bhPhase(t, use, "scan1").Buffers.Reads
	if d, want := bhPhase(t, both, "twice").CPU.BusySeconds-bhPhase(t, use, "twice").CPU.BusySeconds, float64((reads+7)/8)*1e-6; math.Abs(d-want) > 1e-9 {
		t.Errorf("the same scan twice in a session: %.6f s of map faults, want %.6f (the second scan's %d buffers in stretches of eight)", d, want, reads)
	}
}
