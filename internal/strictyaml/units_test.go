package strictyaml

import (
	"math"
	"math/rand/v2"
	"testing"
)

var (
	bytesPlain  = unitSpec{kind: unitBytes, bare: 1, bareName: "B"}
	bytesBlocks = mustUnit("bytes,8kB")
	durPlain    = mustUnit("duration")
	durMS       = mustUnit("duration,ms")
)

func mustUnit(tag string) unitSpec {
	u, ok := parseUnitTag(tag)
	if !ok {
		panic("bad unit tag " + tag)
	}
	return u
}

// The conversion factors are PostgreSQL's (guc.c memory_unit_conversion_table:
// kB = 1024 B, MB = 1024 kB, ...; time_unit_conversion_table: min = 60 s,
// h = 60 min, d = 24 h).
func TestParseQuantity(t *testing.T) {
	cases := []struct {
		text string
		u    unitSpec
		want int64
		err  quantityError
	}{
		// every size unit
		{"512B", bytesPlain, 512, qOK},
		{"8kB", bytesPlain, 8192, qOK},
		{"128MB", bytesPlain, 128 << 20, qOK},
		{"1GB", bytesPlain, 1 << 30, qOK},
		{"1TB", bytesPlain, 1 << 40, qOK},
		{"128 MB", bytesPlain, 128 << 20, qOK}, // PostgreSQL allows spaces before the unit
		{" 1GB ", bytesPlain, 1 << 30, qOK},
		// bare numbers: bytes, or the tag's default unit (shared_buffers counts 8kB blocks)
		{"100", bytesPlain, 100, qOK},
		{"100", bytesBlocks, 100 * 8192, qOK},
		{"16384", bytesBlocks, 128 << 20, qOK},
		{"1GB", bytesBlocks, 1 << 30, qOK},
		// fractions that give whole bytes
		{"1.5GB", bytesPlain, 3 << 29, qOK},
		{"0.5kB", bytesPlain, 512, qOK},
		{".5kB", bytesPlain, 512, qOK},
		{"1.5", bytesBlocks, 12288, qOK},
		{"0.1B", bytesPlain, 0, qFraction},
		{"1.3", bytesBlocks, 0, qFraction},
		// signs
		{"-8kB", bytesPlain, -8192, qOK},
		{"+8kB", bytesPlain, 8192, qOK},
		// overflow at 2^63
		{"8388607TB", bytesPlain, 8388607 << 40, qOK},
		{"8388608TB", bytesPlain, 0, qTooLarge},
		{"-8388608TB", bytesPlain, math.MinInt64, qOK},
		{"9000000TB", bytesPlain, 0, qTooLarge},
		{"99999999999999999999999999999999999999", bytesPlain, 0, qTooLarge},
		// syntax
		{"64XB", bytesPlain, 0, qSyntax},
		{"64mb", bytesPlain, 0, qSyntax},
		{"kB", bytesPlain, 0, qSyntax},
		{"", bytesPlain, 0, qSyntax},
		{"1..5kB", bytesPlain, 0, qSyntax},
		{"1.5.5kB", bytesPlain, 0, qSyntax},
		{"0x10kB", bytesPlain, 0, qSyntax},
		{"1e3B", bytesPlain, 0, qSyntax},
		{"- 5kB", bytesPlain, 0, qSyntax},
		{"1234567890123456789012345678901234567890123B", bytesPlain, 0, qSyntax},
		// every time unit
		{"1ns", durPlain, 1, qOK},
		{"1us", durPlain, 1e3, qOK},
		{"1ms", durPlain, 1e6, qOK},
		{"1s", durPlain, 1e9, qOK},
		{"1min", durPlain, 60e9, qOK},
		{"1h", durPlain, 3600e9, qOK},
		{"1d", durPlain, 86400e9, qOK},
		{"5 min", durPlain, 300e9, qOK},
		// fractions that give whole nanoseconds
		{"1.5s", durPlain, 1.5e9, qOK},
		{"0.5ms", durPlain, 500e3, qOK},
		{"0.000000001s", durPlain, 1, qOK},
		{"0.0000000001s", durPlain, 0, qFraction},
		{"1.5ns", durPlain, 0, qFraction},
		// bare numbers: the default unit, or an error asking for one (zero excepted)
		{"200", durMS, 200e6, qOK},
		{"2.5", durMS, 2.5e6, qOK},
		{"200", durPlain, 0, qNoUnit},
		{"0", durPlain, 0, qOK},
		{"-0", durPlain, 0, qOK},
		{"0.0", durPlain, 0, qOK},
		// negative
		{"-5ms", durPlain, -5e6, qOK},
		// overflow: int64 nanoseconds hold 106751 days
		{"106751d", durPlain, 106751 * 86400e9, qOK},
		{"106752d", durPlain, 0, qTooLarge},
		// syntax
		{"5m", durPlain, 0, qSyntax},
		{"5MS", durPlain, 0, qSyntax},
		{"soon", durPlain, 0, qSyntax},
		{"5s5", durPlain, 0, qSyntax},
	}
	for _, c := range cases {
		got, e, _ := parseQuantity(c.text, c.u)
		if e != c.err || (e == qOK && got != c.want) {
			t.Errorf("parseQuantity(%q, %+v) = %d, %v; want %d, %v", c.text, c.u, got, e, c.want, c.err)
		}
	}
}

