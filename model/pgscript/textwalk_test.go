package pgscript

import "testing"

// Per row, the expressions that walk a column's text: length and its
// synonyms 1, upper and lower 3; constants, octet_length and the key's comparison
// walk nothing.
func TestTextWalks(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want int
	}{
		{"SELECT sum(length(pad)) FROM t WHERE id BETWEEN 1 AND 90000", 1},
		{"SELECT char_length(pad), upper(pad) FROM t WHERE id = :k", 4},
		{"SELECT count(*) FROM t WHERE lower(pad) = 'x'", 3},
		{"SELECT sum(octet_length(pad)) FROM t", 0},
		{"SELECT length('abc') FROM t WHERE id = 1", 0},
		{"SELECT count(*) FROM t", 0},
		{"SELECT abalance FROM pgbench_accounts WHERE aid = :aid", 0},
	} {
		st, err := Shape(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if st.TextWalks != c.want {
			t.Errorf("%s: %d text walks a row, want %d", c.sql, st.TextWalks, c.want)
		}
	}
}
