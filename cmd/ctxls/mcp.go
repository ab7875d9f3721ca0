package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/ctxls/ctxls/lsp/daemon"
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
	remote := remoteFlag(fs)
	fs.Usage = func() {
		io.WriteString(stderr, "usage: ctxls mcp [--root DIR]... [--remote auto|off|PATH] [flags]\n\nServes the tools select_context, explain_selection and index_status over MCP on stdin/stdout.\n\n")
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
	if c := connectRemote(*remote, stderr); c != nil {
		abs, err := absRoots(roots)
		if err != nil {
			c.Close()
			return err
		}
		raw, err := remoteConfig(cfg)
		if err != nil {
			c.Close()
			return err
		}
		session, _, err := c.Attach(daemon.AttachParams{Kind: daemon.KindMCP, Roots: abs, Config: raw, PID: os.Getpid()})
		if err == nil {
			return proxy(ctx, session, stdin, stdout)
		}
		c.Close()
		fmt.Fprintf(stderr, "ctxls: warning: the daemon (--remote=%s) refused the session: %v; working in this process\n", *remote, err)
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
