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
