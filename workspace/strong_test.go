package workspace

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxls/ctxls/heuristics"
	"golang.org/x/tools/txtar"
)

// muxkit is a router with a middleware/ folder of several files, all
// worded alike ("middleware", "respond", "methods"), one of them the
// heartbeat endpoint (issue 22).
var muxkit = map[string]string{
	"go.mod": `module example.com/muxkit

go 1.22
`,
	"mux.go": `package muxkit

import "net/http"

// Mux routes requests by method and path, running its middleware stack
// before every handler.
type Mux struct {
	middlewares []func(http.Handler) http.Handler
	routes      map[string]map[string]http.Handler // method → pattern → handler
}

// Use appends middleware handlers to the Mux middleware stack. The
// middleware stack runs before the route's handler for every request.
func (mx *Mux) Use(middlewares ...func(http.Handler) http.Handler) {
	mx.middlewares = append(mx.middlewares, middlewares...)
}

// Method adds a route for the HTTP method and pattern; the methods GET,
// HEAD, POST, PUT and DELETE respond through the middleware stack.
func (mx *Mux) Method(method, pattern string, h http.Handler) {
	if mx.routes == nil {
		mx.routes = map[string]map[string]http.Handler{}
	}
	if mx.routes[method] == nil {
		mx.routes[method] = map[string]http.Handler{}
	}
	mx.routes[method][pattern] = h
}

// Head adds a route that responds to HEAD methods only.
func (mx *Mux) Head(pattern string, h http.HandlerFunc) { mx.Method("HEAD", pattern, h) }

// ServeHTTP responds to the request with the route's handler, wrapped in
// the middleware stack; unknown methods respond 405.
func (mx *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, ok := mx.routes[r.Method][r.URL.Path]
	if !ok {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	for i := len(mx.middlewares) - 1; i >= 0; i-- {
		h = mx.middlewares[i](h)
	}
	h.ServeHTTP(w, r)
}
`,
	"middleware/middleware.go": `package middleware

import "net/http"

// New will create a new middleware handler from a http.Handler. The
// middleware wraps the next handler of the middleware chain.
func New(h http.Handler) func(next http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(w, r)
		})
	}
}

// contextKey is a value for use with context.WithValue. It's used as a
// pointer so it fits in an interface{} without allocation. This technique
// for defining context keys was copied from Go 1.7's new use of context in
// net/http; middleware stores its values under these keys.
type contextKey struct {
	name string
}

func (k *contextKey) String() string {
	return "middleware context value " + k.name
}
`,
	"middleware/chain.go": `package middleware

import "net/http"

// Chain returns a Middlewares type from a slice of middleware handlers.
func Chain(middlewares ...func(http.Handler) http.Handler) Middlewares {
	return Middlewares(middlewares)
}

// Middlewares is a stack of middleware handlers that respond in order.
type Middlewares []func(http.Handler) http.Handler

// Handler builds and returns a http.Handler from the chain of middlewares,
// with the handler as the final handler of the middleware stack.
func (mws Middlewares) Handler(h http.Handler) http.Handler {
	return &ChainHandler{h, chain(mws, h), mws}
}

// ChainHandler is a http.Handler with support for handler composition
// and execution of the middleware methods.
type ChainHandler struct {
	Endpoint    http.Handler
	chain       http.Handler
	Middlewares Middlewares
}

func (c *ChainHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.chain.ServeHTTP(w, r)
}

// chain builds a http.Handler composed of an inline middleware stack and
// endpoint handler in the order they are passed: every middleware responds
// before the endpoint.
func chain(middlewares []func(http.Handler) http.Handler, endpoint http.Handler) http.Handler {
	if len(middlewares) == 0 {
		return endpoint
	}
	h := middlewares[len(middlewares)-1](endpoint)
	for i := len(middlewares) - 2; i >= 0; i-- {
		h = middlewares[i](h)
	}
	return h
}
`,
	"middleware/allowed_methods.go": `package middleware

import "net/http"

// AllowedMethods is a middleware that responds 405 to requests whose
// methods are not among the allowed methods (GET and HEAD by default).
func AllowedMethods(methods ...string) func(http.Handler) http.Handler {
	if len(methods) == 0 {
		methods = []string{"GET", "HEAD"}
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, m := range methods {
				if r.Method == m {
					next.ServeHTTP(w, r)
					return
				}
			}
			w.WriteHeader(http.StatusMethodNotAllowed)
		})
	}
}
`,
	"middleware/get_head.go": `package middleware

import "net/http"

// GetHead is a middleware that routes HEAD methods to the GET handler
// when the route has no HEAD handler, so that the middleware stack
// responds to HEAD requests like GET ones.
func GetHead(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == "HEAD" {
			r.Method = "GET"
		}
		next.ServeHTTP(w, r)
	})
}
`,
	"middleware/no_cache.go": `package middleware

import "net/http"

// NoCache is a middleware that sets headers so that every response to
// GET and HEAD methods is not cached by the client or a proxy.
func NoCache(h http.Handler) http.Handler {
	fn := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache, no-store, no-transform, must-revalidate, private, max-age=0")
		w.Header().Set("Pragma", "no-cache")
		h.ServeHTTP(w, r)
	}
	return http.HandlerFunc(fn)
}
`,
	"middleware/strip.go": `package middleware

import (
	"net/http"
	"strings"
)

// StripSlashes is a middleware that will match request paths with a
// trailing slash, strip it from the path and continue routing through the
// middleware stack; HEAD and GET methods respond the same.
func StripSlashes(next http.Handler) http.Handler {
	fn := func(w http.ResponseWriter, r *http.Request) {
		r.URL.Path = strings.TrimSuffix(r.URL.Path, "/")
		next.ServeHTTP(w, r)
	}
	return http.HandlerFunc(fn)
}
`,
	"middleware/heartbeat.go": `package middleware

import (
	"net/http"
	"strings"
)

// Heartbeat endpoint middleware useful to setting up a path like
// ` + "`" + `/ping` + "`" + ` that load balancers or uptime testing external services
// can make a request before hitting any routes.
func Heartbeat(endpoint string) func(http.Handler) http.Handler {
	f := func(h http.Handler) http.Handler {
		fn := func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "GET" && strings.EqualFold(r.URL.Path, endpoint) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusOK)
				w.Write([]byte("."))
				return
			}
			h.ServeHTTP(w, r)
		}
		return http.HandlerFunc(fn)
	}
	return f
}
`,
	"middleware/profiler.go": `package middleware

import (
	"expvar"
	"net/http"
	"net/http/pprof"
)

// Profiler is a convenient subrouter used for mounting net/http/pprof,
// with the expvar variables under /vars.
func Profiler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/pprof/", pprof.Index)
	mux.Handle("/vars", expvarHandler())
	return mux
}

// expvarHandler writes the published expvar variables as JSON.
func expvarHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		expvar.Do(func(kv expvar.KeyValue) { w.Write([]byte(kv.Key)) })
	})
}
`,
}

