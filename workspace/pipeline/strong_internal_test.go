package pipeline

import (
	"maps"
	"slices"
	"testing"
)

// The names a query writes as code does: capitals or underscores, as
// written; plain words are not names however many symbols they match.
func TestWrittenNames(t *testing.T) {
	got := slices.Sorted(maps.Keys(writtenNames("middleware: Heartbeat middleware to respond to HEAD methods; see fetch_orders and x.parseConfig()")))
	want := []string{"HEAD", "Heartbeat", "fetch_orders", "parseConfig"}
	if !slices.Equal(got, want) {
		t.Errorf("writtenNames = %q, want %q", got, want)
	}
	if n := writtenNames("the uptime history is shifted by one day"); len(n) != 0 {
		t.Errorf("plain words taken for names: %q", slices.Collect(maps.Keys(n)))
	}
}
