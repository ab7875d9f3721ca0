package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// isTerminal reports whether w is a terminal, where a progress line that
// rewrites itself reads well.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTTY(f)
}

// statusLine is one line of progress on a terminal, redrawn in place with
// a carriage return, at most every redrawEvery (the last state is always
// drawn). Done ends it, leaving the terminal on a fresh line.
type statusLine struct {
	mu    sync.Mutex
	w     io.Writer
	last  time.Time
	shown bool
	width int
}

const redrawEvery = 100 * time.Millisecond

// show draws text unless it drew less than redrawEvery ago and final is
// false.
func (s *statusLine) show(text string, final bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if !final && s.shown && now.Sub(s.last) < redrawEvery {
		return
	}
	s.last, s.shown = now, true
	pad := max(0, s.width-len(text))
	s.width = len(text)
	fmt.Fprintf(s.w, "\r%s%*s", text, pad, "")
}

// done clears the line, if one was drawn.
func (s *statusLine) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shown {
		fmt.Fprintf(s.w, "\r%*s\r", s.width, "")
		s.shown, s.width = false, 0
	}
}
