package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatalf("DefaultConfig is invalid: %v", err)
	}
	if c.Embedder != "hash" || c.MaxFileBytes != 1<<20 || time.Duration(c.RecentEditHalfLife) != 10*time.Minute ||
		c.Limit != DefaultLimit || c.MaxChars != DefaultMaxChars || c.MaxCharsPerItem != DefaultMaxCharsPerItem || c.CacheDir != "" {
		t.Errorf("DefaultConfig = %+v, not the documented defaults", c)
	}
}

func TestConfigJSONRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.Embedder = "onnx"
	c.ModelPath = "/models/minilm"
	c.ONNXRuntimeLibrary = "/usr/lib/libonnxruntime.so"
	c.Exclude = []string{"**/gen/**", "*.pb.go"}
	c.MaxFileBytes = 4096
	c.CacheDir = "off"
	c.RecentEditHalfLife = Duration(90 * time.Second)
	c.Limit, c.MaxChars, c.MaxCharsPerItem = 20, 30000, 2000

	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"embedder":"onnx"`, `"modelPath"`, `"onnxRuntimeLibrary"`, `"maxFileBytes":4096`, `"cacheDir":"off"`, `"recentEditHalfLife":"1m30s"`, `"maxCharsPerItem":2000`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON %s lacks %s", data, key)
		}
	}
	viaMerge := DefaultConfig()
	if err := viaMerge.MergeJSON(data); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viaMerge, c) {
		t.Errorf("MergeJSON round trip:\n got %+v\nwant %+v", viaMerge, c)
	}
	var viaUnmarshal Config
	if err := json.Unmarshal(data, &viaUnmarshal); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viaUnmarshal, c) {
		t.Errorf("json.Unmarshal round trip:\n got %+v\nwant %+v", viaUnmarshal, c)
	}
}

func TestConfigMergeJSON(t *testing.T) {
	c := DefaultConfig()
	c.Exclude = []string{"keep/**"}
	err := c.MergeJSON(json.RawMessage(`{
		"embedder": "onnx",
		"maxFileBytes": 2048,
		"recentEditHalfLife": 30,
		"someFutureOption": {"x": 1},
		"limit": 12
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Exclude = []string{"keep/**"}
	want.Embedder = "onnx"
	want.MaxFileBytes = 2048
	want.RecentEditHalfLife = Duration(30 * time.Second)
	want.Limit = 12
	if !reflect.DeepEqual(c, want) {
		t.Errorf("after merge:\n got %+v\nwant %+v", c, want)
	}

	// A second source (didChangeConfiguration) overlays the first.
	if err := c.MergeJSON(json.RawMessage(`{"recentEditHalfLife": "2h", "exclude": ["a/**", "b"]}`)); err != nil {
		t.Fatal(err)
	}
	if time.Duration(c.RecentEditHalfLife) != 2*time.Hour || !reflect.DeepEqual(c.Exclude, []string{"a/**", "b"}) || c.MaxFileBytes != 2048 {
		t.Errorf("second merge: %+v", c)
	}

	// null puts a field back to its default.
	if err := c.MergeJSON(json.RawMessage(`{"embedder": null, "exclude": null, "maxFileBytes": null}`)); err != nil {
		t.Fatal(err)
	}
	if c.Embedder != "hash" || c.Exclude != nil || c.MaxFileBytes != DefaultMaxFileBytes {
		t.Errorf("null did not reset to defaults: %+v", c)
	}

	// Empty input and a null object change nothing.
	before := c
	for _, raw := range []string{``, `null`, ` {} `} {
		if err := c.MergeJSON(json.RawMessage(raw)); err != nil {
			t.Errorf("MergeJSON(%q): %v", raw, err)
		}
	}
	if !reflect.DeepEqual(c, before) {
		t.Errorf("no-op merges changed the config: %+v", c)
	}
}

