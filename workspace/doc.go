// Package workspace owns the state of the workspace folders: file
// discovery through the gate, the indexes and their cache, open-document
// overlays, the activity log, watched files, rule files and memory notes.
// Select takes a snapshot of that state (workspace/snapshot) and runs the
// select pipeline over it (workspace/pipeline, whose run.go lists its
// stages); context items are workspace/items, the configuration
// workspace/config, git history workspace/history, the ranking weights and
// constants heuristics.
package workspace
