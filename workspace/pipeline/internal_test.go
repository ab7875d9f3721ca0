package pipeline

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ctxls/ctxls/workspace/snapshot"
)

// TestOpeningSpansFiles: when the best file's items fill the first five,
// the best item of each next file joins them, ahead of the best file's
// share, so that an answer whose budget binds still reaches five files;
// scores stay sorted.
func TestOpeningSpansFiles(t *testing.T) {
	f := &snapshot.Folder{}
	mk := func(file uint32, fused float64) *cand {
		return &cand{folder: f, fileSlot: file, path: fmt.Sprint("f", file), fused: fused}
	}
	// Files 1 and 2 fill the first five; 3, 4 and 5 come later.
	byRank := []*cand{mk(1, .9), mk(2, .8), mk(1, .7), mk(1, .6), mk(2, .5), mk(3, .4), mk(1, .3), mk(4, .2), mk(5, .1), mk(6, .05)}
	n := opening(&plan{}, byRank)
	var got []uint32
	for i, c := range byRank {
		got = append(got, c.fileSlot)
		if c.opening != (i < n) {
			t.Errorf("item %d: opening %v, want %v", i, c.opening, i < n)
		}
		if i > 0 && c.fused > byRank[i-1].fused {
			t.Errorf("item %d: score %v above the previous %v", i, c.fused, byRank[i-1].fused)
		}
	}
	if want := []uint32{1, 2, 1, 1, 2, 3, 4, 5, 1, 6}; n != 8 || !slices.Equal(got, want) {
		t.Errorf("opening %d items, files %v; want 8, %v", n, got, want)
	}
	// The active file does not count: the user has it in front of them.
	byRank = []*cand{mk(1, .5), mk(2, .4), mk(3, .3), mk(4, .2), mk(5, .1), mk(1, .08), mk(6, .05)}
	if n := opening(&plan{activeAbs: snapshot.JoinRoot(f.Root, "f1")}, byRank); n != 6 || byRank[5].fileSlot != 6 {
		t.Errorf("with file 1 active: opening %d, then file %d; want 6, file 6", n, byRank[5].fileSlot)
	}
	// Five files in the first five: nothing joins.
	byRank = []*cand{mk(1, .5), mk(2, .4), mk(3, .3), mk(4, .2), mk(5, .1), mk(1, .05)}
	if n := opening(&plan{}, byRank); n != 5 || byRank[5].fileSlot != 1 {
		t.Errorf("five files already: opening %d, then file %d", n, byRank[5].fileSlot)
	}
}

func TestFileLines(t *testing.T) {
	l := newFileLines([]byte("a\n\nbc\n"))
	if l.n() != 3 || l.size(0) != 2 || l.size(2) != 3 || l.end(2) != 5 || !l.blank(1) || l.blank(2) {
		t.Errorf("lines of %q: n %d, sizes %d %d, end %d", l.src, l.n(), l.size(0), l.size(2), l.end(2))
	}
	if text, r := l.text(1, 2); text != "\nbc" || r.StartLine != 1 || r.EndLine != 2 || r.EndCol != 2 {
		t.Errorf("text(1, 2) = %q, %+v", text, r)
	}
	if l := newFileLines([]byte("no newline")); l.n() != 1 || l.end(0) != 10 {
		t.Errorf("a text without a newline: n %d, end %d", l.n(), l.end(0))
	}
}

// TestWindowEndsAtABlankLine: a window that fills up ends at the blank
// line in its last third, where one symbol gives way to the next.
func TestWindowEndsAtABlankLine(t *testing.T) {
	src := "0123456789\n0123456789\n\n0123456789\n0123456789\n0123456789\n"
	s := newSurroundings(map[string][]byte{"/f": []byte(src)})
	s.held = map[string][]heldSpan{}
	l := s.lines("/f")
	// Lines of 11 characters but line 2, blank.
	if a, b, ok := s.window(l, "/f", 0, 1, 34, -1); !ok || a != 0 || b != 2 {
		t.Errorf("down from 0 within 34: %d-%d %v, want 0-2 (to the blank line)", a, b, ok)
	}
	if a, b, ok := s.window(l, "/f", 0, 1, 45, -1); !ok || a != 0 || b != 4 {
		t.Errorf("down from 0 within 45: %d-%d %v, want 0-4 (all of it fits)", a, b, ok)
	}
	if a, b, ok := s.window(l, "/f", 5, -1, 40, -1); !ok || a != 2 || b != 5 {
		t.Errorf("up from 5 within 40: %d-%d %v, want 2-5", a, b, ok)
	}
	if a, b, ok := s.window(l, "/f", 5, -1, 100, -1); !ok || a != 0 || b != 5 {
		t.Errorf("up from 5 within 100: %d-%d %v, want 0-5 (the text's start)", a, b, ok)
	}
	s.held["/f"] = []heldSpan{{first: 4, last: 4, owner: 7}}
	if a, b, ok := s.window(l, "/f", 3, 1, 100, -1); !ok || a != 3 || b != 3 {
		t.Errorf("down from 3 to a held line: %d-%d %v, want 3-3", a, b, ok)
	}
}
