package model_test

import (
	"math"
	"testing"
)

// costs.transaction is paid once per transaction, at its end (xact.c
// CommitTransaction), read-only ones included: once per statement in
// autocommit, once for a BEGIN ... END block of several statements. One
// client on an idle server, so a transaction's latency grows by exactly
// the price.
func TestTransactionPricePerTransaction(t *testing.T) {
	doc := func(script string) string {
		return `name: transaction-price
server: {autovacuum: false}
tables: {pgbench: {scale: 1}}
workload:
  phases:
    - {name: run, clients: 1, transactions: 200, script: {text: "` + script + `"}}
`
	}
	for _, c := range []struct {
		name, script string
		perTxn       float64 // transactions per pgbench transaction
	}{
		{"autocommit, one statement", `SELECT 1;\n`, 1},
		{"autocommit, two statements", `SELECT 1;\nSELECT 1;\n`, 2},
		{"one block of three statements", `BEGIN;\nSELECT 1;\nSELECT 1;\nEND;\n`, 1},
	} {
		base := bhRunYAML(t, doc(c.script)).Totals.LatencyMS.Mean
		priced := bhRunYAML(t, doc(c.script), "costs.transaction=100us").Totals.LatencyMS.Mean
		if d := priced - base; math.Abs(d-0.1*c.perTxn) > 1e-6 {
			t.Errorf("%s: latency %.4f -> %.4f ms, +%.4f ms; want +%.1f transactions x 0.1 ms", c.name, base, priced, d, c.perTxn)
		}
	}
}
