package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/symbolindex/embed"
	"github.com/ctxls/ctxls/symbolindex/embed/onnxtest"
)

// ortLibrary finds the ONNX Runtime library for the end-to-end tests. They
// skip without one, with a message saying how to fetch it, unless
// CTXLS_REQUIRE_ONNX=1 (CI) makes that a failure.
func ortLibrary(t *testing.T) string {
	t.Helper()
	lib, err := embed.FindONNXRuntime("")
	if err == nil {
		return lib
	}
	msg := "no ONNX Runtime library (run scripts/fetch-onnxruntime.sh and set CTXLS_ORT_LIB): " + err.Error()
	if os.Getenv("CTXLS_REQUIRE_ONNX") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestSelectWithONNXEmbedder runs a whole selection through the real ONNX
// Runtime with a BERT-shaped test model: the result says the onnx embedder
// is live and still finds the function the query names.
func TestSelectWithONNXEmbedder(t *testing.T) {
	lib := ortLibrary(t)
	model := t.TempDir()
	if err := onnxtest.WriteModel(model, onnxtest.ModelOptions{}); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	files := map[string]string{
		"server/config.go":  "package server\n\n// ParseConfig reads the server configuration.\nfunc ParseConfig(path string) error { return nil }\n",
		"client/request.go": "package client\n\n// SendRequest sends an HTTP request with retries.\nfunc SendRequest(url string) error { return nil }\n",
	}
	for p, text := range files {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"select", "--root", root, "--cache-dir", "off",
		"--embedder", "onnx", "--model", model, "--ort-lib", lib, "--json", "parse the server config"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr not empty with a working model: %s", stderr.String())
	}
	var res wire.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Stats.Embedder, "onnx-") {
		t.Errorf("stats.embedder = %q, want the onnx embedder", res.Stats.Embedder)
	}
	if len(res.Items) == 0 || res.Items[0].Symbol != "ParseConfig" {
		t.Errorf("first item %+v, want ParseConfig", res.Items)
	}
	if _, ok := res.Items[0].Signals["semantic"]; !ok {
		t.Errorf("no semantic signal on %+v", res.Items[0])
	}
}

// TestSelectWithMissingModel falls back to the built-in embedder with one
// clear warning naming what is missing.
func TestSelectWithMissingModel(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc Hello() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no-model-here")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"select", "--root", root, "--cache-dir", "off",
		"--embedder", "onnx", "--model", missing, "--json", "hello"}, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	warn := strings.TrimSpace(stderr.String())
	if strings.Count(warn, "\n") != 0 || !strings.Contains(warn, "built-in") {
		t.Errorf("want exactly one warning line about falling back, got %q", warn)
	}
	var res wire.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Stats.Embedder != "hash-384" || len(res.Items) == 0 {
		t.Errorf("embedder %q with %d items; want the hash embedder and a result", res.Stats.Embedder, len(res.Items))
	}
}
