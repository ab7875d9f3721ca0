package items

import (
	"bytes"
	"strings"
)

// This file parses the front matter of rule files (rules.go).

// frontMatter splits a rule file into its front matter (the YAML-like
// block between "---" lines at the top: "key: value", "key: [a, b]", or a
// key followed by "- item" lines), the 0-based line its body starts on, and
// the body.
func frontMatter(src []byte) (fields, int, []byte) {
	fm := fields{}
	rest, ok := cutLine(src, "---")
	if !ok {
		return fm, 0, src
	}
	line := 1
	var key string
	for len(rest) > 0 {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte{'\n'})
		line++
		t := strings.TrimSpace(string(bytes.TrimRight(l, "\r")))
		switch {
		case t == "---":
			return fm, line, rest
		case strings.HasPrefix(t, "- ") && key != "":
			fm[key] = append(fm[key], unquote(strings.TrimSpace(t[2:])))
		case t == "" || strings.HasPrefix(t, "#"):
		default:
			k, v, found := strings.Cut(t, ":")
			if !found {
				continue
			}
			key = strings.TrimSpace(k)
			v = strings.TrimSpace(v)
			fm[key] = nil
			if strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]") {
				for _, e := range splitList(v[1 : len(v)-1]) {
					if e = unquote(strings.TrimSpace(e)); e != "" {
						fm[key] = append(fm[key], e)
					}
				}
			} else if v != "" {
				fm[key] = []string{unquote(v)}
			}
		}
	}
	return fields{}, 0, src // no closing "---": not front matter
}

// cutLine cuts a first line equal to want (a trailing "\r" aside).
func cutLine(src []byte, want string) ([]byte, bool) {
	first, rest, found := bytes.Cut(src, []byte{'\n'})
	if !found || string(bytes.TrimSpace(first)) != want {
		return nil, false
	}
	return rest, true
}

// splitList splits a front matter list at its commas, but for those
// inside quotes, braces or brackets: "*.{ts,tsx}, docs/**" is two globs.
func splitList(v string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case (c == '"' || c == '\'') && strings.TrimSpace(v[start:i]) == "":
			quote = c // a quoted element; an apostrophe inside one is not
		case c == '{' || c == '[':
			depth++
		case (c == '}' || c == ']') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			out = append(out, v[start:i])
			start = i + 1
		}
	}
	return append(out, v[start:])
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// fields is a front matter: each key's values.
type fields map[string][]string

func (f fields) str(key string) string { return strings.Join(f[key], ", ") }

// listN is the first n of a key's values, each split at commas
// ("globs: a/**, b/**"); all of them when n < 0.
func (f fields) listN(key string, n int) []string {
	var out []string
	for _, v := range f[key] {
		for _, e := range splitList(v) {
			if len(out) == n {
				return out
			}
			if e = strings.TrimSpace(e); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

func (f fields) bool(key string) (value, set bool) {
	switch strings.ToLower(f.str(key)) {
	case "true", "yes":
		return true, true
	case "false", "no":
		return false, true
	}
	return false, false
}
