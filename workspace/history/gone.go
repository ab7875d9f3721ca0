package history

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ctxls/ctxls/heuristics"
)

// A request may name an identifier that no longer exists: "Reintroduce
// `URLTypes`", "Restore the Hijacker on Response". No search of today's
// code finds it, but the history read its last change: the lines a
// commit removed held it, and the lines it added in the same file did
// not. So the hunks' removed and added lines are scanned for names as
// they are read, and each name a commit took out of a file is kept with
// the place it was taken from, followed to the head as spans are
// (tracker.commit): where it lived.

// goneName is a name a commit removed from a file, and where (the lines
// at the head where its removal was).
type goneName struct {
	name string
	def  bool // a removed line defined it (defines)
	rawSpan
}

// gone is a goneName in the tables: its file is a path id.
type gone struct {
	name string
	def  bool
	span
}

// Bounds on the names kept: a file's diff can remove a whole file's
// worth of them (a deleted module, generated code), and only the few a
// request could name are worth keeping.
const (
	maxGonePerFile   = 64
	maxGonePerCommit = 256
	// goneK is how many of the places a name was removed from count.
	goneK = 5
)

// diffNames records, for one file's diff, the names its removed lines
// held (with the hunk of the first) and those its added lines held.
type diffNames struct {
	minus map[string]int // name → index of its first hunk
	plus  map[string]bool
	def   map[string]bool // names a removed line defined
}

// scanNames adds the names of a diff line (a hunk's removed line when
// minus, else an added one) to d, in hunk hi.
func (d *diffNames) scanNames(line []byte, minus bool, hi int) {
	if minus {
		if name := defines(line); name != "" {
			if d.def == nil {
				d.def = map[string]bool{}
			}
			d.def[name] = true
		}
	}
	for i := 0; i < len(line); {
		c := line[i]
		if !identStart(c) {
			i++
			continue
		}
		j := i + identLen(line[i:])
		if j-i >= 3 && j-i <= 64 && nameShaped(line[i:j]) {
			name := string(line[i:j])
			switch {
			case !minus:
				if d.plus == nil {
					d.plus = map[string]bool{}
				}
				d.plus[name] = true
			case len(d.minus) < 4*maxGonePerFile:
				if d.minus == nil {
					d.minus = map[string]int{}
				}
				if _, ok := d.minus[name]; !ok {
					d.minus[name] = hi
				}
			}
		}
		i = j
	}
}

