package plots

import (
	"bytes"
	"io"
)

// Page is one self-contained HTML report.
type Page struct {
	Title string
	// Subtitle is a line under the title, e.g. "seed 1 · configs/quickstart.yaml".
	Subtitle string
	// Sections are rendered in order.
	Sections []Section
}

// Section is one block of the page. Usually one field is set; when several
// are, they are rendered in the order Heading, Text, Table, Chart, Links.
type Section struct {
	// Heading is a section heading (h2).
	Heading string
	// Text is plain text; blank lines separate paragraphs. It is escaped,
	// never interpreted as HTML.
	Text  string
	Table *Table
	Chart *Chart
	// Links are relative links, e.g. to per-run reports or CSV files.
	Links []Link
}

// Table is a plain table of text cells. Every row has as many cells as the
// header (or, without a header, as the first row).
type Table struct {
	Header []string
	Rows   [][]string
	// Align gives each column's alignment, "l" or "r"; a missing or empty
	// entry means automatic: right-aligned when every non-empty cell of the
	// column is a number (optionally with a unit or a ± term, like "12.5 ms"
	// or "0.93 ± 0.01"), left-aligned otherwise.
	Align []string
	// Hrefs, if set, makes cells links: Hrefs[row][col] is a relative URL
	// (empty: no link). Rows without an entry have no links.
	Hrefs [][]string
	// Sortable lets the reader sort the rows by clicking a column's
	// header (numbers by value, text alphabetically; again to reverse).
	Sortable bool
}

// Link is a hyperlink to a file next to the report. Href must be a relative
// URL (no scheme, no host), so the page never points at the network.
type Link struct {
	Text, Href string
}

// Write renders p as one self-contained HTML page to w: echarts is inlined,
// nothing is fetched from the network, and the same Page always gives the
// same bytes. Nothing is written when p is invalid.
func Write(w io.Writer, p Page) error {
	return render(w, p, renderConfig{echartsJS: echartsJS})
}

// renderConfig carries the unexported rendering options; tests use it to
// replace the 1 MB echarts source with a placeholder in golden files.
type renderConfig struct {
	echartsJS string
}

func render(w io.Writer, p Page, cfg renderConfig) error {
	v, err := buildPageView(p)
	if err != nil {
		return err
	}
	v.EchartsJS = jsText(cfg.echartsJS)
	var buf bytes.Buffer
	buf.Grow(len(cfg.echartsJS) + 64<<10)
	// The whole page is rendered before anything reaches w, so an error
	// never leaves a truncated report behind.
	if err := pageTemplate.Execute(&buf, v); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}
