package strictyaml

import "testing"

// A duration_ps field holds picoseconds: 1.8ns is 1800, 2ns 2000, 700ps
// 700; a fraction of a picosecond is refused; formatting gives back text
// that parses to the same value.
func TestFineDurationUnits(t *testing.T) {
	u, ok := parseUnitTag("duration_ps")
	if !ok {
		t.Fatal("duration_ps is not a unit tag")
	}
	for text, want := range map[string]int64{"1.8ns": 1800, "2ns": 2000, "700ps": 700, "0": 0, "1us": 1e6, "0.0015us": 1500} {
		got, e, _ := parseQuantity(text, u)
		if e != qOK || got != want {
			t.Errorf("%q: %d (error %d), want %d", text, got, e, want)
			continue
		}
		if back, e, _ := parseQuantity(formatQuantity(got, u), u); e != qOK || back != got {
			t.Errorf("%q formats as %q, which parses to %d", text, formatQuantity(got, u), back)
		}
	}
	if _, e, _ := parseQuantity("1.2345ns", u); e != qFraction {
		t.Errorf("1.2345ns: error %d, want a fraction of a picosecond refused", e)
	}
	if _, e, _ := parseQuantity("3", u); e != qNoUnit {
		t.Errorf("a bare 3: error %d, want a unit asked for", e)
	}
}
