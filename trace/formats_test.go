package trace

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readAll drains a reader, calling Next for the first ref and ReadRefs for
// the rest, so both paths are exercised.
func readAll(t *testing.T, r BatchReader) []Ref {
	t.Helper()
	var out []Ref
	first, err := r.Next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, first)
	buf := make([]Ref, 333)
	for {
		n, err := r.ReadRefs(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// naiveNext is the next-use definition applied literally: the 1-based
// position of the next equal key, or Never.
func naiveNext(keys []uint64) []int64 {
	out := make([]int64, len(keys))
	for i := range keys {
		out[i] = Never
		for j := i + 1; j < len(keys); j++ {
			if keys[j] == keys[i] {
				out[i] = int64(j) + 1
				break
			}
		}
	}
	return out
}

// TestSmallTraceEveryFormat opens every test file with auto-detection and
// checks the detected format and compression and that each decodes to the
// generator's references: same keys (relation<<32 | block), the write flag
// where the format has one, and oracleGeneral's next-use positions equal
// to the literal definition.
func TestSmallTraceEveryFormat(t *testing.T) {
	gen := genSmall()
	keys := make([]uint64, len(gen))
	for i, r := range gen {
		keys[i] = r.key()
	}
	next := naiveNext(keys)
	for base, format := range smallFormats {
		for _, comp := range []string{"", "gzip", "zstd"} {
			name := base + map[string]string{"": "", "gzip": ".gz", "zstd": ".zst"}[comp]
			t.Run(name, func(t *testing.T) {
				f, err := Open(filepath.Join("testdata", name), Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if f.Format != format || f.Compression != comp {
					t.Fatalf("detected %s/%q, want %s/%q", f.Format, f.Compression, format, comp)
				}
				refs := readAll(t, f)
				if len(refs) != len(gen) {
					t.Fatalf("%d refs, want %d", len(refs), len(gen))
				}
				for i, r := range refs {
					if r.Key != keys[i] {
						t.Fatalf("ref %d: key %#x, want %#x", i+1, r.Key, keys[i])
					}
					if format == FormatCSV && r.Write != gen[i].write {
						t.Fatalf("ref %d: write %v, want %v", i+1, r.Write, gen[i].write)
					}
					wantNext := int64(0)
					if format == FormatOracleGeneral {
						wantNext = next[i]
					}
					if r.NextUse != wantNext {
						t.Fatalf("ref %d: next use %d, want %d", i+1, r.NextUse, wantNext)
					}
				}
			})
		}
	}
}

// TestOracleGeneralLayout pins the byte layout written for the test trace
// against libCacheSim's struct: time, id, size 8192, next (-1 for none).
func TestOracleGeneralLayout(t *testing.T) {
	raw, err := os.ReadFile("testdata/small.oracleGeneral")
	if err != nil {
		t.Fatal(err)
	}
	gen := genSmall()
	if len(raw) != recordSize*len(gen) {
		t.Fatalf("%d bytes for %d records", len(raw), len(gen))
	}
	keys := make([]uint64, len(gen))
	for i, r := range gen {
		keys[i] = r.key()
	}
	next := naiveNext(keys)
	for i := range gen {
		tm, id, size, nx := oracleRecord(raw, i)
		if nx == -1 {
			nx = Never
		}
		if tm != uint32(i/10) || id != keys[i] || size != 8192 || nx != next[i] {
			t.Fatalf("record %d = (%d, %#x, %d, %d), want (%d, %#x, 8192, %d)", i+1, tm, id, size, nx, i/10, keys[i], next[i])
		}
	}
}

func openString(t *testing.T, name, content string, opt Options) (*File, error) {
	t.Helper()
	return NewReader(strings.NewReader(content), name, opt)
}

// TestDetect covers format detection by name and by content.
func TestDetect(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"x", "# ids\n1\n2\n3\n", FormatText},
		{"x", "1\n2\n3\n", FormatText},
		{"x.txt", "1\n2\n3\n", FormatLCSTxt},
		{"x.txt", "# c\n1\n2\n", FormatText},
		{"x", "0x1f\n0x20\n", FormatLCSTxt},
		{"x", "relation,block,op\nt,1,r\n", FormatCSV},
		{"x", "pgbench_accounts,12,w\npgbench_accounts,13,r\n", FormatCSV},
		{"x", "16384,12\n16384,13\n", FormatCSV},
		{"x", "1,42,8192\n2,43,8192\n", FormatLCSCSV},
		{"x", "time,obj_id,obj_size\n1,42,8192\n", FormatLCSCSV},
		{"x.csv", "1\t42\t8192\n", FormatLCSCSV},
		{"x.oracleGeneral.bin", "whatever", FormatOracleGeneral},
		{"x", "\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x20\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff", FormatOracleGeneral},
	}
	for _, c := range cases {
		f, err := openString(t, c.name, c.content, Options{})
		if err != nil {
			t.Errorf("%s %q: %v", c.name, c.content, err)
			continue
		}
		if f.Format != c.want {
			t.Errorf("%s %q: detected %s, want %s", c.name, c.content, f.Format, c.want)
		}
	}
	for _, content := range []string{"", "# only a comment\n\n"} {
		if _, err := openString(t, "x", content, Options{}); err == nil {
			t.Errorf("%q: no error for a trace without data", content)
		}
	}
}

// TestErrorsNameFileAndLine checks that malformed input is refused with the
// file, the line (or record) and the problem, and that the references before
// the bad one are still delivered.
func TestErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		content string
		opt     Options
		good    int    // references before the error
		want    string // substring of the error
	}{
		{"1\n2\nx3\n", Options{Format: FormatText}, 2, `bad.trace:3: page id "x3" is not a non-negative decimal integer`},
		{"1\n-2\n", Options{Format: FormatText}, 1, `bad.trace:2: page id "-2"`},
		{"1\n18446744073709551616\n", Options{Format: FormatText}, 1, `bad.trace:2:`},
		{"t,1\nt,x\n", Options{Format: FormatCSV}, 1, `bad.trace:2: block "x" is not a block number`},
		{"t,1\nt,4294967295\n", Options{Format: FormatCSV}, 1, `bad.trace:2: block "4294967295"`},
		{"t,1,r\nt,2,q\n", Options{Format: FormatCSV}, 1, `bad.trace:2: op "q" is not r or w`},
		{"t,1\nt\n", Options{Format: FormatCSV}, 1, `bad.trace:2: expected relation,block[,op], got 1 field(s)`},
		{"t,1\n\"t,2\n", Options{Format: FormatCSV}, 1, `bad.trace:2: unterminated quoted field`},
		{"1,2,3\n4\n", Options{Format: FormatLCSCSV, Header: HeaderNo}, 1, `bad.trace:2: 1 field(s) split at ',', but the object id is in column 2`},
		{"1,2,3\n4,abc,5\n", Options{Format: FormatLCSCSV, Header: HeaderNo}, 1, `bad.trace:2: object id "abc" in column 2 is not an integer`},
		{"12\nzz\n", Options{Format: FormatLCSTxt}, 1, `bad.trace:2: object id "zz" is not an integer (for string ids use -string-ids)`},
		{strings.Repeat("7", maxLine+10), Options{Format: FormatText}, 0, `bad.trace:1: line longer than`},
	}
	for _, c := range cases {
		f, err := openString(t, "bad.trace", c.content, c.opt)
		if err != nil {
			t.Errorf("%q: open: %v", c.content, err)
			continue
		}
		var got []Ref
		buf := make([]Ref, 2) // small batches: the error arrives mid-batch
		for {
			n, err := f.ReadRefs(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				if err == io.EOF {
					t.Errorf("%q: no error", c.content)
				} else if !strings.Contains(err.Error(), c.want) {
					t.Errorf("%q: error %q, want it to contain %q", c.content, err, c.want)
				} else {
					var te *Error
					if !errors.As(err, &te) {
						t.Errorf("%q: error %T is not a *trace.Error", c.content, err)
					}
				}
				break
			}
		}
		if len(got) != c.good {
			t.Errorf("%q: %d references before the error, want %d", c.content, len(got), c.good)
		}
		// The error is sticky.
		if _, err := f.Next(); err == nil || err == io.EOF {
			t.Errorf("%q: error not repeated: %v", c.content, err)
		}
	}
}