// muxkitRepo is muxkit with a history of middleware commits about HEAD
// methods that touched every middleware file but the heartbeat's.
func muxkitRepo(t *testing.T) *histRepo {
	r := newHistRepo(t)
	// A library has hundreds of symbols, so that a word only one holds
	// is as rare as it can be: status codes, one constant each.
	var codes strings.Builder
	codes.WriteString("package status\n\nconst (\n")
	for i := range 300 {
		fmt.Fprintf(&codes, "\t// Code%d is reply code %d.\n\tCode%d = %d\n", i, i, i, i)
	}
	codes.WriteString(")\n")
	muxkit["internal/status/codes.go"] = codes.String()
	r.commit("initial import", muxkit)
	touch := func(msg string, paths ...string) {
		files := map[string]string{}
		for _, p := range paths {
			muxkit[p] += "\n// " + strings.Fields(msg)[1] + "\n"
			files[p] = muxkit[p]
		}
		r.commit(msg, files)
	}
	touch("middleware: GetHead responds to HEAD methods with the GET handler", "middleware/get_head.go", "mux.go")
	touch("middleware: AllowedMethods responds 405 to methods not allowed", "middleware/allowed_methods.go", "mux.go")
	touch("middleware: chain the middleware handlers in order", "middleware/chain.go")
	touch("middleware: respond to HEAD methods in the middleware stack as well", "middleware/get_head.go", "middleware/chain.go")
	touch("middleware: NoCache sets headers on HEAD responses too", "middleware/no_cache.go")
	touch("middleware: StripSlashes keeps the methods of the request", "middleware/strip.go")
	return r
}

// A request naming a folder ("middleware:") and, once, a symbol
// ("Heartbeat") gets that symbol first, though history, the file ranking
// and the embedder all rank the folder's other middleware in the middle:
// an exact, rare name is not outvoted by a consensus of weaker evidence.
func TestSelectStrongNameBeatsConsensus(t *testing.T) {
	r := muxkitRepo(t)
	ws := histWorkspace(t, r.dir)
	res := selDo(t, ws, &SelectRequest{Query: "middleware: Heartbeat middleware to respond to HEAD methods as well", Limit: 10})
	if len(res.Items) == 0 || res.Items[0].ID != "sym:middleware/heartbeat.go::Heartbeat" {
		t.Errorf("want Heartbeat first, got %q", selIDs(res))
	}
	// The consensus is real: without the name, history's middleware
	// leads, and Heartbeat is not first.
	res = selDo(t, ws, &SelectRequest{Query: "middleware: respond to HEAD methods as well", Limit: 10})
	if it := selFind(res, "sym:middleware/get_head.go::GetHead"); it == nil || it.Signals["history"].Rank == 0 {
		t.Errorf("without the name, GetHead has no history rank: %q", selIDs(res))
	}
	if len(res.Items) > 0 && res.Items[0].ID == "sym:middleware/heartbeat.go::Heartbeat" {
		t.Errorf("without the name Heartbeat is still first: the fixture no longer tells the name apart")
	}
}

// A commit scope that names a file by its stem ("fix(static): …" for
// middleware/static.go) puts that file's code first, though another
// file's words ("matched", "handler", "404") match the rest better.
func TestSelectScopeStemBeatsWords(t *testing.T) {
	ws, _ := selOpen(t, `
-- router.go --
package web

import "net/http"

// Router matches a request to its route; a matched route's handler runs,
// an unmatched one answers 404 with the not-found handler.
type Router struct {
	routes   map[string]http.Handler
	notFound http.Handler
}

// Find returns the matched handler for a path, or the 404 handler when no
// route is matched.
func (r *Router) Find(path string) http.Handler {
	if h, ok := r.routes[path]; ok {
		return h
	}
	return r.notFound
}
-- middleware/static.go --
package middleware

import (
	"net/http"
	"os"
	"path/filepath"
)

// Static serves files under root; a path with no file falls through to
// the next handler.
func Static(root string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			name := filepath.Join(root, filepath.Clean(r.URL.Path))
			if _, err := os.Stat(name); err != nil {
				next.ServeHTTP(w, r)
				return
			}
			http.ServeFile(w, r, name)
		})
	}
}
`+loggerGo, Options{})
	wantFirstOnlyWith(t, ws, "middleware/static.go", "fix(static): preserve matched handler 404s", "preserve matched handler 404s")
}

