package snapshot

import "testing"

// TestHistoryPartialNamesItsFolder: with several folders, what a
// folder's history lacks is said with the folder's root, so a user can
// tell which repository is the shallow clone; with one, as it is.
func TestHistoryPartialNamesItsFolder(t *testing.T) {
	const shallow = "a shallow clone: the history is its 3 commits read, 2 kept"
	whole := &Folder{Root: "/w/api", HistoryStats: HistoryStats{Ready: true, Commits: 40}}
	cut := &Folder{Root: "/w/web", HistoryStats: HistoryStats{Ready: true, Commits: 2, Partial: shallow}}
	if got := (&Snapshot{Folders: []*Folder{whole, cut}}).History().Partial; got != "/w/web: "+shallow {
		t.Errorf("two folders: partial %q, want it prefixed by /w/web", got)
	}
	if got := (&Snapshot{Folders: []*Folder{cut}}).History().Partial; got != shallow {
		t.Errorf("one folder: partial %q, want %q", got, shallow)
	}
}
