import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { CHAT_TOKEN_SHARE, chatHistory, explainMarkdown, mcpArgs, signalList, TOOL_TOKEN_SHARE, tokenBudget, toolParams } from '../src/agent';
import type { ContextItem, ContextSelectResult } from '../src/protocol';
import { buildSelectParams, DEFAULT_SETTINGS } from '../src/settings';

function item(over: Partial<ContextItem>): ContextItem {
  return {
    id: 'sym:internal/cart/pricing.go::ApplyCoupon',
    uri: 'file:///w/internal/cart/pricing.go',
    path: 'internal/cart/pricing.go',
    symbol: 'ApplyCoupon',
    kind: 'function',
    language: 'go',
    range: { start: { line: 40, character: 0 }, end: { line: 61, character: 1 } },
    text: 'func ApplyCoupon() {}',
    truncated: false,
    score: 0.0481234,
    reason: 'retrieved',
    signals: { file: { rank: 2, score: 0.12 }, lexical: { rank: 1, score: 3.5 } },
    ...over,
  };
}

function result(items: ContextItem[], ready = true): ContextSelectResult {
  return {
    items,
    usedChars: 10,
    lowConfidence: false,
    stats: { ready, files: 3, symbols: 40, candidates: 10, elapsedMs: 1, embedder: 'hash-384', merkleRoot: 'ab' },
  };
}

describe('toolParams', () => {
  test('passes the declared fields and drops the rest', () => {
    const p = toolParams({ query: 'coupon expiry', limit: 3, kinds: ['function'], explainYourself: true, activeUri: 'file:///etc/passwd' });
    assert.deepEqual(p, { query: 'coupon expiry', limit: 3, kinds: ['function'] });
  });
  test('refuses what is not an object', () => {
    assert.throws(() => toolParams('coupon'), /tool input must be an object with a query, got "coupon"/);
    assert.throws(() => toolParams(null), /tool input must be an object/);
    assert.throws(() => toolParams([]), /tool input must be an object/);
  });
  test('a bad field is named by the one validation of the params', () => {
    assert.throws(() => buildSelectParams(toolParams({ query: 'x', limit: 'ten' }), DEFAULT_SETTINGS), /params\.limit must be a number/);
    assert.throws(() => buildSelectParams(toolParams({ limit: 3 }), DEFAULT_SETTINGS), /params\.query must be a non-empty string/);
    assert.throws(() => buildSelectParams(toolParams({ query: 'x', kinds: 'function' }), DEFAULT_SETTINGS), /params\.kinds must be a list of strings/);
  });
});

describe('tokenBudget', () => {
  test("the items get a share of the host's budget, rounded down", () => {
    assert.equal(tokenBudget(10000, TOOL_TOKEN_SHARE), 8000);
    assert.equal(tokenBudget(128000, CHAT_TOKEN_SHARE), 32000);
    assert.equal(tokenBudget(1001, 0.5), 500);
  });
  test('no budget from the host, or nonsense, sends none', () => {
    for (const v of [undefined, null, 0, -5, Number.NaN, Number.POSITIVE_INFINITY, '4000', 1]) {
      assert.equal(tokenBudget(v, TOOL_TOKEN_SHARE), undefined, String(v));
    }
  });
  test('the request keeps the character budget beside the token budget', () => {
    const p = buildSelectParams({ ...toolParams({ query: 'coupon expiry' }), maxTokens: 8000 }, DEFAULT_SETTINGS);
    assert.equal(p.maxTokens, 8000);
    assert.equal(p.maxChars, DEFAULT_SETTINGS.maxChars);
    assert.equal('maxTokens' in buildSelectParams({ query: 'coupon expiry' }, DEFAULT_SETTINGS), false);
    assert.throws(() => buildSelectParams({ query: 'x', maxTokens: '8000' as unknown as number }, DEFAULT_SETTINGS), /params\.maxTokens must be a number/);
  });
});

describe('explainMarkdown', () => {
  test('lists each item with its sources, best rank first', () => {
    const md = explainMarkdown('  expired   coupons ', result([item({})]));
    assert.match(md, /^\*\*Why these items for:\*\* expired coupons\n/);
    assert.match(md, /1\. `internal\/cart\/pricing\.go` \(lines 41-62\): function `ApplyCoupon`: matches words of your question\n/);
    assert.match(md, /- score 0\.04812 \(retrieved\): lexical #1 \(3\.5\), file #2 \(0\.12\)/);
  });
  test('says each item\'s why, and which part of a split symbol it is', () => {
    const md = explainMarkdown('who calls this', result([item({ why: 'calls `Command.findSuggestions` at args.go:36', part: { index: 2, of: 3 } })]));
    assert.match(md, /function `ApplyCoupon` \(part 2 of 3\): calls `Command\.findSuggestions` at args\.go:36\n/);
  });
  test('says when nothing matched, and why', () => {
    assert.match(explainMarkdown('q', result([])), /Nothing matched\./);
    assert.match(explainMarkdown('q', result([], false)), /still being indexed/);
  });
  test('an item no source ranked says its reason', () => {
    assert.equal(signalList(item({ signals: undefined, reason: 'pinned' })), 'no ranking source (pinned)');
  });
});

test('chatHistory keeps the prompts, oldest first, at most 8', () => {
  const turns = [{ prompt: ' one ' }, {}, { prompt: '' }, ...Array.from({ length: 9 }, (_, i) => ({ prompt: `p${i}` }))];
  const h = chatHistory(turns);
  assert.equal(h.length, 8);
  assert.deepEqual(h.slice(0, 2), ['p1', 'p2']);
  assert.equal(chatHistory([{ prompt: ' one ' }])[0], 'one');
});

test('mcpArgs names every folder as a root', () => {
  assert.deepEqual(mcpArgs(['/a', '/b c']), ['mcp', '--root', '/a', '--root', '/b c']);
  assert.deepEqual(mcpArgs([]), ['mcp']);
  assert.deepEqual(mcpArgs(['/a'], true), ['mcp', '--remote=auto', '--root', '/a']);
});
