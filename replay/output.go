package replay

import (
	"github.com/pgbufsim/pgbufsim/internal/outdir"

	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pgbufsim/pgbufsim/plots"
)

// report holds what a replay invocation prints and writes.
type report struct {
	title       string
	traceName   string
	format      string
	compression string
	xaxis       string
	requests    int64
	distinct    int64
	slots       []int // the sizes, ascending
	curves      []Curve
	points      []point // in output order
}

// point is one printed result.
type point struct {
	size    string // as the user wrote it
	res     Result
	elapsed int64 // wall nanoseconds (one-pass curves: the whole pass)
}

func (r *report) addPoint(size string, res Result, elapsed int64) {
	r.points = append(r.points, point{size: size, res: res, elapsed: elapsed})
}

// print writes the libCacheSim-style lines and the table.
func (r *report) print(w io.Writer) {
	name := filepath.Base(r.traceName)
	desc := r.format
	if r.compression != "" {
		desc += ", " + r.compression
	}
	fmt.Fprintf(w, "trace %s (%s): %d requests, %d distinct pages\n", name, desc, r.requests, r.distinct)
	for _, p := range r.points {
		rate := "-"
		if p.elapsed > 0 {
			rate = strconv.FormatFloat(float64(p.res.Requests)/(float64(p.elapsed)/1e9)/1e6, 'f', 2, 64)
		}
		fmt.Fprintf(w, "%s %s cache %d: %d req, %d hits, %d misses, miss ratio %.4f, %s M req/s (%s)\n",
			name, p.res.Policy, p.res.Slots, p.res.Requests, p.res.Hits, p.res.Misses, p.res.MissRatio, rate, p.res.Method)
	}
	fmt.Fprintln(w)
	writeTable(w, r.tableHeader(), r.tableRows())
}

func (r *report) tableHeader() []string {
	return []string{"policy", "cache", "slots", "requests", "hits", "misses", "miss ratio", "evictions", "method"}
}

func (r *report) tableRows() [][]string {
	var rows [][]string
	for _, p := range r.points {
		rows = append(rows, []string{p.res.Policy, p.size, itoa(int64(p.res.Slots)), itoa(p.res.Requests),
			itoa(p.res.Hits), itoa(p.res.Misses), strconv.FormatFloat(p.res.MissRatio, 'f', 4, 64),
			itoa(p.res.Evictions), p.res.Method})
	}
	return rows
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// writeTable prints a fixed-width table: text columns left-aligned,
// numeric ones right-aligned.
func writeTable(w io.Writer, header []string, rows [][]string) {
	width := make([]int, len(header))
	numeric := make([]bool, len(header))
	for i, h := range header {
		width[i] = len(h)
		numeric[i] = len(rows) > 0
	}
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len(c))
			if _, err := strconv.ParseFloat(c, 64); err != nil {
				numeric[i] = false
			}
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-len(c))
			if numeric[i] {
				b.WriteString(pad + c)
			} else if i < len(cells)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		fmt.Fprintln(w, b.String())
	}
	line(header)
	for _, row := range rows {
		line(row)
	}
}

