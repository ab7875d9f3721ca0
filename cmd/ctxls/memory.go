package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// memoryFlags are the flags of remember and memory: the workspace folder
// and the cache directory its notes are kept in. Neither command indexes.
type memoryFlags struct {
	root     string
	cacheDir string
	asJSON   bool
}

func (f *memoryFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.root, "root", ".", "the workspace folder")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "where the notes are kept (default: the user cache dir)")
	fs.BoolVar(&f.asJSON, "json", false, "print JSON")
}

// open is the workspace of the folder, not indexed.
func (f *memoryFlags) open(stderr io.Writer) (*workspace.Workspace, error) {
	cfg := workspace.DefaultConfig()
	if f.cacheDir != "" {
		cfg.CacheDir = f.cacheDir
	}
	if _, ok := cfg.ResolvedCacheDir(); !ok {
		return nil, usagef("memory is kept in the cache directory: give --cache-dir DIR (it is off, or there is no user cache dir)")
	}
	ws, err := workspace.New(cfg, workspace.Options{Warn: func(msg string) { fmt.Fprintln(stderr, msg) }})
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if _, err := ws.AddFolder(f.root); err != nil {
		return nil, usageError{err.Error()}
	}
	return ws, nil
}

// runRemember is `ctxls remember [flags] TEXT...`.
func runRemember(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("remember", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f memoryFlags
	f.register(fs)
	var paths, tags multiFlag
	fs.Var(&paths, "path", "a file the note is about (repeatable)")
	fs.Var(&tags, "tag", "a tag (repeatable)")
	pin := fs.Bool("pin", false, "pin the note: it never decays")
	text, err := parseText(fs, args, stderr, "remember", "TEXT", "a text")
	if err != nil {
		return err
	}
	ws, err := f.open(stderr)
	if err != nil {
		return err
	}
	// Paths typed on the command line are relative to --root, as
	// select's --active and --pin are.
	req := workspace.NoteRequest{Text: text, Tags: tags, Pinned: *pin}
	for _, p := range paths {
		abs, _ := cliPath(f.root, p)
		req.Paths = append(req.Paths, abs)
	}
	n, err := ws.Remember(req)
	if pe, ok := errors.AsType[*workspace.ParamError](err); ok {
		return usageError{flagFor(noteFlags, pe.Field) + ": " + pe.Msg}
	}
	if err != nil {
		return err
	}
	if f.asJSON {
		return printJSON(stdout, wire.FromNote(n))
	}
	fmt.Fprintf(stdout, "remembered %s\n", n.ID)
	return nil
}

// noteFlags names the flags that set NoteRequest fields.
var noteFlags = map[string]string{"paths": "--path", "tags": "--tag", "text": "TEXT"}

// runMemory is `ctxls memory list|forget`.
func runMemory(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "list" && args[0] != "forget" {
		return usagef("usage: ctxls memory list [flags] | ctxls memory forget [flags] ID...")
	}
	sub := args[0]
	fs := flag.NewFlagSet("memory "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f memoryFlags
	f.register(fs)
	pos, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return err
	}
	switch {
	case sub == "list" && len(pos) > 0:
		return usagef("memory list: unexpected argument %q", pos[0])
	case sub == "forget" && len(pos) == 0:
		return usagef("memory forget: give the id of a note (see ctxls memory list)")
	}
	ws, err := f.open(stderr)
	if err != nil {
		return err
	}
	if sub == "forget" {
		for _, id := range pos {
			ok, err := ws.Forget(id)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("memory forget: no note %q (see ctxls memory list)", id)
			}
			fmt.Fprintf(stdout, "forgot %s\n", id)
		}
		return nil
	}
	res := wire.FromNotes(ws.Memories())
	if f.asJSON {
		return printJSON(stdout, res)
	}
	if len(res.Notes) == 0 {
		fmt.Fprintln(stdout, "no notes")
	}
	for _, n := range res.Notes {
		var extra []string
		if n.Pinned {
			extra = append(extra, "pinned")
		}
		if len(n.Paths) > 0 {
			extra = append(extra, "paths "+strings.Join(n.Paths, ", "))
		}
		if len(n.Tags) > 0 {
			extra = append(extra, "tags "+strings.Join(n.Tags, ", "))
		}
		fmt.Fprintf(stdout, "%s  %s  %s\n", n.ID, n.Created, strings.Join(extra, "; "))
		fmt.Fprintf(stdout, "   | %s\n", strings.ReplaceAll(n.Text, "\n", "\n   | "))
	}
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
