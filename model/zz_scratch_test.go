package model_test

import (
	"encoding/json"
	"testing"
	"time"
)

func TestZZWalCkpt(t *testing.T) {
	for _, v := range []string{"9.4", "17"} {
		t0 := time.Now()
		r := bhRunYAML(t, `
name: walckpt
server:
  version: "`+v+`"
  shared_buffers: 8MB
  max_wal_size: 160MB
  checkpoint_timeout: 1h
  autovacuum: false
storage: {data: nvme, wal: nvme}
tables:
  relations:
    - {name: h, rows: 0}
workload:
  phases:
    - name: load
      transactions: 25
      script:
        - insert: {table: h, rows: 100000}
`)
		b, _ := json.MarshalIndent(r.Checkpoints, "", " ")
		t.Logf("%s wall %v events %d sim %v wal %d\n%s", v, time.Since(t0), r.Runtime.Events, r.Runtime.SimulatedSeconds, r.Totals.WAL.Bytes, b)
	}
}
