package lsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
)

// The params the server reads. They are local, minimal structs rather than
// go.lsp.dev/protocol's: that package predates LSP 3.17 (no position
// encodings), and decoding only the fields we use means a client sending
// newer capabilities we do not model can never fail initialize.

// initializeParams is the subset of InitializeParams the server reads.
type initializeParams struct {
	RootPath              string             `json:"rootPath"`
	RootURI               string             `json:"rootUri"`
	InitializationOptions json.RawMessage    `json:"initializationOptions"`
	Capabilities          clientCapabilities `json:"capabilities"`
	WorkspaceFolders      []workspaceFolder  `json:"workspaceFolders"`
}

// clientCapabilities is the subset of ClientCapabilities the server acts on.
type clientCapabilities struct {
	Workspace struct {
		DidChangeWatchedFiles struct {
			DynamicRegistration bool `json:"dynamicRegistration"`
		} `json:"didChangeWatchedFiles"`
	} `json:"workspace"`
	Window struct {
		WorkDoneProgress bool `json:"workDoneProgress"`
	} `json:"window"`
	General struct {
		// PositionEncodings is LSP 3.17's list of encodings the client
		// supports ("utf-8", "utf-16", "utf-32"), most preferred first.
		PositionEncodings []string `json:"positionEncodings"`
	} `json:"general"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// Position encodings (LSP 3.17 PositionEncodingKind).
const (
	encodingUTF8  = "utf-8"
	encodingUTF16 = "utf-16"
)

// initializeResult is InitializeResult with LSP 3.17's positionEncoding.
type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
}

type serverCapabilities struct {
	PositionEncoding string           `json:"positionEncoding"`
	TextDocumentSync textDocumentSync `json:"textDocumentSync"`
	Workspace        struct {
		WorkspaceFolders struct {
			Supported           bool `json:"supported"`
			ChangeNotifications bool `json:"changeNotifications"`
		} `json:"workspaceFolders"`
	} `json:"workspace"`
	Experimental map[string]any `json:"experimental"`
}

type textDocumentSync struct {
	OpenClose bool `json:"openClose"`
	Change    int  `json:"change"` // 2: incremental
	Save      struct {
		IncludeText bool `json:"includeText"`
	} `json:"save"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
	Text    string `json:"text"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type didChangeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	} `json:"textDocument"`
	ContentChanges []wire.TextChange `json:"contentChanges"`
}

type textDocumentParams struct {
	TextDocument struct {
		URI string `json:"uri"`
	} `json:"textDocument"`
}

// didFocusParams are the params of the ctxls/didFocus notification.
type didFocusParams struct {
	URI      string         `json:"uri"`
	Position *wire.Position `json:"position"`
}

// File change types of workspace/didChangeWatchedFiles.
const (
	fileCreated = 1
	fileChanged = 2
	fileDeleted = 3
)

type didChangeWatchedFilesParams struct {
	Changes []struct {
		URI  string `json:"uri"`
		Type int    `json:"type"`
	} `json:"changes"`
}

type didChangeWorkspaceFoldersParams struct {
	Event struct {
		Added   []workspaceFolder `json:"added"`
		Removed []workspaceFolder `json:"removed"`
	} `json:"event"`
}

type didChangeConfigurationParams struct {
	Settings json.RawMessage `json:"settings"`
}

type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

// decodeParams decodes a request's params into v. Absent or null params
// leave v zero. A malformed value is an InvalidParams error naming the
// field: "limit: expected a number, got string".
func decodeParams(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] != '{' {
		return invalidParams("params: expected an object, got %s", workspace.JSONKind(raw))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return invalidParams("%s", describeDecodeError(err))
	}
	return nil
}

// describeDecodeError turns a json decoding error into "field: problem".
func describeDecodeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "params"
		}
		return fmt.Sprintf("%s: expected %s, got %s", field, describeGoType(te.Type, te.Value), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("params: malformed JSON at byte %d: %v", se.Offset, se)
	}
	// Errors from custom unmarshalers carry no field; say what they say.
	return "params: " + err.Error()
}

// describeGoType says in JSON terms what a Go type accepts. got is the
// json package's description of the value found ("string", "number 1e20").
func describeGoType(t reflect.Type, got string) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if strings.HasPrefix(got, "number") {
			return fmt.Sprintf("a whole number that fits in %d bits", t.Bits())
		}
		return "a number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if strings.HasPrefix(got, "number") {
			return fmt.Sprintf("a non-negative whole number that fits in %d bits", t.Bits())
		}
		return "a number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	}
	return t.String()
}

func invalidParams(format string, args ...any) *jsonrpc2.Error {
	return jsonrpc2.Errorf(jsonrpc2.InvalidParams, format, args...)
}