// A file named outright ("fix typos in heartbeat.go") leads, though the
// middleware history ranks the folder's other files above it.
func TestSelectNamedFileBeatsHistory(t *testing.T) {
	r := muxkitRepo(t)
	ws := histWorkspace(t, r.dir)
	res := selDo(t, ws, &SelectRequest{Query: "fix typos in the comments of heartbeat.go", Limit: 10})
	if files := selFiles(res); len(files) == 0 || files[0] != "middleware/heartbeat.go" {
		t.Fatalf("want middleware/heartbeat.go first, got %q", files)
	}
	if s := res.Items[0].Strong; s == nil || s.By != "file" || !(s.Bonus > 0) {
		t.Errorf("the first item should say the request names its file, got %+v", s)
	}
}

// gzipkit has a gzip encoder at its root and a decompressing middleware in
// middleware/, which the root's words match about as well.
const gzipkit = `
-- encoding.go --
package web

import (
	"compress/gzip"
	"io"
)

// GzipWriter compresses a response with gzip, resetting the content
// length header, which no longer holds after compression.
func GzipWriter(w io.Writer) *gzip.Writer { return gzip.NewWriter(w) }

// ResetContentLength drops a content length that compression made wrong.
func ResetContentLength(h map[string][]string) { delete(h, "Content-Length") }

// GzipReader reads a gzip body for decompression.
func GzipReader(r io.Reader) (*gzip.Reader, error) { return gzip.NewReader(r) }
-- middleware/decompress.go --
package middleware

import (
	"compress/gzip"
	"net/http"
)

// Decompress is a middleware that inflates a request body sent with
// Content-Encoding gzip.
func Decompress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err == nil {
				r.Body = zr
			}
		}
		next.ServeHTTP(w, r)
	})
}
` + loggerGo

// A scope naming a folder ("fix(middleware): …") puts the best match
// under the folder first, where the request's words alone prefer a file
// outside it.
func TestSelectScopeFolderNarrowsWords(t *testing.T) {
	ws, _ := selOpen(t, gzipkit, Options{})
	res := wantFirstOnlyWith(t, ws, "middleware/decompress.go", "fix(middleware): reset content length after gzip decompression", "reset content length after gzip decompression")
	if it := selFind(res, "sym:middleware/decompress.go::Decompress"); it == nil || it.Strong == nil || it.Strong.By != "folder" {
		t.Errorf("Decompress should carry the folder's bonus, got %+v", it)
	}
}

// A follow-up that names its own target ("now do the same for
// powershell") is not pulled back to the file the earlier turn's scope
// named ("fish: …" names the fish docs page by its stem):
// cobra/followup-powershell-escape.
func TestSelectFollowUpScopeStaysInTheConversation(t *testing.T) {
	ws, _ := selOpen(t, `
-- fish_completions.go --
package cobra

// GenFishCompletion writes the fish script.
func GenFishCompletion(name string) string { return name }
-- powershell_completions.go --
package cobra

// GenPowerShellCompletion writes PowerShell completions with their
// descriptions.
func GenPowerShellCompletion(name string) string { return name }
-- bash_completions.go --
package cobra

// GenBashCompletion writes bash completions.
func GenBashCompletion(name string) string { return name }
-- site/completions/fish.md --
# Generating fish completions

Fish completions show descriptions; dollar signs and quotes in them are
escaped. Load them with `+"`source`"+`.
`, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "now do the same for powershell",
		History: []string{"fish: escape dollar signs and quotes in completion descriptions"}})
	if files := selFiles(res); len(files) == 0 || files[0] != "powershell_completions.go" {
		t.Errorf("want powershell_completions.go first, got %q", files)
	}
}

// A follow-up with no words of its own ("ok, now make that change") asks
// what the last turn asked: the name it wrote as code wins as it does for
// the turn itself, over history's middling consensus.
func TestSelectVagueFollowUpKeepsTheStrongName(t *testing.T) {
	r := muxkitRepo(t)
	ws := histWorkspace(t, r.dir)
	res := selDo(t, ws, &SelectRequest{Query: "ok, now make that change", Limit: 10,
		History: []string{"middleware: Heartbeat middleware to respond to HEAD methods as well"}})
	if len(res.Items) == 0 || res.Items[0].ID != "sym:middleware/heartbeat.go::Heartbeat" {
		t.Errorf("want Heartbeat first, got %q", selIDs(res))
	}
	if it := selFind(res, "sym:middleware/heartbeat.go::Heartbeat"); it == nil || it.Strong == nil || it.Strong.Bonus <= 0 {
		t.Errorf("Heartbeat has no strong-match bonus from the conversation's name")
	}
}

// loggerGo is a middleware both scope fixtures hold beside the one their
// request is about.
const loggerGo = `-- middleware/logger.go --
package middleware

import (
	"log"
	"net/http"
)

// Logger logs each request's method and path before the next handler.
func Logger(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Println(r.Method, r.URL.Path)
		next.ServeHTTP(w, r)
	})
}
`

