package embed

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// ORTLibEnv is the environment variable that names the ONNX Runtime shared
// library when no explicit path is configured.
const ORTLibEnv = "CTXLS_ORT_LIB"

// ortFixHint tells the user how to get a runtime library.
const ortFixHint = "run scripts/fetch-onnxruntime.sh (it installs one into ~/.cache/ctxls/onnxruntime), " +
	"or pass --ort-lib PATH (init option onnxRuntimeLibrary), or set " + ORTLibEnv + "=PATH"

// FindONNXRuntime returns the path of the ONNX Runtime shared library to
// load: explicit (the --ort-lib flag or the onnxRuntimeLibrary init
// option) if set, else $CTXLS_ORT_LIB, else the first library found in the
// standard locations: next to the executable, ~/.cache/ctxls/onnxruntime
// (where scripts/fetch-onnxruntime.sh puts it), /usr/local/lib,
// /opt/onnxruntime/lib and the system library directories. An explicit
// path or $CTXLS_ORT_LIB may name the library or a directory holding it.
// The error says what was tried and how to fix it.
func FindONNXRuntime(explicit string) (string, error) {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "ctxls", "onnxruntime"))
	}
	dirs = append(dirs, "/usr/local/lib", "/opt/onnxruntime/lib")
	switch runtime.GOOS {
	case "darwin":
		dirs = append(dirs, "/opt/homebrew/lib", "/usr/lib")
	default:
		dirs = append(dirs, "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib")
	}
	return ortFind(explicit, os.Getenv(ORTLibEnv), dirs, ortLibNames(runtime.GOOS))
}

// ortLibNames returns the file names (glob patterns) of the runtime
// library on goos, most specific first.
func ortLibNames(goos string) []string {
	switch goos {
	case "darwin":
		return []string{"libonnxruntime.dylib", "libonnxruntime.*.dylib"}
	case "windows":
		return []string{"onnxruntime.dll"}
	default:
		return []string{"libonnxruntime.so", "libonnxruntime.so.1", "libonnxruntime.so.1.*"}
	}
}

// ortFind is FindONNXRuntime with its inputs spelled out: the explicit
// path, the value of $CTXLS_ORT_LIB, the directories to search and the
// library names to look for.
func ortFind(explicit, env string, dirs, names []string) (string, error) {
	if explicit != "" {
		p, err := ortCheck(explicit, names)
		if err != nil {
			return "", fmt.Errorf("%s (given as --ort-lib / onnxRuntimeLibrary): %w", explicit, err)
		}
		return p, nil
	}
	if env != "" {
		p, err := ortCheck(env, names)
		if err != nil {
			return "", fmt.Errorf("%s (from %s): %w", env, ORTLibEnv, err)
		}
		return p, nil
	}
	for _, dir := range dirs {
		if p, ok := ortSearchDir(dir, names); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("no ONNX Runtime library (%s) found; --ort-lib and %s are unset; searched %s; to fix: %s",
		strings.Join(names, ", "), ORTLibEnv, strings.Join(dirs, ", "), ortFixHint)
}

// ortCheck resolves a configured path: a regular file is the library, a
// directory is searched for one.
func ortCheck(path string, names []string) (string, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("no such file; to fix: %s", ortFixHint)
	}
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return path, nil
	}
	if p, ok := ortSearchDir(path, names); ok {
		return p, nil
	}
	return "", fmt.Errorf("directory holds no %s; to fix: %s", strings.Join(names, " or "), ortFixHint)
}

// ortSearchDir returns the first file in dir matching names, in the order
// of names (the newest version first among a pattern's matches).
func ortSearchDir(dir string, names []string) (string, bool) {
	for _, name := range names {
		matches, _ := filepath.Glob(filepath.Join(dir, name))
		sort.Sort(sort.Reverse(sort.StringSlice(matches)))
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
				return m, true
			}
		}
	}
	return "", false
}

// ortRuntime is the process's ONNX Runtime environment. onnxruntime_go
// keeps one environment per process (its own package state), so this is
// the one piece of package-level state here: the first library loaded
// stays loaded, its outcome is kept, and asking for a different library
// later fails.
var ortRuntime struct {
	mu   sync.Mutex
	done bool   // an initialization was attempted
	path string // the library it loaded, symlinks resolved
	err  error  // its outcome
}

// ortInit loads the runtime library at lib and initializes the ONNX
// Runtime environment, once per process.
func ortInit(lib string) error {
	resolved, err := filepath.EvalSymlinks(lib)
	if err != nil {
		return fmt.Errorf("%s: %w", lib, err)
	}
	if resolved, err = filepath.Abs(resolved); err != nil {
		return fmt.Errorf("%s: %w", lib, err)
	}
	rt := &ortRuntime
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.done {
		if rt.path != resolved {
			return fmt.Errorf("this process already loaded %s; cannot also load %s (ONNX Runtime is process-wide): restart ctxls to switch libraries", rt.path, resolved)
		}
		return rt.err
	}
	rt.done, rt.path = true, resolved
	if err := os.Setenv("ORT_DISABLE_TELEMETRY", "1"); err != nil {
		rt.err = fmt.Errorf("disable telemetry: %w", err)
		return rt.err
	}
	ort.SetSharedLibraryPath(resolved)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		rt.err = ortExplainInitError(lib, err)
		return rt.err
	}
	if err := ort.DisableTelemetry(); err != nil {
		rt.err = fmt.Errorf("%s: disable telemetry: %w", lib, err)
		return rt.err
	}
	return nil
}

// ortExplainInitError turns a failure to initialize the runtime into an
// error that says what to do. onnxruntime_go v1.27.0 asks the library for
// C API version 24; an older library (ONNX Runtime < 1.24) prints "The
// requested API version [24] is not available" and fails with "Error
// setting ORT API base: 2".
func ortExplainInitError(lib string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "ORT API base: 2") || strings.Contains(msg, "API version") {
		return fmt.Errorf("%s is too old: ctxls needs ONNX Runtime >= 1.24 (C API version 24); %s: %w", lib, ortFixHint, err)
	}
	if strings.Contains(msg, "Error loading ONNX shared library") || strings.Contains(msg, "OrtGetApiBase") {
		return fmt.Errorf("%s is not a loadable ONNX Runtime library; %s: %w", lib, ortFixHint, err)
	}
	return fmt.Errorf("%s: initialize: %w", lib, err)
}
