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

	"github.com/ctxls/ctxls/lsp/jsonfront"
)

// stream is a jsonrpc2.Stream with LSP's Content-Length framing that differs
// from jsonrpc2.NewStream in ways that keep the server alive:
//
//   - Every body passes jsonfront first, in one linear pass, before the
//     recursive decoder sees it: a body that is not JSON, nests deeper than
//     jsonfront.MaxDepth, or is not a JSON-RPC message (a wrong "jsonrpc"
//     version, an id that is neither an integer nor a string) is answered
//     with ParseError or InvalidRequest, echoing its id when one is
//     readable, and skipped.
//   - A body larger than jsonfront.MaxMessageBytes is answered the same way
//     and read through without being kept.
//   - Framing resynchronises instead of ending the connection: a
//     Content-Length larger than its body (which swallows the start of the
//     next frame) is noticed as soon as the body stops being JSON, and the
//     next "Content-Length:" header it holds is read again as a header; a
//     header block with junk lines or without a valid Content-Length is
//     answered and skipped up to the next Content-Length. Only the end of
//     the input ends Read.
//   - Write never blocks on the peer: messages are queued and written by one
//     goroutine, so the read loop cannot deadlock against a client that is
//     itself blocked writing to us (net.Pipe and full OS pipes).
//
// Read is called by the connection's read loop only; Write and Close may be
// called from any goroutine.
type stream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader
	// pending holds bytes read ahead and given back: they are read again
	// before in.
	pending []byte
	chunk   []byte // the body read buffer
	// cut is set when a body ended inside its JSON: the junk up to the
	// next header is its tail, already answered.
	cut bool
	win []byte // the end of the previous chunk and the current one

	mu      sync.Mutex
	queue   [][]byte // framed messages not yet written
	closed  bool
	werr    error         // the first write error
	wake    chan struct{} // signalled when queue grows or the stream closes
	flushed chan struct{} // closed when the writer goroutine ends
}

const (
	// maxHeaderLine is the longest header line read at once; a longer line
	// is junk, read on in pieces of this size.
	maxHeaderLine = 4 << 10
	// bodyChunk is how much of a body is read at a time.
	bodyChunk = 64 << 10
	// resyncBack is how far before the byte that broke a body a header may
	// start: a frame cut in a string is noticed at the header's line end.
	resyncBack = 64
)

func newStream(rwc io.ReadWriteCloser) *stream {
	s := &stream{
		rwc:     rwc,
		in:      bufio.NewReaderSize(rwc, bodyChunk),
		wake:    make(chan struct{}, 1),
		flushed: make(chan struct{}),
	}
	go s.writeLoop()
	return s
}

// Read returns the next valid message; it fails only when the input ends
// or cannot be read.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, total, err
		}
		body, res, n, err := s.readFrame()
		total += n
		if err != nil {
			return nil, total, err
		}
		if body == nil {
			continue // a broken frame, answered
		}
		if !res.Object {
			s.reject(res, jsonfront.CodeInvalidRequest, jsonfront.NotObject)
			continue
		}
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil && isResponse(msg) && res.HasMethod {
			// jsonrpc2 reads a request with an empty method as a response,
			// which nobody would answer.
			err = errors.New("method: must not be empty")
		}
		if err == nil {
			return msg, total, nil
		}
		s.reject(res, jsonfront.CodeInvalidRequest, "invalid request: "+err.Error())
	}
}

func isResponse(msg jsonrpc2.Message) bool {
	_, ok := msg.(*jsonrpc2.Response)
	return ok
}

// reject answers a message that is not served, echoing its id when one
// was read; a response we cannot read is dropped, as there is nobody to
// answer.
func (s *stream) reject(res jsonfront.Result, code int64, msg string) {
	if reply := res.Answer(code, msg); reply != nil {
		s.enqueue(reply)
	}
}

// header is the block of header lines being read.
type header struct {
	length    int64  // the Content-Length, -1 when none was read
	badLength string // a Content-Length that is not a size
	junk      *jsonfront.Scanner
	junkBytes int64
	tail      bool // the junk is the tail of a body already answered
}

func (h *header) broken() bool { return h.badLength != "" || h.junkBytes > 0 }

// answer replies to a header block that frames no message.
// The junk read after the block, up to the next header, is its body:
// the reply echoes the id read from it.
func (s *stream) answer(h *header) {
	var res jsonfront.Result
	if h.junk != nil {
		res = h.junk.Result()
	}
	switch {
	case h.badLength != "":
		s.reject(res, jsonfront.CodeParseError, fmt.Sprintf("parse error: invalid Content-Length %q: the message is skipped", h.badLength))
	case h.junkBytes > 0 && !h.tail:
		s.reject(res, jsonfront.CodeParseError, fmt.Sprintf("parse error: %d bytes outside any Content-Length frame are skipped", h.junkBytes))
	}
}

