package replay

import (
	"os"
	"testing"
	"time"

	"github.com/pgbufsim/pgbufsim/policies"
	"github.com/pgbufsim/pgbufsim/trace"
)

func TestScratchPerf(t *testing.T) {
	p := os.Getenv("SCRATCH_TRACE")
	if p == "" {
		t.Skip()
	}
	spec, _ := policies.Lookup("clock-sweep")
	for i := 0; i < 3; i++ {
		f, err := trace.Open(p, trace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		res, err := Run(f, spec, nil, 100000)
		el := time.Since(t0)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v %.2f Mreq/s", res, float64(res.Requests)/el.Seconds()/1e6)
	}
}
