// Package interval gives every figure its 95 % interval and every A/B
// comparison its verdict: the exact order-statistic (binomial) interval of
// a percentile (widened over calls where requests come in correlated
// calls), the t-interval of a mean across runs, the bootstrap interval of
// a ratio B/A with its seed (at any level, from the replicates its p-value
// is read off), the Holm-corrected verdicts over many figures, each with
// the interval it was made with, and Spearman's rank test of a trend.
// docs/statistics.md states each method and its assumptions.
package interval
