import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import type { ContextItem, ContextSelectResult } from '../src/protocol';
import { fenceLanguage, formatScore, lineSpan, markdownFence, pickRows, resultTitle, toMarkdown, whyOf } from '../src/render';

function item(over: Partial<ContextItem>): ContextItem {
  return {
    id: 'sym:args.go::MatchAll',
    uri: 'file:///w/args.go',
    path: 'args.go',
    symbol: 'MatchAll',
    kind: 'function',
    language: 'go',
    range: { start: { line: 120, character: 0 }, end: { line: 140, character: 1 } },
    text: 'func MatchAll() {}',
    truncated: false,
    score: 0.048412,
    reason: 'retrieved',
    ...over,
  };
}

function result(items: ContextItem[], over: Partial<ContextSelectResult> = {}): ContextSelectResult {
  return {
    items,
    usedChars: items.reduce((n, it) => n + it.text.length, 0),
    lowConfidence: false,
    stats: { ready: true, files: 3, symbols: 40, candidates: 10, elapsedMs: 1.2, embedder: 'hash-384', merkleRoot: 'ab' },
    ...over,
  };
}

describe('lineSpan', () => {
  test('is 1-based and inclusive', () => {
    assert.deepEqual(lineSpan({ start: { line: 120, character: 0 }, end: { line: 140, character: 1 } }), { first: 121, last: 141 });
  });
  test('a range ending at the start of a line does not count that line', () => {
    assert.deepEqual(lineSpan({ start: { line: 0, character: 0 }, end: { line: 10, character: 0 } }), { first: 1, last: 10 });
  });
  test('an empty range is its one line', () => {
    assert.deepEqual(lineSpan({ start: { line: 4, character: 3 }, end: { line: 4, character: 3 } }), { first: 5, last: 5 });
  });
});

describe('pickRows', () => {
  test('one row per item in order, with symbol, the lines its text holds, and why', () => {
    const rows = pickRows(
      result([
        item({}),
        item({ id: 'file:README.md', path: 'README.md', symbol: '', kind: 'file', language: 'markdown', reason: 'pinned', score: 1, text: 'x'.repeat(1500), truncated: true, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 9 } } }),
        item({ symbol: 'Server.Start', kind: 'method', reason: 'active', path: 'srv/server.go' }),
      ]),
    );
    assert.deepEqual(
      rows.map((r) => [r.icon, r.label, r.description, r.detail]),
      [
        ['symbol-function', 'MatchAll', 'args.go:121-141', 'matches words of your question · function · 18 chars'],
        ['file', 'README.md', 'README.md:1', 'pinned by you · file · 1,500 chars (truncated)'],
        ['symbol-method', 'Server.Start', 'srv/server.go:121-141', 'where your cursor is · method · 18 chars'],
      ],
    );
    assert.equal(rows[2].item.symbol, 'Server.Start');
  });

  test('the server\'s why wins over the reason word; parts say which', () => {
    const [row] = pickRows(result([item({ reason: 'expanded', why: 'calls `MatchAll` at cmd.go:12', part: { index: 2, of: 3 } })]));
    assert.equal(row.label, 'MatchAll (part 2 of 3)');
    assert.equal(row.detail, 'calls `MatchAll` at cmd.go:12 · function · 18 chars');
    assert.equal(whyOf(item({ reason: 'expanded', why: '  ' })), 'connected by references to the items above', 'a blank why falls back');
    assert.equal(whyOf(item({ reason: 'always' })), 'a rule that always applies');
    assert.equal(whyOf(item({ reason: 'novel' })), 'novel', 'an unknown reason is shown as it is');
  });

  test('unknown kinds get a generic icon', () => {
    assert.equal(pickRows(result([item({ kind: 'macro' })]))[0].icon, 'symbol-misc');
  });
});

