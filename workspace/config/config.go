package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/workspace/glob"
	"github.com/ctxls/ctxls/workspace/history"
	"github.com/ctxls/ctxls/workspace/items"
)

// Request defaults and bounds, the one set for the server and the CLI.
const (
	DefaultLimit           = 8
	MaxLimit               = 100
	DefaultMaxChars        = 12000
	DefaultMaxCharsPerItem = 1500
	// MaxMaxTokens bounds maxTokens: far more than any model's window.
	MaxMaxTokens = 1 << 24
	// MaxHistoryDays bounds historyDays below time.Duration's range
	// (about 106,000 days); any window reaching before 1970 already reads
	// every commit.
	MaxHistoryDays = 100000
)

// Configuration defaults. Default is the one place they are applied.
const (
	// EmbedderHash is the built-in feature-hashing embedder (the default).
	EmbedderHash = "hash"
	// EmbedderONNX runs a sentence-embedding model with ONNX Runtime.
	EmbedderONNX = "onnx"
	// CacheDirOff is the cacheDir value that turns persistence off.
	CacheDirOff = "off"

	// DefaultMaxFileBytes is the size above which a file is not indexed.
	DefaultMaxFileBytes int64 = 1 << 20
	// DefaultRecentEditHalfLife is how long it takes the recent-edit signal
	// of a change to halve.
	DefaultRecentEditHalfLife = 10 * time.Minute
)

// Config is the one configuration of ctxls. The command-line flags, the LSP
// initializationOptions and workspace/didChangeConfiguration settings.ctxls
// all map onto it; its JSON form is the one in docs/protocol.md.
type Config struct {
	// Embedder is "hash" (built in) or "onnx".
	Embedder string `json:"embedder"`
	// ModelPath is the directory holding model.onnx and its vocabulary,
	// for the onnx embedder.
	ModelPath string `json:"modelPath"`
	// ONNXRuntimeLibrary is the path of the ONNX Runtime shared library,
	// for the onnx embedder ("" lets the embedder look for it).
	ONNXRuntimeLibrary string `json:"onnxRuntimeLibrary"`
	// Exclude lists globs (see Glob) of workspace paths never indexed, on
	// top of .gitignore and the default excludes.
	Exclude []string `json:"exclude"`
	// MaxFileBytes is the size above which a file is skipped.
	MaxFileBytes int64 `json:"maxFileBytes"`
	// CacheDir is where indexes persist: "" means the user cache dir
	// (os.UserCacheDir()/ctxls), "off" means no persistence.
	CacheDir string `json:"cacheDir"`
	// RecentEditHalfLife is the half-life of the recent-edit signal. In JSON
	// it is a duration string ("10m") or a number of seconds.
	RecentEditHalfLife Duration `json:"recentEditHalfLife"`
	// HistoryCommits bounds how many of the repository's latest commits
	// the history sources read (0: none, history off).
	HistoryCommits int `json:"historyCommits"`
	// HistoryDays bounds how far back they read, in days before the
	// newest commit.
	HistoryDays int `json:"historyDays"`

	// Request defaults, used when a request leaves them 0.

	// Limit is the default maximum number of items.
	Limit int `json:"limit"`
	// MaxChars is the default total character budget over all item texts.
	MaxChars int `json:"maxChars"`
	// MaxCharsPerItem is the default cap on one item's text.
	MaxCharsPerItem int `json:"maxCharsPerItem"`

	// Context items (workspace/items).

	// Tools are the tool descriptions a client registers: items of kind
	// "tool", chosen like rules.
	Tools []Tool `json:"tools"`
	// ItemTopN is how many agent-mode items and memory notes may come in
	// on their score; ItemThreshold the score they need; an item scoring
	// ItemIncludeScore or more comes in even beyond ItemTopN.
	ItemTopN         int     `json:"itemTopN"`
	ItemThreshold    float64 `json:"itemThreshold"`
	ItemIncludeScore float64 `json:"itemIncludeScore"`
	// MemoryHalfLife is how long a memory note that is not pinned takes
	// to lose half its weight ("720h", or seconds).
	MemoryHalfLife Duration `json:"memoryHalfLife"`
}

