package model

import (
	"math"
	"strconv"
)

// pgbench's progress report (-P N; pgbench.c printProgressReport): every N
// seconds of a phase, in simulated time, a line with the transactions that
// completed since the last report: tps, latency mean and stddev, failures
// (15+), and under -R the schedule lag and (with -L) the skipped ones.
// Lines go to Options.ProgressLine; they only watch the run.

// progressStats are the figures of the transactions since the last report
// (pgbench's StatsData deltas), latencies in microseconds.
type progressStats struct {
	cnt, failed, skipped int64
	sum, sum2, lagSum    float64
}

// progressReporter reports one phase's progress.
type progressReporter struct {
	e     *engine
	ph    *phase
	every int64 // ns
	last  int64 // the last report's time
	n     int   // reports so far
}

// startProgress schedules phase ph's reports, if asked for.
func (e *engine) startProgress(ph *phase) {
	if e.opt.ProgressLine == nil || e.sc.Output.Progress <= 0 {
		return
	}
	ph.prog = &progressStats{}
	r := &progressReporter{e: e, ph: ph, every: e.sc.Output.Progress, last: ph.start}
	e.k.After(r.every, r, 0)
}

// OnEvent prints a report if the phase is still running (pgbench's thread
// 0 reports while it runs) and schedules the next.
func (r *progressReporter) OnEvent(int64) {
	e, ph := r.e, r.ph
	if e.cur != ph || ph.active == 0 {
		return
	}
	now := e.k.Now()
	e.opt.ProgressLine(r.line(now))
	*ph.prog = progressStats{}
	r.last = now
	e.k.After(r.every, r, 0)
}

// line formats a report as printProgressReport does for the version.
func (r *progressReporter) line(now int64) string {
	e, ph, s := r.e, r.ph, r.ph.prog
	v, _ := Version(e.sc.Server.Version)
	run := float64(now-r.last) / 1e3 // µs
	tps := 1e6 * float64(s.cnt) / run
	var lat, stdev, lag float64
	if s.cnt > 0 {
		lat = 0.001 * s.sum / float64(s.cnt)
		sqlat := s.sum2 / float64(s.cnt)
		stdev = 0.001 * math.Sqrt(max(sqlat-1e6*lat*lat, 0))
		lag = 0.001 * s.lagSum / float64(s.cnt)
	}
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	t := f(float64(now-ph.start)/1e9, 1) + " s"
	if e.sc.Output.ProgressTimestamp {
		t = f(float64(epochUs(now))/1e6, 3) + " s"
	}
	out := "progress: " + t + ", " + f(tps, 1) + " tps, lat " + f(lat, 3) + " ms stddev " + f(stdev, 3)
	if v >= 1500 {
		out += ", " + strconv.FormatInt(s.failed, 10) + " failed"
	}
	if ph.cfg.Rate > 0 {
		out += ", lag " + f(lag, 3) + " ms"
		if ph.cfg.LatencyLimit > 0 {
			out += ", " + strconv.FormatInt(s.skipped, 10) + " skipped"
		}
	}
	return out
}