// kitRepo is a library whose releases each bump the version in
// version.go beside a changelog entry and notes in the server's code, and
// whose other commits change the server: history ranks the server and
// the changelog above the one line a release changes.
func kitRepo(t *testing.T) *histRepo {
	r := newHistRepo(t)
	files := map[string]string{
		"version.go": "package kit\n\nconst (\n\t// Version of kit\n\tVersion = \"1.0.0\"\n)\n",
		"server.go": `package kit

// Server serves the kit's endpoints.
type Server struct{ addr string }

// Start listens on the server's address.
func (s *Server) Start() error { return nil }

// Release frees what the server holds.
func (s *Server) Release() {}
`,
		"example/example.go": "package example\n\n// Config is what the example runs with.\nvar Config = map[string]string{\"name\": \"demo\", \"version\": \"0.0.1\"}\n",
		"CHANGELOG.md":       "# Changelog\n",
	}
	r.commit("initial import", files)
	release := func(v, prev string) {
		files["version.go"] = strings.Replace(files["version.go"], prev, v, 1)
		files["CHANGELOG.md"] += "\n## v" + v + "\n\n- changes for release v" + v + "\n"
		files["server.go"] += "\n// changed in v" + v + "\n"
		r.commit("Changelog for v"+v, map[string]string{"version.go": files["version.go"], "CHANGELOG.md": files["CHANGELOG.md"], "server.go": files["server.go"]})
	}
	fix := func(msg string) {
		files["server.go"] += "\n// " + msg + "\n"
		r.commit(msg, map[string]string{"server.go": files["server.go"]})
	}
	fix("server: start listening before the release of the old address")
	release("1.1.0", "1.0.0")
	fix("server: release the address on stop")
	release("1.2.0", "1.1.0")
	fix("changelog: note the server's release behaviour")
	release("1.3.0", "1.2.0")
	return r
}

// A release request ("Changelog for v1.3.1") gets the code that declares
// the version it replaces first: the history of releases ranks the
// changelog and the server's code, which every release also touched,
// and no word of the request names version.go.
func TestSelectReleaseFindsVersionDeclaration(t *testing.T) {
	r := kitRepo(t)
	ws := histWorkspace(t, r.dir)
	res := selDo(t, ws, &SelectRequest{Query: "Changelog for v1.3.1", Limit: 10})
	if files := selFiles(res); len(files) == 0 || files[0] != "version.go" {
		t.Errorf("want version.go first, got %q", files)
	}
	if it := selFind(res, "sym:version.go::Version"); it == nil || it.Strong == nil || it.Strong.By != "version" {
		t.Errorf("want Version's strong match by version, got %+v", it)
	}
	// A version literal that a release of v1.3.1 does not replace (an
	// example's "0.0.1"), and a release far from the declared one, get
	// nothing.
	if it := selFind(res, "sym:example/example.go::Config"); it != nil && it.Strong != nil {
		t.Errorf("the example's version literal got a strong match: %+v", it.Strong)
	}
	res = selDo(t, ws, &SelectRequest{Query: "Changelog for v3.0.0", Limit: 10})
	if it := selFind(res, "sym:version.go::Version"); it != nil && it.Strong != nil {
		t.Errorf("v1.3.0 is no version v3.0.0 replaces, got a strong match: %+v", it.Strong)
	}
}

// webVersionBlock is a web framework whose version is declared in a
// block of constants beside its website and a banner (labstack/echo's
// echo.go), and whose compatibility table lists the versions it tested.
const webVersionBlock = `
-- echo.go --
package echo

const (
	// Version of Echo, as the changelog names its releases
	Version = "4.13.4"
	website = "https://echo.labstack.com"
	banner  = ` + "`" + `
   ____    __
  / __/___/ /  ___
 / _// __/ _ \/ _ \
/___/\__/_//_/\___/ %s
High performance, minimalist Go web framework
` + "`" + `
)

// Start starts the server and prints the banner.
func Start(addr string) error { return nil }
-- compat.go --
package echo

// tested are the releases the compatibility suite ran against.
var tested = []string{
	"4.12.0",
	"4.13.0",
	"4.13.4",
	"4.14.0",
	"4.15.0",
}
-- CHANGELOG.md --
# Changelog

## v4.13.4 - 2025-06-01

- fixes for the server
`