// Tool is a tool description a client registers.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Include is "always", "manual" or "agent" ("": agent).
	Include string `json:"include,omitempty"`
}

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{
		Embedder:           EmbedderHash,
		MaxFileBytes:       DefaultMaxFileBytes,
		RecentEditHalfLife: Duration(DefaultRecentEditHalfLife),
		HistoryCommits:     history.DefaultMaxCommits,
		HistoryDays:        int(history.DefaultMaxAge / (24 * time.Hour)),
		Limit:              DefaultLimit,
		MaxChars:           DefaultMaxChars,
		MaxCharsPerItem:    DefaultMaxCharsPerItem,
		ItemTopN:           heuristics.ItemTopN,
		ItemThreshold:      heuristics.ItemThreshold,
		ItemIncludeScore:   heuristics.ItemIncludeScore,
		MemoryHalfLife:     Duration(heuristics.MemoryHalfLife),
	}
}

// Validate reports the first invalid setting, naming its JSON field.
func (c Config) Validate() error {
	switch c.Embedder {
	case EmbedderHash, EmbedderONNX:
		// A missing model is not an error here: the workspace warns and
		// falls back to the hash embedder when the model cannot load.
	default:
		return fmt.Errorf("embedder: must be %q or %q, got %q", EmbedderHash, EmbedderONNX, c.Embedder)
	}
	for i, p := range c.Exclude {
		if _, err := glob.Compile(p); err != nil {
			return fmt.Errorf("exclude[%d]: %w", i, err)
		}
	}
	if c.MaxFileBytes <= 0 {
		return fmt.Errorf("maxFileBytes: must be positive, got %d", c.MaxFileBytes)
	}
	if c.RecentEditHalfLife <= 0 {
		return fmt.Errorf("recentEditHalfLife: must be positive, got %s", c.RecentEditHalfLife)
	}
	if c.HistoryCommits < 0 {
		return fmt.Errorf("historyCommits: must not be negative, got %d", c.HistoryCommits)
	}
	if c.HistoryDays <= 0 || c.HistoryDays > MaxHistoryDays {
		return fmt.Errorf("historyDays: must be between 1 and %d, got %d", MaxHistoryDays, c.HistoryDays)
	}
	if c.Limit < 1 || c.Limit > MaxLimit {
		return fmt.Errorf("limit: must be between 1 and %d, got %d", MaxLimit, c.Limit)
	}
	if c.MaxChars <= 0 {
		return fmt.Errorf("maxChars: must be positive, got %d", c.MaxChars)
	}
	if c.MaxCharsPerItem <= 0 {
		return fmt.Errorf("maxCharsPerItem: must be positive, got %d", c.MaxCharsPerItem)
	}
	seen := map[string]bool{}
	for i, t := range c.Tools {
		switch {
		case strings.TrimSpace(t.Name) == "":
			return fmt.Errorf("tools[%d].name: must not be empty", i)
		case strings.ContainsAny(t.Name, " \t\n@"):
			return fmt.Errorf("tools[%d].name: must be one word without \"@\", got %q", i, t.Name)
		case seen[strings.ToLower(t.Name)]:
			return fmt.Errorf("tools[%d].name: %q is registered twice", i, t.Name)
		case strings.TrimSpace(t.Description) == "":
			return fmt.Errorf("tools[%d].description: must not be empty", i)
		}
		seen[strings.ToLower(t.Name)] = true
		switch t.Include {
		case "", items.IncludeAlways, items.IncludeManual, items.IncludeAgent:
		default:
			return fmt.Errorf("tools[%d].include: must be %q, %q or %q, got %q", i, items.IncludeAlways, items.IncludeManual, items.IncludeAgent, t.Include)
		}
	}
	if c.ItemTopN < 0 || c.ItemTopN > MaxLimit {
		return fmt.Errorf("itemTopN: must be between 0 and %d, got %d", MaxLimit, c.ItemTopN)
	}
	if !(c.ItemThreshold >= 0 && c.ItemThreshold <= 1) {
		return fmt.Errorf("itemThreshold: must be between 0 and 1, got %v", c.ItemThreshold)
	}
	if !(c.ItemIncludeScore >= 0 && c.ItemIncludeScore <= 1) {
		return fmt.Errorf("itemIncludeScore: must be between 0 and 1, got %v", c.ItemIncludeScore)
	}
	if c.MemoryHalfLife <= 0 {
		return fmt.Errorf("memoryHalfLife: must be positive, got %s", c.MemoryHalfLife)
	}
	return nil
}

// MergeJSON overlays the fields present in raw, a JSON object such as the
// LSP initializationOptions or settings.ctxls. Absent and unknown fields are
// left alone; a field set to null goes back to its default. A value of the
// wrong type is an error naming the field, and on any error c is unchanged.
// MergeJSON does not Validate: callers merge every source, then validate.
func (c *Config) MergeJSON(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] != '{' {
		return fmt.Errorf("configuration: must be a JSON object, got %s", JSONKind(raw))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	next := *c
	next.Exclude = append([]string(nil), c.Exclude...)
	next.Tools = append([]Tool(nil), c.Tools...)
	defaults := Default()
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if err := next.setField(name, fields[name], &defaults); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	*c = next
	return nil
}

