package items

import "time"

// Note is one remembered note.
type Note struct {
	ID   string `json:"id"` // "m" and 12 hex digits
	Text string `json:"text"`
	// Root is the workspace folder the note belongs to; Paths are files
	// of that folder it is about, relative to it.
	Root    string    `json:"root"`
	Paths   []string  `json:"paths,omitempty"`
	Tags    []string  `json:"tags,omitempty"`
	Pinned  bool      `json:"pinned,omitempty"` // never decays
	Created time.Time `json:"created"`
}
