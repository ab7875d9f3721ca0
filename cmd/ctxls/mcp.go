package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
	return srv.Run(ctx, &sdk.IOTransport{Reader: readCloser{stdin}, Writer: writeCloser{stdout}})
}

// readCloser and writeCloser give stdin and stdout the Close the
// transport calls; closing the process's own files is the exit's job.
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }
