package plots

import (
	"fmt"
	"regexp"
	"strings"
)

// numericCell matches what a report puts in a numeric column: a number with
// optional sign, thousands separators, decimals and exponent, an optional
// short unit, and an optional "± number [unit]" term (a confidence
// interval): "1,250.5", "93.1%", "128MB", "12.5 ms ± 0.4", "1.2e6 ev/s".
var numericCell = regexp.MustCompile(`^[-+±−]?` + numberRE + unitRE + `(\s*±\s*` + numberRE + unitRE + `)?$`)

const (
	numberRE = `(\d[\d,]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?`
	unitRE   = `(\s*(%|[A-Za-zµ/]{1,5}))?`
)

// blankCell is how reports write a missing number; it does not make a
// column textual.
func blankCell(s string) bool {
	switch s {
	case "", "-", "—", "n/a", "NaN":
		return true
	}
	return false
}

func buildTableView(t *Table) (*tableView, error) {
	ncol := len(t.Header)
	if ncol == 0 && len(t.Rows) > 0 {
		ncol = len(t.Rows[0])
	}
	for i, r := range t.Rows {
		if len(r) != ncol {
			return nil, fmt.Errorf("row %d has %d cells, want %d", i+1, len(r), ncol)
		}
	}
	if len(t.Align) > ncol {
		return nil, fmt.Errorf("%d alignments for %d columns", len(t.Align), ncol)
	}
	right := make([]bool, ncol)
	for c := 0; c < ncol; c++ {
		a := ""
		if c < len(t.Align) {
			a = t.Align[c]
		}
		switch a {
		case "l":
		case "r":
			right[c] = true
		case "":
			right[c] = numericColumn(t.Rows, c)
		default:
			return nil, fmt.Errorf("column %d: alignment %q, want \"l\", \"r\" or empty", c+1, a)
		}
	}
	if len(t.Hrefs) > len(t.Rows) {
		return nil, fmt.Errorf("%d rows of links for %d rows", len(t.Hrefs), len(t.Rows))
	}
	v := &tableView{Sortable: t.Sortable}
	for c, h := range t.Header {
		v.Header = append(v.Header, cellView{Text: h, Right: right[c]})
	}
	for i, r := range t.Rows {
		row := make([]cellView, ncol)
		for c, s := range r {
			row[c] = cellView{Text: s, Right: right[c]}
			if i < len(t.Hrefs) && c < len(t.Hrefs[i]) && t.Hrefs[i][c] != "" {
				if err := checkHref(t.Hrefs[i][c]); err != nil {
					return nil, fmt.Errorf("row %d, column %d: %v", i+1, c+1, err)
				}
				row[c].Href = t.Hrefs[i][c]
			}
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

// numericColumn reports whether column c holds numbers: at least one
// number and nothing that is neither a number nor a blank.
func numericColumn(rows [][]string, c int) bool {
	seen := false
	for _, r := range rows {
		s := strings.TrimSpace(r[c])
		if blankCell(s) {
			continue
		}
		if !numericCell.MatchString(s) {
			return false
		}
		seen = true
	}
	return seen
}
