package plots

import (
	"fmt"
	"html/template"
	"strings"
)

// pageView is what the HTML template sees: validated, escaped-by-template
// text plus the few pieces (echarts source, option JSON, licence comment)
// that are trusted because this package produced them.
type pageView struct {
	Title     string
	Subtitle  string
	Notice    template.HTML
	EchartsJS template.JS
	Glue      template.JS
	SortJS    template.JS // only with a sortable table
	Sections  []sectionView
}

type sectionView struct {
	Heading    string
	Paragraphs []string
	Table      *tableView
	Chart      *chartView
	Links      []Link
}

type tableView struct {
	Header   []cellView
	Rows     [][]cellView
	Sortable bool
}

type cellView struct {
	Text  string
	Right bool
	Href  string
}

type chartView struct {
	ID     string
	Height string
	Option template.JS
}

// buildPageView validates p and turns it into the template's view. Errors
// name the section (1-based, as a reader counts) and the chart or table.
func buildPageView(p Page) (*pageView, error) {
	v := &pageView{
		Title:    p.Title,
		Subtitle: p.Subtitle,
		Notice:   template.HTML(echartsNoticeComment()),
		Glue:     template.JS(glueJS),
	}
	if v.Title == "" {
		v.Title = "Report"
	}
	ids := make(map[string]int)
	for i, s := range p.Sections {
		where := fmt.Sprintf("section %d", i+1)
		sv := sectionView{Heading: s.Heading, Paragraphs: paragraphs(s.Text), Links: s.Links}
		if s.Table != nil {
			tv, err := buildTableView(s.Table)
			if err != nil {
				return nil, fmt.Errorf("plots: %s: table: %w", where, err)
			}
			sv.Table = tv
			if tv.Sortable {
				v.SortJS = template.JS(sortJS)
			}
		}
		if s.Chart != nil {
			c := s.Chart
			if prev, dup := ids[c.ID]; dup && c.ID != "" {
				return nil, fmt.Errorf("plots: %s: chart %q: ID already used in section %d", where, c.ID, prev)
			}
			ids[c.ID] = i + 1
			cv, err := buildChartView(c)
			if err != nil {
				return nil, fmt.Errorf("plots: %s: %w", where, err)
			}
			sv.Chart = cv
		}
		for j, l := range s.Links {
			if err := checkHref(l.Href); err != nil {
				return nil, fmt.Errorf("plots: %s: link %d (%q): %w", where, j+1, l.Text, err)
			}
		}
		v.Sections = append(v.Sections, sv)
	}
	return v, nil
}

// buildChartView validates c and produces its echarts option.
func buildChartView(c *Chart) (*chartView, error) {
	opt, err := chartOption(c)
	if err != nil {
		return nil, err
	}
	h := c.Height
	if h == "" {
		h = DefaultChartHeight
	}
	return &chartView{ID: c.ID, Height: h, Option: template.JS(opt)}, nil
}

// paragraphs splits text on blank lines, trimming each paragraph.
func paragraphs(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out []string
	for _, p := range strings.Split(text, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
