// Package lsp is the JSON-RPC/LSP adapter of ctxls: it speaks the language
// server protocol to an editor or agent over a byte stream, validates and
// decodes what arrives, and hands it to a workspace.Workspace. It owns the
// lifecycle (initialize, shutdown, exit), document sync, configuration,
// work-done progress, cancellation and the workspace/contextSelect request
// of docs/protocol.md; it never computes rankings itself.
//
// The connection is wired by hand on go.lsp.dev/jsonrpc2 v0.10.0 (see
// Server), with go.lsp.dev/protocol's ClientDispatcher for the messages
// sent to the client.
package lsp
