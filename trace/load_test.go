package trace

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestInterner compares the open-addressing table with a Go map over keys
// that stress it: 0, the maximum, multiples of 2^32 (the csv key shape,
// which a weak hash would pile into one bucket) and random keys, across
// several growths.
func TestInterner(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var in Interner
	ref := map[uint64]uint32{}
	var order []uint64
	for i := range 200000 {
		var k uint64
		switch i % 4 {
		case 0:
			k = uint64(rng.IntN(3000)) << 32
		case 1:
			k = rng.Uint64()
		case 2:
			k = uint64(rng.IntN(50))
		default:
			k = [...]uint64{0, 1<<64 - 1}[rng.IntN(2)]
		}
		id, isNew, ok := in.Intern(k)
		if !ok {
			t.Fatal("interner full")
		}
		want, seen := ref[k]
		if !seen {
			want = uint32(len(ref))
			ref[k] = want
			order = append(order, k)
		}
		if id != want || isNew == seen {
			t.Fatalf("Intern(%#x) = %d, %v; want %d, %v", k, id, isNew, want, !seen)
		}
	}
	if in.Len() != len(ref) || !equalKeys(in.Keys(), order) {
		t.Fatal("Keys are not the keys in order of first appearance")
	}
	for k, want := range ref {
		if id, ok := in.Lookup(k); !ok || id != want {
			t.Fatalf("Lookup(%#x) = %d, %v", k, id, ok)
		}
	}
	if _, ok := in.Lookup(12345678901); ok {
		t.Error("Lookup found a key never interned")
	}
	var empty Interner
	if _, ok := empty.Lookup(0); ok {
		t.Error("the zero Interner found a key")
	}
	sized := NewInterner(1000)
	for k := uint64(0); k < 5000; k++ {
		if id, isNew, _ := sized.Intern(k * 7919); id != uint32(k) || !isNew {
			t.Fatalf("NewInterner: Intern(%d) = %d, %v", k*7919, id, isNew)
		}
	}
}

// TestLoad checks the compact trace: dense ids in order of first
// appearance, keys, write bits, next-use positions, and its reader.
func TestLoad(t *testing.T) {
	f, err := Open(filepath.Join("testdata", "small.csv.zst"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Load(f, f.Name)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	gen := genSmall()
	if tr.Len() != len(gen) {
		t.Fatalf("%d refs", tr.Len())
	}
	ids := map[uint64]uint32{}
	keys := make([]uint64, len(gen))
	for i, r := range gen {
		k := r.key()
		keys[i] = k
		id, ok := ids[k]
		if !ok {
			id = uint32(len(ids))
			ids[k] = id
		}
		if tr.IDs[i] != id || tr.Keys[id] != k || tr.Write(i) != r.write {
			t.Fatalf("ref %d: id %d key %#x write %v; want %d %#x %v", i, tr.IDs[i], tr.Keys[tr.IDs[i]], tr.Write(i), id, k, r.write)
		}
	}
	if tr.Distinct() != len(ids) {
		t.Errorf("distinct %d, want %d", tr.Distinct(), len(ids))
	}
	next := naiveNext(keys)
	got := tr.NextUse()
	for i := range next {
		if got[i] != next[i] {
			t.Fatalf("next use %d: %d, want %d", i, got[i], next[i])
		}
	}
	refs := readAll(t, tr.Reader(true))
	for i, r := range refs {
		if r.Key != uint64(tr.IDs[i]) || r.NextUse != next[i] || r.Write != gen[i].write {
			t.Fatalf("reader ref %d = %+v", i, r)
		}
	}
	if r, _ := tr.Reader(false).Next(); r.NextUse != 0 {
		t.Error("Reader(false) gave next-use positions")
	}
}

// LoadMax refuses a trace longer than its bound (the memory a multi-policy
// replay may use) with a trace error naming the bound, instead of
// exhausting memory.
func TestLoadMaxRefusesLongTraces(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "t,%d,r\n", i%7)
	}
	f, err := NewReader(strings.NewReader(b.String()), "t.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadMax(f, "t.csv", 50)
	var te *Error
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "more than 50 references") {
		t.Fatalf("got %v", err)
	}
}
