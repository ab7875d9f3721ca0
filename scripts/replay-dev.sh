#!/usr/bin/env bash
# replay-dev.sh — ctxls replay over a set of repositories, per repository and
# pooled (case-weighted), as EVAL.md records it.
#
#   bash scripts/replay-dev.sh DIR [replay flags...]
#
# DIR holds one git repository (bare or not) per entry, e.g. the development
# set named in EVAL.md. Extra flags go to every `ctxls replay` run (default:
# --commits 60). CTXLS_BIN names the binary (default: built from this tree).
# Prints hit@1/hit@5/MRR/hunk coverage per scenario; the per-repository JSON
# reports are kept in $OUT (default: a temporary directory) for comparisons.
set -euo pipefail
dir=${1:?usage: replay-dev.sh DIR [replay flags...]}
shift
[ $# -gt 0 ] || set -- --commits 60
cd "$(dirname "$0")/.."
bin=${CTXLS_BIN:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/ctxls
	go build -o "$bin" ./cmd/ctxls
fi
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.log
for repo in "$dir"/*; do
	[ -d "$repo" ] || continue
	root=$repo
	[ -d "$repo/repo" ] && root=$repo/repo
	name=$(basename "$repo")
	"$bin" replay --root "$root" --json "$@" >"$out/$name.json" 2>"$out/$name.log" ||
		{ echo "replay-dev: $name failed: $(tail -n 1 "$out/$name.log")" >&2; rm -f "$out/$name.json"; }
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
names = sorted(f[:-5] for f in os.listdir(out) if f.endswith(".json"))
keys = ("hit1", "hit5", "mrr", "hunkCoverage")
pool = {}
def cell(m):
    return "/".join(("%.2f" % m[k]).lstrip("0") if m[k] < 1 else "1.00" for k in keys) if m["cases"] else "no case"
rows = []
for n in names:
    rep = json.load(open(os.path.join(out, n + ".json")))
    cells = {}
    for sc in rep.get("scenarios", []):
        for side in ("ctxls", "baseline"):
            m = sc.get(side)
            if not m:
                continue
            m = m["all"]
            cells[(sc["name"], side)] = m
            p = pool.setdefault((sc["name"], side), {k: 0.0 for k in keys + ("cases",)})
            p["cases"] += m["cases"]
            for k in keys:
                p[k] += m[k] * m["cases"]
    rows.append((n, cells))
for p in pool.values():
    for k in keys:
        p[k] = p[k] / p["cases"] if p["cases"] else 0
scen = [s for s in ("cold", "vague", "active") if (s, "ctxls") in pool]
print("| repo | " + " | ".join(scen) + " |")
print("|---|" + "---|" * len(scen))
def fmt(cells):
    parts = []
    for s in scen:
        c = cells.get((s, "ctxls"))
        t = "%s (%d)" % (cell(c), c["cases"]) if c else "-"
        b = cells.get((s, "baseline"))
        if b and b["cases"]:
            t += " [BM25 %s]" % cell(b)
        parts.append(t)
    return " | ".join(parts)
for n, cells in rows:
    print("| %s | %s |" % (n, fmt(cells)))
print("| **pooled** | %s |" % fmt(pool))
first = {}
for n in names:
    for sc in json.load(open(os.path.join(out, n + ".json"))).get("scenarios", []):
        m = sc["ctxls"].get("firstRight")
        if m and m["cases"]:
            f = first.setdefault(sc["name"], [0, 0.0])
            f[0] += m["cases"]
            f[1] += m["hunkCoverage"] * m["cases"]
if first:
    print("\nhunk coverage where the first file is right: " + ", ".join(
        "%s %.2f (%d)" % (s, first[s][1] / first[s][0], first[s][0]) for s in scen if s in first))
print("\n(hit@1/hit@5/MRR/hunk coverage, cases in brackets; reports in %s)" % out, file=sys.stderr)
PY
