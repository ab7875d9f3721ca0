package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/ctxls/ctxls/lsp"
	"github.com/ctxls/ctxls/lsp/daemon"
)

// runServe speaks LSP on stdin/stdout until the client exits.
func runServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("stdio", true, "speak LSP over stdin/stdout (the only transport, and the default)")
	level := logLevelFlag(fs)
	remote := remoteFlag(fs)
	fs.Usage = func() {
		io.WriteString(stderr, "usage: ctxls [serve [--stdio] [--log-level LEVEL] [--remote auto|off|PATH]]\n")
		fs.PrintDefaults()
	}
	lvl, err := parseServerFlags(fs, args, level, "serve: unexpected argument %q")
	if err != nil {
		return err
	}
	if c := connectRemote(*remote, stderr); c != nil {
		session, _, err := c.Attach(daemon.AttachParams{Kind: daemon.KindLSP, PID: os.Getpid()})
		if err == nil {
			return proxy(ctx, session, stdin, stdout)
		}
		c.Close()
		fmt.Fprintf(stderr, "ctxls: warning: the daemon (--remote=%s) refused the session: %v; working in this process\n", *remote, err)
	}
	srv := lsp.New(lsp.Options{Version: version, Log: stderr, LogLevel: lvl})
	err = srv.Serve(ctx, stdio{stdin, stdout})
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// Interrupted (Ctrl-C): not a failure.
		return nil
	}
	return err
}

// logLevelFlag registers --log-level, for the commands that serve.
func logLevelFlag(fs *flag.FlagSet) *string {
	return fs.String("log-level", "info", "lowest level logged to stderr: debug, info, warn or error")
}

// parseServerFlags parses the flags of a command that serves (serve,
// mcp): no positional argument (extra names the one given), and the
// --log-level that level points to.
func parseServerFlags(fs *flag.FlagSet, args []string, level *string, extra string) (slog.Level, error) {
	var lvl slog.Level
	if err := parseFlags(fs, args); err != nil {
		return lvl, err
	}
	if fs.NArg() > 0 {
		return lvl, usagef(extra, fs.Arg(0))
	}
	if err := lvl.UnmarshalText([]byte(*level)); err != nil {
		return lvl, usagef("--log-level must be debug, info, warn or error, got %q", *level)
	}
	return lvl, nil
}

// stdio joins stdin and stdout into the connection the server speaks on.
type stdio struct {
	in  io.Reader
	out io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }

// Close closes both ends when they can be closed.
func (s stdio) Close() error {
	var errs []error
	if c, ok := s.in.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.out.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
