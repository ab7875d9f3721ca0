// Package workspace owns the state of the workspace folders: file discovery,
// open-document overlays, the activity log, configuration, and Select, which
// answers a query.
package workspace
