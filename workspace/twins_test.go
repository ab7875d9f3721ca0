package workspace

import (
	"slices"
	"strings"
	"testing"
)

// twinsApp declares its API twice, for ES modules and for CommonJS
// (index.d.ts and index.d.cts, line for line), beside the code.
var twinsApp = func() string {
	decl := `export interface LookupAddressEntry {
  address: string;
  family?: number;
}

// LookupAddress is what a custom lookup resolves to.
export type LookupAddress = string | LookupAddressEntry;

// LookupOptions configures the DNS lookup of a request.
export interface LookupOptions {
  lookup?: (hostname: string, options: object) => Promise<LookupAddress>;
  family?: number;
}

export interface RequestConfig {
  url?: string;
  method?: string;
  timeout?: number;
}
`
	return `-- index.d.ts --
` + decl + `-- index.d.cts --
` + strings.ReplaceAll(decl, "export ", "") + `-- lib/adapters/http.js --
// resolveFamily picks the address family of a lookup result.
function resolveFamily({address, family}) {
  return {address, family: family || (address.includes(':') ? 6 : 4)};
}

// buildLookup wraps the configured lookup: an error it returns goes to the callback.
export function buildLookup(lookup) {
  return (hostname, opt, cb) => {
    lookup(hostname, opt).then((addr) => cb(null, resolveFamily(addr)), (err) => cb(err));
  };
}
-- lib/core/settle.js --
// settle resolves or rejects a promise depending on the response status.
export default function settle(resolve, reject, response) {
  if (response.status >= 200 && response.status < 300) {
    resolve(response);
  } else {
    reject(new Error('Request failed with status ' + response.status));
  }
}
-- lib/helpers/combineURLs.js --
// combineURLs joins a base URL and a relative one.
export default function combineURLs(baseURL, relativeURL) {
  return baseURL.replace(/\/+$/, '') + '/' + relativeURL.replace(/^\/+/, '');
}
`
}()

// Twins (one name, two formats) hold the same declarations: the second
// does not take a place among the first files from the code that does
// the work.
func TestSelectTwinsCountAsOneFile(t *testing.T) {
	ws, _ := selOpen(t, twinsApp, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "fix(dns): lookup error handling", Limit: 12})
	files := selFiles(res)
	ts, cts, http := slices.Index(files, "index.d.ts"), slices.Index(files, "index.d.cts"), slices.Index(files, "lib/adapters/http.js")
	if ts < 0 || cts < 0 || http < 0 {
		t.Fatalf("want both declarations and the http adapter, got %q", files)
	}
	if second := max(ts, cts); http > second {
		t.Errorf("want lib/adapters/http.js before the second of the twin declarations, got %q", files)
	}
}

// configsApp has several CI workflows and settings that share the words of
// a tooling request, and the code the request's change edits.
const configsApp = `-- .pre-commit-config.yaml --
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.4.0
    hooks:
      - id: ruff
      - id: ruff-format
-- .github/workflows/lint.yaml --
name: lint
on: [push]
jobs:
  ruff:
    runs-on: ubuntu-latest
    steps:
      - run: pip install ruff
      - run: ruff check --output-format=github .
-- .github/workflows/tests.yaml --
name: tests
on: [push]
jobs:
  tests:
    runs-on: ubuntu-latest
    steps:
      - run: pip install -r requirements/dev.txt
      - run: pytest
-- .github/ISSUE_TEMPLATE/config.yml --
blank_issues_enabled: false
contact_links:
  - name: Lint or ruff hook question
    url: https://github.com/example/app/discussions
-- pyproject.toml --
[tool.ruff]
src = ["src"]
fix = true

[tool.ruff.lint]
select = ["B", "E", "F", "I", "UP"]
-- src/app/app.py --
import typing as t


def make_response(rv):  # noqa: C901
    """Convert a view return value into a response."""
    if isinstance(rv, tuple):
        return rv[0]
    return rv


def dispatch(request):
    return make_response(request)
-- src/app/helpers.py --
def get_root_path(name):
    return name
`

// Configuration files share one place among the first files, as a file's
// own items do: a tooling request matched by the settings, two workflows
// and an issue template does not fill the first files with them.
func TestSelectConfigFilesShareAPlace(t *testing.T) {
	ws, _ := selOpen(t, configsApp, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "bump ruff in the lint workflow and pre-commit hook, fix noqa", Limit: 12})
	files := selFiles(res)
	if len(files) < 4 || files[0] != "src/app/app.py" {
		t.Fatalf("want src/app/app.py first of four files or more, got %q", files)
	}
	configs := 0
	for _, f := range files[:4] {
		if strings.HasSuffix(f, ".yaml") || strings.HasSuffix(f, ".yml") || strings.HasSuffix(f, ".toml") {
			configs++
		}
	}
	if configs > 2 {
		t.Errorf("want at most two configuration files among the first four, got %q", files)
	}
}
