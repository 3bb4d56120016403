package plots

import (
	"html/template"
)

// jsText marks s as trusted JavaScript source (the embedded echarts).
func jsText(s string) template.JS { return template.JS(s) }

// glueJS starts each chart from its option and keeps charts the width of
// the page when the window is resized. It is the only script that is not
// echarts itself or an option built by go-echarts.
const glueJS = `"use strict";
var pgbufsimCharts = [];
function pgbufsimChart(id, option) {
  var chart = echarts.init(document.getElementById(id), null, {renderer: "canvas"});
  chart.setOption(option);
  pgbufsimCharts.push(chart);
}
window.addEventListener("resize", function () {
  for (var i = 0; i < pgbufsimCharts.length; i++) {
    pgbufsimCharts[i].resize();
  }
});`

// sortJS makes tables of class sortable sortable: a click on a header sorts
// by that column (numbers by value, text alphabetically), a second click
// reverses. Pages without such a table do not carry it.
const sortJS = `"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var tables = document.querySelectorAll("table.sortable");
  for (var t = 0; t < tables.length; t++) {
    (function (table) {
      var ths = table.querySelectorAll("thead th");
      for (var c = 0; c < ths.length; c++) {
        (function (col, th) {
          th.style.cursor = "pointer";
          th.title = "sort";
          th.addEventListener("click", function () {
            var body = table.tBodies[0];
            var rows = Array.prototype.slice.call(body.rows);
            var dir = th.getAttribute("data-dir") === "asc" ? -1 : 1;
            for (var k = 0; k < ths.length; k++) { ths[k].removeAttribute("data-dir"); }
            th.setAttribute("data-dir", dir === 1 ? "asc" : "desc");
            rows.sort(function (a, b) {
              var x = a.cells[col].textContent.trim(), y = b.cells[col].textContent.trim();
              var nx = parseFloat(x.replace(/,/g, "")), ny = parseFloat(y.replace(/,/g, ""));
              if (!isNaN(nx) && !isNaN(ny) && nx !== ny) { return dir * (nx - ny); }
              return dir * x.localeCompare(y);
            });
            for (var r = 0; r < rows.length; r++) { body.appendChild(rows[r]); }
          });
        })(c, ths[c]);
      }
    })(tables[t]);
  }
});`

// pageCSS is a plain, readable layout: a centred column up to 1200px wide,
// tables that scroll sideways on narrow screens, full-width charts.
const pageCSS = `
body { margin: 0; color: #1f2328; background: #ffffff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header, main { max-width: 1200px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 24px; padding-bottom: 8px; border-bottom: 1px solid #d0d7de; }
h1 { font-size: 1.6em; margin: 0 0 4px; }
h2 { font-size: 1.25em; margin: 28px 0 8px; }
.subtitle { margin: 0 0 8px; color: #59636e; }
section { margin: 8px 0 16px; }
p { margin: 8px 0; white-space: pre-line; max-width: 80ch; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 10px; border-bottom: 1px solid #d0d7de; text-align: left; white-space: nowrap; }
th { background: #f6f8fa; font-weight: 600; white-space: normal; vertical-align: bottom; }
th.r, td.r { text-align: right; }
tbody tr:hover { background: #f6f8fa; }
.chart { width: 100%; margin: 8px 0 24px; }
ul.links { margin: 8px 0; padding-left: 20px; }
a { color: #0969da; }
@media print { .chart { break-inside: avoid; } }
`

// pageTemplate is the report page. Text from the caller goes through
// html/template's contextual escaping; the echarts source, the glue and the
// chart options are inserted as trusted JavaScript (the options are JSON
// marshalled with HTML escaping, so they cannot close the script element).
var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"css": func() template.CSS { return template.CSS(pageCSS) },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>{{css}}</style>
{{.Notice}}
<script>
{{.EchartsJS}}
</script>
<script>
{{.Glue}}
</script>
{{- if .SortJS}}
<script>
{{.SortJS}}
</script>
{{- end}}
</head>
<body>
<header>
<h1>{{.Title}}</h1>
{{- if .Subtitle}}
<p class="subtitle">{{.Subtitle}}</p>
{{- end}}
</header>
<main>
{{- range .Sections}}
<section>
{{- if .Heading}}
<h2>{{.Heading}}</h2>
{{- end}}
{{- range .Paragraphs}}
<p>{{.}}</p>
{{- end}}
{{- with .Table}}
<div class="table-wrap"><table{{if .Sortable}} class="sortable"{{end}}>
{{- if .Header}}
<thead><tr>{{range .Header}}<th{{if .Right}} class="r"{{end}}>{{.Text}}</th>{{end}}</tr></thead>
{{- end}}
<tbody>
{{- range .Rows}}
<tr>{{range .}}<td{{if .Right}} class="r"{{end}}>{{if .Href}}<a href="{{.Href}}">{{.Text}}</a>{{else}}{{.Text}}{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table></div>
{{- end}}
{{- with .Chart}}
<div class="chart" id="{{.ID}}" style="height: {{.Height}}"></div>
<script>pgbufsimChart({{.ID}}, {{.Option}});</script>
{{- end}}
{{- with .Links}}
<ul class="links">
{{- range .}}
<li><a href="{{.Href}}">{{if .Text}}{{.Text}}{{else}}{{.Href}}{{end}}</a></li>
{{- end}}
</ul>
{{- end}}
</section>
{{- end}}
</main>
</body>
</html>
`))
