package model

import (
	"strconv"
	"strings"
)

// pgbench's transaction logs, as pgbench.c writes them (doLog,
// processXactStats, accumStats; the file names of main): one file per
// thread of each logged phase (a phase is one pgbench run), named
// PREFIX.PID for thread 0 and PREFIX.PID.TID for the others, with a fixed
// pseudo process id so that runs stay byte-identical. Times are
// microseconds; the epoch columns count from LogEpoch.

// LogEpoch is the Unix time, in seconds, that simulated time 0 is in
// pgbench logs (2026-01-01T00:00:00Z), so that their epoch columns read as
// dates.
const LogEpoch = 1767225600

// LogPIDBase is the pseudo process id of the first phase's logs; phase i
// (workload.phases[i]) is LogPIDBase + i.
const LogPIDBase = 10000

// LogFile is one pgbench log file of a run.
type LogFile struct {
	Name string
	Data []byte
}

// threadLog is one pgbench thread's log file.
type threadLog struct {
	name    string
	buf     strings.Builder
	version int
	lag     bool    // -R: the schedule lag column
	limit   bool    // -L: skipped transactions are counted
	sample  uniform // --sampling-rate: nil logs every transaction
	rate    float64
	agg     *aggStats // --aggregate-interval: nil writes a line per transaction
}

// aggStats is pgbench's StatsData for one aggregation interval.
type aggStats struct {
	start, interval int64 // µs since the Unix epoch
	cnt, skipped    int64
	lat, lagS       simpleStats
}

// simpleStats is pgbench's SimpleStats (addToSimpleStats).
type simpleStats struct {
	count               int64
	min, max, sum, sum2 float64
}

func (s *simpleStats) add(v float64) {
	if s.count == 0 || v < s.min {
		s.min = v
	}
	if s.count == 0 || v > s.max {
		s.max = v
	}
	s.count++
	s.sum += v
	s.sum2 += v * v
}

// logStatus is a logged transaction's outcome.
type logStatus uint8

const (
	logOK logStatus = iota
	logSkipped
	logFailed
)

// epochUs converts simulated time to microseconds since the Unix epoch.
func epochUs(t int64) int64 { return LogEpoch*1_000_000 + t/1000 }

// newThreadLogs opens the log files of phase i's threads, or returns nil
// when the phase is not logged.
func (e *engine) newThreadLogs(i int, ph *phase) []*threadLog {
	out := e.sc.Output
	if !out.PGBenchLog || ph.cfg.Warmup && !out.LogWarmup {
		return nil
	}
	v, _ := Version(e.sc.Server.Version)
	pid := strconv.Itoa(LogPIDBase + i)
	logs := make([]*threadLog, len(ph.threads))
	for t := range ph.threads {
		l := &threadLog{name: out.LogPrefix + "." + pid, version: v, lag: ph.cfg.Rate > 0, limit: ph.cfg.LatencyLimit > 0}
		if t > 0 {
			l.name += "." + strconv.Itoa(t)
		}
		if out.SamplingRate > 0 && out.SamplingRate < 1 {
			// pgbench's per-thread ts_sample_rs; a stream of its own, so
			// that sampling changes nothing else.
			l.sample = ph.streams.sample[t]
			l.rate = out.SamplingRate
		}
		if out.AggregateInterval > 0 {
			// pgbench: initStats(&aggs, thread start rounded down to the
			// second).
			l.agg = &aggStats{start: epochUs(ph.start) / 1_000_000 * 1_000_000, interval: out.AggregateInterval / 1000}
		}
		logs[t] = l
	}
	return logs
}

// record is doLog for one transaction that ended (or was skipped) at now:
// the client, its transaction number (pgbench's st->cnt, counted before
// doLog, so the first is 1), latency and lag in µs, and the script.
func (l *threadLog) record(now int64, client int, txNo int64, status logStatus, latency, lag int64, script int) {
	if l.sample != nil && l.sample.Float64() > l.rate {
		return
	}
	nowUs := epochUs(now)
	if l.agg != nil {
		l.flush(nowUs)
		a := l.agg
		switch status {
		case logSkipped:
			a.skipped++
		case logOK:
			a.cnt++
			a.lat.add(float64(latency))
			if l.lag {
				a.lagS.add(float64(lag))
			}
		}
		// Failures count only under --failures-detailed, which the model
		// does not have: they print as 0.
		return
	}
	if status == logFailed && l.version < 1500 {
		return // before 15 an error aborted the client: no line
	}
	b := &l.buf
	b.WriteString(strconv.Itoa(client))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(txNo, 10))
	b.WriteByte(' ')
	switch status {
	case logOK:
		b.WriteString(strconv.FormatInt(latency, 10))
	case logSkipped:
		b.WriteString("skipped")
	default:
		b.WriteString("failed")
	}
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(script))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(nowUs/1_000_000, 10))
	b.WriteByte(' ')
	b.WriteString(strconv.FormatInt(nowUs%1_000_000, 10))
	if l.lag {
		// Skipped and failed transactions log a lag of 0
		// (processXactStats computes it only for completed ones).
		if status != logOK {
			lag = 0
		}
		b.WriteByte(' ')
		b.WriteString(strconv.FormatInt(lag, 10))
	}
	b.WriteByte('\n')
}

// flush prints the aggregation intervals that ended by nowUs, empty ones
// included (doLog's loop).
func (l *threadLog) flush(nowUs int64) {
	a := l.agg
	for a.start+a.interval <= nowUs {
		b := &l.buf
		f := func(x float64) { b.WriteByte(' '); b.WriteString(strconv.FormatFloat(x, 'f', 0, 64)) }
		i := func(x int64) { b.WriteByte(' '); b.WriteString(strconv.FormatInt(x, 10)) }
		b.WriteString(strconv.FormatInt(a.start/1_000_000, 10))
		i(a.cnt)
		f(a.lat.sum)
		f(a.lat.sum2)
		f(a.lat.min)
		f(a.lat.max)
		switch {
		case l.version >= 1500:
			// From 15 every column is printed, zeros where the option
			// is off: lag, skipped, retried and retries, the failures
			// by kind (and from 19 other SQL failures).
			f(a.lagS.sum)
			f(a.lagS.sum2)
			f(a.lagS.min)
			f(a.lagS.max)
			i(a.skipped)
			i(0)
			i(0)
			i(0)
			i(0)
			if l.version >= 1900 {
				i(0)
			}
		case l.lag:
			f(a.lagS.sum)
			f(a.lagS.sum2)
			f(a.lagS.min)
			f(a.lagS.max)
			if l.limit {
				i(a.skipped)
			}
		}
		b.WriteByte('\n')
		*a = aggStats{start: a.start + a.interval, interval: a.interval}
	}
}

// finish ends a thread's log when its phase ends at now: the intervals that
// ended by then are printed, the last partial one is not (pgbench's final
// doLog).
func (l *threadLog) finish(now int64) {
	if l.agg != nil {
		l.flush(epochUs(now))
	}
}
