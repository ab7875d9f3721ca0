package daemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/ctxls/ctxls/lsp/wire"
)

// The daemon's methods. A connection's first message is one of them; it
// is JSON-RPC 2.0 framed as LSP and go.lsp.dev/jsonrpc2 frame it
// (Content-Length header, blank line, JSON body).
const (
	// MethodAttach makes the connection a session of the kind named
	// (AttachParams): after the reply, the rest of the stream is that
	// protocol, LSP or MCP, served by the daemon against the shared
	// workspace.
	MethodAttach = "ctxls/attach"
	// MethodSelect runs one selection (SelectParams → wire.Result); more
	// may follow on the same connection.
	MethodSelect = "ctxls/select"
	// MethodStatus reports the daemon (Status).
	MethodStatus = "ctxls/status"
)

// Session kinds of MethodAttach.
const (
	KindLSP = "lsp"
	KindMCP = "mcp"
)

// AttachParams are MethodAttach's.
type AttachParams struct {
	Kind string `json:"kind"`
	// Roots and Config, for an MCP session, are its workspace folders
	// (absolute) and configuration; an LSP session names them in its
	// initialize request.
	Roots  []string        `json:"roots,omitempty"`
	Config json.RawMessage `json:"config,omitempty"`
	// PID is the client's process, for the daemon's log.
	PID int `json:"pid,omitempty"`
	// Build is the client's (Build); a daemon of another build refuses
	// the session, so that a client never gets answers from other code.
	Build string `json:"build,omitempty"`
}

// AttachResult is MethodAttach's answer.
type AttachResult struct {
	Session int `json:"session"`
	PID     int `json:"pid"`
}

// SelectParams are MethodSelect's.
type SelectParams struct {
	Roots   []string        `json:"roots"`
	Config  json.RawMessage `json:"config,omitempty"`
	Request *wire.Request   `json:"request"`
	// Build is the client's, as in AttachParams.
	Build string `json:"build,omitempty"`
}

// Status is MethodStatus's answer.
type Status struct {
	PID        int      `json:"pid"`
	Version    string   `json:"version"`
	Build      string   `json:"build"`
	Sessions   int      `json:"sessions"`
	Workspaces []string `json:"workspaces"`
}

// message is a JSON-RPC 2.0 request or response.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// codeOtherBuild is the daemon's error for a client of another build: the
// client then works in its own process.
const codeOtherBuild = -32001

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

// maxMessage bounds one message of the daemon's own methods.
const maxMessage = 64 << 20

// readMessage reads one framed message. It reads no further than the
// message's end, so that the stream after an attach is the session's.
func readMessage(r *bufio.Reader) (*message, error) {
	tp := textproto.NewReader(r)
	length := -1
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return nil, err
		}
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			if length, err = strconv.Atoi(strings.TrimSpace(value)); err != nil || length < 0 {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
	if length < 0 || length > maxMessage {
		return nil, fmt.Errorf("missing or oversized Content-Length (%d)", length)
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, fmt.Errorf("not a JSON-RPC message: %v", err)
	}
	return &m, nil
}

// writeMessage writes one framed message.
func writeMessage(w io.Writer, m *message) error {
	m.JSONRPC = "2.0"
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return err
}