// A release request ("Changelog for 4.14.0") gets a block of constants
// that declares the version it replaces, however long the block (the
// website and a banner beside it), when the block holds no other
// version; a table of several versions is no declaration.
func TestSelectReleaseFindsVersionInConstBlock(t *testing.T) {
	ws, _ := selOpen(t, webVersionBlock, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Changelog for 4.14.0", Limit: 10})
	if it := selFind(res, "sym:echo.go::Version"); it == nil || it.Strong == nil || it.Strong.By != "version" {
		t.Errorf("want the const block's strong match by version, got %+v in %q", it, selIDs(res))
	}
	if files := selFiles(res); len(files) == 0 || files[0] != "echo.go" {
		t.Errorf("want echo.go first, got %q", files)
	}
	if it := selFind(res, "sym:compat.go::tested"); it != nil && it.Strong != nil {
		t.Errorf("a table of versions got a strong match: %+v", it.Strong)
	}
}

// webVersionFile is the framework after its version moved to a file of
// its own, which no word of a release request matches and no past
// release touched.
const webVersionFile = `
-- version.go --
package echo

const (
	// Version of Echo
	Version = "5.0.0-alpha"
)
-- echo.go --
package echo

// Start starts the server; each release notes its changes in the changelog.
func Start(addr string) error { return nil }
-- CHANGELOG.md --
# Changelog

## v4.15.0 - 2025-12-01

- the last release of v4
`

// A release request finds the declaration of the version it replaces by
// its name (Version, VERSION) where no source ranks its
// file: "Changelog for v5.0.0 release" gets version.go, which declares
// 5.0.0-alpha.
func TestSelectReleaseFindsVersionNoSourceRanks(t *testing.T) {
	// Many functions the embedder ranks before version.go's constants,
	// so that no source ranks version.go at all.
	var gen strings.Builder
	gen.WriteString("package gen\n")
	for i := range 120 {
		fmt.Fprintf(&gen, "\n// Release%d notes release %d.0.0 in the changelog.\nfunc Release%d() int { return %d }\n", i, i, i, i)
	}
	ws, _ := selOpen(t, "-- gen/releases.go --\n"+gen.String()+webVersionFile, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Changelog for v5.0.0 release", Limit: 10})
	it := selFind(res, "sym:version.go::Version")
	if it == nil || it.Strong == nil || it.Strong.By != "version" {
		t.Fatalf("want version.go's Version with its strong match by version, got %+v in %q", it, selIDs(res))
	}
	// Its why says what put it there, not that it is only loosely like
	// the request.
	if !strings.HasPrefix(it.Why, "declares the version the release your request names replaces") {
		t.Errorf("want Version's why to say it declares the version the release replaces, got %q", it.Why)
	}
}

// A version the body of a request names in passing (the release a bug
// was reported against, "since Go 1.22") does not make it a release:
// only its first line says what it asks for, as a past commit's subject
// does for history. "server: Start returns the listener's error" with
// "Reported against v1.3.1." below gets the server's Start first, not
// the version declaration v1.3.1 would replace.
func TestSelectVersionInBodyIsNoRelease(t *testing.T) {
	r := kitRepo(t)
	ws := histWorkspace(t, r.dir)
	res := selDo(t, ws, &SelectRequest{Query: "server: Start returns the listener's error\n\nReported against v1.3.1 on linux.", Limit: 10})
	if files := selFiles(res); len(files) == 0 || files[0] != "server.go" {
		t.Errorf("want server.go first, got %q", files)
	}
	if it := selFind(res, "sym:version.go::Version"); it != nil && it.Strong != nil {
		t.Errorf("a version in the body made the request a release: %+v", it.Strong)
	}
}

// buildJS is a library's build configuration, rollup.config.js, beside
// code that merges request configs: "config" is common, "rollup" rare.
const buildJS = `
-- rollup.config.js --
import terser from "rollup-plugin-terser";

// buildConfig is one bundle's build: minified or not.
export const buildConfig = ({minified, ...config}) => ({
  ...config,
  plugins: [minified && terser()],
});
-- lib/mergeConfig.js --
// mergeConfig merges two request configs; the second config wins.
export default function mergeConfig(config1, config2) {
  return {...config1, ...config2};
}
-- lib/defaults.js --
// defaults is the default config of every request: its headers.
export const defaults = {headers: {common: {}}, config: {}};
-- lib/headers.js --
// headersFromConfig reads the license and other headers of a config.
export function headersFromConfig(config) {
  return config.headers;
}
`

// A file's stem of two words ("rollup.config") is a name of two parts:
// the request "adjust rollup config to preserve the license header"
// names rollup.config.js by its rare word and its common one together,
// and the file's code takes the stem's bonus. (The dot parts the stem's
// words as two names, so its last word was read as the joined form of
// the others, and only "config", common, counted.) The request's two
// words in a row spell the stem out, so the namer gives it a full name's
// bonus (TestSelectDottedNameSpeltOut).
func TestSelectDottedStemIsNamed(t *testing.T) {
	ws, _ := selOpen(t, buildJS, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "adjust rollup config to preserve the license header in minified bundles"})
	it := selFind(res, "sym:rollup.config.js::buildConfig")
	if it == nil || it.Strong == nil || it.Strong.By != "stem" {
		t.Errorf("want buildConfig's strong match by its file's stem, got %+v in %q", it, selIDs(res))
	}
}

// echoMiddleware is a middleware folder whose files all speak of
// errors and middleware; one of them is the body dump middleware
// (BodyDump), another limits the body's size, and debug helpers dump
// bodies and errors in so many words.
const echoMiddleware = `
-- go.mod --
module example.com/web

go 1.22
-- middleware/logger.go --
package middleware

// LoggerConfig configures the logger middleware: how errors of the
// middleware chain are logged.
type LoggerConfig struct {
	// LogErrors logs the errors every middleware and handler returns.
	LogErrors bool
}

// Logger is the logger middleware: it logs each request and the errors
// the next middleware returns, then returns the errors to the caller.
func Logger(config LoggerConfig) func(next func() error) func() error {
	return func(next func() error) func() error {
		return func() error {
			err := next()
			if err != nil && config.LogErrors {
				println("middleware errors:", err.Error())
			}
			return err
		}
	}
}
-- middleware/recover.go --
package middleware

import "errors"

// Recover is the middleware that turns panics into errors: a panic in
// the next middleware is recovered and returned as one of the errors.
func Recover(next func() error) func() error {
	return func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = errors.New("middleware recovered from panic")
			}
		}()
		return next()
	}
}
-- middleware/body_limit.go --
package middleware

// BodyLimit is the middleware that rejects a request whose body is
// larger than limit bytes.
func BodyLimit(limit int64) func(size int64) bool {
	return func(size int64) bool { return size <= limit }
}
-- middleware/debug.go --
package middleware

// DumpRequest writes a dump of the request body to the debug log when a
// middleware returns errors.
func DumpRequest(body []byte) string { return "request body dump: " + string(body) }

// DumpResponse writes a dump of the response body to the debug log.
func DumpResponse(body []byte) string { return "response body dump: " + string(body) }

// DumpErrors writes a dump of the errors and the body that caused them.
func DumpErrors(body []byte, errs []error) string { return "errors dump: " + string(body) }
-- middleware/body_dump.go --
package middleware

// BodyDump is the middleware that passes the request and response
// payloads to handler.
func BodyDump(handler func(req, res []byte)) func(req, res []byte) {
	return func(req, res []byte) {
		handler(req, res)
	}
}
`

// The code both the lexical source and the embedder rank first ("Panic
// MW: …" for Recover, which turns panics into errors) comes first,
// though history points at a file past commits described in the same
// words, whose code holds none of them.
func TestSelectContentAgreementBeatsHistory(t *testing.T) {
	r := newHistRepo(t)
	files := map[string]string{}
	for _, f := range txtar.Parse([]byte(echoMiddleware)).Files {
		files[f.Name] = string(f.Data)
	}
	files["middleware/format.go"] = `package middleware

// Format lays out a log line: time, method, path and status.
func Format(time, method, path string, status int) string {
	return time + " " + method + " " + path
}
`
	r.commit("initial import", files)
	for i, msg := range []string{"format: return a custom error line with the stack trace", "format: custom trace of errors"} {
		files["middleware/format.go"] += fmt.Sprintf("// revision %d\n", i+1)
		r.commit(msg, map[string]string{"middleware/format.go": files["middleware/format.go"]})
	}
	ws := histWorkspace(t, r.dir)
	res := selDo(t, ws, &SelectRequest{Query: "Panic MW: will now return a custom error with the stack trace", Limit: 10})
	if files := selFiles(res); len(files) < 2 || files[0] != "middleware/recover.go" {
		t.Errorf("want middleware/recover.go first, got %q", files)
	}
	// The history is real: the file it names comes right after.
	if it := selFind(res, "sym:middleware/format.go::Format"); it == nil || it.Signals["history"].Rank != 1 {
		t.Errorf("want Format with history's first rank, got %+v", it)
	}
}

// A file's dotted name spelt out as words ("adjust rollup config") names
// it as its stem would: rollup.config.js leads though the request's word
// "config" matches the library's configuration code better.
func TestSelectDottedNameSpeltOut(t *testing.T) {
	ws, _ := selOpen(t, `
-- lib/core/mergeConfig.js --
// mergeConfig merges two request config objects into a new config, the
// second config's values winning; header config merges deeply.
export default function mergeConfig(config1, config2) {
  const config = {};
  for (const key of Object.keys(config1)) config[key] = config1[key];
  for (const key of Object.keys(config2)) config[key] = config2[key];
  return config;
}
-- lib/core/defaultConfig.js --
// defaultConfig is the config a request starts from: its header config,
// its timeout config and its adapter config.
export const defaultConfig = { headers: {}, timeout: 0, adapter: 'xhr' };
-- rollup.config.js --
import terser from '@rollup/plugin-terser';

// buildBundle builds one bundle of the library for a format.
function buildBundle(input, file, format, minified) {
  return { input, output: { file, format }, plugins: minified ? [terser()] : [] };
}

export default [buildBundle('index.js', 'dist/axios.js', 'umd', false)];
`, Options{})
	wantFirstOnlyWith(t, ws, "rollup.config.js", "chore: adjust rollup config to preserve the license header", "chore: adjust config to preserve the license header")
}

// A test's dotted name spelt out ("app test": lib/app.test.js) keeps only
// its mention, as when the test is named outright: beside it, a request
// most often describes the code it changes. Code ("rollup config") and a
// configuration file ("tsconfig build": tsconfig.build.json) take the
// stem's bonus, and naming the file outright as well does not take that
// away.
func TestSelectDottedNameCategories(t *testing.T) {
	ws, _ := selOpen(t, `
-- lib/app.js --
// handle answers one request of the app with its body.
export function handle(req) { return req.body || ""; }
-- lib/app.test.js --
// testHandle checks the app's answer to an empty body.
export function testHandle() { return handle({}) === ""; }
-- rollup.config.js --
// buildBundle builds one bundle of the app for a format.
export function buildBundle(format) { return { format }; }
-- tsconfig.build.json --
{"compilerOptions": {"module": "esnext", "outDir": "dist"}}
`, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "fix the app test for empty bodies"})
	if it := selFind(res, "sym:lib/app.test.js::testHandle"); it == nil || it.Strong != nil && it.Strong.By == "stem" {
		t.Errorf("want the test returned without the stem's bonus, got %+v", it)
	}
	res = selDo(t, ws, &SelectRequest{Query: "adjust the tsconfig build output for esm modules"})
	if i := slices.IndexFunc(res.Items, func(it Selected) bool { return it.Path == "tsconfig.build.json" }); i < 0 || res.Items[i].Strong == nil || res.Items[i].Strong.By != "stem" {
		t.Errorf("want tsconfig.build.json with the stem's bonus, got %q", selIDs(res))
	}
	var bonus []float64
	for _, q := range []string{"adjust rollup config for esm", "adjust rollup config in rollup.config.js for esm"} {
		res = selDo(t, ws, &SelectRequest{Query: q})
		it := selFind(res, "sym:rollup.config.js::buildBundle")
		if it == nil || it.Strong == nil || it.Strong.By != "stem" {
			t.Fatalf("%q: want buildBundle with the stem's bonus, got %+v", q, it)
		}
		bonus = append(bonus, it.Strong.Bonus)
	}
	if bonus[1] < bonus[0] {
		t.Errorf("naming rollup.config.js outright as well lowers its bonus: %.4f against %.4f spelt out alone", bonus[1], bonus[0])
	}
}

