// Package trace reads and writes page-reference traces: the sequence of
// page (block) references a buffer cache sees, one record per reference.
// pgbufsim replays such traces through any replacement policy (package
// replay) and writes the trace of a simulated run so that a pgbench
// scenario can be replayed through every policy, Belady's OPT included.
//
// Formats (see docs/traces.md for examples):
//
//   - text: one decimal page id per line; blank lines and lines starting
//     with '#' are skipped.
//   - csv: `relation,block[,op]`, relation a name or a number, block a
//     PostgreSQL BlockNumber (uint32), op r or w (default r). Relations are
//     numbered in order of first appearance and the key is
//     relation<<32 | block, so the key space is stable for a given file.
//   - lcs-csv: libCacheSim's csv reader (traceReader/generalReader/csv.c):
//     a delimited file whose object id sits in a chosen column (1-based,
//     default 2 as in libCacheSim's common `time,obj_id,obj_size` layout);
//     header and delimiter are detected the way libCacheSim detects them
//     unless given.
//   - lcs-txt: libCacheSim's txt reader (generalReader/txt.c): one object
//     id per line, parsed like strtoull(s, NULL, 0) (decimal, 0x hex, 0 octal).
//   - oracleGeneral: libCacheSim's binary layout
//     (customizedReader/oracle/oracleGeneralBin.h), 24-byte little-endian
//     records {uint32 clock_time, uint64 obj_id, uint32 obj_size,
//     int64 next_access_vtime}; next_access_vtime is the 1-based index of
//     the next request to the same object, -1 or INT64_MAX for none.
//
// Any of them may be gzip or zstd compressed; compression is recognised by
// its magic bytes (1f 8b, 28 b5 2f fd), the format by the file name or,
// failing that, by the content, and both can be overridden.
//
// Readers return Refs through the small Reader interface, with io.EOF at
// the end; errors name the file and the line (or record) at fault. Load
// reads a whole trace into a compact in-memory Trace (dense 32-bit ids),
// which the miss-ratio-curve code replays many times.
//
// Writer writes csv or oracleGeneral; for oracleGeneral it buffers the
// trace and computes next_access_vtime with a backward pass when closed.
package trace
