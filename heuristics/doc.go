// Package heuristics holds the pure scoring rules of context selection:
// what a query asks for, which kind of file a path holds (category.go), how
// much conversation history and locality should count, how ranked lists from
// several sources are fused, which overlapping ranges collapse, how items are
// packed into a character budget and when a selection is reported as
// low-confidence.
//
// Everything here is deterministic and side-effect free: no I/O, no clocks
// (ages are passed in), no global mutable state. The thresholds are exported
// constants so they can be recalibrated against the evaluation set; the
// sources' fusion weights and every ranking constant are in ranking.go, each
// with the reason for its value.
package heuristics
