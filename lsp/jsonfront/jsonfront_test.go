package jsonfront

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func nest(n int, open, close string) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

func TestCheck(t *testing.T) {
	deep := nest(MaxDepth+1, "[", "]")
	for _, tc := range []struct {
		name, msg string
		code      int64 // 0: accepted
		id        string
		hasMethod bool
		object    bool
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,2,{"b":null}]}}`, 0, "1", true, true},
		{"string id", ` {"id" : "abc\"d" , "method":"x"} `, 0, `"abc\"d"`, true, true},
		{"id after params", `{"method":"x","params":[[[]]],"id":-7.5e3}`, 0, "-7.5e3", true, true},
		{"object id", `{"id":{"a":1},"method":"x"}`, 0, "", true, true},
		{"escaped key", `{"\u0069d":9,"method":"x"}`, 0, "9", true, true},
		{"key case", `{"ID":9,"Method":"x"}`, 0, "9", true, true},
		{"last id wins", `{"id":9,"id":null}`, 0, "", false, true},
		{"nested id is not the id", `{"params":{"id":3},"method":"x"}`, 0, "", true, true},
		{"array", `[{"id":1}]`, 0, "", false, false},
		{"number", `5`, 0, "", false, false},
		{"null", `null`, 0, "", false, false},
		{"at the depth bound", nest(MaxDepth, "[", "]"), 0, "", false, false},

		{"empty", ``, CodeParseError, "", false, false},
		{"blank", " \r\n\t", CodeParseError, "", false, false},
		{"not json", `not json`, CodeParseError, "", false, false},
		{"open brace", `{`, CodeParseError, "", false, true},
		{"truncated after the id", `{"jsonrpc":"2.0","id":5,"method":`, CodeParseError, "5", true, true},
		{"two values", `{"id":1}{"id":2}`, CodeParseError, "1", false, true},
		{"nul", "{\"id\":1,\x00}", CodeParseError, "1", false, true},
		{"control in a string", "{\"id\":\"a\nb\"}", CodeParseError, "", false, true},
		{"bad escape", `{"id":"\x"}`, CodeParseError, "", false, true},
		{"bad number", `{"id":01}`, CodeParseError, "0", false, true},
		{"trailing comma", `{"id":1,}`, CodeParseError, "1", false, true},
		{"bad literal", `[tru]`, CodeParseError, "", false, false},
		{"mismatched", `[1}`, CodeParseError, "", false, false},
		{"lone minus", `-`, CodeParseError, "", false, false},

		{"too deep", deep, CodeInvalidRequest, "", false, false},
		{"too deep, id before", `{"jsonrpc":"1.0","id":"d","method":"m","params":` + deep + `}`, CodeInvalidRequest, `"d"`, true, true},
		{"too deep, id after", `{"method":"m","params":` + nest(3*MaxDepth, `{"a":`, `}`) + `,"id":42}`, CodeInvalidRequest, "42", true, true},
		{"too deep with brackets in strings", `{"params":[` + nest(MaxDepth, `["]",`, `]`) + `],"id":7}`, CodeInvalidRequest, "7", false, true},
		{"too deep, truncated", `{"id":3,"params":` + strings.Repeat("[", 5000), CodeInvalidRequest, "3", false, true},
		{"long id", `{"id":"` + strings.Repeat("x", MaxIDBytes) + `"}`, 0, "", false, true},
	} {
		r := Check([]byte(tc.msg))
		var code int64
		if r.Err != nil {
			code = r.Err.Code
		}
		if code != tc.code {
			t.Errorf("%s: code %d (%v), want %d", tc.name, code, r.Err, tc.code)
		}
		if string(r.ID) != tc.id {
			t.Errorf("%s: id %s, want %s", tc.name, r.ID, tc.id)
		}
		if r.HasMethod != tc.hasMethod || r.Object != tc.object {
			t.Errorf("%s: hasMethod %v object %v, want %v %v", tc.name, r.HasMethod, r.Object, tc.hasMethod, tc.object)
		}
		if r.Err != nil && (strings.Contains(r.Err.Message, "\n") || r.Err.Message == "") {
			t.Errorf("%s: the message is not one line: %q", tc.name, r.Err.Message)
		}
	}
	if r := Check([]byte(deep)); !strings.Contains(r.Err.Message, "nests deeper than 1000 levels") {
		t.Errorf("too deep: the message does not name the bound: %q", r.Err.Message)
	}
}

// TestDeepMessage: three million levels (6 MB) are refused in one pass,
// with the id, whether written whole or in pieces.
func TestDeepMessage(t *testing.T) {
	const n = 3_000_000
	msg := []byte(`{"jsonrpc":"2.0","id":"deep","method":"m","params":` + nest(n, "[", "]") + `}`)
	r := Check(msg)
	if r.Err == nil || r.Err.Code != CodeInvalidRequest || string(r.ID) != `"deep"` {
		t.Fatalf("got %+v %s", r.Err, r.ID)
	}
	var s Scanner
	for p := msg; len(p) > 0; {
		k := min(len(p), 4093)
		s.Write(p[:k])
		p = p[k:]
	}
	if r2 := s.Result(); r2.Err == nil || r2.Err.Message != r.Err.Message || string(r2.ID) != `"deep"` {
		t.Fatalf("in pieces: got %+v %s", r2.Err, r2.ID)
	}
	if cap(s.stack) > 2*MaxDepth {
		t.Errorf("the scanner kept %d levels", cap(s.stack))
	}
}

func TestReply(t *testing.T) {
	got := string(Reply(json.RawMessage(`"a"`), CodeParseError, `parse error: "x"`))
	want := `{"jsonrpc":"2.0","id":"a","error":{"code":-32700,"message":"parse error: \"x\""}}`
	if got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := string(Reply(nil, CodeInvalidRequest, "m")); !strings.Contains(got, `"id":null`) {
		t.Errorf("no id: %s", got)
	}
}

// TestAnswer: an invalid request is answered with its id, a response that
// is not valid is not answered, and a parse error always is.
func TestAnswer(t *testing.T) {
	req := Check([]byte(`{"jsonrpc":"1.0","id":4,"method":"x"}`))
	if got := string(req.Answer(CodeInvalidRequest, "m")); !strings.Contains(got, `"id":4`) {
		t.Errorf("a request: %s", got)
	}
	resp := Check([]byte(`{"jsonrpc":"1.0","id":4,"result":{}}`))
	if got := resp.Answer(CodeInvalidRequest, "m"); got != nil {
		t.Errorf("a response was answered: %s", got)
	}
	if got := string(resp.Answer(CodeParseError, "m")); !strings.Contains(got, `"id":4`) {
		t.Errorf("a parse error: %s", got)
	}
	if got := string(Check([]byte(`5`)).Answer(CodeInvalidRequest, NotObject)); !strings.Contains(got, `"id":null`) {
		t.Errorf("no id: %s", got)
	}
}

// FuzzCheck: the scanner agrees with encoding/json on what is valid JSON
// (for messages within MaxDepth), and on the top-level id; written in two
// pieces or whole, it finds the same.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[1,2,{"b":null}]}}`,
		`{"id":"a\u00e9\"","method":"x"}`, `[1,-0.5e+3,true,false,null,"x"]`, `{"ID":2}`,
		`{"id":01}`, `{"a" 1}`, `[1,]`, "\"\x01\"", `{"id":1}{"id":2}`, `  `, `1e`, `-`, `"\ud800"`,
		nest(MaxDepth+1, "[", "]"), `{"id":3,"p":` + nest(MaxDepth+2, `{"a":`, `}`) + `}`,
	} {
		f.Add([]byte(s), uint(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint) {
		r := Check(data)
		var s Scanner
		k := int(cut % uint(len(data)+1))
		s.Write(data[:k])
		s.Write(data[k:])
		if r2 := s.Result(); !bytes.Equal(r.ID, r2.ID) || (r.Err == nil) != (r2.Err == nil) {
			t.Fatalf("in two pieces at %d: %v %s, whole: %v %s", k, r2.Err, r2.ID, r.Err, r.ID)
		}
		if r.Err != nil && r.Err.Code == CodeInvalidRequest {
			return // too deep: encoding/json would not say
		}
		if valid := json.Valid(data); valid != (r.Err == nil) {
			t.Fatalf("json.Valid %v, Check %v", valid, r.Err)
		}
		if r.Err != nil {
			return
		}
		var probe struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(data, &probe) != nil || !r.Object {
			return
		}
		id := bytes.TrimSpace(probe.ID)
		scalar := len(id) > 0 && (id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') && len(id) <= MaxIDBytes
		if scalar && !bytes.Equal(id, r.ID) || !scalar && r.ID != nil {
			t.Fatalf("id %s, encoding/json reads %s", r.ID, probe.ID)
		}
	})
}
