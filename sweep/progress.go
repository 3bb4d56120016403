package sweep

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal (progress bar) rather than a
// file or pipe (one plain line per finished run, which logs keep well).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress prints sweep progress on stderr. It is the only place the
// sweep reads the wall clock (for the ETA), and nothing it prints goes
// into an output file.
type progress struct {
	w       io.Writer
	tty     bool
	metrics []string
	start   time.Time
}

func newProgress(w io.Writer, metrics []string) *progress {
	return &progress{w: w, tty: isTerminal(w), metrics: metrics}
}

func (p *progress) event(ev Event) {
	if ev.Point == nil {
		p.start = time.Now()
		msg := fmt.Sprintf("sweep: %d runs", ev.Total)
		if ev.Skipped > 0 {
			msg += fmt.Sprintf(", %d already finished (resuming)", ev.Skipped)
		}
		fmt.Fprintln(p.w, msg)
		return
	}
	if p.tty {
		p.bar(ev)
		return
	}
	name := fmt.Sprintf("%s r%d", ev.Point.ID, ev.Replicate)
	if ev.Err != nil {
		fmt.Fprintf(p.w, "sweep: [%d/%d] %s failed: %v\n", ev.Done, ev.Total, name, ev.Err)
		return
	}
	var parts []string
	for _, m := range p.metrics {
		for _, v := range ev.Row.Metrics {
			if v.Name == m {
				parts = append(parts, m+" "+v.Value)
			}
		}
	}
	fmt.Fprintf(p.w, "sweep: [%d/%d] %s: %s\n", ev.Done, ev.Total, name, strings.Join(parts, ", "))
}

// bar redraws a one-line bar: runs done / total and the time left at the
// pace of the runs finished so far in this invocation.
func (p *progress) bar(ev Event) {
	if ev.Err != nil {
		fmt.Fprintf(p.w, "\r\033[Ksweep: %s r%d failed: %v\n", ev.Point.ID, ev.Replicate, ev.Err)
	}
	const width = 30
	fill := width * ev.Done / max(ev.Total, 1)
	eta := "--:--"
	if ran := ev.Done - ev.Skipped; ran > 0 {
		left := time.Since(p.start) / time.Duration(ran) * time.Duration(ev.Total-ev.Done)
		eta = fmt.Sprintf("%d:%02d", int(left.Minutes()), int(left.Seconds())%60)
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d runs · ETA %s\033[K", strings.Repeat("#", fill), strings.Repeat("-", width-fill), ev.Done, ev.Total, eta)
	if ev.Done == ev.Total {
		fmt.Fprintln(p.w)
	}
}
