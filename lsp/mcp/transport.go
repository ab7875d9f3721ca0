package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxls/ctxls/lsp/jsonfront"
)

// LineTransport is MCP's stdio transport (one JSON-RPC message a line)
// with jsonfront in front of the SDK's decoder. The SDK's own IOTransport
// ends the session at the first line it cannot decode; here every line is
// checked first, in one linear pass, and a line that is not a message is
// answered on Writer and skipped:
//
//   - blank lines are ignored;
//   - a line that is not JSON, or holds two values, gets a parse error
//     (-32700);
//   - a line nesting deeper than jsonfront.MaxDepth, longer than
//     jsonfront.MaxLineBytes (the rest is read and dropped, not kept), not
//     an object, or not a valid request (a wrong "jsonrpc", an id that is an
//     object or a fraction) gets an invalid request (-32600);
//   - a batch (an array) gets an invalid request too: MCP 2025-06-18
//     removed JSON-RPC batching, and the SDK's batch support, for older
//     protocol versions, is internal to its own transport.
//
// Each error echoes the line's id when one is readable, even in a line
// invalid further on. Only the end of Reader ends the session, and not
// before the requests read until then are answered (for at most
// endGrace): a client that writes a request and closes its end gets the
// answer.
type LineTransport struct {
	Reader io.Reader
	Writer io.Writer
}

// Connect implements sdk.Transport.
func (t *LineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{
		w:        t.Writer,
		incoming: make(chan lineResult),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]bool{},
		answered: make(chan struct{}, 1),
	}
	go c.readLoop(t.Reader)
	return c, nil
}

type lineResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is one session over a LineTransport. One goroutine reads lines
// (so that Close unblocks Read, as the SDK requires); writes, the SDK's and
// the error replies, take wmu, so that lines never interleave.
type lineConn struct {
	wmu sync.Mutex
	w   io.Writer

	incoming  chan lineResult
	closed    chan struct{}
	closeOnce sync.Once

	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool // requests read and not answered yet
	answered chan struct{}       // signalled when pending shrinks
}

// endGrace bounds how long the end of the input waits for the answers to
// the requests read before it.
const endGrace = 30 * time.Second

// Read implements sdk.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case r := <-c.incoming:
		return r.msg, r.err
	}
}

// Write implements sdk.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	err = c.writeLine(data)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

// drain waits until every request read has been answered, the connection
// is closed, or endGrace has passed.
func (c *lineConn) drain() {
	deadline := time.NewTimer(endGrace)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 0 {
			return
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return
		case <-deadline.C:
			return
		}
	}
}

func (c *lineConn) writeLine(data []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(data, '\n'))
	return err
}

// Close implements sdk.Connection; the reader and writer are left open
// (they are the process's stdin and stdout).
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements sdk.Connection: stdio has no session id.
func (c *lineConn) SessionID() string { return "" }

// lineBuffer is how much of a line is read at a time.
const lineBuffer = 64 << 10

func (c *lineConn) readLoop(r io.Reader) {
	in := bufio.NewReaderSize(r, lineBuffer)
	for {
		line, res, err := readLine(in)
		if line != nil || res.Err != nil {
			if msg := c.check(line, res); msg != nil {
				if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
					c.mu.Lock()
					c.pending[req.ID] = true
					c.mu.Unlock()
				}
				select {
				case c.incoming <- lineResult{msg: msg}:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.drain()
			select {
			case c.incoming <- lineResult{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// tooLong is the Result of a line over jsonfront.MaxLineBytes, whatever it
// holds.
var tooLong = jsonfront.TooLarge(jsonfront.MaxLineBytes, "the line")

// readLine reads the next line through a jsonfront.Scanner. It returns the
// line (without its newline; nil when blank) and what the scanner found;
// a line over jsonfront.MaxLineBytes is read to its end but not kept, and
// its Result's Err says so unless the scanner found worse. err is the end of the input, after a last line
// that may have no newline.
func readLine(in *bufio.Reader) ([]byte, jsonfront.Result, error) {
	var sc jsonfront.Scanner
	var line []byte
	keep := true
	for {
		chunk, err := in.ReadSlice('\n')
		piece := bytes.TrimSuffix(chunk, []byte("\n"))
		sc.Write(piece)
		if keep && len(line)+len(piece) > jsonfront.MaxLineBytes {
			keep, line = false, nil
		}
		if keep {
			line = append(line, piece...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && sc.Offset() == 0 {
			return nil, jsonfront.Result{}, err
		}
		res := sc.Result()
		switch {
		case res.Blank:
			line, res = nil, jsonfront.Result{}
		case !keep && res.Err == nil:
			// What is wrong with a line (not JSON, too deep) is said before
			// its size.
			res.Err = tooLong
		}
		return line, res, err
	}
}

// check returns the message a line holds, or answers why it holds none.
func (c *lineConn) check(line []byte, res jsonfront.Result) jsonrpc.Message {
	code, msg := int64(0), ""
	switch {
	case res.Err != nil:
		code, msg = res.Err.Code, res.Err.Message
	case res.Array:
		code, msg = jsonfront.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message a line"
	case !res.Object:
		code, msg = jsonfront.CodeInvalidRequest, jsonfront.NotObject
	case res.ID != nil && !res.IntegerID:
		code, msg = jsonfront.CodeInvalidRequest, "invalid request: id must be a string or an integer"
	default:
		m, err := jsonrpc.DecodeMessage(line)
		if err == nil {
			return m
		}
		code, msg = jsonfront.CodeInvalidRequest, "invalid request: "+err.Error()
	}
	if reply := res.Answer(code, msg); reply != nil {
		c.writeLine(reply)
	}
	return nil
}