// A test's dotted name spelt out ("app test") mentions the file: the
// reference graph leads from it to the code it calls, decodeFrame, which
// then comes before encodeFrame (which only the embedder finds, a little
// better); "app tests" spells no file, and leaves them the other way.
func TestSelectDottedNameIsMentioned(t *testing.T) {
	ws, _ := selOpen(t, `
-- lib/app.js --
// handle answers one request of the app with its body.
export function handle(req) { return req.body || ""; }
-- lib/app.test.js --
// testHandle checks the app's answer to an empty body.
export function testHandle() { return handle(decodeFrame("")) === ""; }
-- lib/wire.js --
// decodeFrame reads one frame off the wire.
export function decodeFrame(raw) { return {raw}; }
-- lib/other.js --
// encodeFrame writes one frame onto the wire.
export function encodeFrame(raw) { return raw; }
`, Options{})
	for q, decodeFirst := range map[string]bool{"fix the app test for empty bodies": true, "fix the app tests for empty bodies": false} {
		ids := selIDs(selDo(t, ws, &SelectRequest{Query: q}))
		d, e := slices.Index(ids, "sym:lib/wire.js::decodeFrame"), slices.Index(ids, "sym:lib/other.js::encodeFrame")
		if d < 0 || e < 0 || (d < e) != decodeFirst {
			t.Errorf("%q: want decodeFrame before encodeFrame %v, got %q", q, decodeFirst, ids)
		}
	}
}

