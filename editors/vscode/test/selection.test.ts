import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import type { ContextItem, ContextSelectResult, Range } from '../src/protocol';
import { ContextSelection, groupByFile, itemAt, itemKey, itemRow, itemTooltip, openTarget, PREVIEW_LINES } from '../src/selection';

const range = (a: number, b: number, endChar = 1): Range => ({ start: { line: a, character: 0 }, end: { line: b, character: endChar } });

function item(over: Partial<ContextItem>): ContextItem {
  return {
    id: 'sym:args.go::legacyArgs',
    uri: 'file:///w/args.go',
    path: 'args.go',
    symbol: 'legacyArgs',
    kind: 'function',
    language: 'go',
    range: range(23, 38),
    text: `func ${over.symbol ?? 'legacyArgs'}() {}\n`,
    truncated: false,
    score: 0.09,
    reason: 'retrieved',
    ...over,
  };
}

// An answer like the issue's: two files, a symbol in three parts, a caller.
const legacy = item({ why: 'calls `Command.findSuggestions` at args.go:36' });
const find = item({
  id: 'sym:command.go::Command.findSuggestions',
  uri: 'file:///w/command.go',
  path: 'command.go',
  symbol: 'Command.findSuggestions',
  kind: 'method',
  range: range(760, 818),
  symbolRange: range(780, 795),
  reason: 'active',
});
const part = (i: number, a: number, b: number) =>
  item({
    id: 'sym:completions.go::Command.InitDefaultCompletionCmd',
    uri: 'file:///w/completions.go',
    path: 'completions.go',
    symbol: 'Command.InitDefaultCompletionCmd',
    kind: 'method',
    range: range(a, b),
    reason: 'expanded',
    part: { index: i, of: 3 },
  });
const validArgs = item({ id: 'sym:args.go::ValidArgs', symbol: 'ValidArgs', range: range(60, 70), reason: 'expanded' });

function result(items: ContextItem[], over: Partial<ContextSelectResult> = {}): ContextSelectResult {
  return {
    items,
    usedChars: items.reduce((n, it) => n + it.text.length, 0),
    lowConfidence: false,
    stats: { ready: true, files: 64, symbols: 812, candidates: 40, elapsedMs: 2, embedder: 'hash-384', merkleRoot: 'ab' },
    ...over,
  };
}

const answer = () => result([find, legacy, part(1, 100, 140), part(2, 141, 180), validArgs, part(3, 181, 200)]);

