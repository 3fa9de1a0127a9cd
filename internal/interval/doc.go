// Package interval gives every figure its 95 % interval and every A/B
// comparison its verdict: the exact order-statistic (binomial) interval of
// a percentile, the t-interval of a mean across runs, the bootstrap
// interval of a ratio B/A with its seed, and the Holm-corrected verdicts
// over many figures. docs/statistics.md states each method and its
// assumptions.
package interval
