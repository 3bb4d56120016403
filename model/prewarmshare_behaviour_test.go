package model_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/pgbufsim/pgbufsim/model"
)

const sharedPrewarmYAML = `
name: shared-prewarm
seed: 5
server:
  version: "17"
  shared_buffers: 2MB
  cpus: 2
  max_wal_size: 32MB
  autovacuum_naptime: 4s
os:
  page_cache: 8MB
storage: {data: sata-ssd, wal: data}
tables:
  pgbench: {scale: 1}
output:
  pgbench_log: true
workload:
  prewarm: 20000
  phases:
    - name: warm
      warmup: true
      duration: 1s
      clients: 4
      rate: 400
    - name: run
      duration: 4s
      clients: 4
`

// Runs that share a prewarm (model.PrewarmShare, as a sweep does) give
// the same bytes as runs that prewarm themselves, whichever run made it
// and in whatever order; only one prewarm is made per PrewarmKey.
func TestSharedPrewarmGivesTheSameRun(t *testing.T) {
	groups := map[string][][]string{
		"clock-sweep 17": {
			nil,
			{"server.bgwriter_delay=50ms", "server.bgwriter_lru_maxpages=400"},
			{"server.checkpoint_timeout=30s", "storage.data=hdd-7200", "costs.buffer_hit=300ns"},
			{"workload.phases.run.clients=8", "workload.phases.run.duration=2s"},
		},
		"2q 19, page cache loaded": {
			{"server.version=19", "os.start=loaded", "policies.replacement.name=2q"},
			{"server.version=19", "os.start=loaded", "policies.replacement.name=2q", "server.io_method=io_uring", "server.effective_io_concurrency=64"},
		},
	}
	for name, points := range groups {
		t.Run(name, func(t *testing.T) {
			var scs []model.Scenario
			var fresh [][]byte
			for _, set := range points {
				sc := bhScenario(t, sharedPrewarmYAML, set...)
				scs = append(scs, sc)
				fresh = append(fresh, resultBytes(t, bhRun(t, sc)))
				if model.PrewarmKey(sc) != model.PrewarmKey(scs[0]) {
					t.Fatalf("%v: another prewarm key than the group's first point", set)
				}
			}
			// In order, then in reverse (another run makes the prewarm),
			// and concurrently as a sweep's -parallel runs them.
			for _, order := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}} {
				share := model.NewPrewarmShare()
				for _, i := range order {
					if i < len(scs) {
						share.Expect(scs[i])
					}
				}
				for _, i := range order {
					if i >= len(scs) {
						continue
					}
					r, err := model.RunWith(scs[i], model.Options{Prewarms: share})
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(resultBytes(t, r), fresh[i]) {
						t.Fatalf("point %d (%v) with a shared prewarm differs from its own run", i, points[i])
					}
				}
				if c, k := share.Counts(); c != 1 || k != len(scs)-1 {
					t.Fatalf("%d prewarms made and %d copied, want 1 and %d", c, k, len(scs)-1)
				}
				if share.Keys() != 0 {
					t.Fatalf("the share still holds %d prewarms after every announced run", share.Keys())
				}
			}
			share := model.NewPrewarmShare()
			got := make([][]byte, len(scs))
			var wg sync.WaitGroup
			for i := range scs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := model.RunWith(scs[i], model.Options{Prewarms: share})
					if err != nil {
						t.Error(err)
						return
					}
					got[i] = resultBytes(t, r)
				}()
			}
			wg.Wait()
			for i := range scs {
				if !bytes.Equal(got[i], fresh[i]) {
					t.Fatalf("point %d run concurrently with a shared prewarm differs from its own run", i)
				}
			}
		})
	}
	// Another seed, replicate or pool is another prewarm.
	sc := bhScenario(t, sharedPrewarmYAML)
	for _, set := range [][]string{{"seed=6"}, {"server.shared_buffers=4MB"}, {"os.page_cache=16MB"}, {"workload.prewarm=10000"}, {"policies.replacement.name=lru"}} {
		if model.PrewarmKey(bhScenario(t, sharedPrewarmYAML, set...)) == model.PrewarmKey(sc) {
			t.Errorf("%v: the same prewarm key as the base scenario", set)
		}
	}
	rep := sc
	rep.Replicate = 1
	if model.PrewarmKey(rep) == model.PrewarmKey(sc) {
		t.Error("replicates 0 and 1 share a prewarm key, but their prewarms draw other keys")
	}
}
