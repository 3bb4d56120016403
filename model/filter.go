package model

import (
	"github.com/pgbufsim/pgbufsim/model/pgscript"
)

// A scan's filter: the WHERE condition a sequential scan tests on every
// tuple it reads (execScan.c ExecScan: ExecQual on each tuple the scan
// returns, and only the tuples it passes go to the node above). Its
// price per tuple is costs.filter_tuple for a tuple it passes,
// costs.filter_reject for one it rejects, and costs.filter_operator for
// each operator after the first (docs/model.md "A scan's filter").

// filterPass says which rows a statement's filter passes.
type filterPass uint8

const (
	// passAll: a condition on columns the model gives no values (a
	// Scan's WHERE clause of another form, a range of another column
	// than the key): every row passes, as the model's text calls take it.
	passAll filterPass = iota
	// passOne: a lookup by one value, read by a scan: one row.
	passOne
	// passRange: a range of the key: the op's key..n.
	passRange
	// passList: an IN list: its values' rows.
	passList
)

// filterSpec is one script command's filter.
type filterSpec struct {
	ops, unhashed int32 // operators a passing row evaluates (pgscript.Statement.FilterOps, FilterOpsUnhashed)
	// residual is how many of them an index path leaves to its Filter:
	// those that are not its index quals (a lookup's key = v, a range's
	// one or two comparisons of the key).
	residual int32
	list     int32 // passList: the list's values
	pass     filterPass
}

// setFilter records command ci's filter (st with a WHERE clause, on the
// table tc).
func (s *script) setFilter(ci int, st pgscript.Statement, tc TableConfig) {
	f := filterSpec{ops: int32(min(st.FilterOps, 1<<20)), unhashed: int32(min(st.FilterOpsUnhashed, 1<<20))}
	switch st.Kind {
	case pgscript.Lookup:
		f.residual = f.ops - 1
	case pgscript.Range:
		quals := int32(2)
		if st.LowOpen {
			quals--
		}
		if st.HighOpen {
			quals--
		}
		f.residual = max(0, f.ops-quals)
	}
	switch {
	case st.Kind == pgscript.Lookup:
		f.pass = passOne
	case (st.Kind == pgscript.Range || st.ByRange) && st.Column == tc.Key:
		f.pass = passRange
	case len(st.Keys) > 0:
		f.pass, f.list = passList, int32(min(len(st.Keys), 1<<30))
	}
	if n := ci + 1 - len(s.filters); n > 0 {
		s.filters = append(s.filters, make([]filterSpec, n)...)
	}
	s.filters[ci] = f
}

// filterOf is the filter of o's statement, if it has one (ok false:
// none, or not a script file's statement).
func (b *backend) filterOf(o *op) (filterSpec, bool) {
	s := b.client.script
	if s == nil || o.cmdNo <= 0 || int(o.cmdNo) > len(s.filters) {
		return filterSpec{}, false
	}
	f := s.filters[o.cmdNo-1]
	return f, f.ops > 0
}

// filterOperators is how many operators f evaluates on a passing row on
// this server: PostgreSQL 14 and later probe an IN list of nine or more
// constants by hash, once (convert_saop_to_hashed_saop).
func (e *engine) filterOperators(f filterSpec) int64 {
	if e.ver < 1400 {
		return int64(f.unhashed)
	}
	return int64(f.ops)
}

// filterPrice is what o's filter costs a sequential scan per tuple it
// tests, in picoseconds: the share of its tuples it passes at
// filter_tuple, the rest at filter_reject, and every tuple its further
// operators (0: o has no filter). The rows it passes are known for a
// range of the key and for keys looked up; for other conditions every
// row counts as passing.
func (b *backend) filterPrice(o *op) int64 {
	f, ok := b.filterOf(o)
	if !ok || o.t == nil {
		return 0
	}
	e, c := b.e, b.e.costs
	rows := max(o.t.heap.Rows, o.t.nextKey, 1)
	pass := rows
	switch f.pass {
	case passOne:
		pass = 1
	case passList:
		pass = int64(f.list)
	case passRange:
		// The op carries the range (key..n) unless a LIMIT made every
		// row count (scanLimitPage).
		if o.limit == 0 {
			pass = max(0, min(o.n, rows)-max(o.key, 1)+1)
		}
	}
	pass = min(pass, rows)
	const ppm = 1_000_000
	share := pass * ppm / rows // of a million tuples, how many pass
	ps := (share*c.FilterTuple + (ppm-share)*c.FilterReject) / 1000
	// At most a second a tuple (the prices' own bound), so that a page's
	// charge cannot overflow.
	return min(ps+(e.filterOperators(f)-1)*c.FilterOperator*1000, maxFilterPs)
}

// maxFilterPs bounds a filter's price per tuple: one second.
const maxFilterPs = 1_000_000_000_000

// residualFilterPrice is, in picoseconds, what an index path's Filter
// costs on each row it returns (ExecScan's ExecQual over the conditions
// besides the index quals, on every tuple the index fetch found visible;
// the model takes them all to pass): filter_tuple and filter_operator for
// each further condition. 0 without such conditions.
func (b *backend) residualFilterPrice(o *op) int64 {
	f, ok := b.filterOf(o)
	if !ok || f.residual <= 0 {
		return 0
	}
	c := b.e.costs
	return min(c.FilterTuple*1000+int64(f.residual-1)*c.FilterOperator*1000, maxFilterPs)
}

// chargeFilter charges the filter's price (filterPrice, in ps a tuple)
// on n tuples tested, carrying the fraction of a nanosecond to the next
// page (b.filterCarry).
func (b *backend) chargeFilter(n int64) {
	if b.filterPs == 0 || n <= 0 {
		return
	}
	acc := int64(b.filterCarry) + n*b.filterPs
	b.cpu += acc / 1000
	b.filterCarry = int32(acc % 1000)
}

// chargeChangeFilter charges an UPDATE's or DELETE's filter on one page
// of its sequential scan (execSeqChange), where the rows it passes are
// known: the page's rows to change of its visible tuples.
func (b *backend) chargeChangeFilter(o *op, visible, passed int64) {
	if f, ok := b.filterOf(o); ok {
		b.chargeTested(visible, passed, b.e.filterOperators(f)-1)
	}
}

// chargeKeyFilter charges a statement by one key read by a sequential
// scan (execKeyedSeq) its filter on one page: key = v on each of the
// page's visible tuples, the row's passing (passed: 0 or 1) and the rest
// rejected, and a script file's further conditions (its operators beyond
// the key's) on each (a built-in script's have none).
func (b *backend) chargeKeyFilter(o *op, visible, passed int64) {
	further := int64(0)
	if f, ok := b.filterOf(o); ok {
		further = int64(max(0, f.residual))
	}
	b.chargeTested(visible, passed, further)
}

// chargeTested charges a filter on tested tuples of which passed passed:
// filter_tuple on those, filter_reject on the rest, and filter_operator
// for each of further operators on every one.
func (b *backend) chargeTested(tested, passed, further int64) {
	c := b.e.costs
	passed = max(0, min(passed, tested))
	b.cpu += passed*c.FilterTuple + (tested-passed)*c.FilterReject + tested*min(further*c.FilterOperator, maxFilterPs/1000)
}
