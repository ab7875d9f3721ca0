package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ctxls/ctxls/lsp/daemon"
	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// remoteFlag registers --remote, for the commands that may be thin
// clients of the shared daemon.
func remoteFlag(fs *flag.FlagSet) *string {
	return fs.String("remote", defaultRemote(), remoteUsage)
}

const remoteUsage = `"auto": use the shared per-user daemon, starting it when absent; "off": work in this process; or the path of a daemon's socket (default: $CTXLS_REMOTE, else off)`

// defaultRemote is --remote's default: $CTXLS_REMOTE, else off.
func defaultRemote() string {
	if v := os.Getenv("CTXLS_REMOTE"); v != "" {
		return v
	}
	return daemon.RemoteOff
}

// connectRemote connects to the daemon as --remote says; nil when it is
// off, or, with one warning on stderr, when the daemon cannot be reached
// (the command then works in this process).
func connectRemote(remote string, stderr io.Writer) *daemon.Client {
	if remote == "" || remote == daemon.RemoteOff {
		return nil
	}
	c, err := daemon.Connect(remote)
	if err != nil {
		fmt.Fprintf(stderr, "ctxls: warning: cannot reach the daemon (--remote=%s): %v; working in this process\n", remote, err)
		return nil
	}
	return c
}

// runDaemon is ctxls daemon: the shared per-user daemon (package daemon).
func runDaemon(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("daemon", flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", "", "the Unix socket to serve on (default: $XDG_RUNTIME_DIR/ctxls/daemon-<build>.sock, else in the user cache dir; <build> names this binary)")
	idle := fs.Duration("idle", daemon.DefaultIdle, "exit after this long without a client")
	level := logLevelFlag(fs)
	fs.Usage = func() {
		io.WriteString(stderr, "usage: ctxls daemon [--socket PATH] [--idle DURATION]\n\nServes one shared index per workspace to the clients started with --remote (serve, mcp, select).\n\n")
		fs.PrintDefaults()
	}
	lvl, err := parseServerFlags(fs, args, level, "daemon: unexpected argument %q")
	if err != nil {
		return err
	}
	if *idle <= 0 {
		return usagef("--idle must be positive, got %s", *idle)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	err = daemon.Serve(ctx, daemon.Options{Socket: *socket, Idle: *idle, Version: version, Log: stderr, Level: lvl})
	if errors.Is(err, daemon.ErrRunning) {
		fmt.Fprintf(stderr, "ctxls: %v; this one exits\n", err)
		return nil
	}
	return err
}

// proxy copies the client's stream to the daemon's session and back until
// either side ends: the thin client of serve and mcp.
func proxy(ctx context.Context, session *daemon.Stream, stdin io.Reader, stdout io.Writer) error {
	defer session.Close()
	down := make(chan error, 1)
	go func() {
		_, err := io.Copy(stdout, session)
		down <- err
	}()
	up := make(chan struct{})
	go func() {
		_, _ = io.Copy(session, stdin)
		close(up)
	}()
	select {
	case err := <-down:
		// The daemon ended the session (after exit, or it stopped).
		if err != nil {
			return fmt.Errorf("the daemon's session ended: %v", err)
		}
		return nil
	case <-up:
		// The client closed its end: tell the daemon, then pass on what it
		// still sends, for a bounded time.
		_ = session.CloseWrite()
		select {
		case <-down:
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
		}
		return nil
	case <-ctx.Done():
		return nil
	}
}

// absRoots are roots as absolute paths, for a daemon whose directory is
// not the client's.
func absRoots(roots []string) ([]string, error) {
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		a, err := filepath.Abs(r)
		if err != nil {
			return nil, usagef("--root %s: %v", r, err)
		}
		fi, err := os.Stat(a)
		if err != nil {
			return nil, usagef("--root %s: %v", r, err)
		}
		if !fi.IsDir() {
			return nil, usagef("--root %s: not a directory", r)
		}
		out = append(out, a)
	}
	return out, nil
}

// remoteConfig is cfg as the daemon receives it: paths made absolute.
func remoteConfig(cfg workspace.Config) (json.RawMessage, error) {
	for _, p := range []*string{&cfg.ModelPath, &cfg.ONNXRuntimeLibrary} {
		if *p != "" {
			if a, err := filepath.Abs(*p); err == nil {
				*p = a
			}
		}
	}
	if cfg.CacheDir != "" && cfg.CacheDir != workspace.CacheDirOff {
		if a, err := filepath.Abs(cfg.CacheDir); err == nil {
			cfg.CacheDir = a
		}
	}
	return json.Marshal(cfg)
}

// remoteSelect runs select's request in the daemon; ok is false when the
// daemon could not answer it and the selection should run in this
// process (after one warning).
func remoteSelect(c *daemon.Client, a *selectArgs, req *wire.Request, remote string, stderr io.Writer) (*wire.Result, bool, error) {
	defer c.Close()
	cfg, err := a.index.config()
	if err != nil {
		return nil, true, err
	}
	roots, err := absRoots([]string{a.index.root})
	if err != nil {
		return nil, true, err
	}
	raw, err := remoteConfig(cfg)
	if err != nil {
		return nil, true, err
	}
	res, err := c.Select(daemon.SelectParams{Roots: roots, Config: raw, Request: req})
	if msg, ok := daemon.IsParamError(err); ok {
		field, m, _ := cutField(msg)
		return nil, true, usageError{flagOf(field) + ": " + m}
	}
	if daemon.IsRequestError(err) {
		return nil, true, err
	}
	if err != nil {
		fmt.Fprintf(stderr, "ctxls: warning: the daemon (--remote=%s) did not answer: %v; working in this process\n", remote, err)
		return nil, false, nil
	}
	return res, true, nil
}

// cutField splits a "field: message" error.
func cutField(msg string) (string, string, bool) {
	for i := 0; i+1 < len(msg); i++ {
		if msg[i] == ':' && msg[i+1] == ' ' {
			return msg[:i], msg[i+2:], true
		}
	}
	return "", msg, false
}
