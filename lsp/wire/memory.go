package wire

import (
	"fmt"
	"time"

	"github.com/ctxls/ctxls/workspace"
)

// The memory requests: workspace/contextRemember, workspace/contextForget
// and workspace/contextMemory (docs/protocol.md).

// RememberParams are the params of workspace/contextRemember.
type RememberParams struct {
	Text string `json:"text"`
	// Paths are file:// URIs of files the note is about, in one
	// workspace folder.
	Paths  []string `json:"paths,omitempty"`
	Tags   []string `json:"tags,omitempty"`
	Pinned bool     `json:"pinned,omitempty"` // a pinned note never decays
}

// ForgetParams are the params of workspace/contextForget.
type ForgetParams struct {
	ID string `json:"id"`
}

// ForgetResult is the result of workspace/contextForget.
type ForgetResult struct {
	Forgotten bool `json:"forgotten"` // false: no note had that id
}

// MemoryResult is the result of workspace/contextMemory.
type MemoryResult struct {
	Notes []Note `json:"notes"`
}

// Note is a remembered note: the result of workspace/contextRemember and
// an entry of workspace/contextMemory.
type Note struct {
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Folder  string   `json:"folder"`          // the URI of its workspace folder
	Paths   []string `json:"paths,omitempty"` // relative to the folder
	Tags    []string `json:"tags,omitempty"`
	Pinned  bool     `json:"pinned"`
	Created string   `json:"created"` // RFC 3339, UTC
}

// NoteRequest turns contextRemember's params into the workspace's. An
// error is a *workspace.ParamError naming the wire field.
func NoteRequest(p *RememberParams) (*workspace.NoteRequest, error) {
	out := &workspace.NoteRequest{Text: p.Text, Tags: p.Tags, Pinned: p.Pinned}
	if len(p.Paths) > workspace.MaxNotePaths { // before parsing every one
		return nil, &workspace.ParamError{Field: "paths", Msg: fmt.Sprintf("at most %d paths (MaxNotePaths), got %d", workspace.MaxNotePaths, len(p.Paths))}
	}
	for i, uri := range p.Paths {
		path, err := PathFromURI(uri)
		if err != nil {
			return nil, &workspace.ParamError{Field: fmt.Sprintf("paths[%d]", i), Msg: err.Error()}
		}
		out.Paths = append(out.Paths, path)
	}
	return out, nil
}

// FromNote turns a note into the wire's.
func FromNote(n workspace.Note) Note {
	return Note{ID: n.ID, Text: n.Text, Folder: URIFromPath(n.Root), Paths: n.Paths, Tags: n.Tags, Pinned: n.Pinned,
		Created: n.Created.UTC().Format(time.RFC3339)}
}

// FromNotes turns notes into contextMemory's result.
func FromNotes(notes []workspace.Note) *MemoryResult {
	res := &MemoryResult{Notes: make([]Note, 0, len(notes))}
	for _, n := range notes {
		res.Notes = append(res.Notes, FromNote(n))
	}
	return res
}
