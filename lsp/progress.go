package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxls/ctxls/workspace"
)

// indexer runs the workspace's indexing in the background, one run at a
// time: a request for a run while one is going makes exactly one more run
// follow it, however many requests arrive.
type indexer struct {
	mu      sync.Mutex
	pending bool
	running bool
	seq     int // progress tokens issued
}

// schedule asks for an index run of every folder.
func (ix *indexer) schedule(s *Server) {
	ix.mu.Lock()
	ix.pending = true
	if ix.running {
		ix.mu.Unlock()
		return
	}
	ix.running = true
	ix.mu.Unlock()
	started := s.spawn(func() {
		for {
			ix.mu.Lock()
			if !ix.pending || s.work.Err() != nil {
				ix.running = false
				ix.mu.Unlock()
				return
			}
			ix.pending = false
			ix.seq++
			token := fmt.Sprintf("ctxls-index-%d", ix.seq)
			ix.mu.Unlock()
			s.runIndex(token)
		}
	})
	if !started {
		ix.mu.Lock()
		ix.running = false
		ix.mu.Unlock()
	}
}

// runIndex indexes every folder, reporting work-done progress when the
// client supports it, and logs the totals.
func (s *Server) runIndex(token string) {
	ws := s.workspace()
	s.mu.Lock()
	withProgress := s.caps.Window.WorkDoneProgress
	s.mu.Unlock()
	p := &progressReporter{s: s, folders: len(ws.Folders()), order: map[string]int{}, last: -1}
	if withProgress {
		p.begin(token)
	}
	start := time.Now()
	stats, err := ws.Index(s.work, p.report)
	elapsed := time.Since(start)
	files, symbols := 0, 0
	for _, st := range stats {
		files += st.Files
		symbols += st.Symbols
	}
	switch {
	case err == nil:
		p.end(fmt.Sprintf("indexed %d files, %d symbols", files, symbols))
		s.log.Info(fmt.Sprintf("indexed %d files, %d symbols in %d ms", files, symbols, elapsed.Milliseconds()))
	case errors.Is(err, context.Canceled) && s.work.Err() != nil:
		p.end("indexing cancelled")
		s.log.Debug("indexing cancelled")
	default:
		p.end("indexing failed")
		s.log.Error("indexing failed", "err", err)
	}
}

// followShared reports the shared daemon's index of this session's
// workspace as work-done progress: begun at once, ended when the
// workspace can answer, so that a client waiting for its index to end (a
// status line, a "ready" test) sees it as with an index of its own.
func (s *Server) followShared(token string) {
	ws := s.workspace()
	s.mu.Lock()
	withProgress := s.caps.Window.WorkDoneProgress
	s.mu.Unlock()
	p := &progressReporter{s: s, last: -1}
	if withProgress {
		p.begin(token) // even when ready at once: one begin and end still tell the client
	}
	tick := time.NewTicker(sharedPoll)
	defer tick.Stop()
	for !ws.Ready() {
		select {
		case <-s.work.Done():
			p.end("indexing cancelled")
			return
		case <-tick.C:
		}
	}
	p.end("indexed by the shared daemon")
	s.log.Info("the shared daemon's index of this workspace is ready")
}

// sharedPoll is how often followShared looks whether the shared index is
// ready.
const sharedPoll = 50 * time.Millisecond

// progressCreateTimeout bounds the wait for the client to accept a
// progress token; indexing then goes on without progress.
const progressCreateTimeout = 5 * time.Second

// progressReporter sends $/progress for one index run. Its methods are
// called from the indexing goroutine only.
type progressReporter struct {
	s       *Server
	token   *protocol.ProgressToken // nil: the client gets no progress
	folders int                     // folders in this run
	order   map[string]int          // folder root → its position in the run
	last    int                     // last percentage sent
}

func (p *progressReporter) begin(token string) {
	tok := protocol.NewProgressToken(token)
	// A client that never answers must not hold up indexing.
	ctx, cancel := context.WithTimeout(p.s.work, progressCreateTimeout)
	defer cancel()
	// The token marshals only through a pointer, hence &Params{...}.
	if err := p.s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: *tok}); err != nil {
		p.s.log.Debug("the client declined work-done progress", "err", err)
		return
	}
	p.token = tok
	p.send(&protocol.WorkDoneProgressBegin{
		Kind:       protocol.WorkDoneProgressKindBegin,
		Title:      "ctxls: indexing",
		Message:    "discovering files",
		Percentage: 0,
	})
}

// report is the workspace's progress callback.
func (p *progressReporter) report(pr workspace.Progress) {
	if p.s.indexHook != nil {
		p.s.indexHook(pr)
	}
	if p.token == nil || pr.Total <= 0 {
		return
	}
	i, ok := p.order[pr.Root]
	if !ok {
		i = len(p.order)
		p.order[pr.Root] = i
	}
	n := max(p.folders, i+1)
	pct := (i*100 + pr.Done*100/pr.Total) / n
	if pct <= p.last {
		return
	}
	p.last = pct
	p.send(&protocol.WorkDoneProgressReport{
		Kind:       protocol.WorkDoneProgressKindReport,
		Message:    fmt.Sprintf("%d/%d files", pr.Done, pr.Total),
		Percentage: uint32(pct),
	})
}

func (p *progressReporter) end(msg string) {
	if p.token == nil {
		return
	}
	p.send(&protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: msg})
	p.token = nil
}

func (p *progressReporter) send(value any) {
	if err := p.s.client.Progress(context.Background(), &protocol.ProgressParams{Token: *p.token, Value: value}); err != nil {
		p.s.log.Debug("sending progress", "err", err)
	}
}