// The files a dotted name spelt out finds follow the index: a
// configuration file opened new in the editor is named by "rollup
// config" at the next select, and gone again once it is closed unsaved.
func TestSelectDottedNameFollowsEdits(t *testing.T) {
	ws, root := selOpen(t, `
-- lib/mergeConfig.js --
// mergeConfig merges two request configs into a new config.
export default function mergeConfig(config1, config2) { return {...config1, ...config2}; }
`, Options{})
	const q = "adjust rollup config to preserve the license header"
	if files := selFiles(selDo(t, ws, &SelectRequest{Query: q})); slices.Contains(files, "rollup.config.js") {
		t.Fatalf("rollup.config.js before it exists: %q", files)
	}
	uri := selPath(root, "rollup.config.js")
	if err := ws.DidOpen(uri, 1, "// buildBundle builds one bundle.\nexport function buildBundle(format) { return { format }; }\n"); err != nil {
		t.Fatal(err)
	}
	res := selDo(t, ws, &SelectRequest{Query: q})
	if it := selFind(res, "sym:rollup.config.js::buildBundle"); it == nil || it.Strong == nil || it.Strong.By != "stem" {
		t.Errorf("want the opened rollup.config.js named by its stem, got %+v in %q", it, selIDs(res))
	}
	if err := ws.DidClose(uri); err != nil {
		t.Fatal(err)
	}
	if files := selFiles(selDo(t, ws, &SelectRequest{Query: q})); slices.Contains(files, "rollup.config.js") {
		t.Errorf("rollup.config.js after it was closed unsaved: %q", files)
	}
}

// With no file open, a symbol far ahead of the rest in the lexical
// source (Nearest holds "ties", "half", "even" that no other code does)
// comes before one that several sources rank in the middle: Total's file
// is history's first (past commits said "invoice total") and whole-file
// BM25's, and its words are lexical's second. Reciprocal ranks alone
// keep only the order, not the size of Nearest's lead.
func TestSelectLexicalLeadBeatsMiddlingConsensus(t *testing.T) {
	r := newHistRepo(t)
	files := map[string]string{
		"invoice/total.go": `package invoice

// Total sums the invoice lines into the invoice total in cents.
func Total(lines []int64) int64 {
	var sum int64
	for _, l := range lines {
		sum += l
	}
	return sum
}

// Tax adds the tax of an invoice total, in cents.
func Tax(total int64, rate float64) int64 { return total + int64(float64(total)*rate) }

// Discount takes a discount off an invoice total, in cents.
func Discount(total, off int64) int64 { return total - off }
`,
		"money/round.go": `package money

import "math"

// Nearest turns an amount into whole cents. Ties at half a cent go to the
// even neighbour (banker's rounding), so that halves do not drift upward.
func Nearest(amount float64) int64 { return int64(math.RoundToEven(amount * 100)) }
`,
		"money/format.go": `package money

// Format prints cents as a decimal amount.
func Format(cents int64) string { return "" }
`,
	}
	r.commit("initial import", files)
	for _, msg := range []string{"invoice: totals in cents", "invoice: fix the invoice total", "invoice: total of cents"} {
		files["invoice/total.go"] += "// " + msg + "\n"
		r.commit(msg, map[string]string{"invoice/total.go": files["invoice/total.go"]})
	}
	ws := histWorkspace(t, r.dir)
	query := "invoice totals: ties at half a cent must go to the even cent"
	res := selDo(t, ws, &SelectRequest{Query: query, Limit: 8, IncludeItems: CodeOnly()})
	if len(res.Items) == 0 || res.Items[0].ID != "sym:money/round.go::Nearest" {
		t.Fatalf("want Nearest first, got %q", selIDs(res))
	}
	if l := res.Items[0].LeadBonus; !(l > 0) {
		t.Errorf("Nearest's lead bonus is %v, want it above 0", l)
	}
	// The consensus is real: Total is history's first and lexical's second.
	if it := selFind(res, "sym:invoice/total.go::Total"); it == nil || it.Signals["history"].Rank != 1 || it.Signals["lexical"].Rank != 2 {
		t.Errorf("want Total with history #1 and lexical #2, got %+v", it)
	}
	// Beside an open file the editor's sources decide: no lead counts.
	res = selDo(t, ws, &SelectRequest{Query: query, Active: filepath.Join(r.dir, "money", "format.go"), Limit: 8, IncludeItems: CodeOnly()})
	for _, it := range res.Items {
		if it.LeadBonus != 0 {
			t.Errorf("%s has a lead bonus %v with a file open", it.ID, it.LeadBonus)
		}
	}
}

// A dotted name spelt out names its files only while they are few: in a
// monorepo where every package has its rollup.config.js, "rollup config"
// gives none of them a stem's bonus (heuristics.MaxPathMention).
func TestSelectDottedNameTooCommonIsNoMention(t *testing.T) {
	archive := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "-- packages/p%d/rollup.config.js --\n// buildBundle%d builds the bundle of package %d.\nexport function buildBundle%d(format) { return { format }; }\n", i, i, i, i)
		}
		return b.String()
	}
	const q = "adjust rollup config to preserve the license header"
	named := func(n int) int {
		ws, _ := selOpen(t, archive(n), Options{})
		count := 0
		for _, it := range selDo(t, ws, &SelectRequest{Query: q, Limit: 30}).Items {
			if it.Strong != nil && it.Strong.By == "stem" {
				count++
			}
		}
		return count
	}
	if got := named(3); got != 3 {
		t.Errorf("three packages' rollup.config.js: %d named by their stem, want 3", got)
	}
	if got := named(heuristics.MaxPathMention + 1); got != 0 {
		t.Errorf("%d packages' rollup.config.js: %d named by their stem, want none", heuristics.MaxPathMention+1, got)
	}
}