func TestConfigMergeJSONErrors(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`{"maxFileBytes": "big"}`, "maxFileBytes: expected an integer, got string"},
		{`{"maxFileBytes": 1.5}`, "maxFileBytes:"},
		{`{"embedder": 3}`, "embedder: expected a string, got number"},
		{`{"exclude": "*.go"}`, "exclude: expected an array of strings, got string"},
		{`{"exclude": [1]}`, "exclude: expected a string, got number"},
		{`{"limit": true}`, "limit: expected an integer, got bool"},
		{`{"recentEditHalfLife": "soon"}`, `recentEditHalfLife: expected a duration such as "10m" or a number of seconds, got "soon"`},
		{`{"recentEditHalfLife": [1]}`, "recentEditHalfLife: expected a duration"},
		{`["hash"]`, "configuration: must be a JSON object, got an array"},
		{`"hash"`, "configuration: must be a JSON object, got a string"},
		{`{"embedder": "onnx",`, "configuration:"},
		{`{"tools": {"name": "x"}}`, "tools: expected"},
		{`{"itemThreshold": "high"}`, "itemThreshold: expected a number, got string"},
	}
	for _, tc := range tests {
		c := DefaultConfig()
		err := c.MergeJSON(json.RawMessage(tc.raw))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("MergeJSON(%s) error = %v, want %q", tc.raw, err, tc.want)
		}
		if !reflect.DeepEqual(c, DefaultConfig()) {
			t.Errorf("MergeJSON(%s) failed but changed the config: %+v", tc.raw, c)
		}
	}

	// A failing merge applies none of its fields, not even the good ones.
	c := DefaultConfig()
	if err := c.MergeJSON(json.RawMessage(`{"embedder": "onnx", "limit": "ten"}`)); err == nil {
		t.Fatal("want an error for limit")
	}
	if c.Embedder != "hash" {
		t.Errorf("failed merge applied embedder = %q", c.Embedder)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Embedder = "foo" }, `embedder: must be "hash" or "onnx", got "foo"`},
		{func(c *Config) { c.Embedder = "" }, `embedder: must be "hash" or "onnx", got ""`},
		{func(c *Config) { c.MaxFileBytes = -1 }, "maxFileBytes: must be positive, got -1"},
		{func(c *Config) { c.MaxFileBytes = 0 }, "maxFileBytes: must be positive, got 0"},
		{func(c *Config) { c.Exclude = []string{"ok/**", "src/[a-"} }, `exclude[1]: pattern "src/[a-": unclosed "["`},
		{func(c *Config) { c.Exclude = []string{"{a,b"} }, `exclude[0]: pattern "{a,b": unclosed "{"`},
		{func(c *Config) { c.RecentEditHalfLife = Duration(-time.Minute) }, "recentEditHalfLife: must be positive, got -1m0s"},
		{func(c *Config) { c.Limit = 0 }, "limit: must be between 1 and 100, got 0"},
		{func(c *Config) { c.Limit = 1000 }, "limit: must be between 1 and 100, got 1000"},
		{func(c *Config) { c.MaxChars = -5 }, "maxChars: must be positive, got -5"},
		{func(c *Config) { c.HistoryDays = 0 }, "historyDays: must be between 1 and 100000, got 0"},
		{func(c *Config) { c.HistoryDays = 200000 }, "historyDays: must be between 1 and 100000, got 200000"},
		{func(c *Config) { c.MaxCharsPerItem = 0 }, "maxCharsPerItem: must be positive, got 0"},
		{func(c *Config) { c.Tools = []Tool{{Name: "", Description: "d"}} }, "tools[0].name: must not be empty"},
		{func(c *Config) { c.Tools = []Tool{{Name: "run sql", Description: "d"}} }, `tools[0].name: must be one word without "@", got "run sql"`},
		{func(c *Config) { c.Tools = []Tool{{Name: "a", Description: "d"}, {Name: "A", Description: "e"}} }, `tools[1].name: "A" is registered twice`},
		{func(c *Config) { c.Tools = []Tool{{Name: "a"}} }, "tools[0].description: must not be empty"},
		{func(c *Config) { c.Tools = []Tool{{Name: "a", Description: "d", Include: "sometimes"}} }, `tools[0].include: must be "always", "manual" or "agent", got "sometimes"`},
		{func(c *Config) { c.ItemTopN = -1 }, "itemTopN: must be between 0 and 100, got -1"},
		{func(c *Config) { c.ItemThreshold = 2 }, "itemThreshold: must be between 0 and 1, got 2"},
		{func(c *Config) { c.ItemIncludeScore = -1 }, "itemIncludeScore: must be between 0 and 1, got -1"},
		{func(c *Config) { c.MemoryHalfLife = 0 }, "memoryHalfLife: must be positive, got 0s"},
	}
	for _, tc := range tests {
		c := DefaultConfig()
		tc.edit(&c)
		err := c.Validate()
		if err == nil || err.Error() != tc.want {
			t.Errorf("Validate() = %v, want %q", err, tc.want)
		}
	}

	ok := DefaultConfig()
	ok.Embedder = "onnx"
	ok.Exclude = []string{"**/*.pb.go", "{dist,out}/"}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid config rejected: %v", err)
	}
}

func TestConfigResolvedCacheDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("HOME", home)

	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultConfig()
	dir, on := c.ResolvedCacheDir()
	if want := filepath.Join(base, "ctxls"); !on || dir != want || !strings.HasPrefix(dir, home) {
		t.Errorf("default cache dir = %q, %v; want %q, true", dir, on, want)
	}

	c.CacheDir = "/var/tmp/ctxls-idx"
	if dir, on := c.ResolvedCacheDir(); !on || dir != "/var/tmp/ctxls-idx" {
		t.Errorf("explicit cache dir = %q, %v", dir, on)
	}

	for _, off := range []string{"off", "OFF"} {
		c.CacheDir = off
		if dir, on := c.ResolvedCacheDir(); on || dir != "" {
			t.Errorf("cacheDir %q resolved to %q, %v; want persistence off", off, dir, on)
		}
	}

	// No user cache directory at all: persistence turns off rather than
	// writing somewhere surprising.
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("LocalAppData", "")
	c.CacheDir = ""
	if dir, on := c.ResolvedCacheDir(); on {
		t.Errorf("without HOME, cache dir = %q, want persistence off", dir)
	}
}

func TestConfigDiscoverOptions(t *testing.T) {
	c := DefaultConfig()
	c.Exclude = []string{"gen/"}
	c.MaxFileBytes = 10
	o := discoverOptions(c)
	if !reflect.DeepEqual(o.Exclude, c.Exclude) || o.MaxFileBytes != 10 {
		t.Errorf("DiscoverOptions = %+v", o)
	}
}
