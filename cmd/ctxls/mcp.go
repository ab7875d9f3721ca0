package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/ctxls/ctxls/lsp/mcp"
)

// runMCP serves the Model Context Protocol on stdin/stdout (package
// lsp/mcp) until the client disconnects.
func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f indexFlags
	f.register(fs, false)
	var roots multiFlag
	fs.Var(&roots, "root", "a workspace folder to index and watch (repeatable; default: the current directory)")
	level := logLevelFlag(fs)
	fs.Usage = func() {
		io.WriteString(stderr, "usage: ctxls mcp [--root DIR]... [flags]\n\nServes the tools select_context, explain_selection and index_status over MCP on stdin/stdout.\n\n")
		fs.PrintDefaults()
	}
	lvl, err := parseServerFlags(fs, args, level, "mcp: unexpected argument %q (use --root DIR)")
	if err != nil {
		return err
	}
	if f.verbose {
		lvl = min(lvl, slog.LevelInfo)
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if len(roots) == 0 {
		roots = multiFlag{"."}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	srv, err := mcp.New(mcp.Options{
		Version: version, Roots: roots, Config: cfg, Log: log,
		Warn: func(msg string) { fmt.Fprintln(stderr, msg) },
	})
	if err != nil {
		return usageError{err.Error()}
	}
	// Not the SDK's IOTransport, which ends the session at the first line it
	// cannot decode: mcp.LineTransport answers such a line and reads on.
	return srv.Run(ctx, &mcp.LineTransport{Reader: stdin, Writer: stdout})
}
