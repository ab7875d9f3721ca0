package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxls/ctxls/heuristics"
	"github.com/ctxls/ctxls/lsp"
	"github.com/ctxls/ctxls/lsp/wire"
	"github.com/ctxls/ctxls/workspace"
	"github.com/ctxls/ctxls/workspace/testutil"
)

// ctxlsProc runs the binary and returns its exit status and output.
func ctxlsProc(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(testutil.Binary(t), args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stdout.String(), stderr.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// tuneRepo is a git repository in a temporary directory.
type tuneRepo struct {
	t   *testing.T
	dir string
}

func newTuneRepo(t *testing.T) *tuneRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed to tune on a history")
	}
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	r := &tuneRepo{t: t, dir: dir}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *tuneRepo) git(args ...string) {
	r.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		r.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (r *tuneRepo) commit(msg string, files map[string]string) {
	r.t.Helper()
	for p, text := range files {
		abs := filepath.Join(r.dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

// The words of the modules: each names one file and one function.
var tuneWords = []string{"walrus", "quokka", "narwhal", "pangolin", "axolotl", "capybara", "okapi", "tapir"}

func moduleFile(word string, rev int) string {
	title := strings.ToUpper(word[:1]) + word[1:]
	return fmt.Sprintf("package %s\n\n// %s handles the %s records.\nfunc %s(n int) int {\n\treturn n + %d\n}\n", word, title, word, title, rev)
}

// tuneHistory builds a history of n commits after the first. With
// plain, each message names the module it changes, so the defaults find
// every changed file first and nothing can beat them. Otherwise each
// message names a decoy module's function and a topic word no file holds,
// while the change goes to the module every earlier commit with that
// topic changed: only the history source points at it.
func tuneHistory(t *testing.T, n int, plain bool) *tuneRepo {
	r := newTuneRepo(t)
	files := map[string]string{}
	for _, w := range tuneWords {
		files[w+"/"+w+".go"] = moduleFile(w, 0)
	}
	r.commit("initial import", files)
	topics := []string{"latency", "rollover", "quiescence", "backpressure"}
	for i := 1; i <= n; i++ {
		k := i % len(topics)
		gold := tuneWords[k]
		msg := fmt.Sprintf("%s: adjust the %s records", gold, gold)
		if !plain {
			decoy := tuneWords[len(tuneWords)-1-k]
			title := strings.ToUpper(decoy[:1]) + decoy[1:]
			msg = fmt.Sprintf("%s fix near %s in %s/%s.go: %s %s records", topics[k], title, decoy, decoy, decoy, title)
		}
		r.commit(msg, map[string]string{gold + "/" + gold + ".go": moduleFile(gold, i)})
	}
	return r
}

// tuneReport is what ctxls tune --json prints, as far as the tests read it.
type tuneReport struct {
	Judge struct {
		Default, Fitted struct {
			Cases           int
			Hit1, Hit5, MRR float64
		}
	} `json:"judge"`
	Moved bool   `json:"moved"`
	Wins  bool   `json:"wins"`
	Kept  string `json:"kept"`
	Note  string `json:"note"`
}

func runTuneJSON(t *testing.T, root, cache string, commits, judge int) tuneReport {
	t.Helper()
	code, stdout, stderr := ctxlsProc(t, "tune", "--root", root, "--cache-dir", cache, "--commits", fmt.Sprint(commits), "--judge", fmt.Sprint(judge), "--evals", "12", "--json")
	if code != 0 {
		t.Fatalf("ctxls tune: exit %d\n%s", code, stderr)
	}
	var rep tuneReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("ctxls tune --json: %v\n%s", err, stdout)
	}
	return rep
}

// When no set beats the defaults on the judged commits, tune says so,
// keeps nothing, and removes a set an earlier run kept.
func TestTuneKeepsNothingWhenDefaultsHold(t *testing.T) {
	r := tuneHistory(t, 12, true)
	cache := t.TempDir()
	file := workspace.WeightsFile(cache, r.dir)
	stale := workspace.NewFittedWeights(r.dir, defaultSet(), timeZero)
	if err := workspace.WriteWeights(file, stale); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := ctxlsProc(t, "tune", "--root", r.dir, "--cache-dir", cache, "--commits", "8", "--judge", "4", "--evals", "12")
	if code != 0 {
		t.Fatalf("ctxls tune: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"judge  defaults", "judge  fitted", "train  defaults", "the defaults stay"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("tune output lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the stale weights file is still there (%v)", err)
	}
	rep := runTuneJSON(t, r.dir, cache, 8, 4)
	if rep.Wins || rep.Kept != "" || rep.Judge.Default.MRR != 1 || rep.Judge.Default.Cases != 4 {
		t.Errorf("tune on a history the defaults answer perfectly: %+v", rep)
	}
}

// On a history where past commits point at the changed file, tune's
// decision follows its judged figures: it keeps the fitted set exactly
// when the set beats the defaults there, and the file then reads back
// with those figures. A kept set (here one written as tune writes it)
// is what the server fuses with, and stats.weights says so; a damaged
// one gives one warning and the defaults.
func TestTuneDecidesOnTheJudgedSliceAndTheServerUsesTheSet(t *testing.T) {
	r := tuneHistory(t, 40, false)
	cache := t.TempDir()
	rep := runTuneJSON(t, r.dir, cache, 30, 10)
	file := workspace.WeightsFile(cache, r.dir)
	_, statErr := os.Stat(file)
	wins := rep.Judge.Fitted.MRR > rep.Judge.Default.MRR || rep.Judge.Fitted.MRR == rep.Judge.Default.MRR && rep.Judge.Fitted.Hit1 > rep.Judge.Default.Hit1
	if rep.Judge.Default.Cases != 10 || rep.Wins != wins || rep.Wins != (statErr == nil) || rep.Wins != (rep.Kept == file) {
		t.Fatalf("tune decided wins=%v (kept %q, file: %v) on judged figures %+v", rep.Wins, rep.Kept, statErr, rep.Judge)
	}
	if !rep.Wins {
		set := heuristics.DefaultWeightSet()
		set.Source[heuristics.SrcHistory] = 4.5
		fw := workspace.NewFittedWeights(r.dir, set, timeZero)
		fw.Judged = workspace.WeightsJudge{Cases: 10, HitAt1: 0.9, HitAt5: 1, MRR: 0.95, DefaultHitAt1: 0.8, DefaultHitAt5: 1, DefaultMRR: 0.9}
		if err := workspace.WriteWeights(file, fw); err != nil {
			t.Fatal(err)
		}
		rep.Judge.Fitted.Cases, rep.Judge.Fitted.MRR = 10, 0.95
	}
	fw, _, err := workspace.ReadWeights(file, r.dir)
	if err != nil || fw == nil {
		t.Fatalf("the kept weights file does not read back: %v", err)
	}
	if fw.Judged.Cases != rep.Judge.Fitted.Cases || fw.Judged.MRR != rep.Judge.Fitted.MRR {
		t.Errorf("weights file judged %+v, report %+v", fw.Judged, rep.Judge)
	}

	res := lspSelectWith(t, r.dir, cache, "quokka records")
	w := res.Stats.Weights
	if w.Set != "fitted" || w.Judged == nil || w.Judged.Cases != rep.Judge.Fitted.Cases || w.Judged.MRR != rep.Judge.Fitted.MRR || w.Fitted != fw.Fitted {
		t.Errorf("server stats.weights = %+v, want the fitted set as judged %+v", w, rep.Judge)
	}

	if _, stdout, _ := ctxlsProc(t, "index", "--root", r.dir, "--cache-dir", cache); !strings.Contains(stdout, "weights     fitted "+fw.Fitted) {
		t.Errorf("ctxls index with a kept set does not say so:\n%s", stdout)
	}

	// A damaged file: one warning, and the defaults.
	if err := os.WriteFile(file, []byte(`{"version": 1, "weights": {"lexical": 1e9`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := ctxlsProc(t, "select", "--root", r.dir, "--cache-dir", cache, "--json", "quokka records")
	if code != 0 {
		t.Fatalf("select with a damaged weights file: exit %d\n%s", code, stderr)
	}
	if n := strings.Count(stderr, "weights file"); n != 1 || !strings.Contains(stderr, "using the default weights") {
		t.Errorf("select with a damaged weights file: want one warning naming it, got %q", stderr)
	}
	var sel wire.Result
	if err := json.Unmarshal([]byte(stdout), &sel); err != nil {
		t.Fatal(err)
	}
	if sel.Stats.Weights.Set != "default" || sel.Stats.Weights.Judged != nil {
		t.Errorf("select with a damaged weights file: stats.weights %+v, want the defaults", sel.Stats.Weights)
	}
}

var timeZero = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func defaultSet() heuristics.WeightSet { return heuristics.DefaultWeightSet() }

// lspSelectWith asks the LSP server, over a pipe, with the cache
// directory cache, once its index is ready.
func lspSelectWith(t *testing.T, root, cache, query string) *wire.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srvEnd, cliEnd := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- lsp.New(lsp.Options{Version: "test"}).Serve(context.Background(), srvEnd) }()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(cliEnd))
	conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, _ jsonrpc2.Request) error {
		return reply(ctx, nil, nil)
	})
	defer func() {
		conn.Close()
		<-done
	}()
	if _, err := conn.Call(ctx, "initialize", map[string]any{"rootUri": wire.URIFromPath(root), "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"cacheDir": cache}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	for {
		var res wire.Result
		if _, err := conn.Call(ctx, "workspace/contextSelect", map[string]any{"query": query}, &res); err != nil {
			t.Fatal(err)
		}
		if res.Stats.Ready {
			return &res
		}
		if ctx.Err() != nil {
			t.Fatal("the LSP server's index never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
