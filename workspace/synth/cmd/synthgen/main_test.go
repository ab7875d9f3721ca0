package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunWritesWorkspace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ws")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-symbols", "50", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "5 files, 50 symbols") {
		t.Errorf("output %q does not report 5 files and 50 symbols", stdout.String())
	}
	if entries, err := os.ReadDir(out); err != nil || len(entries) == 0 {
		t.Errorf("nothing written to %s: %v", out, err)
	}
}

func TestRunRejectsBadUsage(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-symbols", "10"}, 2, "usage"},
		{[]string{"-out", t.TempDir()}, 2, "-symbols must be between"},
		{[]string{"-symbols", "-3", "-out", t.TempDir()}, 2, "got -3"},
		{[]string{"-symbols", "ten", "-out", t.TempDir()}, 2, "invalid value"},
		{[]string{"-symbols", "10", "-out", full}, 1, "not empty"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("run %q = exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
}
