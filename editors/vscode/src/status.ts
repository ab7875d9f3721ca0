// The state of the server as the status bar shows it: starting, indexing
// (with the percentage of the work-done progress), ready (with the symbol
// count), or stopped with a reason. A pure reducer over the events the
// glue sees, plus the text for the status bar and the status message. No
// `vscode` import.

import type { SelectStats } from './protocol';

/** Where the server is. */
export type Status =
  | { kind: 'starting' }
  | { kind: 'indexing'; percentage?: number; message?: string }
  | { kind: 'ready'; stats: SelectStats }
  | { kind: 'stopped'; reason: string };

/** A $/progress value of window/workDoneProgress. */
export interface WorkDoneProgressValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
}

/**
 * The status after a work-done progress value. An end leaves the status
 * "indexing" at 100% until stats arrive (the glue asks for them).
 */
export function onProgress(s: Status, v: WorkDoneProgressValue): Status {
  if (s.kind === 'stopped') return s;
  switch (v.kind) {
    case 'begin':
      return { kind: 'indexing', percentage: v.percentage, message: v.message };
    case 'report': {
      const prev = s.kind === 'indexing' ? s : { percentage: undefined, message: undefined };
      return {
        kind: 'indexing',
        percentage: v.percentage ?? prev.percentage,
        message: v.message ?? prev.message,
      };
    }
    case 'end':
      return { kind: 'indexing', percentage: 100, message: v.message };
  }
  return s;
}

/** The status after stats arrived from a contextSelect result. */
export function onStats(s: Status, stats: SelectStats): Status {
  if (s.kind === 'stopped') return s;
  if (stats.ready) return { kind: 'ready', stats };
  return s.kind === 'indexing' ? s : { kind: 'indexing' };
}

/** What the status bar item shows. */
export interface StatusView {
  /** With codicons ("$(sync~spin)"). */
  text: string;
  tooltip: string;
  /** True when the item should use the warning colour. */
  warning: boolean;
}

/** The status bar text and tooltip for a status. */
export function statusView(s: Status): StatusView {
  switch (s.kind) {
    case 'starting':
      return { text: '$(sync~spin) ctxls', tooltip: 'ctxls is starting.', warning: false };
    case 'indexing': {
      const pct = s.percentage !== undefined ? ` ${Math.round(s.percentage)}%` : '';
      const msg = s.message ? `: ${s.message}` : '';
      return {
        text: `$(sync~spin) ctxls${pct}`,
        tooltip: `Indexing this workspace${msg}. Answers meanwhile come from the files indexed so far. Click for details.`,
        warning: false,
      };
    }
    case 'ready':
      return {
        text: `$(symbol-misc) ctxls ${compactCount(s.stats.symbols)}`,
        tooltip: `${readyWords(s.stats)}. Click for details.`,
        warning: false,
      };
    case 'stopped':
      return { text: '$(warning) ctxls', tooltip: `ctxls is off: ${s.reason}. Click for details.`, warning: true };
  }
}

/** "Index up to date: 64 files, 812 symbols; embedder: built-in". */
function readyWords(st: SelectStats): string {
  const emb = st.embedder ? `; embedder: ${embedderWords(st.embedder)}` : '';
  return `Index up to date: ${plural(st.files, 'file')}, ${plural(st.symbols, 'symbol')}${emb}`;
}

/**
 * An embedder id in a person's words: "hash-384" is the one built in,
 * "onnx-384-…" a model the user installed.
 */
export function embedderWords(id: string): string {
  if (/^hash(-|$)/.test(id)) return 'built-in';
  if (/^onnx(-|$)/.test(id)) return 'your ONNX model (ctxls.modelPath)';
  return id;
}

/** The lines of the index status message. */
export function statusDetails(s: Status, server?: { path: string; version?: string }): string[] {
  const lines: string[] = [];
  switch (s.kind) {
    case 'starting':
      lines.push('The server is starting.');
      break;
    case 'indexing': {
      const pct = s.percentage !== undefined ? ` (${Math.round(s.percentage)}%)` : '';
      const msg = s.message ? `: ${s.message}` : '';
      lines.push(`Indexing${pct}${msg}. Requests are answered meanwhile, from what is indexed so far.`);
      break;
    }
    case 'ready':
      lines.push(`${readyWords(s.stats)}.`);
      break;
    case 'stopped':
      lines.push(`Stopped: ${s.reason}.`);
      break;
  }
  if (server !== undefined) {
    lines.push(`Server: ${server.path}${server.version ? ` (${server.version})` : ''}.`);
  }
  return lines;
}

/** 950, 3.2k, 120k, 1.5M. */
export function compactCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${trimZero((n / 1000).toFixed(1))}k`;
  if (n < 999_500) return `${Math.round(n / 1000)}k`;
  return `${trimZero((n / 1_000_000).toFixed(1))}M`;
}

function trimZero(s: string): string {
  return s.endsWith('.0') ? s.slice(0, -2) : s;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}
