// Command ctxls is a language-server sidecar that selects the code context
// an AI coding tool should put in front of its model.
//
// Usage:
//
//	ctxls [serve [--stdio]]          speak LSP over stdin/stdout
//	ctxls select [flags] QUERY...    run one selection on a directory
//	ctxls index [flags]              build or refresh the index, print statistics
//	ctxls eval [flags] [DIR]         run the golden retrieval cases
//	ctxls remember [flags] TEXT...   keep a note for later selections
//	ctxls memory list|forget [ID]    list the notes, or forget one
//	ctxls mcp [--root DIR]...        serve the Model Context Protocol over stdin/stdout
//	ctxls daemon [--socket PATH]     the shared per-user index (--remote=auto of serve, mcp, select)
//	ctxls version                    print the version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `ctxls selects the code context an AI coding tool should see.

Usage:
  ctxls [serve [--stdio]]          speak LSP over stdin/stdout (what editors run)
  ctxls select [flags] QUERY...    run one selection on a directory
  ctxls index [flags]              build or refresh the index and print its statistics
  ctxls eval [flags] [DIR]         run the golden retrieval cases and print metrics
  ctxls replay [flags]             measure on the repository's own commits (--root DIR)
  ctxls tune [flags]               fit the ranking's weights to the repository's history (--root DIR)
  ctxls remember [flags] TEXT...   keep a note for later selections (--path, --tag, --pin)
  ctxls memory list|forget [ID]    list the notes, or forget one
  ctxls mcp [--root DIR]...        serve MCP tools to agents over stdin/stdout
  ctxls daemon [--socket PATH]     the shared per-user index the others use with --remote=auto
  ctxls version                    print the version

Run 'ctxls COMMAND -h' for a command's flags.
`

// gcPercent is the garbage collector's target unless GOGC says otherwise:
// the index is one large, long-lived heap, and the default of 100 lets the
// process grow to twice it. At 50, the 100k-symbol cold build peaks at
// 517 MB RSS instead of 680 MB for about the same time.
const gcPercent = 50

// memoryLimit is the soft limit on the Go heap unless GOMEMLIMIT says
// otherwise: a guard, not the budget. The served index lives mostly in
// its mapped cache (outside the heap); what the heap holds at 100k symbols
// is about 90 MB, at 1M under 1 GB. Past the limit the collector runs
// harder instead of letting a runaway request or a huge build take the
// machine's memory; a heap that needs more than the limit still gets it
// (the collector's share of CPU is capped), only more slowly.
func memoryLimit(total uint64) int64 {
	const floor = 2 << 30
	return int64(max(floor, total/2))
}

// quietHeap is the memory under which a one-shot ctxls select does not
// collect garbage at all: the process ends in a fraction of a second, and
// on a cached repository of 1,400 files its heap stays under 20 MB, which
// the collector at gcPercent went over a dozen times (a third of the
// command's CPU). Past it the collector runs as in any other command.
const quietHeap = 256 << 20

func main() {
	ownGC, ownLimit := os.Getenv("GOGC") == "", os.Getenv("GOMEMLIMIT") == ""
	if ownGC {
		debug.SetGCPercent(gcPercent)
	}
	if ownLimit {
		debug.SetMemoryLimit(memoryLimit(totalMemory()))
	}
	if ownGC && ownLimit && len(os.Args) > 1 && os.Args[1] == "select" {
		quietStart(quietHeap, gcPercent, memoryLimit(totalMemory()))
	}
	stopProfile := startCPUProfile(os.Getenv("CTXLS_CPUPROFILE"), os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	stopProfile()
	os.Exit(code)
}

// startCPUProfile writes a CPU profile of the whole command to path when
// it is set (the hidden CTXLS_CPUPROFILE, for profiling `ctxls index` on
// a real tree: go tool pprof FILE). It returns the function that ends
// the profile; a profile that cannot start is reported and skipped.
func startCPUProfile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "ctxls: CTXLS_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "ctxls: CTXLS_CPUPROFILE: %v\n", err)
		}
	}
}

// run executes one command line and returns the exit status: 0 success,
// 1 runtime failure, 2 bad usage.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, rest := "serve", args
	if len(args) > 0 {
		cmd, rest = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "serve":
		err = runServe(ctx, rest, stdin, stdout, stderr)
	case "select":
		err = runSelect(ctx, rest, stdout, stderr)
	case "index":
		err = runIndex(ctx, rest, stdout, stderr)
	case "eval":
		err = runEval(ctx, rest, stdout, stderr)
	case "replay":
		err = runReplay(ctx, rest, stdout, stderr)
	case "tune":
		err = runTune(ctx, rest, stdout, stderr)
	case "remember":
		err = runRemember(rest, stdout, stderr)
	case "memory":
		err = runMemory(rest, stdout, stderr)
	case "mcp":
		err = runMCP(ctx, rest, stdin, stdout, stderr)
	case "daemon":
		err = runDaemon(ctx, rest, stderr)
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "ctxls %s\n", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		if serveFlag(cmd) { // `ctxls --remote=auto` as an editor's cmd: serve's flags
			err = runServe(ctx, args, stdin, stdout, stderr)
		} else if strings.HasPrefix(cmd, "-") {
			err = usagef("unknown flag %s (see 'ctxls help')", cmd)
		} else {
			err = usagef("unknown command %q (see 'ctxls help')", cmd)
		}
	}
	return exitCode(err, stderr)
}

// serveFlag reports whether arg is one of serve's flags, which may come
// without the word serve.
func serveFlag(arg string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(arg, "-"), "=")
	return strings.HasPrefix(arg, "-") && (name == "stdio" || name == "remote" || name == "log-level")
}

// quietStart turns the garbage collector off until the process's memory
// reaches quiet bytes; the first collection, which that limit triggers,
// gives it back percent and limit. A short command with a small heap then
// never collects, and one that grows large collects as usual. It nests
// with workspace.HoldCollector (select's cache load): a hold keeps a
// setting changed while it held, so whichever ends last leaves the
// collector as quietStart's cleanup set it, or off while quiet.
func quietStart(quiet int64, percent int, limit int64) {
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(min(quiet, limit))
	// The first cycle finds the sentinel unreachable and runs the cleanup.
	sentinel := &struct{ _ *byte }{}
	runtime.AddCleanup(sentinel, func(struct{}) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}, struct{}{})
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "ctxls: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}