describe('groupByFile', () => {
  test('files in the order of their best item, items in rank order within', () => {
    const groups = groupByFile(answer().items);
    assert.deepEqual(
      groups.map((g) => [g.path, g.items.map((it) => `${it.symbol}${it.part ? `#${it.part.index}` : ''}`)]),
      [
        ['command.go', ['Command.findSuggestions']],
        ['args.go', ['legacyArgs', 'ValidArgs']],
        ['completions.go', ['Command.InitDefaultCompletionCmd#1', 'Command.InitDefaultCompletionCmd#2', 'Command.InitDefaultCompletionCmd#3']],
      ],
    );
    assert.equal(groups[0].uri, 'file:///w/command.go');
  });
});

describe('ContextSelection', () => {
  test('remove drops the item from the view and from the Markdown copied', () => {
    const sel = new ContextSelection({ query: 'who calls findSuggestions' }, answer());
    assert.equal(sel.remove(itemKey(legacy)), true);
    assert.equal(sel.remove(itemKey(legacy)), false, 'a second remove finds nothing');
    assert.deepEqual(sel.groups().find((g) => g.path === 'args.go')?.items.map((it) => it.symbol), ['ValidArgs']);
    const md = sel.markdown();
    assert.doesNotMatch(md, /legacyArgs/);
    assert.match(md, /ValidArgs/);
    assert.equal(sel.items.length, 5);
  });

  test('removing one part of a symbol keeps its other parts', () => {
    const sel = new ContextSelection({ query: 'q' }, answer());
    sel.remove(itemKey(part(2, 141, 180)));
    const parts = sel.items.filter((it) => it.symbol === 'Command.InitDefaultCompletionCmd').map((it) => it.part?.index);
    assert.deepEqual(parts, [1, 3]);
    assert.match(sel.markdown(), /\(part 1 of 3\)[\s\S]*\(part 3 of 3\)/);
    assert.doesNotMatch(sel.markdown(), /part 2 of 3/);
  });

  test('a re-run on the same question keeps removed items out and sends the pins first', () => {
    const sel = new ContextSelection({ query: 'q', limit: 8, pinned: ['file:///w/README.md'] }, answer());
    sel.remove(itemKey(legacy));
    assert.equal(sel.pin(validArgs.id), true);
    assert.equal(sel.pin(validArgs.id), false, 'pinning twice pins once');
    const params = sel.rerunParams();
    assert.deepEqual(params, { query: 'q', limit: 8, pinned: ['sym:args.go::ValidArgs', 'file:///w/README.md'] });
    const next = sel.rerun(params, answer());
    assert.equal(next.items.some((it) => it.id === legacy.id), false, 'the removed item stays out');
    assert.deepEqual(next.pinned, ['sym:args.go::ValidArgs']);
    assert.equal(next.isPinned(validArgs), true);
  });

  test('removing a pinned item unpins it; with no pins the re-run sends none', () => {
    const sel = new ContextSelection({ query: 'q' }, answer());
    sel.pin(validArgs.id);
    sel.remove(itemKey(validArgs));
    assert.deepEqual(sel.pinned, []);
    assert.equal('pinned' in sel.rerunParams(), false);
  });

  test('add puts an item from the editor first and pins it', () => {
    const sel = new ContextSelection({ query: 'q' }, answer());
    sel.add({ ...validArgs, reason: 'pinned', why: 'you added this' });
    assert.equal(sel.items[0].id, validArgs.id);
    assert.equal(sel.items.filter((it) => it.id === validArgs.id).length, 1, 'an item already there moves up');
    assert.deepEqual(sel.pinned, [validArgs.id]);
    assert.equal(sel.groups()[0].path, 'args.go');
  });

  test('low confidence with no items gives a clear message instead of an empty list', () => {
    const sel = new ContextSelection({ query: 'purple monkey dishwasher' }, result([], { lowConfidence: true }));
    assert.deepEqual(sel.groups(), []);
    assert.match(sel.message() ?? '', /^Nothing in the workspace matches "purple monkey dishwasher" well enough to show\./);
    const weak = new ContextSelection({ query: 'q' }, result([legacy], { lowConfidence: true }));
    assert.match(weak.message() ?? '', /^Low confidence/);
    assert.match(weak.markdown(), /_Low confidence/);
    assert.equal(new ContextSelection({ query: 'q' }, answer()).message(), undefined, 'a confident answer needs no message');
    const notReady = result([]);
    notReady.stats.ready = false;
    assert.match(new ContextSelection({ query: 'q' }, notReady).message() ?? '', /still being indexed/);
  });
});

describe('one range per item', () => {
  test('opening puts the cursor at the symbol\'s first line and highlights the lines the text holds', () => {
    assert.deepEqual(openTarget(find), { cursor: { line: 780, character: 0 }, firstLine: 760, lastLine: 818 });
    // No symbolRange: the cursor goes to the start of the range.
    assert.deepEqual(openTarget(legacy), { cursor: { line: 23, character: 0 }, firstLine: 23, lastLine: 38 });
    // A range that ends at the start of a line does not highlight that line.
    assert.deepEqual(openTarget(item({ range: range(0, 30, 0), symbolRange: range(29, 29, 20) })), { cursor: { line: 29, character: 0 }, firstLine: 0, lastLine: 29 });
  });

  test('the row, the tooltip and the Markdown name the same lines', () => {
    const row = itemRow(find, false);
    assert.equal(row.label, 'Command.findSuggestions');
    assert.equal(row.description, 'lines 761-819 · where your cursor is');
    assert.match(row.tooltip, /`command\.go`, lines 761-819 \(the method starts at line 781\)/);
    assert.match(new ContextSelection({ query: 'q' }, result([find])).markdown(), /### `command\.go` \(lines 761-819\): method `Command\.findSuggestions`\n\nWhy: where your cursor is\n/);
  });

  test('the row shows the server\'s why, the part, and a pin', () => {
    const row = itemRow(part(2, 141, 180), true);
    assert.equal(row.label, 'Command.InitDefaultCompletionCmd (part 2 of 3)');
    assert.equal(row.icon, 'pinned');
    assert.equal(itemRow(legacy, false).description, 'lines 24-39 · calls `Command.findSuggestions` at args.go:36');
    assert.equal(itemRow(legacy, false).icon, 'symbol-function');
    assert.equal(itemRow(legacy, false).ariaLabel, 'legacyArgs, args.go lines 24-39: calls `Command.findSuggestions` at args.go:36');
  });

  test('the tooltip previews the first lines of the text', () => {
    const text = Array.from({ length: 30 }, (_, i) => `line${i + 1}`).join('\n') + '\n';
    const tip = itemTooltip(item({ text }), false);
    assert.match(tip, new RegExp('```go\\nline1\\n[\\s\\S]*\\nline' + PREVIEW_LINES + '\\n```'));
    assert.doesNotMatch(tip, new RegExp(`line${PREVIEW_LINES + 1}\\b`));
    assert.match(tip, new RegExp(`_…${30 - PREVIEW_LINES} more lines_`));
    assert.doesNotMatch(itemTooltip(item({ text: 'a\nb\n' }), false), /more line/);
    assert.match(itemTooltip(item({ text: 'x = "```"' }), false), /~~~~go\nx = "```"\n~~~~/, 'a fence in the text cannot close the preview');
  });
});

describe('itemAt', () => {
  test('the narrowest symbol holding the cursor in that file', () => {
    const outer = item({ id: 'sym:args.go::Outer', symbol: 'Outer', range: range(0, 100) });
    const inner = item({ id: 'sym:args.go::Outer.inner', symbol: 'Outer.inner', range: range(0, 100), symbolRange: range(40, 50) });
    const items = [outer, inner, item({ id: 'file:args.go', symbol: '', kind: 'file', range: range(0, 200) })];
    assert.equal(itemAt(items, 'file:///w/args.go', { line: 45, character: 3 })?.symbol, 'Outer.inner');
    assert.equal(itemAt(items, 'file:///w/args.go', { line: 60, character: 0 })?.symbol, 'Outer');
    assert.equal(itemAt(items, 'file:///w/args.go', { line: 150, character: 0 }), undefined, 'a file item is not a symbol');
    assert.equal(itemAt(items, 'file:///w/other.go', { line: 45, character: 0 }), undefined);
  });
});
