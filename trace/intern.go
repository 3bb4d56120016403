package trace

import "math/bits"

// Interner numbers 64-bit keys densely, 0, 1, 2, ... in order of first
// appearance, with an open-addressing hash table (linear probing,
// Fibonacci hashing); the zero value is ready to use. A Go map costs 30-110 ns per lookup on replay-sized
// tables; this table keeps key and id in one 16-byte bucket, so a lookup is
// usually one cache miss.
type Interner struct {
	buckets []bucket
	shift   uint // 64 - log2(len(buckets))
	keys    []uint64
}

type bucket struct {
	key uint64
	id  uint32 // id+1; 0 marks an empty bucket
}

// MaxInterned is the number of distinct keys an Interner can hold.
const MaxInterned = 1<<31 - 1

// NewInterner returns an Interner sized for about hint keys.
func NewInterner(hint int) *Interner {
	in := &Interner{}
	in.resize(max(16, hint*2))
	in.keys = make([]uint64, 0, max(hint, 0))
	return in
}

// resize rebuilds the table with at least n buckets (a power of two).
func (in *Interner) resize(n int) {
	size := 1 << bits.Len(uint(n-1))
	old := in.buckets
	in.buckets = make([]bucket, size)
	in.shift = uint(64 - bits.TrailingZeros(uint(size)))
	for _, b := range old {
		if b.id != 0 {
			in.buckets[in.probe(b.key)] = b
		}
	}
}

// probe returns the bucket holding key, or the empty bucket where it
// belongs.
func (in *Interner) probe(key uint64) int {
	mask := len(in.buckets) - 1
	i := int((key * 0x9E3779B97F4A7C15) >> in.shift)
	for {
		b := &in.buckets[i]
		if b.id == 0 || b.key == key {
			return i
		}
		i = (i + 1) & mask
	}
}

// Intern returns key's id, assigning the next one if key is new. ok is
// false only when the Interner already holds MaxInterned keys and key is
// new.
func (in *Interner) Intern(key uint64) (id uint32, isNew, ok bool) {
	if in.buckets == nil {
		in.resize(16)
	}
	i := in.probe(key)
	if b := &in.buckets[i]; b.id != 0 {
		return b.id - 1, false, true
	}
	if len(in.keys) >= MaxInterned {
		return 0, false, false
	}
	// Keep the load factor at most 3/4.
	if 4*(len(in.keys)+1) > 3*len(in.buckets) {
		in.resize(2 * len(in.buckets))
		i = in.probe(key)
	}
	id = uint32(len(in.keys))
	in.buckets[i] = bucket{key: key, id: id + 1}
	in.keys = append(in.keys, key)
	return id, true, true
}

// Lookup returns key's id if it has one.
func (in *Interner) Lookup(key uint64) (uint32, bool) {
	if in.buckets == nil {
		return 0, false
	}
	b := in.buckets[in.probe(key)]
	return b.id - 1, b.id != 0
}

// Len is the number of keys interned.
func (in *Interner) Len() int { return len(in.keys) }

// Keys returns the keys by id (not a copy).
func (in *Interner) Keys() []uint64 { return in.keys }
