package plots

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.html")

// goldenEcharts replaces the 1 MB echarts source in golden files.
const goldenEcharts = "/* echarts.min.js 5.4.3 is inlined here */"

func renderString(t *testing.T, p Page, cfg renderConfig) string {
	t.Helper()
	var b bytes.Buffer
	if err := render(&b, p, cfg); err != nil {
		t.Fatalf("render: %v", err)
	}
	return b.String()
}

func TestGoldenPage(t *testing.T) {
	got := renderString(t, demoPage(), renderConfig{echartsJS: goldenEcharts})
	path := filepath.Join("testdata", "report.golden.html")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./plots -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("page differs from %s; inspect the diff and run go test ./plots -update if it is intended", path)
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Errorf("first difference at line %d:\n got: %.300s\nwant: %.300s", i+1, gl[i], wl[i])
				break
			}
		}
	}
}

func TestWriteIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := Write(&a, demoPage()); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, demoPage()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renders of the same page differ")
	}
}

// networkRef finds anything that would make a browser fetch from the
// network: src=, href= or url( pointing at http(s) or a protocol-relative
// URL, any script with a src, and any <link href>.
var networkRef = regexp.MustCompile(`(?i)(\b(src|href)\s*=\s*["']?\s*(https?:)?//)|(url\(\s*["']?\s*(https?:)?//)|(<script[^>]*\ssrc\s*=)|(<link[^>]*\shref\s*=)`)

func TestPageMakesNoNetworkReference(t *testing.T) {
	// The check must catch go-echarts' default page, which loads echarts
	// from its CDN; otherwise it proves nothing.
	line := charts.NewLine()
	line.SetGlobalOptions(charts.WithInitializationOpts(opts.Initialization{ChartID: "x"}))
	var def bytes.Buffer
	if err := line.Render(&def); err != nil {
		t.Fatal(err)
	}
	if !networkRef.Match(def.Bytes()) {
		t.Fatal("networkRef does not flag go-echarts' default (CDN) page")
	}
	var b bytes.Buffer
	if err := Write(&b, demoPage()); err != nil {
		t.Fatal(err)
	}
	if m := networkRef.Find(b.Bytes()); m != nil {
		t.Errorf("page refers to the network: %q", m)
	}
	// Outside scripts (whose JavaScript holds XML namespace names such as
	// "http://www.w3.org/2000/svg", which are never fetched), no attribute
	// at all may hold a network URL.
	html := scriptBody.ReplaceAll(b.Bytes(), nil)
	if m := networkAttr.Find(html); m != nil {
		t.Errorf("page has a network URL in an attribute: %q", m)
	}
	if !networkAttr.MatchString(`<img alt="x" poster = 'https://e.example/x'>`) {
		t.Error("networkAttr misses a quoted https attribute")
	}
}

var (
	scriptBody  = regexp.MustCompile(`(?is)<script>.*?</script>`)
	networkAttr = regexp.MustCompile(`(?i)\s[a-z][a-z0-9:-]*\s*=\s*["']?\s*(https?:)?//`)
)

func TestEchartsInlinedOnceWithNotice(t *testing.T) {
	if len(echartsJS) != 1_024_740 {
		t.Fatalf("embedded echarts.min.js is %d bytes, want 1,024,740 (echarts 5.4.3)", len(echartsJS))
	}
	var b bytes.Buffer
	if err := Write(&b, demoPage()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, echartsJS); n != 1 {
		t.Errorf("echarts source appears %d times, want 1", n)
	}
	for _, want := range []string{"Apache ECharts\nCopyright 2017-2023 The Apache Software Foundation",
		"Licensed under the Apache License, Version 2.0.", "echarts 5.4.3"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the licence notice %q", want)
		}
	}
	// Empty pages carry it too.
	b.Reset()
	if err := Write(&b, Page{}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(b.String(), echartsJS) != 1 {
		t.Error("an empty page does not inline echarts once")
	}
}

func TestEchartsAssetIsInlinable(t *testing.T) {
	lower := strings.ToLower(echartsJS)
	for _, bad := range []string{"</script", "<!--"} {
		if strings.Contains(lower, bad) {
			t.Errorf("echarts.min.js contains %q and cannot be inlined in a script element", bad)
		}
	}
	for name, s := range map[string]string{"NOTICE": echartsNotice, "VERSIONS": echartsVersions} {
		if strings.Contains(s, "--") {
			t.Errorf("%s contains \"--\", which ends the HTML comment it is quoted in", name)
		}
	}
}

