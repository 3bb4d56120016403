package policies

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Parameter plumbing shared by every policy: the label that shows the
// non-default parameters (libCacheSim prints "Clock-2", the Caffeine
// simulator names its variants; we print "clock-sweep(max_usage_count=3)")
// and the range check that New runs on user-supplied values, driven by the
// same `range` tags the configuration loader reads, so the two can never
// disagree.

// label returns base followed by every field of p (a pointer to a params
// struct) that differs from the same field of def, in struct order:
// "base(k=v,k=v)". It returns base alone when nothing differs.
func label(base string, p, def any) string {
	pv := reflect.Indirect(reflect.ValueOf(p))
	dv := reflect.Indirect(reflect.ValueOf(def))
	var parts []string
	for i := 0; i < pv.NumField(); i++ {
		f := pv.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if pv.Field(i).Equal(dv.Field(i)) {
			continue
		}
		parts = append(parts, yamlName(f)+"="+formatValue(f, pv.Field(i)))
	}
	if len(parts) == 0 {
		return base
	}
	return base + "(" + strings.Join(parts, ",") + ")"
}

// yamlName is the key users write for field f.
func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

// formatValue prints a parameter the way a user would write it in YAML.
func formatValue(f reflect.StructField, v reflect.Value) string {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f.Tag.Get("unit") == "duration" {
			return formatDuration(v.Int())
		}
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	default:
		return fmt.Sprint(v.Interface())
	}
}

// formatDuration prints nanoseconds in the largest PostgreSQL time unit
// (h, min, s, ms, us) that represents the value exactly, so that the label
// reads like the configuration ("3s", "200ms", "5min").
func formatDuration(ns int64) string {
	units := []struct {
		name string
		size int64
	}{{"h", 3600e9}, {"min", 60e9}, {"s", 1e9}, {"ms", 1e6}, {"us", 1e3}}
	if ns == 0 {
		return "0"
	}
	for _, u := range units {
		if ns%u.size == 0 {
			return strconv.FormatInt(ns/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(ns, 10) + "ns"
}

// checkRanges verifies every numeric field of p (a pointer to a params
// struct) that carries a `range:"min,max"` tag (inclusive bounds). The
// error names the YAML key, so it reads well in a configuration error.
func checkRanges(policy string, p any) error {
	pv := reflect.Indirect(reflect.ValueOf(p))
	for i := 0; i < pv.NumField(); i++ {
		f := pv.Type().Field(i)
		tag := f.Tag.Get("range")
		if tag == "" {
			continue
		}
		loS, hiS, ok := strings.Cut(tag, ",")
		if !ok {
			return fmt.Errorf("%s: malformed range tag %q on %s", policy, tag, f.Name)
		}
		lo, err1 := strconv.ParseFloat(strings.TrimSpace(loS), 64)
		hi, err2 := strconv.ParseFloat(strings.TrimSpace(hiS), 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("%s: malformed range tag %q on %s", policy, tag, f.Name)
		}
		var x float64
		v := pv.Field(i)
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			x = float64(v.Int())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			x = float64(v.Uint())
		case reflect.Float32, reflect.Float64:
			x = v.Float()
		default:
			return fmt.Errorf("%s: range tag on non-numeric field %s", policy, f.Name)
		}
		// NaN fails both comparisons, so test for being inside the range.
		if !(x >= lo && x <= hi) {
			return fmt.Errorf("%s: %s = %s is out of range [%s, %s]",
				policy, yamlName(f), formatValue(f, v), loS, hiS)
		}
	}
	return nil
}

// paramsOf converts the argument of Spec.New into a params struct: nil
// means the defaults; a pointer or a value of the right type is copied.
// Anything else is a programming error of the caller, reported plainly.
func paramsOf[T any](policy string, params any, defaults T) (T, error) {
	switch p := params.(type) {
	case nil:
		return defaults, nil
	case *T:
		if p == nil {
			return defaults, nil
		}
		return *p, nil
	case T:
		return p, nil
	default:
		var zero T
		return zero, fmt.Errorf("%s: parameters must be %T, got %T", policy, &zero, params)
	}
}
