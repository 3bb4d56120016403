// Package replay replays page-reference traces (package trace) through
// pgbufsim's replacement policies (package policies) and computes
// miss-ratio curves: miss ratio against cache size for a list of policies.
//
// Run replays one trace through one policy at one cache size, streaming:
// memory is O(distinct pages + cache size), not O(trace length). The hot
// loop maps each page key to its slot through a plain slice when the keys
// are small dense integers (as libCacheSim's and perfkit's traces are) and
// through an open-addressing table otherwise, and it never allocates per
// request. As PostgreSQL's buffer manager does for a lookup that finds the
// page (bufmgr.c BufferAlloc -> PinBuffer), a hit calls the policy's
// Accessed; a miss asks Victim for a slot (an empty one first) and calls
// Loaded. Replay never pins, has no rings and passes the 1-based request
// index as the time. Belady's OPT (Spec.Offline) is told each page's next
// use after every Loaded or Accessed.
//
// Curves replays a loaded trace at many sizes for many policies, in
// parallel across goroutines (this package is outside the simulation core;
// the results are deterministic and ordered). For LRU it computes the whole
// curve in one pass from exact stack distances (Mattson, Gecsei, Slutz and
// Traiger, "Evaluation techniques for storage hierarchies", IBM Systems
// Journal 9(2), 1970), counted with a Fenwick tree over last-access times
// (Bennett and Kruskal, "LRU stack processing", IBM J. R&D 19(4), 1975) in
// O(n log d) for d distinct pages, or estimates it by SHARDS spatial sampling (Waldspurger,
// Park, Garthwaite and Ahmad, "Efficient MRC construction with SHARDS",
// FAST 2015) for traces too large for the exact pass.
//
// Main is the command-line entry point (`simulate -trace FILE ...` or a
// configuration with a top-level `trace:` mapping); see docs/traces.md.
// Wall-clock time is measured only there and in benchmarks.
package replay
