package pgexpr_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/pgbufsim/pgbufsim/model/pgexpr"
)

// The aid choice of Peter Geoghegan's 2014 gaussian runs (scale 5000,
// threshold 5), with the run-header lines pgbench printed for it.
func Example() {
	e, err := pgexpr.Parse("random_gaussian(1, 100000 * :scale, 5)")
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := e.Bind(map[string]int64{"scale": 5000}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g)
	for _, line := range g.HeaderLines() {
		fmt.Println(line)
	}
	r := rand.New(rand.NewPCG(1, 2)) // the client's key stream
	aid := g.Next(r)
	fmt.Println(aid >= 1 && aid <= 500000000)
	// Output:
	// random_gaussian(1, 500000000, 5)
	// standard deviation threshold: 5.00000
	// access probability of top 20%, 10% and 5% records: 0.68269 0.38293 0.19741
	// true
}

// Bind refuses what pgbench would refuse when evaluating.
func ExampleExpr_Bind() {
	e, _ := pgexpr.Parse("random_gaussian(1, :n, 1.5)")
	_, err := e.Bind(map[string]int64{"n": 1000}, 0)
	fmt.Println(err)
	// Output:
	// pgbench expression "random_gaussian(1, :n, 1.5)": column 1: gaussian parameter must be at least 2.000000 (not 1.500000)
}
