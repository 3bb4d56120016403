package sim

// Simulated-time units. All simulated time in pgbufsim is an int64 count of
// nanoseconds, which covers about 292 years — far beyond any scenario — while
// keeping event ordering exact.
const (
	Nanosecond  int64 = 1
	Microsecond       = 1000 * Nanosecond
	Millisecond       = 1000 * Microsecond
	Second            = 1000 * Millisecond
	Minute            = 60 * Second
	Hour              = 60 * Minute
)