// TestOracleGeneralErrors covers a truncated file and a next_access_vtime
// that does not point forward.
func TestOracleGeneralErrors(t *testing.T) {
	raw, err := os.ReadFile("testdata/small.oracleGeneral")
	if err != nil {
		t.Fatal(err)
	}
	f, _ := NewReader(strings.NewReader(string(raw[:recordSize*3+10])), "cut.oracleGeneral", Options{})
	refs, err := drain(f)
	if len(refs) != 3 || err == nil || err.Error() != "cut.oracleGeneral: record 4 (byte 72): truncated record (10 of 24 bytes; is this really an oracleGeneral trace?)" {
		t.Errorf("truncated: %d refs, %v", len(refs), err)
	}
	bad := append([]byte(nil), raw[:recordSize*5]...)
	bad[recordSize*2+16] = 2 // record 3 says its next use is record 2
	for i := 17; i < 24; i++ {
		bad[recordSize*2+i] = 0
	}
	f, _ = NewReader(strings.NewReader(string(bad)), "bad.oracleGeneral", Options{})
	refs, err = drain(f)
	if len(refs) != 2 || err == nil || !strings.Contains(err.Error(), "bad.oracleGeneral: record 3 (byte 48): next_access_vtime 2 is not after the record itself") {
		t.Errorf("bad next: %d refs, %v", len(refs), err)
	}
}

