// The current selection the context view shows and steers: the items of
// the last answer grouped by file, minus those the user removed, with the
// ids the user pinned for the next run; what opening an item does; the
// tree rows' words; and the Markdown that is copied or sent. No `vscode`
// import.

import type { ContextItem, ContextSelectParams, ContextSelectResult, Position } from './protocol';
import { formatScore, itemName, kindIcon, lineSpan, linesWord, partSuffix, toMarkdown, whyOf } from './render';

/** One file of the selection and its items, in rank order. */
export interface FileGroup {
  path: string;
  uri: string;
  items: ContextItem[];
}

/**
 * An item's identity within a selection: its id alone is not enough, as
 * the parts of one symbol share it.
 */
export function itemKey(item: ContextItem): string {
  return `${item.id}@${item.range.start.line}-${item.range.end.line}`;
}

/**
 * The items grouped by file, the files in the order of their best item,
 * the items of a file in rank order. Items with no file (memory notes,
 * tools) are grouped under their path as the server names it.
 */
export function groupByFile(items: readonly ContextItem[]): FileGroup[] {
  const byPath = new Map<string, FileGroup>();
  for (const item of items) {
    let g = byPath.get(item.path);
    if (g === undefined) {
      g = { path: item.path, uri: item.uri, items: [] };
      byPath.set(item.path, g);
    }
    g.items.push(item);
  }
  return [...byPath.values()];
}

/**
 * The selection: a question, the answer, and the user's edits to it.
 * Removing an item drops it from what is shown, copied and sent (and keeps
 * it out when the same question is asked again); pinning adds its id to
 * the `pinned` of the next run.
 */
export class ContextSelection {
  private shown: ContextItem[];
  private readonly removedIds = new Set<string>();
  private readonly pins: string[];

  constructor(
    /** The request that gave the answer (without the pins, which the selection keeps). */
    readonly params: ContextSelectParams,
    readonly result: ContextSelectResult,
    pinned: readonly string[] = [],
    removed: Iterable<string> = [],
  ) {
    this.pins = [...new Set(pinned)];
    for (const id of removed) this.removedIds.add(id);
    this.shown = result.items.filter((it) => !this.removedIds.has(it.id));
  }

  get query(): string {
    return this.params.query;
  }

  /** The items shown, copied and sent. */
  get items(): readonly ContextItem[] {
    return this.shown;
  }

  /** The ids pinned for the next run, in the order they were pinned. */
  get pinned(): readonly string[] {
    return this.pins;
  }

  get lowConfidence(): boolean {
    return this.result.lowConfidence === true;
  }

  isPinned(item: ContextItem): boolean {
    return this.pins.includes(item.id) || item.reason === 'pinned';
  }

  /** The items grouped by file. */
  groups(): FileGroup[] {
    return groupByFile(this.shown);
  }

  /**
   * Drops an item (by itemKey) from the selection and unpins its id.
   * Returns false when it was not there.
   */
  remove(key: string): boolean {
    const i = this.shown.findIndex((it) => itemKey(it) === key);
    if (i < 0) return false;
    const [item] = this.shown.splice(i, 1);
    // Every part of a symbol shares its id: the others stay until removed.
    if (!this.shown.some((it) => it.id === item.id)) this.removedIds.add(item.id);
    const p = this.pins.indexOf(item.id);
    if (p >= 0) this.pins.splice(p, 1);
    return true;
  }

  /** Pins an id for the next run. Returns false when it was pinned already. */
  pin(id: string): boolean {
    this.removedIds.delete(id);
    if (this.pins.includes(id)) return false;
    this.pins.push(id);
    return true;
  }

  /**
   * Adds an item the user chose (from the editor) at the top of the
   * selection, pinned for the next run. An item already there moves up.
   */
  add(item: ContextItem): void {
    const key = itemKey(item);
    this.shown = [item, ...this.shown.filter((it) => itemKey(it) !== key)];
    this.pin(item.id);
  }

  /** The ids removed, which a re-run on the same question keeps out. */
  get removed(): readonly string[] {
    return [...this.removedIds];
  }

  /** The params of a re-run: the same request, with the pins first. */
  rerunParams(): ContextSelectParams {
    const pinned = [...new Set([...this.pins, ...(this.params.pinned ?? [])])];
    const out: ContextSelectParams = { ...this.params };
    if (pinned.length > 0) out.pinned = pinned;
    else delete out.pinned;
    return out;
  }

  /** The selection a re-run gives: the new answer, the same pins and removals. */
  rerun(params: ContextSelectParams, result: ContextSelectResult): ContextSelection {
    return new ContextSelection(params, result, this.pins, this.removedIds);
  }

  /** What is copied or sent to a chat. */
  markdown(): string {
    return toMarkdown(this.shown, { query: this.query, lowConfidence: this.lowConfidence });
  }

  /**
   * The message the view shows above (or instead of) its items: why the
   * list is empty, or that the answer is weak.
   */
  message(): string | undefined {
    const q = shorten(this.query, 60);
    if (this.shown.length === 0) {
      if (this.result.items.length > 0) return `You removed every item for "${q}". Re-run to ask again.`;
      if (this.lowConfidence) {
        return `Nothing in the workspace matches "${q}" well enough to show. Name a function, type or file, or put the cursor in the code you mean, and re-run.`;
      }
      return this.result.stats.ready
        ? `Nothing in the workspace matched "${q}".`
        : `Nothing matched "${q}" yet: the workspace is still being indexed. Re-run in a moment.`;
    }
    if (this.lowConfidence) return `Low confidence: nothing matched "${q}" well. Check these items before sending them.`;
    if (!this.result.stats.ready) return 'Still indexing: the answer may be incomplete.';
    return undefined;
  }
}