// setField decodes one JSON field into c; unknown names are ignored.
func (c *Config) setField(name string, value json.RawMessage, defaults *Config) error {
	isNull := bytes.Equal(bytes.TrimSpace(value), []byte("null"))
	switch name {
	case "embedder":
		return decodeField(value, isNull, &c.Embedder, defaults.Embedder)
	case "modelPath":
		return decodeField(value, isNull, &c.ModelPath, defaults.ModelPath)
	case "onnxRuntimeLibrary":
		return decodeField(value, isNull, &c.ONNXRuntimeLibrary, defaults.ONNXRuntimeLibrary)
	case "exclude":
		return decodeField(value, isNull, &c.Exclude, defaults.Exclude)
	case "maxFileBytes":
		return decodeField(value, isNull, &c.MaxFileBytes, defaults.MaxFileBytes)
	case "cacheDir":
		return decodeField(value, isNull, &c.CacheDir, defaults.CacheDir)
	case "recentEditHalfLife":
		return decodeField(value, isNull, &c.RecentEditHalfLife, defaults.RecentEditHalfLife)
	case "historyCommits":
		return decodeField(value, isNull, &c.HistoryCommits, defaults.HistoryCommits)
	case "historyDays":
		return decodeField(value, isNull, &c.HistoryDays, defaults.HistoryDays)
	case "limit":
		return decodeField(value, isNull, &c.Limit, defaults.Limit)
	case "maxChars":
		return decodeField(value, isNull, &c.MaxChars, defaults.MaxChars)
	case "maxCharsPerItem":
		return decodeField(value, isNull, &c.MaxCharsPerItem, defaults.MaxCharsPerItem)
	case "tools":
		return decodeField(value, isNull, &c.Tools, defaults.Tools)
	case "itemTopN":
		return decodeField(value, isNull, &c.ItemTopN, defaults.ItemTopN)
	case "itemThreshold":
		return decodeField(value, isNull, &c.ItemThreshold, defaults.ItemThreshold)
	case "itemIncludeScore":
		return decodeField(value, isNull, &c.ItemIncludeScore, defaults.ItemIncludeScore)
	case "memoryHalfLife":
		return decodeField(value, isNull, &c.MemoryHalfLife, defaults.MemoryHalfLife)
	}
	return nil
}

func decodeField[T any](value json.RawMessage, isNull bool, dst *T, dflt T) error {
	if isNull {
		*dst = dflt
		return nil
	}
	var v T
	if err := json.Unmarshal(value, &v); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			return fmt.Errorf("expected %s, got %s", describeType(te.Type.Kind().String()), te.Value)
		}
		return err
	}
	*dst = v
	return nil
}

func describeType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice":
		return "an array of strings"
	case "int", "int64":
		return "an integer"
	case "float64":
		return "a number"
	case "struct":
		return "an object"
	}
	return kind
}

// JSONKind names the kind of a JSON value from its (non-empty) text, for
// errors that say what was sent instead of an object.
func JSONKind(raw []byte) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// ResolvedCacheDir returns the directory indexes persist in and whether
// persistence is on. It is off for "off", and also when CacheDir is "" and
// the system has no user cache directory (no $HOME).
func (c Config) ResolvedCacheDir() (string, bool) {
	switch {
	case strings.EqualFold(c.CacheDir, CacheDirOff):
		return "", false
	case c.CacheDir != "":
		return c.CacheDir, true
	}
	base, err := os.UserCacheDir()
	if err != nil || base == "" {
		return "", false
	}
	return filepath.Join(base, "ctxls"), true
}

// Duration is a time.Duration that reads from JSON as a duration string
// ("10m", "90s") or a number of seconds, and writes as a duration string.
type Duration time.Duration

// String formats the duration like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration as a string such as "10m0s".
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("expected a duration such as \"10m\" or a number of seconds, got %q", s)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("expected a duration such as \"10m\" or a number of seconds, got %s", b)
	}
	if math.IsNaN(secs) || math.Abs(secs) > math.MaxInt64/float64(time.Second) {
		return fmt.Errorf("duration %v seconds out of range", secs)
	}
	*d = Duration(secs * float64(time.Second))
	return nil
}
