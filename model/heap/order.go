package heap

// Load order. A table loaded in key order (pgbench -i, INSERT ... SELECT
// FROM generate_series) puts row r on block (r-1)/RowsPerPage: its key's
// correlation with the heap's order (pg_stats.correlation, which the
// planner squares in costsize.c cost_index) is 1. A table loaded in random
// order (INSERT ... SELECT ... ORDER BY random()) puts the rows at the
// positions of a permutation: correlation about 0, so a range of keys is
// spread over many pages, which is where the planner takes a bitmap heap
// scan. The permutation is a keyed Feistel network over the smallest
// power of four at or above the row count, walked until it lands inside
// it (a bijection of 1..Rows computed in O(1) memory, the same for the
// same seed).

// Permutation maps a row (its key) to its load position and back.
type Permutation struct {
	n    int64 // rows permuted: 1..n
	bits uint  // half of the domain's bits
	keys [4]uint64
}

// NewPermutation returns a permutation of 1..n drawn from seed.
func NewPermutation(n int64, seed uint64) *Permutation {
	p := &Permutation{n: n, bits: 1}
	for int64(1)<<(2*p.bits) < n {
		p.bits++
	}
	s := seed
	for i := range p.keys {
		s = splitmix(s)
		p.keys[i] = s
	}
	return p
}

// splitmix is SplitMix64's step: a well-mixed 64-bit function of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (p *Permutation) round(x uint64, i int) uint64 {
	return splitmix(x^p.keys[i]) & (1<<p.bits - 1)
}

func (p *Permutation) encrypt(x uint64) uint64 {
	mask := uint64(1)<<p.bits - 1
	l, r := x>>p.bits, x&mask
	for i := range p.keys {
		l, r = r, l^p.round(r, i)
	}
	return l<<p.bits | r
}

func (p *Permutation) decrypt(x uint64) uint64 {
	mask := uint64(1)<<p.bits - 1
	l, r := x>>p.bits, x&mask
	for i := len(p.keys) - 1; i >= 0; i-- {
		l, r = r^p.round(l, i), l
	}
	return l<<p.bits | r
}

// Position is row's load position (1..n) for row in 1..n; other rows
// (inserted after the load) keep their number.
func (p *Permutation) Position(row int64) int64 {
	if row < 1 || row > p.n {
		return row
	}
	x := p.encrypt(uint64(row - 1))
	for x >= uint64(p.n) {
		x = p.encrypt(x)
	}
	return int64(x) + 1
}

// Row is the row at load position pos, Position's inverse.
func (p *Permutation) Row(pos int64) int64 {
	if pos < 1 || pos > p.n {
		return pos
	}
	x := p.decrypt(uint64(pos - 1))
	for x >= uint64(p.n) {
		x = p.decrypt(x)
	}
	return int64(x) + 1
}

// SetLoadOrder makes the table's loaded rows sit in the order of perm
// (nil: key order).
func (t *Table) SetLoadOrder(perm *Permutation) { t.loadOrder = perm }

// RandomOrder reports whether the loaded rows are not in key order.
func (t *Table) RandomOrder() bool { return t.loadOrder != nil }

// RowAt is the row at load position pos (from 1): the pos-th row loaded,
// pos itself in key order.
func (t *Table) RowAt(pos int64) int64 {
	if t.loadOrder != nil {
		return t.loadOrder.Row(pos)
	}
	return pos
}

// LoadedRowsOn is how many rows the load put on block b (0 past the
// loaded blocks); their load positions follow b's first, RowsPerPage a
// block.
func (t *Table) LoadedRowsOn(b int32) int {
	if b < 0 || b >= t.loaded {
		return 0
	}
	return t.rowsOnLoaded(b)
}

// FirstRowOn is the row at the first load position of loaded block b.
func (t *Table) FirstRowOn(b int32) int64 {
	pos := int64(b)*int64(t.RowsPerPage) + 1
	if t.loadOrder != nil {
		return t.loadOrder.Row(pos)
	}
	return pos
}
