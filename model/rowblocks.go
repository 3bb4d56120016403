package model

import "math/bits"

// rowBlocks maps rows to one heap block each: the block of the index entry
// a row's older version left behind (oldEntryMap). A table that autovacuum
// does not reach keeps one per non-HOT update, tens of millions in a long
// run, so the entry is packed: row and block in one 64-bit word of an
// open-addressing table (linear probing, Fibonacci hashing, deletion by
// backward shift, so no tombstones), 11 to 21 bytes an entry at its load
// of 3/8 to 3/4, where a Go map took 19 to 39. A lookup reads one slot
// and its neighbours, one cache line. Rows that do not fit in 32 bits
// (tables of more than 4 billion rows) go to a map beside it.
type rowBlocks struct {
	slots []uint64 // row<<32 | uint32(block); 0 is an empty slot (rows start at 1)
	shift uint     // 64 - log2(len(slots))
	n     int      // entries in slots
	big   map[int64]int32
}

const rowBlocksMinSlots = 1 << 10

func (m *rowBlocks) home(row uint64) int {
	return int((row * 0x9E3779B97F4A7C15) >> m.shift)
}

// probe returns the slot holding row, or the empty slot where it belongs
// (the table has at least one: its load stays under 3/4).
func (m *rowBlocks) probe(row uint64) int {
	mask := len(m.slots) - 1
	for i := m.home(row); ; i = (i + 1) & mask {
		if s := m.slots[i]; s == 0 || s>>32 == row {
			return i
		}
	}
}

// packable reports whether row goes into the packed table.
func packable(row int64) bool { return row > 0 && row <= 1<<32-1 }

// get returns row's block.
func (m *rowBlocks) get(row int64) (int32, bool) {
	if !packable(row) {
		blk, ok := m.big[row]
		return blk, ok
	}
	if m.n == 0 {
		return 0, false
	}
	s := m.slots[m.probe(uint64(row))]
	return int32(uint32(s)), s != 0
}

// put sets row's block.
func (m *rowBlocks) put(row int64, blk int32) {
	if !packable(row) {
		if m.big == nil {
			m.big = map[int64]int32{}
		}
		m.big[row] = blk
		return
	}
	if 4*(m.n+1) > 3*len(m.slots) {
		m.grow()
	}
	i := m.probe(uint64(row))
	if m.slots[i] == 0 {
		m.n++
	}
	m.slots[i] = uint64(row)<<32 | uint64(uint32(blk))
}

// del removes row, if present.
func (m *rowBlocks) del(row int64) {
	if !packable(row) {
		delete(m.big, row)
		return
	}
	if m.n == 0 {
		return
	}
	i := m.probe(uint64(row))
	if m.slots[i] == 0 {
		return
	}
	// Backward shift: move up each later entry of the run that may live
	// at the hole (its home is not between the hole and it, cyclically).
	mask := len(m.slots) - 1
	for j := (i + 1) & mask; m.slots[j] != 0; j = (j + 1) & mask {
		if h := m.home(m.slots[j] >> 32); (j-h)&mask >= (j-i)&mask {
			m.slots[i] = m.slots[j]
			i = j
		}
	}
	m.slots[i] = 0
	m.n--
}

// grow doubles the table (to rowBlocksMinSlots at first) and reinserts
// its entries.
func (m *rowBlocks) grow() {
	old := m.slots
	size := max(2*len(old), rowBlocksMinSlots)
	m.slots = make([]uint64, size)
	m.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for _, s := range old {
		if s != 0 {
			m.slots[m.probe(s>>32)] = s
		}
	}
}

// filter keeps the entries keep accepts, visiting them in no particular
// order.
func (m *rowBlocks) filter(keep func(row int64, blk int32) bool) {
	var drop []int64
	for _, s := range m.slots {
		if s != 0 && !keep(int64(s>>32), int32(uint32(s))) {
			drop = append(drop, int64(s>>32))
		}
	}
	for _, row := range drop {
		m.del(row)
	}
	for row, blk := range m.big {
		if !keep(row, blk) {
			delete(m.big, row)
		}
	}
}

// len is the number of rows with an entry.
func (m *rowBlocks) len() int { return m.n + len(m.big) }