func drain(r BatchReader) ([]Ref, error) {
	var out []Ref
	buf := make([]Ref, 1024)
	for {
		n, err := r.ReadRefs(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func keysOf(refs []Ref) []uint64 {
	out := make([]uint64, len(refs))
	for i, r := range refs {
		out[i] = r.Key
	}
	return out
}

func equalKeys(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLCSCSVOptions covers libCacheSim's csv conventions: delimiter and
// header detection (csv_detect_delimiter, csv_detect_header), the id and op
// columns, and string ids numbered from 1 like g_quark_from_string.
func TestLCSCSVOptions(t *testing.T) {
	cases := []struct {
		content string
		opt     Options
		keys    []uint64
		writes  []bool
	}{
		// Tab beats comma (weights 4 vs 3), header detected (letters).
		{"time\tobj_id\tsize\n1\t7\t1,0\n2\t8\t1,0\n", Options{Format: FormatLCSCSV}, []uint64{7, 8}, nil},
		// Digits outnumber letters: no header, the first line is data.
		{"1,10,8192\n2,0x10,8192\n", Options{Format: FormatLCSCSV}, []uint64{10, 16}, nil},
		// Hex letters count as letters: "a,b,c" has 3 letters, 0 digits: header.
		{"a,b,c\n1,5,1\n", Options{Format: FormatLCSCSV}, []uint64{5}, nil},
		// Forced header off; id in column 1; op in column 3.
		{"5|x|w\n6|y|read\n5|z|SET\n", Options{Format: FormatLCSCSV, Header: HeaderNo, IDColumn: 1, OpColumn: 3}, []uint64{5, 6, 5}, []bool{true, false, true}},
		// A tab written as \t.
		{"1\t9\n2\t10\n", Options{Format: FormatLCSCSV, Header: HeaderNo, Delimiter: `\t`}, []uint64{9, 10}, nil},
		// Explicit delimiter ':' and string ids.
		{"t:alpha\nt:beta\nt:alpha\n", Options{Format: FormatLCSCSV, Header: HeaderNo, Delimiter: ":", StringIDs: true}, []uint64{1, 2, 1}, nil},
		// Quoted fields with the delimiter inside.
		{"1,\"a,b\",3\n2,\"a,b\",3\n", Options{Format: FormatLCSCSV, Header: HeaderNo, StringIDs: true}, []uint64{1, 1}, nil},
	}
	for _, c := range cases {
		f, err := openString(t, "x.csv", c.content, c.opt)
		if err != nil {
			t.Errorf("%q: %v", c.content, err)
			continue
		}
		refs, err := drain(f)
		if err != nil {
			t.Errorf("%q: %v", c.content, err)
			continue
		}
		if !equalKeys(keysOf(refs), c.keys) {
			t.Errorf("%q: keys %v, want %v", c.content, keysOf(refs), c.keys)
		}
		for i, w := range c.writes {
			if refs[i].Write != w {
				t.Errorf("%q: ref %d write %v, want %v", c.content, i+1, refs[i].Write, w)
			}
		}
	}
	if _, err := openString(t, "x.csv", "12345\n", Options{Format: FormatLCSCSV}); err == nil ||
		!strings.Contains(err.Error(), "cannot detect the csv delimiter") {
		t.Errorf("single column as lcs-csv: %v", err)
	}
	for _, bad := range []Options{{IDColumn: -1}, {Header: "maybe"}, {Delimiter: ",;"}, {IDColumn: 3, OpColumn: 3}, {Format: "parquet"}} {
		if _, err := openString(t, "x.csv", "1,2\n", bad); err == nil {
			t.Errorf("options %+v accepted", bad)
		}
	}
}

// TestLCSTxtNumbers follows strtoull(s, NULL, 0): decimal, 0x hex, leading
// 0 octal; and string ids.
func TestLCSTxtNumbers(t *testing.T) {
	f, _ := openString(t, "x", "10\n0x10\n010\n\n0\n18446744073709551615\n", Options{Format: FormatLCSTxt})
	refs, err := drain(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{10, 16, 8, 0, 1<<64 - 1}
	if !equalKeys(keysOf(refs), want) {
		t.Errorf("keys %v, want %v", keysOf(refs), want)
	}
	f, _ = openString(t, "x", "/a/b\n/c\n/a/b\n", Options{Format: FormatLCSTxt, StringIDs: true})
	refs, _ = drain(f)
	if !equalKeys(keysOf(refs), []uint64{1, 2, 1}) {
		t.Errorf("string ids %v", keysOf(refs))
	}
	if _, err := openString(t, "x", "1\n", Options{Format: FormatText, StringIDs: true}); err == nil {
		t.Error("string ids accepted for the text format")
	}
}

// TestCSVRelations checks the key rule relation<<32 | block with relations
// numbered by first appearance, names and numbers alike, quoted names,
// header skipping, comments, CRLF and whitespace.
func TestCSVRelations(t *testing.T) {
	content := "relation,block,op\r\n# a comment\r\n16384,7,r\r\n\"a,b\" , 3 , W\r\npgbench_accounts,0\r\n16384,7,write\r\n\r\n\"a,b\",3,read\r\n"
	f, err := openString(t, "x", content, Options{})
	if err != nil {
		t.Fatal(err)
	}
	refs, err := drain(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{{Key: 7}, {Key: 1<<32 | 3, Write: true}, {Key: 2 << 32}, {Key: 7, Write: true}, {Key: 1<<32 | 3}}
	if len(refs) != len(want) {
		t.Fatalf("%d refs: %+v", len(refs), refs)
	}
	for i := range want {
		if refs[i] != want[i] {
			t.Errorf("ref %d = %+v, want %+v", i+1, refs[i], want[i])
		}
	}
	// A header is only allowed as the first line.
	f, _ = openString(t, "x", "t,1\nrelation,block\n", Options{Format: FormatCSV})
	if _, err := drain(f); err == nil || !strings.Contains(err.Error(), "x:2:") {
		t.Errorf("late header: %v", err)
	}
}

// nextOnly is a Reader without ReadRefs.
type nextOnly struct {
	refs []Ref
	err  error
}

func (n *nextOnly) Next() (Ref, error) {
	if len(n.refs) == 0 {
		if n.err != nil {
			return Ref{}, n.err
		}
		return Ref{}, io.EOF
	}
	r := n.refs[0]
	n.refs = n.refs[1:]
	return r, nil
}

// TestBatched checks the adapter: all refs, then the error, which stays.
func TestBatched(t *testing.T) {
	boom := errors.New("boom")
	b := Batched(&nextOnly{refs: []Ref{{Key: 1}, {Key: 2}, {Key: 3}}, err: boom})
	buf := make([]Ref, 2)
	n, err := b.ReadRefs(buf)
	if n != 2 || err != nil {
		t.Fatalf("first batch %d %v", n, err)
	}
	n, err = b.ReadRefs(buf)
	if n != 1 || err != nil || buf[0].Key != 3 {
		t.Fatalf("second batch %d %v", n, err)
	}
	for range 2 {
		if n, err = b.ReadRefs(buf); n != 0 || err != boom {
			t.Fatalf("after the end: %d %v", n, err)
		}
	}
	s := NewSliceReader([]Ref{{Key: 9}})
	if Batched(s) != BatchReader(s) {
		t.Error("a BatchReader was wrapped")
	}
}