// defines is the name a line of code defines, "" for none: the first
// name on it after its indentation, keywords and a Go receiver, when the
// line starts with a definition's keyword or the name is assigned or
// annotated ("URLTypes = Union[...]", "def get(", "type Flusher
// interface", "func (r *Response) Flush()", "export const x =",
// "pub(crate) fn parse(", "timeout: float"). After modifiers alone
// (public, static, ...) the first name may be a type and the name defined
// the one after it ("public Response getBody()", "static final String
// BASE_URL =", "private fun close()"). A path (Token::Text, std::fs) uses
// its first name, it does not define it.
func defines(line []byte) string {
	s := bytes.TrimLeft(line, " \t")
	keyword, modifier := false, false
words:
	for {
		w, rest, _ := bytes.Cut(s, []byte(" "))
		switch {
		case definers[string(w)]:
			keyword, modifier = true, false
		case modifiers[string(w)] || bytes.HasPrefix(w, []byte("pub(")):
			keyword, modifier = true, true
		case modifier && statements[string(w)]: // async with, pub use
			return ""
		default:
			break words
		}
		s = bytes.TrimLeft(rest, " \t")
	}
	if keyword && bytes.HasPrefix(s, []byte("(")) { // a Go method's receiver
		if i := bytes.IndexByte(s, ')'); i >= 0 {
			s = bytes.TrimLeft(s[i+1:], " \t")
		}
	}
	j := identLen(s)
	if j == 0 {
		return ""
	}
	rest := s[j:]
	if modifier {
		// A type, then the name: "Map<K, V> cache", "String[] names".
		t := rest
		if bytes.HasPrefix(t, []byte("<")) {
			depth, k := 0, 0
			for ; k < len(t); k++ {
				if t[k] == '<' {
					depth++
				} else if t[k] == '>' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			t = t[min(k+1, len(t)):]
		}
		for bytes.HasPrefix(t, []byte("[]")) {
			t = t[2:]
		}
		if u := bytes.TrimLeft(t, " \t"); len(u) < len(t) {
			if k := identLen(u); k > 0 {
				return string(u[:k])
			}
		}
	}
	rest = bytes.TrimLeft(rest, " \t")
	if keyword || bytes.HasPrefix(rest, []byte("=")) && !bytes.HasPrefix(rest, []byte("==")) ||
		bytes.HasPrefix(rest, []byte(":")) && !bytes.HasPrefix(rest, []byte("::")) {
		return string(s[:j])
	}
	return ""
}

// definers are the keywords a definition's name follows; modifiers the
// ones a definer, a type or the name follows.
var (
	definers = map[string]bool{"def": true, "class": true, "type": true, "func": true, "fn": true, "fun": true, "const": true, "let": true,
		"var": true, "val": true, "interface": true, "struct": true, "enum": true, "trait": true, "module": true, "mod": true, "function": true}
	modifiers = map[string]bool{"export": true, "pub": true, "public": true, "private": true, "protected": true, "internal": true,
		"static": true, "final": true, "abstract": true, "async": true, "default": true, "unsafe": true, "override": true, "readonly": true, "declare": true}
	// statements are the words after a modifier that start no definition.
	statements = map[string]bool{"use": true, "with": true, "for": true, "import": true, "return": true, "await": true, "yield": true}
)

// identLen is the length of the name s starts with, 0 for none.
func identLen(s []byte) int {
	j := 0
	for j < len(s) && (identStart(s[j]) || j > 0 && heuristics.IsASCIIDigit(s[j])) {
		j++
	}
	return j
}

func identStart(c byte) bool { return c == '_' || heuristics.IsASCIILetter(c) }

// nameShaped reports whether a token is shaped like a name a request
// would write as one (heuristics.Analyze's identifiers): it holds an
// upper-case letter or an inner underscore. Plain lower-case words are
// left out: a request writing one is not naming code.
func nameShaped(t []byte) bool {
	for i, c := range t {
		if 'A' <= c && c <= 'Z' || c == '_' && i > 0 && i < len(t)-1 {
			return true
		}
	}
	return false
}

// removed are the names the diff took out of its file: in its removed
// lines and not in its added ones, in a stable order, at most
// maxGonePerFile (a diff removing more is a rewrite that says little of
// any one).
func (d *diffNames) removed() []string {
	var out []string
	for name := range d.minus {
		if !d.plus[name] {
			out = append(out, name)
		}
	}
	if len(out) > maxGonePerFile {
		return nil
	}
	sort.Strings(out)
	return out
}

// Gone is where name was last taken out of the code: the lines of the
// files (at the head) from which the latest commits that removed it
// removed it, each weighted by its commit's age, newest first; only the
// places whose removed lines defined it when there are any (the module
// that defined it, not the ones that imported or used it, where other
// sources look anyway). Names are matched as written (case and all).
func (h *History) Gone(name string) []Touch {
	if h == nil {
		return nil
	}
	var defs, uses []Touch
	for _, ci := range h.byGone[name] {
		c := &h.commits[ci]
		w := h.decay(c, pastHalfLife)
		for _, g := range c.gone {
			if g.name != name {
				continue
			}
			t := Touch{Path: h.paths[g.file], Start: int(g.start), End: int(g.end), Weight: w, Commit: ci}
			if g.def {
				defs = append(defs, t)
			} else {
				uses = append(uses, t)
			}
		}
		if len(defs)+len(uses) >= goneK {
			break
		}
	}
	if len(defs) > 0 {
		return defs
	}
	return uses
}

// GoneWhy says where a touch of Gone(name) comes from, in words.
func (h *History) GoneWhy(name string, t Touch) string {
	c := &h.commits[t.Commit]
	return fmt.Sprintf("`%s` was removed from %s by %.7s «%s»", name, t.Path, c.hash, strings.TrimSpace(c.subject))
}

// appendGone appends the names diff d took out of its file, placed at the
// head through its track t (before t takes d's own hunks): where the
// first hunk removing each was. A file gone since, or outside the
// directory (rel), keeps none.
func appendGone(out []goneName, d fileDiff, t *track, rel func(string) (string, bool)) []goneName {
	if t == nil || t.dead || len(d.names.minus) == 0 {
		return out
	}
	p, ok := rel(t.path)
	if !ok {
		return out
	}
	for _, name := range d.names.removed() {
		if len(out) >= maxGonePerCommit {
			break
		}
		hi := d.names.minus[name]
		if hi < 0 || hi >= len(d.hunks) {
			continue
		}
		if a, b, ok := t.forwardHunk(d.hunks[hi]); ok {
			out = append(out, goneName{name: name, def: d.names.def[name], rawSpan: rawSpan{path: p, start: a, end: b}})
		}
	}
	return out
}

// NamedCommit is the files of the commit whose hash starts with prefix
// (at least 7 hex digits, as "This reverts commit 2f64f68c…" or "Follow
// up 1490e6b" write it), as touches of whole files, each weighted 1/√n
// of its n files; none when the history does not hold it, or holds it
// only as a sweep.
func (h *History) NamedCommit(prefix string) []Touch {
	if h == nil || len(prefix) < 7 {
		return nil
	}
	prefix = strings.ToLower(prefix)
	for i := range h.commits {
		c := &h.commits[i]
		if !strings.HasPrefix(c.hash, prefix) {
			continue
		}
		var out []Touch
		for _, f := range c.files {
			out = append(out, Touch{Path: h.paths[f], Weight: 1 / math.Sqrt(float64(len(c.files))), Commit: int32(i)})
		}
		return out
	}
	return nil
}

// NamedWhy says, in words, why a touch of NamedCommit counts.
func (h *History) NamedWhy(t Touch) string {
	c := &h.commits[t.Commit]
	return fmt.Sprintf("changed by commit %.7s «%s», which your request names", c.hash, strings.TrimSpace(c.subject))
}
