package policies

import (
	"fmt"
	"strings"
	"testing"
)

// Hand-traced small examples for ARC and 2Q. Pages are letters; each step
// gives the request and the complete state after it, worked out on paper
// from the papers' pseudo-code (and, for ARC, the split described in
// arc.go). Lists are written most recent first.

type lettered struct {
	ids   map[string]uint64
	names map[uint64]string
}

func newLettered() *lettered {
	return &lettered{ids: map[string]uint64{}, names: map[uint64]string{}}
}

func (l *lettered) id(s string) uint64 {
	if id, ok := l.ids[s]; ok {
		return id
	}
	id := uint64(len(l.ids) + 1)
	l.ids[s], l.names[id] = id, s
	return id
}

func (l *lettered) slotNames(d *driver, slots []int32) string {
	var out []string
	for _, s := range slots {
		out = append(out, l.names[d.pageOf[s]])
	}
	return "[" + strings.Join(out, " ") + "]"
}

func (l *lettered) pageNames(pages []uint64) string {
	var out []string
	for _, p := range pages {
		out = append(out, l.names[p])
	}
	return "[" + strings.Join(out, " ") + "]"
}

type tracedStep struct {
	page  string
	hit   bool
	state string
}

func runHandTrace(t *testing.T, pol Replacement, slots int, steps []tracedStep, dump func(*driver, *lettered) string) {
	t.Helper()
	d := newDriver(pol, slots)
	l := newLettered()
	for i, s := range steps {
		hit, err := d.access(l.id(s.page), NeverAgain)
		if err != nil {
			t.Fatal(err)
		}
		got := dump(d, l)
		if hit != s.hit || got != s.state {
			t.Fatalf("request %d (%s): hit=%v %s\n                 want hit=%v %s", i+1, s.page, hit, got, s.hit, s.state)
		}
		if err := pol.Check(); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
}

// ARC with c = 3. Exercises B1 ghost hits (p grows), B2 ghost hits (p
// shrinks, once by |B1|/|B2| = 2), and both directory trims of case IV.
func TestARCHandTraced(t *testing.T) {
	a := NewARC()
	dump := func(d *driver, l *lettered) string {
		return fmt.Sprintf("T1=%s T2=%s B1=%s B2=%s p=%g",
			l.slotNames(d, a.t1.slots(&a.k)), l.slotNames(d, a.t2.slots(&a.k)),
			l.pageNames(a.b.pages(arcB1)), l.pageNames(a.b.pages(arcB2)), a.Target())
	}
	runHandTrace(t, a, 3, []tracedStep{
		{"a", false, "T1=[a] T2=[] B1=[] B2=[] p=0"},
		{"b", false, "T1=[b a] T2=[] B1=[] B2=[] p=0"},
		{"c", false, "T1=[c b a] T2=[] B1=[] B2=[] p=0"},
		// Case I: a hit moves the page to T2.
		{"a", true, "T1=[c b] T2=[a] B1=[] B2=[] p=0"},
		// Case IV.B: |T1| = 2 > p = 0, so REPLACE takes T1's LRU into B1.
		{"d", false, "T1=[d c] T2=[a] B1=[b] B2=[] p=0"},
		// Case IV.A: |T1|+|B1| reached c, so B1's LRU (b) is dropped.
		{"e", false, "T1=[e d] T2=[a] B1=[c] B2=[] p=0"},
		// Case II: c is in B1. Victim took d (|T1| > p = 0); delta =
		// 1 since |B1| = 1 >= |B2| = 0 before this request; p = 1.
		{"c", false, "T1=[e] T2=[c a] B1=[d] B2=[] p=1"},
		// |T1| = 1 is not > p = 1: REPLACE takes T2's LRU into B2.
		{"f", false, "T1=[f e] T2=[c] B1=[d] B2=[a] p=1"},
		// Case III: a is in B2. Victim took e (|T1| = 2 > 1); delta = 1
		// since |B2| = 1 >= |B1| = 1; p = 0.
		{"a", false, "T1=[f] T2=[a c] B1=[e d] B2=[] p=0"},
		{"g", false, "T1=[g] T2=[a c] B1=[f e] B2=[] p=0"},
		{"c", true, "T1=[g] T2=[c a] B1=[f e] B2=[] p=0"},
		{"h", false, "T1=[h] T2=[c a] B1=[g f] B2=[] p=0"},
		// Case II again: p = 1.
		{"f", false, "T1=[] T2=[f c a] B1=[h g] B2=[] p=1"},
		// T1 is empty: REPLACE takes T2's LRU.
		{"i", false, "T1=[i] T2=[f c] B1=[h g] B2=[a] p=1"},
		// Case III with |B1| = 2 > |B2| = 1: delta = 2, p = max(0, 1-2).
		{"a", false, "T1=[i] T2=[a f] B1=[h g] B2=[c] p=0"},
		{"g", false, "T1=[] T2=[g a f] B1=[i h] B2=[c] p=1"},
		// Case IV.B with the directory full (2c = 6): B2's LRU (c) is
		// dropped, and REPLACE moves f into B2.
		{"j", false, "T1=[j] T2=[g a] B1=[i h] B2=[f] p=1"},
	}, dump)
}

// 2Q with 4 slots, Kin = 1 (0.25), Kout = 2 (0.5).
func TestTwoQHandTraced(t *testing.T) {
	q, err := NewTwoQ(DefaultTwoQParams())
	if err != nil {
		t.Fatal(err)
	}
	dump := func(d *driver, l *lettered) string {
		return fmt.Sprintf("A1in=%s Am=%s A1out=%s",
			l.slotNames(d, q.a1in.slots(&q.k)), l.slotNames(d, q.am.slots(&q.k)), l.pageNames(q.a1out.pages(0)))
	}
	runHandTrace(t, q, 4, []tracedStep{
		{"a", false, "A1in=[a] Am=[] A1out=[]"},
		{"b", false, "A1in=[b a] Am=[] A1out=[]"},
		{"c", false, "A1in=[c b a] Am=[] A1out=[]"},
		{"d", false, "A1in=[d c b a] Am=[] A1out=[]"},
		// A hit in A1in changes nothing (a correlated reference).
		{"a", true, "A1in=[d c b a] Am=[] A1out=[]"},
		// |A1in| = 4 > Kin: its tail goes, remembered in A1out.
		{"e", false, "A1in=[e d c b] Am=[] A1out=[a]"},
		// a is remembered: it goes to Am.
		{"a", false, "A1in=[e d c] Am=[a] A1out=[b]"},
		{"f", false, "A1in=[f e d] Am=[a] A1out=[c b]"},
		// A1out over Kout: its tail (b) is forgotten.
		{"g", false, "A1in=[g f e] Am=[a] A1out=[d c]"},
		// b was forgotten, so it is new again.
		{"b", false, "A1in=[b g f] Am=[a] A1out=[e d]"},
		// d is in A1out; reclaimfor pushes f and trims A1out's tail,
		// which is d itself, yet d was found there first: it goes to Am.
		{"d", false, "A1in=[b g] Am=[d a] A1out=[f e]"},
		{"a", true, "A1in=[b g] Am=[a d] A1out=[f e]"},
		{"h", false, "A1in=[h b] Am=[a d] A1out=[g f]"},
		// reclaimfor pushes b and trims f; then g leaves A1out for Am.
		{"g", false, "A1in=[h] Am=[g a d] A1out=[b]"},
		// |A1in| = 1 = Kin: Am's LRU (d) goes and is not remembered.
		{"i", false, "A1in=[i h] Am=[g a] A1out=[b]"},
		{"d", false, "A1in=[d i] Am=[g a] A1out=[h b]"},
	}, dump)
}
