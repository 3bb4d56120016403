package strictyaml

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// Units follow PostgreSQL's GUC unit tables (src/backend/utils/misc/guc.c,
// memory_unit_conversion_table and time_unit_conversion_table): memory units
// B, kB, MB, GB, TB are case-sensitive multiples of 1024, time units are us,
// ms, s, min, h, d; a number may be separated from its unit by spaces; and a
// value is displayed in the greatest unit that divides it exactly
// (convert_int_from_base_unit). Two deliberate differences: a fractional
// value must come out as a whole number of base units (PostgreSQL rounds;
// silently rounding a simulator input hides mistakes), and durations also
// accept ns because the simulator's clock counts nanoseconds.

type unitKind int

const (
	unitNone unitKind = iota
	unitBytes
	unitDuration
	// unitFineDuration is a duration held in picoseconds (tag
	// duration_ps), for prices per byte that a whole nanosecond would
	// round by half: "1.8ns" is 1800.
	unitFineDuration
)

type unitDef struct {
	name string
	mult int64
}

// Largest first: formatting picks the first unit that divides the value.
var byteUnits = []unitDef{
	{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}, {"B", 1},
}

var durationUnits = []unitDef{
	{"d", 24 * 3600 * 1e9}, {"h", 3600 * 1e9}, {"min", 60 * 1e9}, {"s", 1e9},
	{"ms", 1e6}, {"us", 1e3}, {"ns", 1},
}

var fineDurationUnits = []unitDef{
	{"d", 24 * 3600 * 1e12}, {"h", 3600 * 1e12}, {"min", 60 * 1e12}, {"s", 1e12},
	{"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"ps", 1},
}

// unitAliases maps spellings people commonly try to the unit they meant; they
// are only used to suggest a fix, never accepted.
var unitAliases = map[unitKind]map[string]string{
	unitBytes: {
		"b": "B", "byte": "B", "bytes": "B",
		"k": "kB", "kb": "kB", "kib": "kB",
		"m": "MB", "mb": "MB", "mib": "MB",
		"g": "GB", "gb": "GB", "gib": "GB",
		"t": "TB", "tb": "TB", "tib": "TB",
	},
	unitDuration: {
		"d": "d", "day": "d", "days": "d",
		"h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h",
		"m": "min", "min": "min", "mins": "min", "minute": "min", "minutes": "min",
		"s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
		"ms": "ms", "msec": "ms", "msecs": "ms", "millisecond": "ms", "milliseconds": "ms",
		"us": "us", "µs": "us", "usec": "us", "usecs": "us", "microsecond": "us", "microseconds": "us",
		"ns": "ns", "nsec": "ns", "nsecs": "ns", "nanosecond": "ns", "nanoseconds": "ns",
	},
}

func init() {
	fine := map[string]string{"ps": "ps", "psec": "ps", "picosecond": "ps", "picoseconds": "ps"}
	for k, v := range unitAliases[unitDuration] {
		fine[k] = v
	}
	unitAliases[unitFineDuration] = fine
}

// unitSpec is a parsed `unit:"..."` tag.
type unitSpec struct {
	kind     unitKind
	bare     int64  // multiplier for a number written without a unit; 0: a unit is required
	bareName string // the tag's default unit, for messages
}

func (u unitSpec) table() []unitDef {
	switch u.kind {
	case unitBytes:
		return byteUnits
	case unitFineDuration:
		return fineDurationUnits
	}
	return durationUnits
}

// parseUnitTag reads `bytes`, `bytes,8kB`, `duration` or `duration,ms`.
func parseUnitTag(tag string) (unitSpec, bool) {
	kind, def, hasDef := strings.Cut(tag, ",")
	var u unitSpec
	switch kind {
	case "bytes":
		u = unitSpec{kind: unitBytes, bare: 1, bareName: "B"}
	case "duration":
		u = unitSpec{kind: unitDuration}
	case "duration_ps":
		u = unitSpec{kind: unitFineDuration}
	default:
		return u, false
	}
	if hasDef {
		// The default unit is a unit name (ms) or a multiple of one (8kB).
		m, ok := lookupUnit(u.table(), def)
		if !ok {
			q, e, _ := parseQuantity(def, unitSpec{kind: u.kind})
			if e != qOK || q <= 0 {
				return u, false
			}
			m = q
		}
		u.bare, u.bareName = m, def
	}
	return u, true
}

func lookupUnit(table []unitDef, name string) (int64, bool) {
	for _, d := range table {
		if d.name == name {
			return d.mult, true
		}
	}
	return 0, false
}

// quantityError says why a value with a unit did not parse.
type quantityError int

const (
	qOK quantityError = iota
	qSyntax
	qNoUnit
	qFraction
	qTooLarge
)

// maxNumberLen bounds the digits accepted, which keeps the exact big-number
// arithmetic below cheap whatever the input.
const maxNumberLen = 40

// parseQuantity converts text such as "128MB", "1.5s" or "8" into base units
// (bytes or nanoseconds). It returns the unit the user probably meant when
// the unit was misspelt.
func parseQuantity(text string, u unitSpec) (int64, quantityError, string) {
	s := strings.TrimSpace(text)
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	digits, dots := 0, 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		if s[i] == '.' {
			dots++
		} else {
			digits++
		}
		i++
	}
	num := s[start:i]
	unit := strings.TrimSpace(s[i:])
	if digits == 0 || dots > 1 || len(num) > maxNumberLen {
		return 0, qSyntax, ""
	}
	mult := u.bare
	if unit != "" {
		m, ok := lookupUnit(u.table(), unit)
		if !ok {
			return 0, qSyntax, unitAliases[u.kind][strings.ToLower(unit)]
		}
		mult = m
	}
	intPart, fracPart, _ := strings.Cut(num, ".")
	mant, ok := new(big.Int).SetString("0"+intPart+fracPart, 10)
	if !ok {
		return 0, qSyntax, ""
	}
	if mult == 0 {
		// Zero is zero in every unit; any other bare number is ambiguous.
		if mant.Sign() == 0 {
			return 0, qOK, ""
		}
		return 0, qNoUnit, ""
	}
	mant.Mul(mant, big.NewInt(mult))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(fracPart))), nil)
	q, r := new(big.Int).QuoRem(mant, den, new(big.Int))
	if r.Sign() != 0 {
		return 0, qFraction, ""
	}
	if neg {
		q.Neg(q)
	}
	if !q.IsInt64() {
		return 0, qTooLarge, ""
	}
	return q.Int64(), qOK, ""
}