func TestCallerTextIsEscaped(t *testing.T) {
	evil := `</script><script>alert(1)</script><!--`
	p := Page{
		Title: evil, Subtitle: evil,
		Sections: []Section{
			{Heading: evil, Text: evil},
			{Table: &Table{Header: []string{evil}, Rows: [][]string{{evil}}}},
			{Chart: &Chart{ID: "c", Title: evil, XName: evil, YName: evil, X: []float64{1},
				Series: []Series{{Name: evil, Y: []float64{1}}}, Marks: []Mark{{X: 1, Label: evil}}}},
			{Links: []Link{{Text: evil, Href: "a.csv"}}},
		},
	}
	page := renderString(t, p, renderConfig{echartsJS: goldenEcharts})
	if strings.Contains(page, "<script>alert(1)") {
		t.Error("caller text injected a script element")
	}
	if n := strings.Count(page, "</script>"); n != 3 {
		t.Errorf("%d </script> tags, want 3 (echarts, glue, one chart)", n)
	}
	if !strings.Contains(page, `\u003c/script\u003e`) {
		t.Error("chart text is not JSON-escaped inside the script")
	}
}

func TestTextParagraphs(t *testing.T) {
	page := renderString(t, Page{Sections: []Section{{Text: "one\ntwo\r\n\r\n\n three \n\n"}}}, renderConfig{})
	if !strings.Contains(page, "<p>one\ntwo</p>\n<p>three</p>\n</section>") {
		t.Errorf("paragraphs not split on blank lines:\n%s", page[strings.Index(page, "<main>"):])
	}
}

func TestTableAlignment(t *testing.T) {
	tb := &Table{
		Header: []string{"name", "tps", "ratio", "latency", "ci", "mixed", "forced"},
		Rows: [][]string{
			{"clock-sweep", "1,250.5", "93.1%", "12.5 ms", "0.93 ± 0.01", "12", "a"},
			{"2q", "-1.5e3", "", "8ms", "1.1±0.2", "n/a x", "b"},
			{"lru", "n/a", "91%", ".5 s", "2 ms ± 1 ms", "7", "c"},
		},
		Align: []string{"", "", "", "", "", "", "r"},
	}
	v, err := buildTableView(tb)
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, true, true, true, false, true}
	for c, h := range v.Header {
		if h.Right != want[c] {
			t.Errorf("column %q right-aligned = %v, want %v", h.Text, h.Right, want[c])
		}
	}
	tb.Align = []string{"l", "l"}
	if v, _ = buildTableView(tb); v.Header[1].Right {
		t.Error(`Align "l" did not override a numeric column`)
	}
	for name, bad := range map[string]*Table{
		"short row": {Header: []string{"a", "b"}, Rows: [][]string{{"1", "2"}, {"1"}}},
		"long row":  {Rows: [][]string{{"1"}, {"1", "2"}}},
		"align":     {Header: []string{"a"}, Align: []string{"center"}},
		"aligns":    {Header: []string{"a"}, Align: []string{"l", "r"}},
	} {
		if _, err := buildTableView(bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := Write(&bytes.Buffer{}, Page{Sections: []Section{{}, {Table: &Table{Header: []string{"a"}, Rows: [][]string{{}}}}}}); err == nil ||
		!strings.Contains(err.Error(), "section 2: table: row 1") {
		t.Errorf("table error does not say where: %v", err)
	}
}

func TestLinksMustBeRelative(t *testing.T) {
	for _, ok := range []string{"sweep.csv", "runs/001/report.html", "../x.html", "#top", "a%20b.csv", "report.html?x=1"} {
		if err := checkHref(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "https://example.com/x.csv", "http://x", "//cdn.example.com/e.js",
		"javascript:alert(1)", "data:text/html,x", `/\evil.example`, " x.csv", "file:///etc/passwd", "a\nb"} {
		if err := checkHref(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	err := Write(&bytes.Buffer{}, Page{Sections: []Section{{Links: []Link{{Text: "cdn", Href: "https://x/y"}}}}})
	if err == nil || !strings.Contains(err.Error(), `link 1 ("cdn")`) {
		t.Errorf("Write with an absolute link: %v", err)
	}
}

func TestWriteLeavesNothingOnError(t *testing.T) {
	var b bytes.Buffer
	err := Write(&b, Page{Title: "t", Sections: []Section{{Text: "fine"}, {Chart: &Chart{ID: "bad-id"}}}})
	if err == nil || b.Len() != 0 {
		t.Errorf("invalid page: err %v, wrote %d bytes", err, b.Len())
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := WriteFile(path, demoPage()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := Write(&want, demoPage()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("WriteFile wrote something other than Write")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	// A failing render keeps the old file and leaves no temporary behind.
	if err := WriteFile(path, Page{Sections: []Section{{Chart: &Chart{ID: "bad-id"}}}}); err == nil {
		t.Fatal("invalid page written")
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, got) {
		t.Error("failed WriteFile changed the existing report")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only report.html", len(entries))
	}
	if err := WriteFile(filepath.Join(dir, "missing", "r.html"), Page{}); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
}
