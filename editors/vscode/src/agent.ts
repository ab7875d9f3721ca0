// What the language-model tool, the @ctxls chat participant and the MCP
// server definition need that does not touch `vscode`: the tool's input
// turned into request params, the /explain answer, the chat history, and
// the command line of `ctxls mcp`.

import type { ContextItem, ContextSelectParams, ContextSelectResult } from './protocol';
import { formatScore, linesWord, partSuffix, whyOf } from './render';
import { describe } from './settings';

/** The id of the language-model tool (package.json languageModelTools). */
export const TOOL_NAME = 'ctxls_selectContext';

/** The input of the language-model tool, as its inputSchema declares it. */
export interface ToolInput {
  query: string;
  history?: string[];
  limit?: number;
  maxChars?: number;
  paths?: string[];
  kinds?: string[];
}

/** The fields of ToolInput, the only ones passed on. */
const toolFields = ['query', 'history', 'limit', 'maxChars', 'paths', 'kinds'] as const;

/**
 * The request params for a tool call: the declared fields of input, and
 * nothing else (a model may add fields of its own). The types are checked
 * by buildSelectParams, and the values by the server, each naming the
 * field.
 */
export function toolParams(input: unknown): ContextSelectParams {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new TypeError(`ctxls: the tool input must be an object with a query, got ${describe(input)}`);
  }
  const src = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of toolFields) {
    if (src[key] !== undefined) out[key] = src[key];
  }
  return out as unknown as ContextSelectParams;
}

/**
 * The share of the host's token budget for a tool result that the items'
 * texts may take: the rest is for the Markdown around them (a heading and
 * a code fence per item).
 */
export const TOOL_TOKEN_SHARE = 0.8;

/**
 * The share of a chat model's input window that @ctxls's answer may take:
 * it stays in the conversation the model reads on the next turns.
 */
export const CHAT_TOKEN_SHARE = 0.25;

/**
 * maxTokens for a request from a budget the host gives (the tool's
 * tokenizationOptions.tokenBudget, the chat model's maxInputTokens): share
 * of it, rounded down; undefined when the host gives none (or nonsense),
 * so that the request keeps the character budget alone.
 */
export function tokenBudget(hostTokens: unknown, share: number): number | undefined {
  if (typeof hostTokens !== 'number' || !Number.isFinite(hostTokens) || hostTokens <= 0) return undefined;
  const n = Math.floor(hostTokens * share);
  return n >= 1 ? n : undefined;
}

/** One item's place: `path` (lines a-b): kind `symbol`. */
function place(item: ContextItem): string {
  const what = item.symbol !== '' ? `: ${item.kind} \`${item.symbol}\`` : '';
  return `\`${item.path}\` (${linesWord(item.range)})${what}${partSuffix(item)}`;
}

/** An item's per-source ranks, best first: "lexical #1 (0.35), file #2 (0.1)". */
export function signalList(item: ContextItem): string {
  const entries = Object.entries(item.signals ?? {});
  entries.sort(([a, x], [b, y]) => x.rank - y.rank || a.localeCompare(b));
  if (entries.length === 0) return `no ranking source (${item.reason})`;
  return entries.map(([name, s]) => `${name} #${s.rank} (${formatScore(s.score)})`).join(', ');
}

/**
 * The answer of `@ctxls /explain`: for each item, where it is, why it is
 * there in words, its score and reason, and its rank in every source that
 * ranked it.
 */
export function explainMarkdown(query: string, result: ContextSelectResult): string {
  const lines = [`**Why these items for:** ${query.trim().replace(/\s+/g, ' ')}`, ''];
  if (result.items.length === 0) {
    lines.push(result.stats.ready ? 'Nothing matched.' : 'Nothing matched yet: the workspace is still being indexed.');
    return lines.join('\n');
  }
  result.items.forEach((item, i) => {
    lines.push(`${i + 1}. ${place(item)}: ${whyOf(item)}`);
    lines.push(`   - score ${formatScore(item.score)} (${item.reason}): ${signalList(item)}`);
  });
  if (result.lowConfidence) lines.push('', '_Low confidence: nothing matched the request well._');
  if (!result.stats.ready) lines.push('', '_The workspace is still being indexed; the answer may be incomplete._');
  return lines.join('\n');
}

/** A chat turn as the participant sees it: the user's prompt, if it is one. */
export interface Turn {
  prompt?: string;
}

/** The earlier prompts of a chat with @ctxls, oldest first, for history. */
export function chatHistory(turns: readonly Turn[]): string[] {
  const out: string[] = [];
  for (const t of turns) {
    if (typeof t.prompt === 'string' && t.prompt.trim() !== '') out.push(t.prompt.trim());
  }
  return out.slice(-8);
}

/**
 * The arguments of `ctxls mcp` over the workspace folders; with shareIndex,
 * a client of the shared daemon, where the editor's server is too, so the
 * agent's selections see the editor's open files, unsaved edits and cursor.
 */
export function mcpArgs(folders: readonly string[], shareIndex = false): string[] {
  const args = shareIndex ? ['mcp', '--remote=auto'] : ['mcp'];
  for (const f of folders) args.push('--root', f);
  return args;
}
