// The requests and notifications the extension sends, written against a
// minimal connection so that the same code runs over the language client
// in VS Code and over a bare vscode-jsonrpc connection in the tests. No
// `vscode` import.

import {
  CONTEXT_SELECT,
  DID_FOCUS,
  type ContextSelectParams,
  type ContextSelectResult,
  type DidFocusParams,
  type SelectStats,
} from './protocol';
import { configurationParams, type Settings } from './settings';

/** The part of a JSON-RPC connection the extension uses. */
export interface Rpc {
  sendRequest(method: string, params: unknown): Promise<unknown>;
  sendNotification(method: string, params: unknown): Promise<void> | void;
}

/**
 * Sends workspace/contextSelect and checks the answer has the shape of a
 * result. params should come from buildSelectParams.
 */
export async function selectContext(rpc: Rpc, params: ContextSelectParams): Promise<ContextSelectResult> {
  const res = await rpc.sendRequest(CONTEXT_SELECT, params);
  return checkResult(res);
}

/** The query of the status probe: any non-empty query returns stats. */
const PROBE_QUERY = 'index status';

/**
 * Asks the server for its index statistics. The protocol has no status
 * request, so this is a contextSelect with the smallest budget; its stats
 * describe the index.
 */
export async function fetchStats(rpc: Rpc): Promise<SelectStats> {
  const res = await selectContext(rpc, { query: PROBE_QUERY, limit: 1, maxChars: 1, maxCharsPerItem: 1 });
  return res.stats;
}

/** Options of waitUntilReady. */
export interface WaitOptions {
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Time between two probes (default 250 ms). */
  intervalMs?: number;
  /** Stops waiting when aborted. */
  signal?: AbortSignal;
  /** Sees the stats of every probe (for a status bar). */
  onStats?: (stats: SelectStats) => void;
}

/**
 * Polls the server's stats until the first full index is built
 * (stats.ready) and returns them. Rejects when timeoutMs passes first,
 * when signal is aborted, or when a probe fails.
 */
export async function waitUntilReady(rpc: Rpc, opts: WaitOptions = {}): Promise<SelectStats> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const intervalMs = opts.intervalMs ?? 250;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (opts.signal?.aborted) throw new Error('ctxls: stopped waiting for the index: cancelled');
    const stats = await fetchStats(rpc);
    opts.onStats?.(stats);
    if (stats.ready) return stats;
    if (Date.now() + intervalMs > deadline) {
      throw new Error(
        `ctxls: the index was not ready after ${timeoutMs} ms (${stats.files} files, ${stats.symbols} symbols so far)`,
      );
    }
    await sleep(intervalMs, opts.signal);
  }
}

/** Sends ctxls/didFocus. */
export async function sendFocus(rpc: Rpc, params: DidFocusParams): Promise<void> {
  await rpc.sendNotification(DID_FOCUS, params);
}

/** Sends the settings to the server with workspace/didChangeConfiguration. */
export async function sendConfiguration(rpc: Rpc, settings: Settings): Promise<void> {
  await rpc.sendNotification('workspace/didChangeConfiguration', configurationParams(settings));
}

/** Checks that v looks like a contextSelect result; throws saying what is wrong. */
export function checkResult(v: unknown): ContextSelectResult {
  const bad = (what: string): never => {
    throw new Error(`ctxls: unexpected contextSelect result: ${what}`);
  };
  if (v === null || typeof v !== 'object') return bad(`expected an object, got ${v === null ? 'null' : typeof v}`);
  const r = v as Partial<ContextSelectResult>;
  if (!Array.isArray(r.items)) return bad('items is not a list');
  if (r.stats === null || typeof r.stats !== 'object') return bad('stats is missing');
  r.items.forEach((it, i) => {
    const ok =
      it !== null &&
      typeof it === 'object' &&
      typeof it.uri === 'string' &&
      typeof it.path === 'string' &&
      typeof it.text === 'string' &&
      it.range !== undefined;
    if (!ok) {
      bad(`items[${i}] lacks uri, path, range or text`);
    }
  });
  return r as ContextSelectResult;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
