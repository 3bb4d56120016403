package trace

import (
	"fmt"
	"strings"
)

// Format names, as written after -format and in YAML.
const (
	FormatAuto          = "auto"
	FormatText          = "text"
	FormatCSV           = "csv"
	FormatLCSCSV        = "lcs-csv"
	FormatLCSTxt        = "lcs-txt"
	FormatOracleGeneral = "oracleGeneral"
)

// Formats lists the readable formats (FormatAuto excluded).
var Formats = []string{FormatText, FormatCSV, FormatLCSCSV, FormatLCSTxt, FormatOracleGeneral}

// ParseFormat checks a format name (case-insensitive); "" means auto.
func ParseFormat(s string) (string, error) {
	if s == "" || strings.EqualFold(s, FormatAuto) {
		return FormatAuto, nil
	}
	for _, f := range Formats {
		if strings.EqualFold(s, f) {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown trace format %q (valid: auto, %s)", s, strings.Join(Formats, ", "))
}

// Header modes for Options.Header.
const (
	HeaderAuto = "auto"
	HeaderYes  = "true"
	HeaderNo   = "false"
)

// Options tune how a trace is read. The zero value reads any supported
// file with auto-detection and libCacheSim's defaults.
type Options struct {
	// Format is one of the Format constants; "" means FormatAuto.
	Format string
	// IDColumn is the 1-based column of the object id in lcs-csv files;
	// 0 means 2 (libCacheSim's `time,obj_id,obj_size` layout).
	IDColumn int
	// OpColumn is the 1-based column of an optional operation in lcs-csv
	// files (values starting with w/W, or "set", count as writes); 0 means
	// none.
	OpColumn int
	// Header says whether an lcs-csv file starts with a header line:
	// HeaderAuto ("" too) guesses as libCacheSim's csv_detect_header does,
	// HeaderYes or HeaderNo force it.
	Header string
	// Delimiter is the lcs-csv field separator, one byte (`\t` and "tab"
	// also mean a tab); "" detects it from the first line as libCacheSim
	// does (tab, comma, '|' or ':').
	Delimiter string
	// StringIDs makes lcs-csv and lcs-txt object ids opaque strings,
	// numbered in order of first appearance (libCacheSim's
	// obj-id-is-num=false); otherwise they must be integers.
	StringIDs bool
}

func (o Options) idColumn() int {
	if o.IDColumn <= 0 {
		return 2
	}
	return o.IDColumn
}

// normalized spells a tab delimiter as one.
func (o Options) normalized() Options {
	if o.Delimiter == `\t` || strings.EqualFold(o.Delimiter, "tab") {
		o.Delimiter = "\t"
	}
	return o
}

// check validates the options that do not depend on the file.
func (o Options) check() error {
	if _, err := ParseFormat(o.Format); err != nil {
		return err
	}
	if o.IDColumn < 0 || o.OpColumn < 0 {
		return fmt.Errorf("trace: id and op columns are 1-based (got id %d, op %d)", o.IDColumn, o.OpColumn)
	}
	if o.OpColumn != 0 && o.OpColumn == o.idColumn() {
		return fmt.Errorf("trace: the op column %d is also the id column", o.OpColumn)
	}
	switch strings.ToLower(o.Header) {
	case "", HeaderAuto, HeaderYes, HeaderNo:
	default:
		return fmt.Errorf("trace: header must be auto, true or false, not %q", o.Header)
	}
	if len(o.Delimiter) > 1 || o.Delimiter == "\n" || o.Delimiter == "\"" {
		return fmt.Errorf("trace: the delimiter must be one character other than newline or '\"', not %q", o.Delimiter)
	}
	return nil
}