// echoLoggers holds three Loggers: the logger middleware of package
// middleware, the framework's Logger interface and the context's Logger
// method.
const echoLoggers = `
-- go.mod --
module example.com/web

go 1.22
-- middleware/logger.go --
package middleware

// Logger returns a middleware that logs each request.
func Logger() func(next func() error) func() error {
	return func(next func() error) func() error { return next }
}
-- log.go --
package web

// Logger is the logging interface of the framework.
type Logger interface {
	Print(i ...any)
}
-- context.go --
package web

type context struct{ logger Logger }

// Logger returns the logger of the request's context.
func (c *context) Logger() Logger { return c.logger }
`

// A Go-qualified name ("middleware.Logger": package middleware's Logger)
// names the Logger of the folder middleware/, not every Logger: the
// framework's interface and the context's method are not named by it.
func TestSelectPackageQualifiedName(t *testing.T) {
	ws, _ := selOpen(t, echoLoggers, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Deprecate middleware.Logger", Limit: 8})
	for _, it := range res.Items {
		_, named := it.Signals["mention"]
		if want := it.Path == "middleware/logger.go"; named != want {
			t.Errorf("%s %s: mention signal %v, want %v", it.Path, it.Symbol, named, want)
		}
	}
	if files := selFiles(res); len(files) == 0 || files[0] != "middleware/logger.go" {
		t.Errorf("want middleware/logger.go first, got %q", files)
	}
}

// A Go file built for one platform (static_windows.go) is named by a
// request that names the platform ("fix failing tests under Windows"): its
// name is its build constraint. It leads the helper whose name the
// request's other words spell, as a file named outright would.
func TestSelectPlatformFileIsNamed(t *testing.T) {
	ws, _ := selOpen(t, `
-- middleware/static.go --
package middleware

// serveFile serves one file of the static root.
func serveFile(root, name string) string { return root + "/" + name }
-- middleware/static_windows.go --
package middleware

import "os"

// isIgnorableOpenFileError reports errors opening a file that mean it is
// not there.
func isIgnorableOpenFileError(err error) bool { return os.IsNotExist(err) }
-- middleware/static_other.go --
package middleware

import "os"

// isIgnorableOpenFileError reports errors opening a file that mean it is
// not there.
func isIgnorableOpenFileError(err error) bool { return os.IsNotExist(err) }
-- internal/check/failing.go --
package check

// FailingTests lists the tests that failed in a run, for the summary.
func FailingTests(results map[string]bool) []string {
	var out []string
	for name, ok := range results {
		if !ok {
			out = append(out, name)
		}
	}
	return out
}
`, Options{})
	wantFirstOnlyWith(t, ws, "middleware/static_windows.go", "fix failing tests under Windows", "fix failing tests under Linux")
}

// wantFirstOnlyWith checks that want is the first file of the answer to
// the request with, and not of the answer to without, the same request
// without what tells want apart (else the fixture proves nothing); it
// returns the answer to with.
func wantFirstOnlyWith(t *testing.T, ws *Workspace, want, with, without string) *Selection {
	t.Helper()
	res := selDo(t, ws, &SelectRequest{Query: with})
	if files := selFiles(res); len(files) == 0 || files[0] != want {
		t.Errorf("%q: want %s first, got %q", with, want, files)
	}
	if files := selFiles(selDo(t, ws, &SelectRequest{Query: without})); len(files) > 0 && files[0] == want {
		t.Errorf("%q: %s is first without what tells it apart: the fixture proves nothing", without, want)
	}
	return res
}

// toolVersions is a tool whose version and the Go release it needs are
// each declared as a constant.
const toolVersions = `
-- version.go --
package tool

// Version of the tool
const Version = "2.0.3"
-- toolchain.go --
package tool

// minGo is the oldest Go release that builds the tool.
const minGo = "1.21"
-- run.go --
package tool

// Run runs the tool.
func Run() error { return nil }
`

// A release request names its release in its first line, and only the
// versions of that line are the ones it replaces: "Release v2.1.0" with
// "Requires Go 1.22 from now on." below gets Version's strong match, not
// the Go release the tool needs (1.21 would precede 1.22).
func TestSelectReleaseVersionsFromFirstLine(t *testing.T) {
	ws, _ := selOpen(t, toolVersions, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "Release v2.1.0\n\nRequires Go 1.22 from now on.", Limit: 10})
	if it := selFind(res, "sym:version.go::Version"); it == nil || it.Strong == nil || it.Strong.By != "version" {
		t.Errorf("want Version's strong match by version, got %+v in %q", it, selIDs(res))
	}
	if it := selFind(res, "sym:toolchain.go::minGo"); it != nil && it.Strong != nil {
		t.Errorf("a version the body names made minGo a release's declaration: %+v", it.Strong)
	}
}

// A request that is only a version ("2.0.4") matches no word well, and
// its answer has low confidence; the declaration of the version it
// replaces is evidence of its own, not a guess the answer leaves out.
func TestSelectBareReleaseKeepsVersion(t *testing.T) {
	ws, _ := selOpen(t, toolVersions, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "2.0.4", Limit: 10})
	if it := selFind(res, "sym:version.go::Version"); it == nil || it.Strong == nil || it.Strong.By != "version" {
		t.Errorf("want version.go's Version with its strong match by version, got %+v in %q (low confidence %v)", it, selIDs(res), res.LowConfidence)
	}
}