// readFrame reads one header block and its body. A nil body with a nil
// error is a broken frame, already answered.
func (s *stream) readFrame() ([]byte, jsonfront.Result, int64, error) {
	var total int64
	h := header{length: -1, tail: s.cut}
	s.cut = false
	for {
		line, err := s.readLine()
		total += int64(len(line))
		if err != nil {
			// The wording is jsonrpc2's, which callers match for a clean EOF.
			return nil, jsonfront.Result{}, total, fmt.Errorf("failed reading header line: %w", err)
		}
		complete := bytes.HasSuffix(line, []byte("\n"))
		if p := lastContentLength(line, 0, len(line)); p > 0 && len(bytes.TrimSpace(line[:p])) > 0 {
			// Junk, then a header: the junk ends a broken frame (perhaps the
			// tail of a body longer than its Content-Length said), and
			// the header starts the next.
			h.addJunk(line[:p])
			s.answer(&h)
			h = header{length: -1}
			s.unread(line[p:])
			total -= int64(len(line) - p)
			continue
		} else if !complete && len(line) > resyncBack && findContentLength(line) < 0 {
			// A long junk line: read its end again with the next piece,
			// where a header may start.
			keep := len(line) - resyncBack
			s.unread(line[keep:])
			total -= int64(len(line) - keep)
			h.addJunk(line[:keep])
			continue
		}
		text := strings.TrimSpace(string(line))
		if text == "" {
			if !complete {
				continue
			}
			switch {
			case h.length >= 0:
				body, res, n, err := s.readBody(h.length)
				return body, res, total + n, err
			case h.junkBytes > 0:
				s.answer(&h)
				h = header{length: -1}
			}
			// A blank line between frames is harmless; after a block
			// without a valid Content-Length, its body is read as junk
			// and answered with the block at the next header.
			continue
		}
		name, value, ok := strings.Cut(text, ":")
		switch {
		case ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length"):
			if h.broken() {
				// What came before this header framed nothing.
				s.answer(&h)
				h = header{length: -1}
			}
			value = strings.TrimSpace(value)
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n <= 0 {
				h.badLength, h.length = value, -1
				if len(h.badLength) > 40 {
					h.badLength = h.badLength[:40] + "…"
				}
			} else {
				h.length = n
			}
		case ok && isToken(strings.TrimSpace(name)):
			// Another header (Content-Type): nothing to do.
		default:
			h.addJunk(line)
		}
	}
}

// addJunk reads b, which frames nothing, to answer it later with its id
// if one is readable. White space alone is not junk.
func (h *header) addJunk(b []byte) {
	if h.junk == nil {
		h.junk = new(jsonfront.Scanner)
	}
	h.junk.Write(b)
	if len(bytes.TrimSpace(b)) > 0 {
		h.junkBytes += int64(len(b))
	}
}