// quantityMsg renders a parse failure of text in user terms.
func quantityMsg(e quantityError, text string, u unitSpec, meant string) string {
	what, hint, base := "size", "use a number with a unit: 8kB, 128MB, 1GB", "bytes"
	switch u.kind {
	case unitDuration:
		what, hint, base = "duration", "use a number with a unit: us, ms, s, min, h, d; e.g. 200ms or 5min", "nanoseconds"
	case unitFineDuration:
		what, hint, base = "duration", "use a number with a unit: ps, ns, us, ms, s; e.g. 1.8ns", "picoseconds"
	}
	switch e {
	case qNoUnit:
		return quote(text) + " needs a unit (" + hint + ")"
	case qFraction:
		return quote(text) + " is not a whole number of " + base
	case qTooLarge:
		return quote(text) + " is too large"
	}
	if meant != "" {
		fixed := strings.TrimSpace(text)
		fixed = strings.TrimRight(fixed, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZµ ")
		if u.kind == unitBytes {
			return "invalid " + what + " " + quote(text) + " (units are case-sensitive: did you mean " + strconv.Quote(fixed+meant) + "?)"
		}
		return "invalid " + what + " " + quote(text) + " (did you mean " + strconv.Quote(fixed+meant) + "?)"
	}
	return "invalid " + what + " " + quote(text) + " (" + hint + ")"
}

// formatQuantity writes v in the greatest unit that divides it exactly, as
// PostgreSQL's SHOW does, so the text parses back to the same value.
func formatQuantity(v int64, u unitSpec) string {
	if v == 0 {
		return "0"
	}
	for _, d := range u.table() {
		if v%d.mult == 0 {
			return strconv.FormatInt(v/d.mult, 10) + d.name
		}
	}
	return strconv.FormatInt(v, 10) // unreachable: the last unit is 1
}

// ParseBytes reads a memory size as PostgreSQL writes one (8GB, 512MB, a
// bare number of bytes), for command-line flags that take a size.
func ParseBytes(text string) (int64, error) {
	u := unitSpec{kind: unitBytes, bare: 1, bareName: "B"}
	v, e, meant := parseQuantity(text, u)
	if e != qOK {
		return 0, errors.New(quantityMsg(e, text, u, meant))
	}
	if v < 0 {
		return 0, errors.New("a size cannot be negative")
	}
	return v, nil
}
