// Telling the server where the user is looking: ctxls/didFocus params for
// an editor position, debounced so that moving the cursor through a file
// sends one notification when it comes to rest, and never the same focus
// twice in a row. No `vscode` import.

import type { DidFocusParams, Position } from './protocol';

/** The timer functions a Debouncer uses; tests pass mocked ones. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * Debouncer calls fn with the arguments of the last call once no call has
 * come for delayMs.
 */
export class Debouncer<A extends unknown[]> {
  private handle: unknown;
  private pending: A | undefined;

  constructor(
    private readonly fn: (...args: A) => void,
    private readonly delayMs: number,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Schedules fn(...args), replacing a call still waiting. */
  call(...args: A): void {
    this.pending = args;
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = this.timers.setTimeout(() => this.flush(), this.delayMs);
  }

  /** Runs the waiting call now, if any. */
  flush(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
    const args = this.pending;
    this.pending = undefined;
    if (args !== undefined) this.fn(...args);
  }

  /** Drops the waiting call, if any. */
  cancel(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
    this.pending = undefined;
  }
}

/**
 * focusParams returns the ctxls/didFocus params for a document and cursor,
 * or undefined for documents that are not files (untitled buffers, output
 * panes, diff views, git:// documents): the server only knows files.
 */
export function focusParams(uri: string, position?: Position): DidFocusParams | undefined {
  if (!uri.startsWith('file:')) return undefined;
  return position === undefined ? { uri } : { uri, position: { line: position.line, character: position.character } };
}

/**
 * FocusReporter sends ctxls/didFocus through send, delayMs after the focus
 * comes to rest, skipping a focus equal to the last one sent.
 */
export class FocusReporter {
  private last = '';
  private readonly debouncer: Debouncer<[DidFocusParams]>;

  constructor(
    private readonly send: (params: DidFocusParams) => void,
    delayMs: number,
    timers?: Timers,
  ) {
    this.debouncer = new Debouncer((p: DidFocusParams) => this.deliver(p), delayMs, timers);
  }

  /** Records that the user is at position in uri; non-file URIs are ignored. */
  update(uri: string, position?: Position): void {
    const p = focusParams(uri, position);
    if (p !== undefined) this.debouncer.call(p);
  }

  /** Sends a waiting focus now (before a request that depends on it). */
  flush(): void {
    this.debouncer.flush();
  }

  /** Forgets the last focus sent, so the next one is sent even if equal (after a server restart). */
  reset(): void {
    this.debouncer.cancel();
    this.last = '';
  }

  private deliver(p: DidFocusParams): void {
    const key = JSON.stringify(p);
    if (key === this.last) return;
    this.last = key;
    this.send(p);
  }
}