// isToken reports whether name can be a header's name.
func isToken(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if !(c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// findContentLength is where a "Content-Length:" header starts in b (any
// case, spaces before the colon allowed), or -1.
func findContentLength(b []byte) int {
	const name = "content-length"
	for i := 0; i+len(name) <= len(b); i++ {
		if b[i]|0x20 != 'c' || !bytes.EqualFold(b[i:i+len(name)], []byte(name)) {
			continue
		}
		j := i + len(name)
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		if j < len(b) && b[j] == ':' {
			return i
		}
	}
	return -1
}

// lastContentLength is where the last "Content-Length:" header starting in
// b[from:end+1] starts in b, or -1.
func lastContentLength(b []byte, from, end int) int {
	last := -1
	for off := max(from, 0); off <= end && off < len(b); {
		p := findContentLength(b[off:])
		if p < 0 || off+p > end {
			break
		}
		last = off + p
		off += p + 1
	}
	return last
}

// readLine reads up to a newline, or maxHeaderLine bytes.
func (s *stream) readLine() ([]byte, error) {
	var line []byte
	for len(line) < maxHeaderLine {
		var c byte
		if len(s.pending) > 0 {
			c, s.pending = s.pending[0], s.pending[1:]
		} else {
			var err error
			if c, err = s.in.ReadByte(); err != nil {
				return line, err
			}
		}
		line = append(line, c)
		if c == '\n' {
			break
		}
	}
	return line, nil
}

// unread gives b back, to be read again before anything else.
func (s *stream) unread(b []byte) {
	s.pending = append(append([]byte(nil), b...), s.pending...)
}

// read reads what is at hand, up to len(p) bytes.
func (s *stream) read(p []byte) (int, error) {
	if len(s.pending) > 0 {
		n := copy(p, s.pending)
		s.pending = s.pending[n:]
		return n, nil
	}
	return s.in.Read(p)
}

// readBody reads a body of length bytes through a jsonfront.Scanner,
// keeping it when it is within jsonfront.MaxMessageBytes. A body that stops
// being JSON and holds a Content-Length header is cut there: the header is
// read again as the next frame's. A body that is not served is answered
// and returned nil.
func (s *stream) readBody(length int64) ([]byte, jsonfront.Result, int64, error) {
	if s.chunk == nil {
		s.chunk = make([]byte, bodyChunk)
	}
	keep := length <= jsonfront.MaxMessageBytes
	var body []byte
	if keep {
		body = make([]byte, 0, min(length, bodyChunk))
	}
	var sc jsonfront.Scanner
	var read int64
	s.win = s.win[:0]
	for read < length {
		n, err := s.read(s.chunk[:min(int64(len(s.chunk)), length-read)])
		if n == 0 && err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, jsonfront.Result{}, read, fmt.Errorf("reading a %d-byte message: %w", length, err)
		}
		chunk := s.chunk[:n]
		// win is the end of what came before (resyncBack bytes) and chunk;
		// winStart is its offset in the body.
		if len(s.win) > resyncBack {
			s.win = append(s.win[:0], s.win[len(s.win)-resyncBack:]...)
		}
		winStart := read - int64(len(s.win))
		s.win = append(s.win, chunk...)
		sc.Write(chunk)
		read += int64(n)
		if keep {
			body = append(body, chunk...)
		}
		if !sc.Failed() {
			continue
		}
		failAt := max(int(sc.FailedAt()-winStart), 0)
		p := lastContentLength(s.win, failAt-resyncBack, failAt)
		if p < 0 {
			if q := findContentLength(s.win[failAt:]); q >= 0 {
				p = failAt + q
			}
		}
		if p < 0 {
			continue
		}
		// The body ended before p; what follows is the next frame.
		at := winStart + int64(p)
		s.unread(s.win[p:])
		read = at
		res := sc.Result()
		s.reject(res, jsonfront.CodeParseError, fmt.Sprintf("parse error: Content-Length %d is longer than the message: another header starts at byte %d", length, at))
		return nil, res, read, nil
	}
	res := sc.Result()
	if sc.Failed() || !sc.Complete() {
		// A body cut short, or one whose end holds the start of a header
		// (too short yet to be seen): its last bytes are read again as
		// junk, not answered again.
		back := min(len(s.win), resyncBack)
		s.unread(s.win[len(s.win)-back:])
		read -= int64(back)
		s.cut = true
	}
	switch {
	case res.Err != nil:
		s.reject(res, res.Err.Code, res.Err.Message)
	case !keep:
		s.reject(res, jsonfront.CodeInvalidRequest, jsonfront.TooLarge(jsonfront.MaxMessageBytes, "the message").Message)
	default:
		return body, res, read, nil
	}
	return nil, res, read, nil
}

// Write queues msg; it fails only once the stream is closed or broken.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if r, ok := msg.(*jsonrpc2.Response); ok && r.Err() == nil && len(r.Result()) > 0 {
		if data, ok := responseJSON(r); ok {
			return int64(len(data)), s.enqueue(data)
		}
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	return int64(len(data)), s.enqueue(data)
}

// responseJSON is json.Marshal(r) for a response without an error, made
// directly: {"jsonrpc":"2.0","result":…,"id":…} with the HTML characters
// of the result and the id escaped. The result jsonrpc2 keeps is compact
// JSON already; json.Marshal went through the library's MarshalJSON,
// which compacted it once more, and then compacted that again: three
// passes and three copies over an answer of 100 KB, a tenth of a select's
// time at 10k symbols, where one pass gives the same bytes
// (TestResponseJSONMatchesMarshal).
func responseJSON(r *jsonrpc2.Response) ([]byte, bool) {
	id := r.ID()
	idJSON, err := id.MarshalJSON()
	if err != nil {
		return nil, false
	}
	res := r.Result()
	var b bytes.Buffer
	b.Grow(len(res) + len(idJSON) + 64)
	b.WriteString(`{"jsonrpc":"2.0","result":`)
	if needsEscape(res) {
		json.HTMLEscape(&b, res)
	} else {
		b.Write(res) // nothing in it HTMLEscape would change
	}
	b.WriteString(`,"id":`)
	json.HTMLEscape(&b, idJSON)
	b.WriteByte('}')
	return b.Bytes(), true
}

// needsEscape reports whether JSON text holds a byte json.HTMLEscape
// may change: <, >, & or the first byte of U+2028 and U+2029 (each
// looked for with IndexByte, many times faster than a loop over bytes).
func needsEscape(b []byte) bool {
	for _, c := range []byte{'<', '>', '&', 0xE2} {
		if bytes.IndexByte(b, c) >= 0 {
			return true
		}
	}
	return false
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
