// Rendering a contextSelect result for people: quick-pick rows and the
// Markdown that "copy as Markdown" puts on the clipboard for a chat. No
// `vscode` import; icons are codicon names the glue wraps in "$(…)".

import type { ContextItem, ContextSelectResult, Range } from './protocol';

/** One row of the result quick pick. */
export interface PickRow {
  /** Codicon name for the item's kind. */
  icon: string;
  /** The symbol, or the path for file items. */
  label: string;
  /** Where it is: "path:first-last". */
  description: string;
  /** Why it is there, kind and size. */
  detail: string;
  /** The item the row stands for. */
  item: ContextItem;
}

const kindIcons: Record<string, string> = {
  function: 'symbol-function',
  method: 'symbol-method',
  class: 'symbol-class',
  struct: 'symbol-structure',
  interface: 'symbol-interface',
  type: 'symbol-type-parameter',
  enum: 'symbol-enum',
  const: 'symbol-constant',
  var: 'symbol-variable',
  module: 'symbol-namespace',
  file: 'file',
};

/** The codicon name for a symbol kind. */
export function kindIcon(kind: string): string {
  return kindIcons[kind] ?? 'symbol-misc';
}

/**
 * The 1-based first and last lines a range covers. A range ending at the
 * start of a line does not cover that line.
 */
export function lineSpan(r: Range): { first: number; last: number } {
  const first = r.start.line + 1;
  let last = r.end.line + 1;
  if (r.end.character === 0 && r.end.line > r.start.line) last--;
  return { first, last: Math.max(first, last) };
}

/** "path:12" or "path:12-40": the lines the item's text holds. */
export function location(item: ContextItem): string {
  return `${item.path}:${lineNumbers(item.range)}`;
}

/** "12" or "12-40". */
export function lineNumbers(r: Range): string {
  const { first, last } = lineSpan(r);
  return first === last ? String(first) : `${first}-${last}`;
}

/** "line 12" or "lines 12-40". */
export function linesWord(r: Range): string {
  const { first, last } = lineSpan(r);
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

/** What a reason word means to a person, for servers that send no why. */
const reasonWords: Record<string, string> = {
  pinned: 'pinned by you',
  active: 'where your cursor is',
  retrieved: 'matches words of your question',
  expanded: 'connected by references to the items above',
  always: 'a rule that always applies',
};

/**
 * Why the item is there, in one short sentence: the server's why, or,
 * from a server that sends none, its reason in words.
 */
export function whyOf(item: ContextItem): string {
  const why = typeof item.why === 'string' ? item.why.trim() : '';
  if (why !== '') return why;
  return reasonWords[item.reason] ?? item.reason;
}

/** " (part 2 of 3)" for a part of a split symbol, "" otherwise. */
export function partSuffix(item: ContextItem): string {
  const p = item.part;
  if (p === undefined || p === null || !(p.of > 1)) return '';
  return ` (part ${p.index} of ${p.of})`;
}

/** The item's name for a list: the symbol (and part), or the path for file items. */
export function itemName(item: ContextItem): string {
  return (item.symbol !== '' ? item.symbol : item.path) + partSuffix(item);
}

/** The quick-pick rows for a result, in the result's order. */
export function pickRows(result: ContextSelectResult): PickRow[] {
  return result.items.map((item) => {
    const parts = [whyOf(item), item.kind];
    parts.push(`${item.text.length.toLocaleString('en-US')} chars${item.truncated ? ' (truncated)' : ''}`);
    return {
      icon: kindIcon(item.kind),
      label: itemName(item),
      description: location(item),
      detail: parts.join(' · '),
      item,
    };
  });
}

/** A summary of a result for the quick pick's title. */
export function resultTitle(query: string, result: ContextSelectResult): string {
  const n = result.items.length;
  let title = `ctxls: ${n} ${n === 1 ? 'item' : 'items'}, ${result.usedChars.toLocaleString('en-US')} chars for "${shorten(query, 50)}"`;
  if (result.lowConfidence) title += ' (low confidence: nothing matched the query well)';
  if (!result.stats.ready) title += ' (still indexing: results may be incomplete)';
  return title;
}

/** Scores are small fused numbers: four significant digits. */
export function formatScore(score: number): string {
  return Number.isFinite(score) ? Number(score.toPrecision(4)).toString() : String(score);
}

/** Options of toMarkdown. */
export interface MarkdownOptions {
  /** The query the items were selected for; shown as a heading when set. */
  query?: string;
  /** Says, under the heading, that nothing matched the query well. */
  lowConfidence?: boolean;
}

/**
 * The items as Markdown for pasting into a chat: one heading per item
 * (path, the lines its text holds, symbol, kind, part), the reason it is
 * there, and its text in a fenced code block that no backtick run in the
 * text can close.
 */
export function toMarkdown(items: readonly ContextItem[], opts: MarkdownOptions = {}): string {
  const parts: string[] = [];
  if (opts.query !== undefined && opts.query.trim() !== '') {
    parts.push(`## Context for: ${opts.query.trim().replace(/\s+/g, ' ')}\n`);
  }
  if (opts.lowConfidence) parts.push('_Low confidence: nothing matched the question well; these are guesses._\n');
  for (const item of items) {
    let heading = `### \`${item.path}\` (${linesWord(item.range)})`;
    if (item.symbol !== '') heading += `: ${item.kind} \`${item.symbol}\``;
    heading += partSuffix(item);
    parts.push(heading);
    parts.push('');
    parts.push(`Why: ${whyOf(item)}`);
    parts.push('');
    const text = item.text.endsWith('\n') ? item.text : item.text + '\n';
    const fence = markdownFence(text);
    parts.push(`${fence}${fenceLanguage(item.language)}\n${text}${fence}`);
    if (item.truncated) parts.push('_(truncated)_');
    parts.push('');
  }
  return parts.join('\n');
}

/** A backtick fence longer than any run of backticks in text (at least 3). */
export function markdownFence(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

const fenceLanguages: Record<string, string> = {
  text: '',
  shell: 'sh',
  csharp: 'cs',
  makefile: 'make',
};

/** The info string of a code fence for a ctxls language name. */
export function fenceLanguage(language: string): string {
  const lang = fenceLanguages[language] ?? language;
  return /^[A-Za-z0-9_+.-]*$/.test(lang) ? lang : '';
}

function shorten(s: string, n: number): string {
  const one = s.trim().replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}
