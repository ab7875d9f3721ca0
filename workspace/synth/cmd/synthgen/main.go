// Command synthgen writes a synthetic workspace (see package synth) for
// measuring ctxls from the command line, as scripts/bench.sh does:
//
//	go run ./workspace/synth/cmd/synthgen -symbols 100000 -out /tmp/synth100k
//
// It prints what it wrote: files, symbols and bytes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ctxls/ctxls/workspace/synth"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: exit code 0 on success, 1 when writing
// fails, 2 for bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("synthgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o synth.Options
	out := fs.String("out", "", "directory to write the workspace into (must not exist or be empty)")
	fs.IntVar(&o.Symbols, "symbols", 0, "how many symbols to generate (required)")
	fs.IntVar(&o.SymbolsPerFile, "symbols-per-file", 10, "symbols in each file")
	fs.IntVar(&o.FilesPerDir, "files-per-dir", 12, "files in each directory")
	fs.Int64Var(&o.Seed, "seed", 1, "random seed; the same seed writes the same workspace")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: synthgen -symbols N -out DIR")
		return 2
	}
	if o.Symbols <= 0 || o.Symbols > synth.MaxSymbols {
		fmt.Fprintf(stderr, "synthgen: -symbols must be between 1 and %d, got %d\n", synth.MaxSymbols, o.Symbols)
		return 2
	}
	st, err := synth.Generate(*out, o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d files, %d symbols, %d bytes (synth v%d, seed %d)\n", *out, st.Files, st.Symbols, st.Bytes, synth.Version, o.Seed)
	return 0
}
