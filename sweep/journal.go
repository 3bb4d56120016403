package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/pgbufsim/pgbufsim/configs"
)

// JournalFile is DIR/sweep.journal: one JSON line per finished run,
// appended as runs finish (so an interrupted sweep knows what it has
// done), and rewritten in stable order when the sweep ends.
const JournalFile = "sweep.journal"

type journalRow struct {
	Point     string      `json:"point"`
	Replicate int         `json:"replicate"`
	Seed      int64       `json:"seed"`
	Config    string      `json:"config"`
	Metrics   [][2]string `json:"metrics"`
}

func toJournal(plan *configs.SweepPlan, r Row) journalRow {
	j := journalRow{Point: plan.Points[r.Point].ID, Replicate: r.Replicate, Seed: r.Seed, Config: r.Config,
		Metrics: make([][2]string, len(r.Metrics))}
	for i, m := range r.Metrics {
		j.Metrics[i] = [2]string{m.Name, m.Value}
	}
	return j
}

func fromJournal(point int, j journalRow) Row {
	r := Row{Point: point, Replicate: j.Replicate, Seed: j.Seed, Config: j.Config, Metrics: make([]configs.Metric, len(j.Metrics))}
	for i, m := range j.Metrics {
		r.Metrics[i] = configs.Metric{Name: m[0], Value: m[1]}
	}
	return r
}

func journalLine(j journalRow) ([]byte, error) {
	b, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// readJournal reads a journal. A last line without its newline is a row
// whose writing was interrupted: it is dropped (that run runs again). A
// missing journal is an empty one.
func readJournal(path string) ([]journalRow, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if i := bytes.LastIndexByte(data, '\n'); i < len(data)-1 {
		data = data[:i+1]
	}
	var rows []journalRow
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var j journalRow
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return nil, &DamagedError{Path: path, Line: line, Err: err}
		}
		rows = append(rows, j)
	}
	return rows, sc.Err()
}

// DamagedError is a journal line that cannot be read: the sweep directory
// was edited or its disk damaged, not written by another sweep.
type DamagedError struct {
	Path string
	Line int
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("%s:%d: the sweep's journal is damaged (%v); delete that line to re-run its run, or use -force to start the sweep over", e.Path, e.Line, e.Err)
}

// encodeJournal renders rows (in the order given) as a journal.
func encodeJournal(plan *configs.SweepPlan, rows []Row) ([]byte, error) {
	var b bytes.Buffer
	for _, r := range rows {
		line, err := journalLine(toJournal(plan, r))
		if err != nil {
			return nil, err
		}
		b.Write(line)
	}
	return b.Bytes(), nil
}
