package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/workspace"
)

// Run indexes the workspace and watches its files in the background, and
// serves MCP on t until the client disconnects or ctx ends. A folder with
// a cache on disk is served from it at once; otherwise a selection waits
// for the first index up to Options.ReadyWait, then answers from what is
// indexed so far. index_status answers at once.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	if s.shared() {
		err := s.sdk.Run(ctx, t)
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil
		}
		return err
	}
	wg.Go(func() { s.index(ctx) })
	wg.Go(func() {
		err := s.ws.Watch(ctx, s.opts.Debounce, func(n int, err error) {
			s.log.Debug("applied file changes", "events", n, "err", err)
		})
		if err != nil {
			s.mu.Lock()
			s.watchErr = err
			s.mu.Unlock()
			s.log.Warn("cannot watch the workspace files; the index is as it was at start", "err", err)
		}
	})
	err := s.sdk.Run(ctx, t)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil
	}
	return err
}

// index builds the index of every folder, keeping the progress for the
// tools.
func (s *Server) index(ctx context.Context) {
	defer close(s.indexed)
	start := time.Now()
	stats, err := s.ws.Index(ctx, func(p workspace.Progress) {
		s.mu.Lock()
		s.progress[p.Root] = p
		s.mu.Unlock()
	})
	s.mu.Lock()
	s.stats, s.indexErr = stats, err
	s.mu.Unlock()
	switch {
	case err == nil:
		files, symbols := 0, 0
		for _, st := range stats {
			files += st.Files
			symbols += st.Symbols
		}
		s.log.Info(fmt.Sprintf("indexed %d files, %d symbols in %d ms", files, symbols, time.Since(start).Milliseconds()))
	case ctx.Err() == nil:
		s.log.Error("indexing failed", "err", err)
	}
}

// percent is how far the first index has got, over all folders: files
// read of files found (a folder not reached yet counts as 0%).
func (s *Server) percent() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	folders := len(s.ws.Folders())
	if folders == 0 {
		return 0
	}
	sum := 0
	for _, p := range s.progress {
		if p.Total > 0 {
			sum += p.Done * 100 / p.Total
		}
	}
	return min(sum/folders, 99)
}

// StatusOutput is the result of index_status.
type StatusOutput struct {
	Ready bool `json:"ready" jsonschema:"the first index of every folder is complete"`
	// Percent is how far the first index has got (100 when ready).
	Percent  int                    `json:"percent"`
	Embedder string                 `json:"embedder"`
	Watching bool                   `json:"watching" jsonschema:"changes on disk are indexed as they happen"`
	Folders  []workspace.IndexStats `json:"folders,omitempty" jsonschema:"per folder, as of the last complete index"`
	Error    string                 `json:"error,omitempty" jsonschema:"why indexing failed"`
}

// indexStatus is the index_status tool.
func (s *Server) indexStatus(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, *StatusOutput, error) {
	ready := s.ws.Ready()
	out := &StatusOutput{Ready: ready, Percent: 100, Embedder: s.ws.Embedder()}
	if !ready {
		out.Percent = s.percent()
	}
	s.mu.Lock()
	out.Folders = s.stats
	out.Watching = s.watchErr == nil
	if s.indexErr != nil {
		out.Error = s.indexErr.Error()
	}
	s.mu.Unlock()
	if s.shared() && s.opts.IndexStatus != nil {
		var err error
		if out.Folders, err = s.opts.IndexStatus(); err != nil {
			out.Error = err.Error()
		}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: statusText(out)}}}, out, nil
}

// statusText is index_status in words.
func statusText(st *StatusOutput) string {
	var text string
	switch {
	case st.Error != "":
		text = "ctxls: indexing failed: " + st.Error
	case !st.Ready:
		text = fmt.Sprintf("ctxls is still indexing (%d%% of files).", st.Percent)
	default:
		text = "ctxls: the index is ready."
	}
	for _, f := range st.Folders {
		text += fmt.Sprintf("\n%s: %d files, %d symbols, %d skipped (%d refused), history %d commits", f.Root, f.Files, f.Symbols, f.Skipped, f.Refused, f.History.Commits)
		if note := f.History.Note(); note != "" {
			text += " (" + note + ")"
		}
	}
	text += "\nembedder " + st.Embedder
	if !st.Watching {
		text += "\nfiles are not watched: changes since start are not indexed"
	}
	return text
}
