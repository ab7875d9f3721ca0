package main

import (
	"context"
	"errors"
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
	level := fs.String("log-level", "info", "lowest level logged to stderr: debug, info, warn or error")
	fs.Usage = func() {
		io.WriteString(stderr, "usage: ctxls mcp [--root DIR]... [flags]\n\nServes the tools select_context, explain_selection and index_status over MCP on stdin/stdout.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("mcp: unexpected argument %q (use --root DIR)", fs.Arg(0))
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return usagef("--log-level must be debug, info, warn or error, got %q", *level)
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
