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

// copiesApp is a Java library with a multi-release layout: one class
// written three times, for the base JVM and for Java 14 and 16
// (src/main/java, java14, java16), beside the code that does the work.
var copiesApp = func() string {
	copyOf := func(v, lookup string) string {
		return `package retrofit2;

// DefaultMethodSupport invokes the default methods of a service interface` + v + `.
final class DefaultMethodSupport {
  // invoke calls the default method of the proxy with its arguments.
  static Object invoke(java.lang.reflect.Method method, Class<?> declaringClass, Object proxy, Object[] args) throws Throwable {
    return ` + lookup + `.unreflectSpecial(method, declaringClass).bindTo(proxy).invokeWithArguments(args);
  }
}
`
	}
	return `-- src/main/java/retrofit2/DefaultMethodSupport.java --
` + copyOf("", "lookup(declaringClass)") + `-- src/main/java14/retrofit2/DefaultMethodSupport.java --
` + copyOf(" on Java 14", "MethodHandles.privateLookupIn(declaringClass, MethodHandles.lookup())") + `-- src/main/java16/retrofit2/DefaultMethodSupport.java --
` + copyOf(" on Java 16", "java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args); // ") + `-- src/main/java/retrofit2/ServiceMethod.java --
package retrofit2;

// ServiceMethod parses the annotations of a service method and invokes it.
abstract class ServiceMethod {
  // parseAnnotations reads the method's annotations; a default method is invoked as written.
  static ServiceMethod parseAnnotations(Retrofit retrofit, java.lang.reflect.Method method) {
    if (method.isDefault()) {
      return null;
    }
    return HttpServiceMethod.parseAnnotations(retrofit, method);
  }
}
-- src/main/java/retrofit2/Utils.java --
package retrofit2;

// Utils holds the helpers of the service proxies.
final class Utils {
  // methodError builds the error of a service method whose default invocation failed.
  static RuntimeException methodError(java.lang.reflect.Method method, String message) {
    return new IllegalArgumentException(message + "\n    for method " + method.getName());
  }
}
`
}()

// The copies of one class in the parallel source roots of a
// multi-release layout (java, java14, java16) count as one file: the
// second and third copy do not take the places of the code beside them.
func TestSelectVersionedCopiesCountAsOneFile(t *testing.T) {
	ws, _ := selOpen(t, copiesApp, Options{})
	res := selDo(t, ws, &SelectRequest{Query: "invoke the default method of a service interface", Limit: 12})
	files := selFiles(res)
	var copies []int
	for i, f := range files {
		if strings.HasSuffix(f, "/DefaultMethodSupport.java") {
			copies = append(copies, i)
		}
	}
	other := slices.Index(files, "src/main/java/retrofit2/ServiceMethod.java")
	if len(copies) < 3 || other < 0 {
		t.Fatalf("want the three copies and ServiceMethod.java, got %q", files)
	}
	if other > copies[1] {
		t.Errorf("want ServiceMethod.java before the second copy of DefaultMethodSupport.java, got %q", files)
	}
}