func TestQuantityMessages(t *testing.T) {
	cases := []struct {
		text string
		u    unitSpec
		want string
	}{
		{"64XB", bytesPlain, `invalid size "64XB" (use a number with a unit: 8kB, 128MB, 1GB)`},
		{"64mb", bytesPlain, `invalid size "64mb" (units are case-sensitive: did you mean "64MB"?)`},
		{"1 gib", bytesPlain, `invalid size "1 gib" (units are case-sensitive: did you mean "1GB"?)`},
		{"0.1B", bytesPlain, `"0.1B" is not a whole number of bytes`},
		{"9000000TB", bytesPlain, `"9000000TB" is too large`},
		{"5m", durPlain, `invalid duration "5m" (did you mean "5min"?)`},
		{"5MS", durPlain, `invalid duration "5MS" (did you mean "5ms"?)`},
		{"2 secs", durPlain, `invalid duration "2 secs" (did you mean "2s"?)`},
		{"1.5ns", durPlain, `"1.5ns" is not a whole number of nanoseconds`},
		{"200", durPlain, `"200" needs a unit (use a number with a unit: us, ms, s, min, h, d; e.g. 200ms or 5min)`},
	}
	for _, c := range cases {
		_, e, meant := parseQuantity(c.text, c.u)
		if got := quantityMsg(e, c.text, c.u, meant); got != c.want {
			t.Errorf("%q: got %s\nwant %s", c.text, got, c.want)
		}
	}
}

// Encode writes the greatest unit that divides the value, as PostgreSQL's
// SHOW does (guc.c convert_int_from_base_unit).
func TestFormatQuantity(t *testing.T) {
	cases := []struct {
		v    int64
		u    unitSpec
		want string
	}{
		{0, bytesPlain, "0"},
		{512, bytesPlain, "512B"},
		{8192, bytesPlain, "8kB"},
		{8193, bytesPlain, "8193B"},
		{3 << 29, bytesPlain, "1536MB"},
		{128 << 20, bytesBlocks, "128MB"},
		{1 << 40, bytesPlain, "1TB"},
		{-8192, bytesPlain, "-8kB"},
		{math.MinInt64, bytesPlain, "-8388608TB"},
		{math.MaxInt64, bytesPlain, "9223372036854775807B"},
		{300e9, durPlain, "5min"},
		{1.5e9, durPlain, "1500ms"},
		{86400e9, durPlain, "1d"},
		{90e9, durPlain, "90s"},
		{7200e9, durPlain, "2h"},
		{1, durPlain, "1ns"},
		{1500, durPlain, "1500ns"},
		{200e6, durMS, "200ms"},
	}
	for _, c := range cases {
		if got := formatQuantity(c.v, c.u); got != c.want {
			t.Errorf("formatQuantity(%d) = %q, want %q", c.v, got, c.want)
		}
	}
}

// Property: every int64 survives format then parse, for every unit tag.
func TestQuantityRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	specs := []unitSpec{bytesPlain, bytesBlocks, durPlain, durMS}
	for i := 0; i < 20000; i++ {
		v := int64(r.Uint64())
		switch i % 4 { // also values made of whole units
		case 1:
			v >>= 40
			v <<= 40
		case 2:
			v = r.Int64N(1e6) * 60e9
		case 3:
			v = r.Int64N(1e6) * 1024
		}
		for _, u := range specs {
			got, e, _ := parseQuantity(formatQuantity(v, u), u)
			if e != qOK || got != v {
				t.Fatalf("round trip of %d with %+v: %q -> %d, %v", v, u, formatQuantity(v, u), got, e)
			}
		}
	}
}

func TestParseUnitTag(t *testing.T) {
	for _, c := range []struct {
		tag  string
		ok   bool
		bare int64
	}{
		{"bytes", true, 1},
		{"bytes,8kB", true, 8192},
		{"bytes,MB", true, 1 << 20},
		{"duration", true, 0},
		{"duration,ms", true, 1e6},
		{"duration,5min", true, 300e9},
		{"duration,mb", false, 0},
		{"bytes,0kB", false, 0},
		{"time", false, 0},
		{"", false, 0},
	} {
		u, ok := parseUnitTag(c.tag)
		if ok != c.ok || (ok && u.bare != c.bare) {
			t.Errorf("parseUnitTag(%q) = %+v, %v", c.tag, u, ok)
		}
	}
}
