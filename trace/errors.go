package trace

import "fmt"

// Error is a problem in a trace file, located at a line (text formats) or a
// record (oracleGeneral).
type Error struct {
	File string
	// Line is the 1-based line of a text format, 0 if not applicable.
	Line int64
	// Record is the 1-based record of a binary format, 0 if not applicable.
	Record int64
	Msg    string
}

// Error renders `file:line: msg` or `file: record N (byte B): msg`.
func (e *Error) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.Record > 0:
		return fmt.Sprintf("%s: record %d (byte %d): %s", e.File, e.Record, (e.Record-1)*recordSize, e.Msg)
	default:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
}