describe('resultTitle', () => {
  test('counts items and chars and warns about low confidence and indexing', () => {
    const r = result([item({})]);
    assert.equal(resultTitle('find  the\nargs', r), 'ctxls: 1 item, 18 chars for "find the args"');
    const weak = result([item({}), item({})], { lowConfidence: true, usedChars: 12345 });
    weak.stats.ready = false;
    assert.equal(
      resultTitle('q', weak),
      'ctxls: 2 items, 12,345 chars for "q" (low confidence: nothing matched the query well) (still indexing: results may be incomplete)',
    );
  });
});

describe('formatScore', () => {
  test('four significant digits', () => {
    assert.equal(formatScore(0.0484123), '0.04841');
    assert.equal(formatScore(12.3456), '12.35');
    assert.equal(formatScore(1), '1');
  });
});

describe('toMarkdown', () => {
  test('a heading per item and its text in a fence of its language', () => {
    const md = toMarkdown(
      [
        item({ text: 'func MatchAll() {\n\treturn nil\n}' }),
        item({ id: 'file:docs/guide.md', path: 'docs/guide.md', symbol: '', kind: 'file', language: 'text', text: 'plain\n', range: { start: { line: 2, character: 0 }, end: { line: 2, character: 5 } } }),
      ],
      { query: ' add a\nvalidator ' },
    );
    assert.equal(
      md,
      [
        '## Context for: add a validator',
        '',
        '### `args.go` (lines 121-141): function `MatchAll`',
        '',
        'Why: matches words of your question',
        '',
        '```go',
        'func MatchAll() {',
        '\treturn nil',
        '}',
        '```',
        '',
        '### `docs/guide.md` (line 3)',
        '',
        'Why: matches words of your question',
        '',
        '```',
        'plain',
        '```',
        '',
      ].join('\n'),
    );
  });

  test('the heading labels the lines the text holds, not the symbol\'s; the why and part follow', () => {
    const md = toMarkdown([
      item({
        range: { start: { line: 760, character: 0 }, end: { line: 819, character: 0 } },
        symbolRange: { start: { line: 780, character: 0 }, end: { line: 795, character: 1 } },
        symbol: 'Command.findSuggestions',
        kind: 'method',
        why: 'called by `legacyArgs` at args.go:36',
        part: { index: 1, of: 2 },
      }),
    ]);
    assert.ok(md.startsWith('### `args.go` (lines 761-819): method `Command.findSuggestions` (part 1 of 2)\n\nWhy: called by `legacyArgs` at args.go:36\n'), md);
  });

  test('a low-confidence answer says so at the top', () => {
    assert.match(toMarkdown([item({})], { query: 'q', lowConfidence: true }), /^## Context for: q\n\n_Low confidence: nothing matched the question well; these are guesses\._\n/);
  });

  test('text containing a fence cannot close the block', () => {
    const text = 'Example:\n```sh\nmake\n```\nand ````four````\n';
    const md = toMarkdown([item({ language: 'markdown', text })]);
    assert.ok(md.includes('`````markdown\n' + text + '`````'), md);
  });

  test('truncated items say so', () => {
    assert.match(toMarkdown([item({ truncated: true })]), /```\n_\(truncated\)_/);
  });

  test('no query, no title', () => {
    assert.ok(toMarkdown([item({})]).startsWith('### `args.go`'));
  });
});

describe('fences', () => {
  test('markdownFence is longer than any backtick run, at least 3', () => {
    assert.equal(markdownFence('no ticks'), '```');
    assert.equal(markdownFence('a ``` b'), '````');
    assert.equal(markdownFence('`````'), '``````');
  });
  test('fenceLanguage maps ctxls names to common info strings', () => {
    assert.equal(fenceLanguage('go'), 'go');
    assert.equal(fenceLanguage('tsx'), 'tsx');
    assert.equal(fenceLanguage('shell'), 'sh');
    assert.equal(fenceLanguage('csharp'), 'cs');
    assert.equal(fenceLanguage('text'), '');
    assert.equal(fenceLanguage('weird lang`'), '');
  });
});