/** Where opening an item puts the cursor, and the lines it highlights. */
export interface OpenTarget {
  /** The symbol's first line (symbolRange.start), else the range's start. */
  cursor: Position;
  /** 0-based first and last lines of range: the lines the text holds. */
  firstLine: number;
  lastLine: number;
}

/** What opening an item does: no selection, a cursor and highlighted lines. */
export function openTarget(item: ContextItem): OpenTarget {
  const at = (item.symbolRange ?? item.range).start;
  const { first, last } = lineSpan(item.range);
  return { cursor: { line: at.line, character: at.character }, firstLine: first - 1, lastLine: last - 1 };
}

/** The words of an item's row in the view. */
export interface ItemRow {
  label: string;
  /** The lines it holds and why it is there. */
  description: string;
  /** Codicon name. */
  icon: string;
  /** The tooltip, as Markdown. */
  tooltip: string;
  /** For screen readers: everything the row shows. */
  ariaLabel: string;
}

/** The lines of an item's text a tooltip previews. */
export const PREVIEW_LINES = 12;

/** The row of an item in the view. */
export function itemRow(item: ContextItem, pinned: boolean): ItemRow {
  const why = whyOf(item);
  const lines = linesWord(item.range);
  const label = itemName(item);
  const description = `${lines} · ${why}`;
  return {
    label,
    description,
    icon: pinned ? 'pinned' : kindIcon(item.kind),
    tooltip: itemTooltip(item, pinned),
    ariaLabel: `${label}, ${item.path} ${lines}${pinned ? ', pinned' : ''}: ${why}`,
  };
}

/** The tooltip of an item: where, why, and the first lines of its text. */
export function itemTooltip(item: ContextItem, pinned: boolean): string {
  const out: string[] = [];
  const what = item.symbol !== '' ? `${item.kind} \`${item.symbol}\`${partSuffix(item)}` : `\`${item.path}\``;
  out.push(`**${what}**${pinned ? ' (pinned)' : ''}`);
  out.push('');
  let where = `\`${item.path}\`, ${linesWord(item.range)}`;
  if (item.symbolRange !== undefined) where += ` (the ${item.kind} starts at line ${item.symbolRange.start.line + 1})`;
  out.push(where);
  out.push('');
  out.push(`Why: ${whyOf(item)}`);
  out.push('');
  const shown = item.text.split('\n');
  const head = shown.slice(0, PREVIEW_LINES).join('\n').replace(/\s+$/, '');
  const fence = head.includes('```') ? '~~~~' : '```';
  out.push(`${fence}${item.language === 'text' ? '' : item.language}\n${head}\n${fence}`);
  const more = shown.length - PREVIEW_LINES - (item.text.endsWith('\n') ? 1 : 0);
  if (more > 0) out.push(`_…${more} more line${more === 1 ? '' : 's'}_`);
  out.push('');
  out.push(`score ${formatScore(item.score)} (${item.reason})${item.truncated ? ', text truncated' : ''}`);
  return out.join('\n');
}

/**
 * The request of "Add File to Context": the file pinned, nothing
 * retrieved beside it.
 */
export function addFileParams(rel: string, uri: string): ContextSelectParams {
  return { query: rel, pinned: [uri], retrieval: false, limit: 1 };
}

/**
 * The request of "Add Symbol to Context": the symbols of that one file,
 * the cursor's first (the active signal), with room for all of them;
 * itemAt then picks the one under the cursor.
 */
export function addSymbolParams(rel: string, uri: string, word: string, pos: Position): ContextSelectParams {
  return {
    query: word.trim() !== '' ? word : rel,
    activeUri: uri,
    position: { line: pos.line, character: pos.character },
    paths: [rel.replace(/[[\]{}*?\\]/g, '\\$&')],
    limit: 50,
    maxChars: 1_000_000,
  };
}

/**
 * The item at a position of a file in an answer: the one whose symbol
 * (else whose range) holds the position and is the narrowest. For "Add
 * Symbol to Context".
 */
export function itemAt(items: readonly ContextItem[], uri: string, pos: Position): ContextItem | undefined {
  let best: ContextItem | undefined;
  let bestSize = Infinity;
  for (const it of items) {
    if (it.uri !== uri || it.symbol === '') continue;
    const r = it.symbolRange ?? it.range;
    if (!contains(r, pos)) continue;
    const size = r.end.line - r.start.line;
    if (size < bestSize) {
      best = it;
      bestSize = size;
    }
  }
  return best;
}

function contains(r: { start: Position; end: Position }, p: Position): boolean {
  const after = p.line > r.start.line || (p.line === r.start.line && p.character >= r.start.character);
  const before = p.line < r.end.line || (p.line === r.end.line && p.character <= r.end.character);
  return after && before;
}

function shorten(s: string, n: number): string {
  const one = s.trim().replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}
