// Package sim is pgbufsim's discrete-event kernel: virtual time, an event
// queue, FIFO multi-server resources (or, for CPU cores, a model of Linux's
// fair scheduler: fair.go), reproducible random-number streams and a
// streaming latency histogram. It knows nothing of PostgreSQL; the model
// packages build backends, devices and background processes on top of it as
// state machines that receive events through the Handler interface.
//
// # Guarantees
//
// Time is an int64 count of simulated nanoseconds; no floating-point time is
// ever used, so event times never drift or round.
//
// The kernel is deterministic: given the same sequence of Schedule calls it
// fires the same events in the same order. Events are ordered by (time,
// sequence number), where the sequence number is assigned by Schedule, so
// events due at the same instant fire in the order they were scheduled —
// including events scheduled for the current instant by a handler that is
// running. This is SimPy's (time, priority, eid) rule without the priority;
// Go's container/heap is not stable, which is why the kernel keeps its own
// typed 4-ary heap keyed by the pair.
//
// Nothing in this package starts a goroutine, reads the wall clock or draws
// from a global random generator. Randomness comes from NewStream: one PCG
// generator per purpose (arrivals of client 3, service times of disk 0, ...),
// seeded from (scenario seed, replicate, stream name) so that changing how
// one purpose draws never shifts the numbers another purpose sees (common
// random numbers; Law, "Simulation Modeling and Analysis", ch. 11).
//
// A Kernel and everything attached to it is single-threaded. Independent
// simulations (sweep points, replicates) may run on separate goroutines as
// long as each uses its own Kernel; the package has no shared mutable state.
//
// # Cost model
//
// Scheduling and firing an event allocates nothing once the queue has grown
// to its working size; Resource keeps waiters in a ring buffer and in-service
// requests in a fixed slot table for the same reason; Histogram.Record is a
// handful of integer operations on a fixed array.
package sim
