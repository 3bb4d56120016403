// Package pgexpr parses, binds and evaluates pgbench's \set expressions, the
// way simulated pgbench scripts choose their keys, e.g.
//
//	random(1, 100000 * :scale)
//	random_gaussian(1, 100000 * :scale, 5)
//	random_exponential(1, :naccounts, 2.5)
//	random_zipfian(1, 1000000, 1.07)
//	permute(random_zipfian(1, :n, 1.2), :n)
//
// It follows PostgreSQL's src/bin/pgbench: the grammar and precedence of
// exprparse.y and the tokens of exprscan.l; the typing, coercions (rint for
// double to int), integer semantics and error messages of evalStandardFunc;
// and the draws of getrand, getExponentialRand, getGaussianRand (via
// pg_prng_double_normal's Box-Muller), getZipfianRand / computeIterativeZipfian
// (Devroye's rejection method, Non-Uniform Random Variate Generation, 1986,
// pp. 550-551) and permute (PG15+). permute seeds PostgreSQL's own PRNG
// (src/common/pg_prng.c: xoroshiro128** seeded by splitmix64), which PgPRNG
// reproduces bit for bit; the package tests pin pgbench's TAP-suite values.
//
// Use Parse, then Expr.Bind with the script's variables, then Gen.Next with
// the client's *rand.Rand. Every variate is built from whole r.Uint64() words
// exactly as pgbench builds it from pg_prng_uint64, so a *rand.Rand over a
// PgPRNG source replays pgbench's own values, and a PCG source gives the same
// distributions with the simulator's streams. Bind proves that evaluation
// cannot fail (division by zero, overflow, parameters out of pgbench's
// ranges), so Next has no error path and does not allocate.
//
// Conditions (a script's \if) add TRUE, FALSE, the comparisons < > = <= >=
// <> != and the lazy AND, OR and NOT, with pgbench's precedence and typing
// (two ints compare as ints, anything else as doubles; a boolean is never a
// number); Expr.BindCond binds them and Gen.NextBool evaluates them.
//
// Not supported: pgbench's NULL, IS, bitwise and CASE syntax, and the
// functions pi, sqrt, ln, exp, pow/power, hash* and debug
// (they are rejected with a clear message). The project's fact sheet
// docs/model.md states the formulas and checks the 2014 gaussian
// header figures that HeaderLines reproduces.
package pgexpr
