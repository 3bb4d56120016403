package strictyaml

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// scalar decodes a string, bool or number, applying unit, range and enum
// tags. The text the user wrote (node.Value) is what is parsed, whatever
// YAML would resolve it to, so `version: 9.10` stays "9.10".
func (dec *decoder) scalar(n *yaml.Node, v reflect.Value, path string, o *fieldOpts) bool {
	t := v.Type()
	k := t.Kind()
	supported := k == reflect.String || k == reflect.Bool || isSignedInt(k) || isUnsignedInt(k) || isFloat(k)
	if !supported {
		dec.programmer(fmt.Errorf("strictyaml: %s: unsupported field type %s", path, t))
		return false
	}
	if n.Kind != yaml.ScalarNode {
		dec.failValue(n, path, "expected "+expectation(t, o)+", got "+describe(n))
		return false
	}
	text := n.Value
	fail := func(msg string) bool {
		dec.failValue(n, path, msg)
		return false
	}
	switch {
	case k == reflect.String:
		if len(o.enum) > 0 && !slices.Contains(o.enum, text) {
			return fail(unknownValueMsg(text, o.enumShown))
		}
		v.SetString(text)
	case k == reflect.Bool:
		b, ok := parseBool(text)
		if !ok {
			return fail("expected true or false, got " + quote(text))
		}
		v.SetBool(b)
	case isSignedInt(k):
		var x int64
		if o.unit.kind != unitNone {
			q, e, meant := parseQuantity(text, o.unit)
			if e != qOK {
				return fail(quantityMsg(e, text, o.unit, meant))
			}
			x = q
		} else {
			i, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
			if err != nil {
				return fail(intError(text, err))
			}
			x = i
		}
		if (o.hasMin && x < o.minI) || (o.hasMax && x > o.maxI) {
			return fail(o.rangeMsg(text))
		}
		if v.OverflowInt(x) {
			return fail(fmt.Sprintf("%s is out of range [%d, %d]", strings.TrimSpace(text),
				-(int64(1) << (t.Bits() - 1)), int64(1)<<(t.Bits()-1)-1))
		}
		v.SetInt(x)
	case isUnsignedInt(k):
		s := strings.TrimSpace(text)
		if strings.HasPrefix(s, "-") {
			if _, err := strconv.ParseInt(s, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
				return fail(s + " must not be negative")
			}
			return fail("invalid integer " + quote(text))
		}
		x, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 64)
		if err != nil {
			return fail(intError(text, err))
		}
		big := x > math.MaxInt64
		if (o.hasMin && !big && int64(x) < o.minI) || (o.hasMax && (big || int64(x) > o.maxI)) {
			return fail(o.rangeMsg(text))
		}
		if v.OverflowUint(x) {
			return fail(fmt.Sprintf("%s is out of range [0, %d]", s, uint64(1)<<t.Bits()-1))
		}
		v.SetUint(x)
	default: // float
		f, msg := parseFloat(text)
		if msg != "" {
			return fail(msg)
		}
		if (o.hasMin && f < o.minF) || (o.hasMax && f > o.maxF) {
			return fail(o.rangeMsg(text))
		}
		if v.OverflowFloat(f) {
			return fail(quote(text) + " is too large")
		}
		v.SetFloat(f)
	}
	return true
}

func intError(text string, err error) string {
	if errors.Is(err, strconv.ErrRange) {
		return quote(text) + " is too large"
	}
	return "invalid integer " + quote(text)
}

// parseBool accepts the spellings postgresql.conf and YAML users write.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// parseFloat accepts decimal numbers with an optional exponent; NaN,
// infinities, hex and underscores are refused, since no setting means them.
func parseFloat(text string) (float64, string) {
	s := strings.TrimSpace(text)
	if s == "" || len(s) > 64 || strings.IndexFunc(s, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r == '.' || r == 'e' || r == 'E' || r == '+' || r == '-')
	}) >= 0 {
		return 0, "invalid number " + quote(text)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0) {
			return 0, quote(text) + " is too large"
		}
		if !errors.Is(err, strconv.ErrRange) {
			return 0, "invalid number " + quote(text)
		}
	}
	return f, ""
}