// csv renders mrc.csv: one row per policy and size, no wall-clock figures
// (the file is deterministic).
func (r *report) csv() []byte {
	var b bytes.Buffer
	b.WriteString("trace,policy,method,cache,slots,requests,hits,misses,miss_ratio,evictions,distinct_pages\n")
	for _, p := range r.points {
		fields := []string{filepath.Base(r.traceName), p.res.Policy, p.res.Method, p.size, itoa(int64(p.res.Slots)),
			itoa(p.res.Requests), itoa(p.res.Hits), itoa(p.res.Misses),
			strconv.FormatFloat(p.res.MissRatio, 'f', 6, 64), itoa(p.res.Evictions), itoa(p.res.Distinct)}
		for i, f := range fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(csvField(f))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// wideHeader begins the wide CSV's header, by which a file is known to be
// one pgbufsim wrote (and may be replaced).
const wideHeader = "cache,slots"

// wideCSV renders the curves as a table: a row per cache size (ascending),
// a column per policy with its miss ratio, as miss-ratio-curve plotting
// scripts take them.
func (r *report) wideCSV() []byte {
	var b bytes.Buffer
	b.WriteString(wideHeader)
	for _, c := range r.curves {
		b.WriteString("," + csvField(c.Policy))
	}
	b.WriteByte('\n')
	for _, slots := range r.slots {
		label := itoa(int64(slots))
		for _, p := range r.points {
			if p.res.Slots == slots {
				label = p.size
				break
			}
		}
		b.WriteString(csvField(label) + "," + itoa(int64(slots)))
		for _, c := range r.curves {
			cell := ""
			for _, p := range c.Points {
				if p.Slots == slots {
					cell = strconv.FormatFloat(p.MissRatio, 'f', 6, 64)
				}
			}
			b.WriteString("," + cell)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// checkWideCSV refuses to replace a file that is not an earlier wide CSV
// (or a directory).
func checkWideCSV(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return fmt.Errorf("%s: the directory %s does not exist", path, filepath.Dir(path))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	defer f.Close()
	head := make([]byte, len(wideHeader)+1)
	n, _ := io.ReadFull(f, head)
	if string(head[:n]) != wideHeader+"," && string(head[:n]) != wideHeader+"\n" {
		return fmt.Errorf("%s exists and is not a miss-ratio CSV pgbufsim wrote; it would be replaced (choose another file)", path)
	}
	return nil
}

// csvField quotes a field if needed (policy labels contain commas).
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// page builds the mrc.html page.
func (r *report) page() plots.Page {
	name := filepath.Base(r.traceName)
	title := r.title
	if title == "" {
		title = "Miss-ratio curves: " + name
	}
	x := make([]float64, len(r.slots))
	for i, c := range r.slots {
		x[i] = float64(c)
	}
	chart := &plots.Chart{ID: "mrc", Title: "Miss ratio against cache size", XName: "cache size (8 kB pages)",
		YName: "miss ratio", XType: r.axis(), X: x}
	// Policies grouped by the method that computed them, in order.
	var methods []string
	byMethod := map[string][]string{}
	for _, c := range r.curves {
		y := make([]float64, len(x))
		for i := range y {
			y[i] = math.NaN()
		}
		for _, p := range c.Points {
			for i, s := range r.slots {
				if s == p.Slots {
					y[i] = p.MissRatio
				}
			}
		}
		chart.Series = append(chart.Series, plots.Series{Name: c.Policy, Y: y})
		if len(c.Points) > 0 {
			m := c.Points[0].Method
			if byMethod[m] == nil {
				methods = append(methods, m)
			}
			byMethod[m] = append(byMethod[m], c.Policy)
		}
	}
	var how []string
	for _, m := range methods {
		how = append(how, strings.Join(byMethod[m], ", ")+": "+describeMethod(m))
	}
	desc := r.format
	if r.compression != "" {
		desc += ", " + r.compression
	}
	return plots.Page{
		Title:    title,
		Subtitle: fmt.Sprintf("%s (%s) · %d requests · %d distinct pages", name, desc, r.requests, r.distinct),
		Sections: []plots.Section{
			{Chart: chart},
			{Heading: "How each curve was computed", Text: strings.Join(how, "\n\n")},
			{Heading: "Results", Table: &plots.Table{Header: r.tableHeader(), Rows: r.tableRows()}},
			{Links: []plots.Link{{Text: "mrc.csv", Href: "mrc.csv"}}},
		},
	}
}

// axis picks the chart's x axis: log when the sizes span more than a
// factor of 20, unless the user chose.
func (r *report) axis() string {
	switch r.xaxis {
	case "log":
		return plots.AxisLog
	case "value":
		return plots.AxisValue
	}
	if len(r.slots) > 1 && r.slots[len(r.slots)-1] > 20*r.slots[0] {
		return plots.AxisLog
	}
	return plots.AxisValue
}

// describeMethod explains a Result.Method in a sentence.
func describeMethod(m string) string {
	switch {
	case m == MethodReplay:
		return "replayed request by request at each cache size."
	case m == MethodStack:
		return "exact, all sizes from one pass over the trace: LRU stack distances (Mattson et al. 1970) counted with a Fenwick tree."
	case strings.HasPrefix(m, MethodSHARDS):
		return "estimated from a spatially hashed sample of the pages, " + m + " (SHARDS, Waldspurger et al., FAST 2015, with its bias adjustment)."
	}
	return m
}

// write writes mrc.csv and mrc.html into dir, each through a temporary file
// renamed into place, and returns their paths.
func (r *report) write(dir string) ([]string, error) {
	var html bytes.Buffer
	if err := plots.Write(&html, r.page()); err != nil {
		return nil, err
	}
	if err := outdir.Check(dir, outdir.Replay); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := outdir.WriteMarker(dir, outdir.Replay); err != nil {
		return nil, err
	}
	files := []struct {
		name string
		data []byte
	}{{"mrc.csv", r.csv()}, {"mrc.html", html.Bytes()}}
	var paths []string
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if err := outdir.WriteFileAtomic(path, f.data); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
