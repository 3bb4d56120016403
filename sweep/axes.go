package sweep

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// axisScale is an axis read as numbers, for charts: sizes in MB, times in
// seconds, plain numbers as they are.
type axisScale struct {
	numeric bool
	x       []float64 // per value, in the axis's value order
	unit    string    // "MB", "s" or ""
	log     bool      // values spread geometrically: use a log axis
	// even: the values grow by one constant factor (8MB, 16MB, 32MB), so
	// evenly spaced labelled points are exactly a log scale.
	even bool
}

var (
	sizeUnits = map[string]float64{"B": 1.0 / (1 << 20), "kB": 1.0 / 1024, "MB": 1, "GB": 1024, "TB": 1 << 20}
	timeUnits = map[string]float64{"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600, "d": 86400}
)

// scaleOf reads an axis's values as numbers, when every one is a number
// (with the same kind of unit, as PostgreSQL writes them: 32MB, 200ms).
func scaleOf(values []string) axisScale {
	s := axisScale{numeric: true, x: make([]float64, len(values))}
	kind := ""
	for i, v := range values {
		f, unit, ok := splitUnit(v)
		if !ok {
			return axisScale{}
		}
		k := ""
		switch {
		case unit == "":
		case sizeUnits[unit] != 0:
			k, f = "MB", f*sizeUnits[unit]
		case timeUnits[unit] != 0:
			k, f = "s", f*timeUnits[unit]
		default:
			return axisScale{}
		}
		if i > 0 && k != kind {
			return axisScale{}
		}
		kind = k
		s.x[i] = f
	}
	s.unit = kind
	s.log = geometric(s.x)
	s.even = s.log && constantRatio(s.x)
	return s
}

// splitUnit splits "32MB" or "1.5 s" into 32 and "MB".
func splitUnit(v string) (float64, string, bool) {
	v = strings.TrimSpace(v)
	end := len(v)
	for end > 0 && (v[end-1] >= 'a' && v[end-1] <= 'z' || v[end-1] >= 'A' && v[end-1] <= 'Z') {
		end--
	}
	num, unit := strings.TrimSpace(v[:end]), v[end:]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(num, "xXpP_") {
		return 0, "", false
	}
	return f, unit, true
}

// geometric reports whether positive values grow by roughly the same
// factor (at least 1.5) from one to the next, as in 32MB, 64MB, 128MB or
// 1, 4, 16, 64 clients: such an axis is drawn on a log scale, where its
// points are evenly spaced. Three values at least, so that there is a
// spacing to judge.
func geometric(x []float64) bool {
	s := slices.Clone(x)
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) < 3 || s[0] <= 0 {
		return false
	}
	lo, hi := math.Inf(1), 0.0
	for i := 1; i < len(s); i++ {
		r := s[i] / s[i-1]
		lo, hi = min(lo, r), max(hi, r)
	}
	return lo >= 1.5 && hi/lo <= 1.5
}

// constantRatio reports whether sorted distinct x grow by one factor
// (within 1%), so that even spacing is exactly a log scale.
func constantRatio(x []float64) bool {
	s := slices.Clone(x)
	slices.Sort(s)
	s = slices.Compact(s)
	if len(s) < 2 || s[0] <= 0 || len(s) != len(x) {
		return false
	}
	r0 := s[1] / s[0]
	for i := 2; i < len(s); i++ {
		if r := s[i] / s[i-1]; math.Abs(r/r0-1) > 0.01 {
			return false
		}
	}
	return true
}
