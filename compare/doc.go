// Package compare puts pgbufsim runs side by side: `simulate compare A B
// [C...]` over run or sweep output directories, the question every patch
// to the buffer manager asks ("does my patch help?"). The first side is the
// baseline; every summary metric of every other side is reported as its
// difference from the baseline, paired by replicate number. With
// replicates of the same seed the pairs saw identical arrivals and keys
// (common random numbers), so the paired-t interval of the per-replicate
// differences (Law, Simulation Modeling and Analysis, 5th ed., §11.2) is
// narrow, and a difference is called significant when its 95% interval
// excludes zero.
//
// Outputs (docs/compare.md): compare.html, one offline page made to be read
// as a screenshot (configuration that differs, headline metrics with
// verdicts, time series and latency CDFs overlaid with each side's
// checkpoints marked, per-relation hit ratios and usage-count histograms
// side by side, every metric), compare.txt, the same summary as text, and
// compare.csv, every metric of every side.
package compare
