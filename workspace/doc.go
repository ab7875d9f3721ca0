// Package workspace owns the state of the workspace folders: file discovery,
// open-document overlays, the activity log, configuration, and Select, which
// answers a query on a Snapshot: select.go runs the pipeline, sources.go
// holds one function per source of evidence, pack.go collapses and packs;
// the weights and ranking constants are in heuristics/ranking.go.
package workspace
