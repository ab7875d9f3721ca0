// Package jsonfront owns what one incoming JSON-RPC message may cost
// before any decoder sees it, for both servers (ctxls serve's LSP stream
// and ctxls mcp's line transport).
//
// The JSON decoders under jsonrpc2 and the MCP SDK are recursive: a message
// nesting a few million arrays deep overflows the goroutine stack (a fatal
// error no recover catches), and one nesting a million deep blocks the read
// loop for seconds and holds hundreds of megabytes. A Scanner checks a
// message in one linear pass whose memory is bounded by MaxDepth, whatever
// the input: it validates the JSON, bounds its nesting, and reads the
// top-level "id" (a string or a number) even from a message that is invalid
// further on or too deep, so that the error reply can echo it. Only a
// message the Scanner accepts goes on to a decoder.
//
// The size of a message is bounded by its transport (MaxMessageBytes for an
// LSP frame, MaxLineBytes for an MCP line), which feeds an over-long message
// to a Scanner and discards it instead of keeping it.
package jsonfront

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

const (
	// MaxDepth is how deeply a message may nest arrays and objects (the
	// top-level object is level 1). Real LSP and MCP messages nest under 20
	// levels (the deepest are settings and JSON schemas, which people write
	// by hand); 1,000 leaves them fifty times that, while a recursive
	// decoder's stack and time at 1,000 levels are negligible (a few hundred
	// KB). The Scanner's own memory is one byte per level up to this bound.
	MaxDepth = 1000

	// MaxMessageBytes bounds one LSP message's body (its Content-Length).
	// The largest messages are didOpen and didChange carrying a whole file:
	// the index skips files over maxFileBytes (1 MiB by default), but an
	// editor sends any file it opens, and JSON may escape a byte as six
	// (\u0000), so 64 MiB lets a 10 MiB file through at worst and a 50 MiB
	// source file in practice. A larger frame is answered with an error and
	// its body is read through a Scanner and dropped, never held.
	MaxMessageBytes = 64 << 20

	// MaxLineBytes bounds one MCP message, a line on stdin. MCP clients send
	// tool calls whose arguments are a query, a few paths and names: 4 MiB
	// holds any of them with a pasted file besides. The rest of a longer line
	// is read through a Scanner and dropped.
	MaxLineBytes = 4 << 20

	// MaxIDBytes bounds an id worth echoing in an error reply; a longer one
	// is answered with a null id.
	MaxIDBytes = 1024
)

// JSON-RPC 2.0 error codes the front answers with.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

// Problem is why a message is refused: a JSON-RPC error code and a one-line
// message naming the problem.
type Problem struct {
	Code    int64
	Message string
}

func (p *Problem) Error() string { return p.Message }

// Result is what a Scanner found in one message.
type Result struct {
	// Err is nil when the message is one well-formed JSON value nesting at
	// most MaxDepth levels; otherwise it says why not. Size bounds are the
	// caller's (it knows its transport's).
	Err *Problem
	// Blank reports whether the message is only white space (Err says
	// it is empty).
	Blank bool
	// Object reports whether the top-level value is an object.
	Object bool
	// Array reports whether the top-level value is an array (a batch).
	Array bool
	// ID is the top-level object's "id" when it is a string or a number of
	// at most MaxIDBytes, as written; nil otherwise.
	ID json.RawMessage
	// HasID and HasMethod report whether the top-level object has an "id"
	// (of any type, null included) and a "method" member.
	HasID, HasMethod bool
	// IntegerID reports whether ID is a number without fraction or
	// exponent, or a string (the id forms JSON-RPC peers use).
	IntegerID bool
}

// Answer is the error reply to the message r describes, echoing its id
// when one was read (null otherwise); nil when there is nobody to answer:
// a response (an id and no method) that is not a valid request.
func (r Result) Answer(code int64, message string) []byte {
	if code == CodeInvalidRequest && r.HasID && !r.HasMethod {
		return nil
	}
	return Reply(r.ID, code, message)
}

