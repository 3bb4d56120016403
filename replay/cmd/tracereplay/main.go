// Command tracereplay is the trace-replay half of simulate on its own:
// `tracereplay -trace FILE -cache SIZE ...` is `simulate -trace FILE -cache
// SIZE ...` (see replay.Main and docs/traces.md). It exists so that trace
// replay and its speed measurements can be run without the scenario model.
package main

import (
	"os"

	"github.com/pgbufsim/pgbufsim/replay"
)

func main() {
	os.Exit(replay.Main(os.Args[1:], os.Stdout, os.Stderr))
}
