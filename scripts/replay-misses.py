#!/usr/bin/env python3
"""replay-misses.py: where the changed regions an answer misses lie.

    python3 scripts/replay-misses.py DIR [SCENARIO]

DIR holds `ctxls replay --json --items` reports (e.g. replay-dev.sh's $OUT,
run with --items). For each case of the scenario (default cold), each
changed region (Hunk) weighs 1/(the case's regions), and is put in one
class by the items within the first 12,000 characters, as the replay
counts them: covered; its file has no item there; in the first file, or
in the 2nd-5th, in a symbol no item holds, in a symbol an item holds but
cut short (Hunk.SymLines overlap an item, the region does not), outside
any symbol (Hunk.Where); in a file ranked 6th or later. The last column is
the share of the misses in files 1-5 that an item after the 12,000
characters holds. Rows per language of the case's first changed file.
"""
import collections
import json
import os
import sys

BUDGET = 12000
LANGS = {".go": "Go", ".py": "Python", ".rs": "Rust", ".java": "Java",
         ".js": "JS/TS", ".mjs": "JS/TS", ".cjs": "JS/TS", ".ts": "JS/TS", ".cts": "JS/TS", ".tsx": "JS/TS"}
COLS = ["covered", "not in budget",
        "1st: unselected symbol", "1st: symbol cut short", "1st: outside symbols",
        "2nd-5th: unselected symbol", "2nd-5th: symbol cut short", "2nd-5th: outside symbols",
        "6th+ file"]


def overlaps(it, a, b):
    return it["start"] <= b and a <= it["end"]


def classify(h, its, rank, later):
    if any(overlaps(i, h["Start"], h["End"]) for i in its):
        return "covered", False
    if not its:
        return "not in budget", False
    if rank > 5:
        return "6th+ file", False
    part = "1st" if rank == 1 else "2nd-5th"
    if h.get("Where", "symbol") != "symbol":
        k = part + ": outside symbols"
    else:
        a, b = h.get("SymLines") or (0, 0)
        cut = any(overlaps(i, a, b) for i in its)
        k = part + (": symbol cut short" if cut else ": unselected symbol")
    return k, any(overlaps(i, h["Start"], h["End"]) for i in later)


def main():
    d = sys.argv[1]
    scen = sys.argv[2] if len(sys.argv) > 2 else "cold"
    table = collections.defaultdict(collections.Counter)
    cases = collections.Counter()
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json"):
            continue
        try:
            rep = json.load(open(os.path.join(d, name)))
        except ValueError:
            continue
        for c in rep.get("cases", []):
            s = c.get("scores", {}).get(scen)
            n = sum(len(g["hunks"]) for g in c["gold"])
            if not s or not n:
                continue
            items = s.get("items") or []
            used, shown = 0, []
            for it in items:
                if used + it["chars"] > BUDGET:
                    break
                used += it["chars"]
                shown.append(it)
            order = []
            for it in shown:
                if it["path"] not in order:
                    order.append(it["path"])
            lang = LANGS.get(os.path.splitext(c["gold"][0]["path"])[1], "other")
            for row in (lang, "all"):
                cases[row] += 1
            for g in c["gold"]:
                its = [i for i in shown if i["path"] == g["path"]]
                later = [i for i in items[len(shown):] if i["path"] == g["path"]]
                rank = order.index(g["path"]) + 1 if g["path"] in order else 99
                for h in g["hunks"]:
                    k, beyond = classify(h, its, rank, later)
                    for row in (lang, "all"):
                        table[row][k] += 1 / n
                        table[row]["beyond"] += beyond / n
    print("| language (cases) | " + " | ".join(COLS) + " | misses in files 1-5 held past 12,000 chars |")
    print("|---" * (len(COLS) + 2) + "|")
    for row in ["all", "Go", "Python", "JS/TS", "Rust", "Java", "other"]:
        if cases[row]:
            cells = ["%.3f" % (table[row][k] / cases[row]) for k in COLS + ["beyond"]]
            print("| %s (%d) | %s |" % (row, cases[row], " | ".join(cells)))


if __name__ == "__main__":
    main()
