package strictyaml

import (
	"errors"
	"strings"
	"testing"
)

// decodeString parses and decodes src into a defaulted testConfig.
func decodeString(t *testing.T, src string) (testConfig, error) {
	t.Helper()
	cfg := defaultConfig()
	doc, err := Parse("x.yaml", []byte(src))
	if err != nil {
		return cfg, err
	}
	return cfg, doc.Decode(&cfg)
}

// mustDecode fails the test on any error.
func mustDecode(t *testing.T, src string) testConfig {
	t.Helper()
	cfg, err := decodeString(t, src)
	if err != nil {
		t.Fatalf("decode %q: unexpected error:\n%v", src, err)
	}
	return cfg
}

// wantError checks the exact error text and that it is an Errors value.
func wantError(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want:\n%s", want)
	}
	if got := err.Error(); got != want {
		t.Fatalf("error:\n got: %s\nwant: %s", got, want)
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %q is %T, want Errors", err, err)
	}
}

// lines joins expected error lines.
func lines(ls ...string) string { return strings.Join(ls, "\n") }
