package trace

// The small traces in testdata/ (one per format, plus gzip and zstd
// copies) are written by the test helper in testdata_test.go:
//
//go:generate go test -run TestTestdata -update .
