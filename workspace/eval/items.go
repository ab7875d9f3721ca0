package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/workspace"
)

// The context item cases (testdata/items): a workspace with every kind of
// rule file, the tools a client registers, memory notes of several ages,
// and a dozen requests with the exact context items each must get. The
// workspace, the server and the CLI run the same cases.

// ItemSuite is testdata/items/cases.json.
type ItemSuite struct {
	// Always are the rules that apply always, whatever the request (but
	// includeItems); Manual the items that come only when named.
	Always []string         `json:"always"`
	Manual []string         `json:"manual"`
	Tools  []workspace.Tool `json:"tools"`
	Notes  []NoteSpec       `json:"notes"`
	Cases  []ItemCase       `json:"cases"`
}

// NoteSpec is a memory note of the suite, remembered AgeDays ago.
type NoteSpec struct {
	Text    string   `json:"text"`
	Paths   []string `json:"paths,omitempty"` // relative to the workspace
	Tags    []string `json:"tags,omitempty"`
	Pinned  bool     `json:"pinned,omitempty"`
	AgeDays float64  `json:"ageDays"`
}

// ItemCase is one request and the context items it must get.
type ItemCase struct {
	Name   string   `json:"name"`
	Query  string   `json:"query"`
	Active string   `json:"active,omitempty"` // relative to the workspace
	Items  []string `json:"items,omitempty"`
	// IncludeItems is the wire's includeItems: false, true or an object
	// of kinds.
	IncludeItems any   `json:"includeItems,omitempty"`
	Retrieval    *bool `json:"retrieval,omitempty"`
	Expect       struct {
		// Items are the ids of the rules, notes ("memory:#N", the N-th
		// note of the suite) and tools returned, in order.
		Items []string `json:"items"`
		// Code: whether code comes back too.
		Code bool `json:"code"`
	} `json:"expect"`
}

// LoadItemSuite reads dir/cases.json.
func LoadItemSuite(dir string) (*ItemSuite, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		return nil, err
	}
	var s ItemSuite
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "cases.json"), err)
	}
	return &s, nil
}

// Setup extracts the suite's workspace (dir/workspace.txtar) into root and
// remembers its notes in cacheDir, each dated back by its age. It returns
// the notes' ids, in the suite's order.
func (s *ItemSuite) Setup(dir, root, cacheDir string) ([]string, error) {
	if err := ExtractTxtar(filepath.Join(dir, "workspace.txtar"), root); err != nil {
		return nil, err
	}
	var age time.Duration
	cfg := workspace.DefaultConfig()
	cfg.CacheDir = cacheDir
	ws, err := workspace.New(cfg, workspace.Options{Now: func() time.Time { return time.Now().Add(-age) }})
	if err != nil {
		return nil, err
	}
	if _, err := ws.AddFolder(root); err != nil {
		return nil, err
	}
	var ids []string
	for _, n := range s.Notes {
		age = time.Duration(n.AgeDays * float64(24*time.Hour))
		req := workspace.NoteRequest{Text: n.Text, Tags: n.Tags, Pinned: n.Pinned}
		for _, p := range n.Paths {
			req.Paths = append(req.Paths, filepath.Join(root, filepath.FromSlash(p)))
		}
		note, err := ws.Remember(req)
		if err != nil {
			return nil, err
		}
		ids = append(ids, note.ID)
	}
	return ids, nil
}

// Request is the case's select request in the workspace at root.
func (c *ItemCase) Request(root string) *workspace.SelectRequest {
	req := &workspace.SelectRequest{Query: c.Query, Items: c.Items, NoRetrieval: c.Retrieval != nil && !*c.Retrieval}
	if c.Active != "" {
		req.Active = filepath.Join(root, filepath.FromSlash(c.Active))
	}
	switch inc := c.IncludeItems.(type) {
	case bool:
		if !inc {
			req.IncludeItems = map[string]bool{}
			for _, k := range workspace.ItemKinds {
				req.IncludeItems[k] = false
			}
		}
	case map[string]any:
		req.IncludeItems = map[string]bool{}
		for k, v := range inc {
			on, _ := v.(bool)
			req.IncludeItems[k] = on
		}
	}
	return req
}

// Check compares what a request got (each item's id and kind, in order)
// with the case, and checks the rules of include modes: the always rules
// never miss (unless rules are turned off), the manual items never come
// unasked. noteIDs are Setup's. It returns the problems found.
func (s *ItemSuite) Check(c *ItemCase, ids, kinds []string, noteIDs []string) []string {
	var got []string
	code := false
	for i, id := range ids {
		switch kinds[i] {
		case workspace.ItemRule, workspace.ItemTool:
			got = append(got, id)
		case workspace.ItemMemory:
			n := slices.Index(noteIDs, strings.TrimPrefix(id, "memory:"))
			got = append(got, fmt.Sprintf("memory:#%d", n))
		default:
			code = true
		}
	}
	var problems []string
	if !slices.Equal(got, c.Expect.Items) {
		problems = append(problems, fmt.Sprintf("items %q, want %q", got, c.Expect.Items))
	}
	if code != c.Expect.Code {
		problems = append(problems, fmt.Sprintf("code returned: %v, want %v", code, c.Expect.Code))
	}
	rulesOn := true
	switch inc := c.IncludeItems.(type) {
	case bool:
		rulesOn = inc
	case map[string]any:
		on, set := inc[workspace.ItemRule]
		rulesOn = !set || on == true
	}
	for _, id := range s.Always {
		if rulesOn && !slices.Contains(got, id) {
			problems = append(problems, fmt.Sprintf("the always rule %s is missing", id))
		}
	}
	for _, id := range s.Manual {
		_, name, _ := strings.Cut(id, ":")
		asked := slices.Contains(c.Items, name) || slices.Contains(c.Items, id) || strings.Contains(c.Query, "@"+name)
		if !asked && slices.Contains(got, id) {
			problems = append(problems, fmt.Sprintf("the manual item %s came unasked", id))
		}
	}
	return problems
}

// RunItemCases runs every case through the workspace at root (whose cache
// holds Setup's notes) and returns the problems by case name.
func (s *ItemSuite) RunItemCases(ctx context.Context, ws *workspace.Workspace, root string, noteIDs []string) (map[string][]string, error) {
	out := map[string][]string{}
	for i := range s.Cases {
		c := &s.Cases[i]
		sel, err := ws.Select(ctx, c.Request(root))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		var ids, kinds []string
		for _, it := range sel.Items {
			ids, kinds = append(ids, it.ID), append(kinds, it.Kind)
		}
		if p := s.Check(c, ids, kinds, noteIDs); len(p) > 0 {
			out[c.Name] = p
		}
	}
	return out, nil
}
