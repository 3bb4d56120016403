package pgexpr

import (
	"math/rand/v2"
	"testing"
)

// mustGen parses and binds src, failing the test on any error.
func mustGen(t testing.TB, src string, vars map[string]int64, seed int64) *Gen {
	t.Helper()
	e, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	g, err := e.Bind(vars, seed)
	if err != nil {
		t.Fatalf("Bind(%q): %v", src, err)
	}
	return g
}

// pcg returns the simulator's kind of client random state.
func pcg(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// seqSource replays fixed 64-bit words, to pin how a draw consumes them.
type seqSource struct {
	words []uint64
	next  int
}

func (s *seqSource) Uint64() uint64 {
	w := s.words[s.next%len(s.words)]
	s.next++
	return w
}