// NotObject is the message of the reply to a message that is not a JSON
// object.
const NotObject = "invalid request: a message must be a JSON object"

// Check scans msg in one pass.
func Check(msg []byte) Result {
	var s Scanner
	s.Write(msg)
	return s.Result()
}

// Reply is the body of a JSON-RPC error response with the given id (a raw
// JSON string, number or null).
func Reply(id json.RawMessage, code int64, message string) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	msg, _ := json.Marshal(message)
	out := make([]byte, 0, len(id)+len(msg)+64)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"error":{"code":`...)
	out = strconv.AppendInt(out, code, 10)
	out = append(out, `,"message":`...)
	out = append(out, msg...)
	out = append(out, "}}"...)
	return out
}

// TooLarge is the problem of a message over a size bound of limit bytes.
func TooLarge(limit int64, what string) *Problem {
	return &Problem{CodeInvalidRequest, fmt.Sprintf("invalid request: %s is larger than %s", what, size(limit))}
}

func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// The Scanner's states: where in the JSON grammar the next byte is.
const (
	stValue       uint8 = iota // a value
	stArrayFirst               // after '[': a value or ']'
	stObjectFirst              // after '{': a key or '}'
	stKey                      // after ',' in an object: a key
	stColon                    // after a key: ':'
	stAfter                    // after a value in a container: ',' or its end
	stEnd                      // after the top-level value: only white space
	stString                   // in a string
	stEscape                   // after '\' in a string
	stHex                      // in the four digits of \u
	stMinus                    // after '-'
	stZero                     // after a leading 0
	stInt                      // in the integer digits
	stDot                      // after '.'
	stFrac                     // in the fraction digits
	stExp                      // after 'e'
	stExpSign                  // after the exponent's sign
	stExpDigits                // in the exponent's digits
	stLiteral                  // in true, false or null
	stSkip                     // in a value nesting past MaxDepth
	stSkipString               // in a string in such a value
	stSkipEscape               // after '\' in such a string
	stFailed                   // after a syntax error
)

// Which top-level member a value belongs to.
const (
	memberOther uint8 = iota
	memberID
	memberMethod
)

// maxKeyBytes is the longest top-level key the Scanner keeps to compare
// with "id" and "method" (longer keys are neither, even escaped).
const maxKeyBytes = 64

// A Scanner checks one JSON message written to it in any number of pieces,
// in time linear in its length and memory bounded by MaxDepth. The zero
// value is ready to use. Write never fails; Result says what was found.
type Scanner struct {
	off     int64
	state   uint8
	stack   []byte // the open containers ('{' or '['), at most MaxDepth
	skip    int    // open containers past MaxDepth, while state is stSkip*
	tooDeep bool
	syntax  *Problem // the first syntax error
	failAt  int64    // where it is
	top     byte     // the first byte of the top-level value
	literal string   // the rest of the literal being read
	hex     int      // \u digits read
	inKey   bool     // the string being read is a key
	key     []byte   // the top-level key being read (raw, up to maxKeyBytes)
	keyLong bool
	member  uint8 // the top-level member whose value comes next
	capture bool  // the id's bytes are being kept
	idBuf   []byte
	idLong  bool
	idFrac  bool
	res     Result
}

// Offset is the number of bytes written so far.
func (s *Scanner) Offset() int64 { return s.off }

// Failed reports whether the input so far cannot be the start of a valid
// message: a syntax error, or a second value after the first. (A message
// that is only too deep has not failed: it may still end well, and its id
// may come after the deep part.)
func (s *Scanner) Failed() bool { return s.syntax != nil }

// Complete reports whether the top-level value is complete (it may be
// followed by white space).
func (s *Scanner) Complete() bool {
	return s.state == stEnd || s.inNumber() && len(s.stack) == 0
}

// inNumber reports whether the Scanner is in a number that may end at the
// next byte.
func (s *Scanner) inNumber() bool {
	switch s.state {
	case stZero, stInt, stFrac, stExpDigits:
		return true
	}
	return false
}

// FailedAt is the offset of the byte that failed the message, when Failed.
func (s *Scanner) FailedAt() int64 { return s.failAt }

// Write scans p; it always returns len(p), nil.
func (s *Scanner) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		if s.state == stFailed {
			s.off += int64(len(p) - i)
			return len(p), nil
		}
		if s.state == stString && !s.capture && !s.inKey {
			// The body of a string that is kept nowhere: skip to its
			// next quote, backslash or control character.
			j := i
			for j < len(p) && p[j] >= 0x20 && p[j] != '"' && p[j] != '\\' {
				j++
			}
			s.off += int64(j - i)
			if i = j; i == len(p) {
				break
			}
		}
		if !s.step(p[i]) {
			// The byte ended a number and must be read again in the
			// state that follows.
			i--
			continue
		}
		s.off++
	}
	return len(p), nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (s *Scanner) fail(c byte, what string) bool {
	var near string
	switch {
	case c >= 0x20 && c < 0x7f:
		near = fmt.Sprintf("%q", rune(c))
	default:
		near = fmt.Sprintf("byte 0x%02x", c)
	}
	s.syntax = &Problem{CodeParseError, fmt.Sprintf("parse error: %s at byte %d: %s", what, s.off, near)}
	s.failAt = s.off
	s.state = stFailed
	s.capture = false
	return true
}

// atTop reports whether the next value or key is a member of the
// top-level object.
func (s *Scanner) atTop() bool { return len(s.stack) == 1 && s.stack[0] == '{' && s.skip == 0 }

// step reads one byte; false means the byte was not consumed.
func (s *Scanner) step(c byte) bool {
	switch s.state {
	case stValue, stArrayFirst, stObjectFirst, stKey, stColon, stAfter, stEnd:
		return s.stepStructure(c)
	case stString, stEscape, stHex:
		return s.stepString(c)
	case stMinus, stZero, stInt, stDot, stFrac, stExp, stExpSign, stExpDigits:
		return s.stepNumber(c)
	}
	return s.stepSkip(c)
}

// stepStructure reads a byte between values: white space, brackets,
// keys' quotes, ':' and ','.
func (s *Scanner) stepStructure(c byte) bool {
	switch s.state {
	case stValue, stArrayFirst:
		if isSpace(c) {
			return true
		}
		if c == ']' && s.state == stArrayFirst {
			return s.close()
		}
		return s.beginValue(c)
	case stObjectFirst, stKey:
		switch {
		case isSpace(c):
		case c == '"':
			s.state, s.inKey = stString, true
			if s.atTop() {
				s.key, s.keyLong = s.key[:0], false
			}
		case c == '}' && s.state == stObjectFirst:
			return s.close()
		default:
			return s.fail(c, "want a key")
		}
		return true
	case stColon:
		switch {
		case isSpace(c):
		case c == ':':
			s.state = stValue
		default:
			return s.fail(c, "want ':' after a key")
		}
		return true
	case stAfter:
		top := s.stack[len(s.stack)-1]
		switch {
		case isSpace(c):
		case c == ',' && top == '{':
			s.state = stKey
		case c == ',':
			s.state = stValue
		case c == '}' && top == '{', c == ']' && top == '[':
			return s.close()
		default:
			return s.fail(c, "want ',' or the end of the "+containerName(top))
		}
		return true
	case stEnd:
		if !isSpace(c) {
			return s.fail(c, "more than one JSON value")
		}
		return true
	}
	return true
}

// stepString reads a byte of a string that is kept (a key, the id) or
// that the fast path of Write did not skip.
func (s *Scanner) stepString(c byte) bool {
	switch s.state {
	case stString:
		s.keep(c)
		switch {
		case c == '"':
			return s.endString()
		case c == '\\':
			s.state = stEscape
		case c < 0x20:
			return s.fail(c, "control character in a string")
		}
		return true
	case stEscape:
		s.keep(c)
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			s.state = stString
		case 'u':
			s.state, s.hex = stHex, 0
		default:
			return s.fail(c, "invalid escape in a string")
		}
		return true
	case stHex:
		s.keep(c)
		if !isHex(c) {
			return s.fail(c, "invalid \\u escape in a string")
		}
		if s.hex++; s.hex == 4 {
			s.state = stString
		}
		return true
	}
	return true
}

// stepNumber reads a byte of a number; false when the byte ends it.
func (s *Scanner) stepNumber(c byte) bool {
	switch s.state {
	case stMinus:
		switch {
		case c == '0':
			s.state = stZero
		case '1' <= c && c <= '9':
			s.state = stInt
		default:
			return s.fail(c, "want a digit after '-'")
		}
		s.keep(c)
		return true
	case stZero, stInt:
		switch {
		case '0' <= c && c <= '9' && s.state == stInt:
		case c == '.':
			s.state, s.idFrac = stDot, true
		case c == 'e' || c == 'E':
			s.state, s.idFrac = stExp, true
		default:
			s.endValue()
			return false
		}
		s.keep(c)
		return true
	case stDot:
		return s.digit(c, stFrac, "want a digit after '.'")
	case stFrac:
		switch {
		case '0' <= c && c <= '9':
		case c == 'e' || c == 'E':
			s.state = stExp
		default:
			s.endValue()
			return false
		}
		s.keep(c)
		return true
	case stExp:
		switch {
		case c == '+' || c == '-':
			s.state = stExpSign
		case '0' <= c && c <= '9':
			s.state = stExpDigits
		default:
			return s.fail(c, "want a digit in the exponent")
		}
		s.keep(c)
		return true
	case stExpSign:
		return s.digit(c, stExpDigits, "want a digit in the exponent")
	case stExpDigits:
		if c < '0' || c > '9' {
			s.endValue()
			return false
		}
		s.keep(c)
		return true
	}
	return true
}

// digit reads a byte that must be a digit, going on in state next.
func (s *Scanner) digit(c byte, next uint8, want string) bool {
	if c < '0' || c > '9' {
		return s.fail(c, want)
	}
	s.keep(c)
	s.state = next
	return true
}

// stepSkip reads a byte of a literal, or of a value too deep to follow
// but by its brackets.
func (s *Scanner) stepSkip(c byte) bool {
	switch s.state {
	case stLiteral:
		if c != s.literal[0] {
			return s.fail(c, "invalid literal")
		}
		if s.literal = s.literal[1:]; s.literal == "" {
			s.endValue()
		}
		return true
	case stSkip:
		// Only bracket depth is followed here, but a byte that cannot be
		// in JSON outside a string still fails the message.
		switch c {
		case '"':
			s.state = stSkipString
		case '[', '{':
			s.skip++
		case ']', '}':
			if s.skip--; s.skip == 0 {
				s.endValue()
			}
		case ' ', '\t', '\n', '\r', ',', ':', '-', '+', '.', 'e', 'E', 't', 'r', 'u', 'f', 'a', 'l', 's', 'n':
		default:
			if c < '0' || c > '9' {
				return s.fail(c, "want a value")
			}
		}
		return true
	case stSkipString:
		switch {
		case c == '"':
			s.state = stSkip
		case c == '\\':
			s.state = stSkipEscape
		case c < 0x20:
			return s.fail(c, "control character in a string")
		}
		return true
	case stSkipEscape:
		s.state = stSkipString
		return true
	}
	return true
}

func containerName(c byte) string {
	if c == '{' {
		return "object"
	}
	return "array"
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// beginValue reads the first byte of a value.
func (s *Scanner) beginValue(c byte) bool {
	if s.top == 0 {
		s.top = c
	}
	s.capture = false
	if s.atTop() && s.member == memberID {
		s.idBuf, s.idLong, s.idFrac = s.idBuf[:0], false, false
		s.capture = c == '"' || c == '-' || '0' <= c && c <= '9'
	}
	switch {
	case c == '{' || c == '[':
		if len(s.stack) == MaxDepth {
			s.tooDeep = true
			s.state, s.skip = stSkip, 1
			return true
		}
		s.stack = append(s.stack, c)
		if c == '{' {
			s.state = stObjectFirst
		} else {
			s.state = stArrayFirst
		}
	case c == '"':
		s.state, s.inKey = stString, false
	case c == '-':
		s.state = stMinus
	case c == '0':
		s.state = stZero
	case '1' <= c && c <= '9':
		s.state = stInt
	case c == 't':
		s.state, s.literal = stLiteral, "rue"
	case c == 'f':
		s.state, s.literal = stLiteral, "alse"
	case c == 'n':
		s.state, s.literal = stLiteral, "ull"
	default:
		return s.fail(c, "want a value")
	}
	s.keep(c)
	return true
}

// keep adds c to the id or the top-level key being read.
func (s *Scanner) keep(c byte) {
	if s.capture {
		if len(s.idBuf) < MaxIDBytes {
			s.idBuf = append(s.idBuf, c)
		} else {
			s.idLong = true
		}
	}
	if s.state == stString || s.state == stEscape || s.state == stHex {
		if s.inKey && s.atTop() {
			if len(s.key) < maxKeyBytes {
				s.key = append(s.key, c)
			} else {
				s.keyLong = true
			}
		}
	}
}

// endString ends a string, a key or a value.
func (s *Scanner) endString() bool {
	if !s.inKey {
		s.endValue()
		return true
	}
	s.inKey = false
	s.state = stColon
	if s.atTop() {
		s.member = memberOther
		if !s.keyLong {
			// s.key holds the key's bytes and its closing quote.
			name := string(s.key[:len(s.key)-1])
			if bytes.IndexByte(s.key, '\\') >= 0 {
				raw := append([]byte{'"'}, s.key...)
				if json.Unmarshal(raw, &name) != nil {
					name = ""
				}
			}
			// Decoders match member names to fields case-insensitively.
			switch {
			case strings.EqualFold(name, "id"):
				s.member, s.res.HasID, s.res.ID = memberID, true, nil
			case strings.EqualFold(name, "method"):
				s.member, s.res.HasMethod = memberMethod, true
			}
		}
	}
	return true
}

// endValue is called when a value is complete.
func (s *Scanner) endValue() {
	s.skip = 0
	if s.capture {
		s.capture = false
		if !s.idLong {
			s.res.ID = append(json.RawMessage(nil), s.idBuf...)
			s.res.IntegerID = s.idBuf[0] == '"' || !s.idFrac
		}
	}
	if len(s.stack) == 0 {
		s.state = stEnd
		return
	}
	if s.atTop() {
		s.member = memberOther
	}
	s.state = stAfter
}

// close ends the innermost container.
func (s *Scanner) close() bool {
	s.stack = s.stack[:len(s.stack)-1]
	s.endValue()
	return true
}

// Result is what was found in the bytes written, taken as a whole message.
func (s *Scanner) Result() Result {
	r := s.res
	r.Object, r.Array = s.top == '{', s.top == '['
	r.Blank = s.top == 0 && s.syntax == nil
	switch {
	case s.tooDeep:
		r.Err = &Problem{CodeInvalidRequest, fmt.Sprintf("invalid request: the message nests deeper than %d levels", MaxDepth)}
	case s.syntax != nil:
		r.Err = s.syntax
	case s.Complete():
	case s.inNumber():
		r.Err = &Problem{CodeParseError, fmt.Sprintf("parse error: the message ends inside an %s after %d bytes", containerName(s.stack[len(s.stack)-1]), s.off)}
	case s.top == 0:
		r.Err = &Problem{CodeParseError, "parse error: the message is empty"}
	default:
		r.Err = &Problem{CodeParseError, fmt.Sprintf("parse error: the message ends after %d bytes, inside a value", s.off)}
	}
	return r
}
