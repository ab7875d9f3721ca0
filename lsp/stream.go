package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// maxMessageBytes bounds one message's body; a larger Content-Length is a
// framing error that ends the connection.
const maxMessageBytes = 256 << 20

// stream is a jsonrpc2.Stream with LSP's Content-Length framing that differs
// from jsonrpc2.NewStream in two ways that keep the server alive:
//
//   - A well-framed body that is not a valid JSON-RPC message (malformed
//     JSON, a wrong "jsonrpc" version, an id that is neither an integer nor a
//     string) is answered with ParseError or InvalidRequest and skipped,
//     instead of ending the connection.
//   - Write never blocks on the peer: messages are queued and written by one
//     goroutine, so the read loop cannot deadlock against a client that is
//     itself blocked writing to us (net.Pipe and full OS pipes).
//
// Read is called by the connection's read loop only; Write and Close may be
// called from any goroutine.
type stream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader

	mu      sync.Mutex
	queue   [][]byte // framed messages not yet written
	closed  bool
	werr    error         // the first write error
	wake    chan struct{} // signalled when queue grows or the stream closes
	flushed chan struct{} // closed when the writer goroutine ends
}

func newStream(rwc io.ReadWriteCloser) *stream {
	s := &stream{
		rwc:     rwc,
		in:      bufio.NewReader(rwc),
		wake:    make(chan struct{}, 1),
		flushed: make(chan struct{}),
	}
	go s.writeLoop()
	return s
}

// Read returns the next valid message.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, err := s.readFrame()
		if err != nil {
			return nil, n, err
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil && isResponse(msg) && hasMethod(body) {
			// jsonrpc2 reads a request with an empty method as a response,
			// which nobody would answer.
			err = errors.New("method: must not be empty")
		}
		if err == nil {
			return msg, n, nil
		}
		s.rejectBody(body, err)
	}
}

func isResponse(msg jsonrpc2.Message) bool {
	_, ok := msg.(*jsonrpc2.Response)
	return ok
}

// hasMethod reports whether a message body has a "method" member.
func hasMethod(body []byte) bool {
	var probe struct {
		Method *json.RawMessage `json:"method"`
	}
	return json.Unmarshal(body, &probe) == nil && probe.Method != nil
}

// readFrame reads one Content-Length framed body.
func (s *stream) readFrame() ([]byte, int64, error) {
	var total, length int64
	for {
		line, err := s.in.ReadString('\n')
		total += int64(len(line))
		if err != nil {
			// The wording is jsonrpc2's, which callers match for a clean EOF.
			return nil, total, fmt.Errorf("failed reading header line: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, total, fmt.Errorf("invalid header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			length, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || length <= 0 || length > maxMessageBytes {
				return nil, total, fmt.Errorf("invalid Content-Length %q", strings.TrimSpace(value))
			}
		}
	}
	if length == 0 {
		return nil, total, errors.New("missing Content-Length header")
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, total, fmt.Errorf("reading a %d-byte message: %w", length, err)
	}
	return body, total + length, nil
}

// rejectBody answers a body that is not a valid message: ParseError when it
// is not JSON, InvalidRequest otherwise, echoing its id when one can be read.
func (s *stream) rejectBody(body []byte, cause error) {
	var probe struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	code, msg := jsonrpc2.InvalidRequest, "invalid request: "+cause.Error()
	if err := json.Unmarshal(body, &probe); err != nil {
		if !json.Valid(body) {
			code, msg = jsonrpc2.ParseError, "parse error: the message is not valid JSON"
		} else {
			msg = "invalid request: a message must be a JSON object"
		}
	}
	id := json.RawMessage("null")
	if isScalarID(probe.ID) {
		id = probe.ID
	}
	if probe.Method == nil && len(probe.ID) > 0 && code == jsonrpc2.InvalidRequest {
		// A response we cannot read; there is nobody to answer.
		return
	}
	resp, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, jsonrpc2.NewError(code, msg)})
	if err == nil {
		s.enqueue(resp)
	}
}

// isScalarID reports whether raw is a JSON string or number, the only id
// forms worth echoing.
func isScalarID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// Write queues msg; it fails only once the stream is closed or broken.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	return int64(len(data)), s.enqueue(data)
}

func (s *stream) enqueue(body []byte) error {
	frame := make([]byte, 0, len(body)+32)
	frame = append(frame, "Content-Length: "...)
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr != nil {
		return s.werr
	}
	if s.closed {
		return io.ErrClosedPipe
	}
	s.queue = append(s.queue, frame)
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

func (s *stream) writeLoop() {
	defer close(s.flushed)
	for {
		s.mu.Lock()
		batch, closed := s.queue, s.closed
		s.queue = nil
		s.mu.Unlock()
		for _, frame := range batch {
			if _, err := s.rwc.Write(frame); err != nil {
				s.mu.Lock()
				s.werr = fmt.Errorf("writing to the client: %w", err)
				s.queue = nil
				s.mu.Unlock()
				return
			}
		}
		if closed && len(batch) == 0 {
			return
		}
		if len(batch) == 0 {
			<-s.wake
		}
	}
}

// flush waits until the queued messages are written or ctx ends.
func (s *stream) flush(ctx context.Context) {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	s.mu.Unlock()
	select {
	case <-s.flushed:
	case <-ctx.Done():
	}
}

// Close stops writing and closes the underlying connection. Messages still
// queued are dropped; call flush first to send them.
func (s *stream) Close() error {
	s.mu.Lock()
	s.closed = true
	s.queue = nil
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.mu.Unlock()
	return s.rwc.Close()
}
