package plots

import (
	_ "embed"
	"strings"
)

// echartsJS is Apache ECharts 5.4.3 (npm echarts@5.4.3, dist/echarts.min.js),
// the version go-echarts v2.6.7 targets. It is inlined into every page so
// reports work offline. It contains no "</script" and no "<!--", so it is
// safe inside a script element (checked by TestEchartsAssetIsInlinable).
//
//go:embed assets/echarts.min.js
var echartsJS string

// echartsNotice is the NOTICE file of the echarts distribution, which the
// Apache License 2.0 (section 4d) requires to travel with the code.
//
//go:embed assets/NOTICE
var echartsNotice string

// echartsVersions records where assets/echarts.min.js comes from.
//
//go:embed assets/VERSIONS
var echartsVersions string

// echartsNoticeComment is the HTML comment placed before the inlined
// echarts source: the NOTICE text and the licence's name.
func echartsNoticeComment() string {
	var b strings.Builder
	b.WriteString("<!--\n")
	b.WriteString(strings.TrimSpace(echartsVersions))
	b.WriteString("\n\n")
	// The npm file has CRLF line ends; the page uses LF throughout.
	b.WriteString(strings.ReplaceAll(strings.TrimSpace(echartsNotice), "\r\n", "\n"))
	b.WriteString("\n\nLicensed under the Apache License, Version 2.0.\n-->")
	// "--" may not appear inside an HTML comment; the asset files have none,
	// and a test keeps it that way.
	return b.String()
}
