// End to end: the real ctxls binary (CTXLS_BIN, built by
// scripts/test-vscode.sh) spoken to over stdio through vscode-jsonrpc/node,
// the transport the extension's language client uses, driven by the same
// session, settings, status and rendering code the extension runs.

import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import {
  createMessageConnection,
  ProgressType,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

import { TOOL_TOKEN_SHARE, tokenBudget } from '../src/agent';
import { DID_FOCUS, type ContextSelectResult } from '../src/protocol';
import { lineSpan, pickRows, toMarkdown, whyOf } from '../src/render';
import { addFileParams, addSymbolParams, itemAt, itemRow, openTarget } from '../src/selection';
import { selectContext, sendConfiguration, sendFocus, waitUntilReady, type Rpc } from '../src/session';
import { buildSelectParams, initializationOptions, readSettings } from '../src/settings';
import { onProgress, onStats, statusView, type Status, type WorkDoneProgressValue } from '../src/status';

const bin = process.env.CTXLS_BIN;
if (!bin) {
  throw new Error('CTXLS_BIN is not set: build the server (go build -o /tmp/ctxls ./cmd/ctxls) and run with CTXLS_BIN=/tmp/ctxls');
}

// A small workspace: Go billing code, a TypeScript router, a Python report.
const fixture: Record<string, string> = {
  'billing/invoice.go': `package billing

// Invoice is a customer's bill for one month.
type Invoice struct {
	Customer string
	Lines    []Line
}

// Line is one priced line of an invoice.
type Line struct {
	Description string
	Cents       int64
}

// ComputeInvoiceTotal adds up the lines of an invoice and applies the tax rate.
func ComputeInvoiceTotal(inv Invoice, taxRate float64) int64 {
	var sum int64
	for _, l := range inv.Lines {
		sum += l.Cents
	}
	return sum + int64(float64(sum)*taxRate)
}
`,
  'billing/refund.go': `package billing

import "errors"

// IssueRefund returns money to a customer for a disputed invoice line.
func IssueRefund(inv *Invoice, line int) error {
	if line < 0 || line >= len(inv.Lines) {
		return errors.New("no such line")
	}
	inv.Lines[line].Cents = 0
	return nil
}
`,
  'web/router.ts': `export type Handler = (path: string) => string;

export class Router {
  private routes = new Map<string, Handler>();

  addRoute(path: string, handler: Handler): void {
    if (this.routes.has(path)) {
      throw new Error('duplicate route ' + path);
    }
    this.routes.set(path, handler);
  }

  dispatch(path: string): string {
    const h = this.routes.get(path);
    return h ? h(path) : 'not found';
  }
}

export function parseQueryString(q: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of q.split('&')) {
    const [k, v] = pair.split('=');
    out[decodeURIComponent(k)] = decodeURIComponent(v ?? '');
  }
  return out;
}
`,
  'reports/monthly.py': `def render_monthly_report(invoices):
    """Render a text report of the month's invoices, one line per customer."""
    lines = []
    for inv in invoices:
        lines.append(f"{inv.customer}: {inv.total}")
    return "\\n".join(lines)
`,
};

/** A client session with the real server. */
class Session {
  readonly conn: MessageConnection;
  readonly progress: WorkDoneProgressValue[] = [];
  readonly logs: string[] = [];
  stderr = '';
  status: Status = { kind: 'starting' };
  /** Resolves when a work-done progress ends. */
  readonly progressEnded: Promise<void>;
  private readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.on('error', (err) => (this.stderr += `spawning ${bin}: ${err.message}\n`));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    this.conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const workDone = new ProgressType<WorkDoneProgressValue>();
    let ended = (): void => {};
    this.progressEnded = new Promise((resolve) => (ended = resolve));
    this.conn.onRequest('window/workDoneProgress/create', (p: { token: string | number }) => {
      this.conn.onProgress(workDone, p.token, (v) => {
        this.progress.push(v);
        this.status = onProgress(this.status, v);
        if (v.kind === 'end') ended();
      });
      return null;
    });
    this.conn.onNotification('window/logMessage', (p: { message: string }) => {
      this.logs.push(p.message);
    });
    this.conn.listen();
  }

  /** The connection as the extension's Rpc. */
  get rpc(): Rpc {
    return {
      sendRequest: (method, params) => this.conn.sendRequest(method, params),
      sendNotification: (method, params) => this.conn.sendNotification(method, params),
    };
  }

  /** Waits for the process to exit, failing after ms. */
  exit(ms: number): Promise<number | null> {
    return Promise.race([
      this.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`ctxls did not exit within ${ms} ms`)), ms).unref()),
    ]);
  }
}

let root: string;
let s: Session;
const uri = (rel: string) => pathToFileURL(path.join(root, rel)).href;
const settings = readSettings((key) => ({ cacheDir: 'off' })[key]).settings;

/** Asserts with the server's stderr attached, for a readable failure. */
function context(): string {
  return `\n--- ctxls stderr ---\n${s?.stderr.slice(-4000) ?? ''}`;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms).unref())]);
}

function find(res: ContextSelectResult, p: string, symbol: string) {
  return res.items.find((it) => it.path === p && it.symbol === symbol);
}

function summary(res: ContextSelectResult): string {
  return res.items.map((it) => `${it.path} ${it.symbol} ${it.reason} ${it.score.toFixed(4)}`).join('\n');
}

describe('ctxls serve, end to end', { timeout: 120_000 }, () => {
  before(async () => {
    try {
      fs.accessSync(bin, fs.constants.X_OK);
      if (!fs.statSync(bin).isFile()) throw new Error('not a file');
    } catch {
      throw new Error(`CTXLS_BIN=${bin} is not an executable file: build it with go build -o ${bin} ./cmd/ctxls`);
    }
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxls-vscode-e2e-')));
    for (const [rel, text] of Object.entries(fixture)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    const child = spawn(bin, ['serve', '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    s = new Session(child);
    const init = (await s.conn.sendRequest('initialize', {
      processId: process.pid,
      clientInfo: { name: 'ctxls-vscode-e2e' },
      rootUri: pathToFileURL(root).href,
      workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'fixture' }],
      capabilities: { window: { workDoneProgress: true }, general: { positionEncodings: ['utf-16'] } },
      initializationOptions: initializationOptions(settings),
    })) as { capabilities: { positionEncoding?: string; experimental?: Record<string, unknown> }; serverInfo?: { name: string } };
    assert.equal(init.serverInfo?.name, 'ctxls');
    assert.equal(init.capabilities.positionEncoding, 'utf-16');
    await s.conn.sendNotification('initialized', {});
  });

  after(async () => {
    if (s !== undefined && s.child.exitCode === null) {
      s.child.kill();
    }
    s?.conn.dispose();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  test('indexing reports progress and ends ready, with the fixture counted', async () => {
    const stats = await waitUntilReady(s.rpc, { timeoutMs: 60_000, intervalMs: 100 });
    assert.equal(stats.ready, true);
    assert.equal(stats.files, 4, `files${context()}`);
    assert.ok(stats.symbols >= 9, `symbols: ${stats.symbols}`);
    assert.match(stats.embedder, /^hash/);
    // Progress ($/progress after window/workDoneProgress/create) opens,
    // may report, and closes; the status bar follows it.
    await withTimeout(s.progressEnded, 10_000, 'no work-done progress end');
    assert.equal(s.progress[0].kind, 'begin');
    assert.equal(s.progress.at(-1)!.kind, 'end');
    assert.ok(s.progress.slice(1, -1).every((v) => v.kind === 'report'), JSON.stringify(s.progress));
    assert.deepEqual(s.status, { kind: 'indexing', percentage: 100, message: s.progress.at(-1)!.message });
    s.status = onStats(s.status, stats);
    assert.equal(s.status.kind, 'ready');
    assert.equal(statusView(s.status).text, `$(symbol-misc) ctxls ${stats.symbols}`);
  });

  test('a query about invoice totals selects ComputeInvoiceTotal first, with its text', async () => {
    const params = buildSelectParams({ query: 'compute the invoice total with the tax rate' }, settings);
    const res = await selectContext(s.rpc, params);
    assert.ok(res.items.length > 0 && res.items.length <= settings.limit, summary(res));
    const top = res.items[0];
    assert.equal(top.path, 'billing/invoice.go', summary(res));
    assert.equal(top.symbol, 'ComputeInvoiceTotal', summary(res));
    assert.equal(top.kind, 'function');
    assert.equal(top.language, 'go');
    assert.equal(top.reason, 'retrieved');
    assert.equal(top.uri, uri('billing/invoice.go'));
    assert.equal(top.id, 'sym:billing/invoice.go::ComputeInvoiceTotal');
    // The item holds the function from its doc comment on, at its place
    // in the file (and the lines around it).
    const doc = '// ComputeInvoiceTotal adds up the lines of an invoice and applies the tax rate.\nfunc ComputeInvoiceTotal(inv Invoice, taxRate float64) int64 {';
    assert.ok(top.text.includes(doc), top.text);
    assert.ok(top.text.includes('return sum + int64(float64(sum)*taxRate)'), top.text);
    const docLine = top.range.start.line + top.text.slice(0, top.text.indexOf(doc)).split('\n').length - 1;
    assert.equal(docLine, 14, 'the function and its doc comment start on 0-based line 14');
    assert.equal(top.symbolRange?.start.line, 14, 'symbolRange says where the function starts within the text');
    assert.equal(res.usedChars, res.items.reduce((n, it) => n + it.text.length, 0));
    for (let i = 1; i < res.items.length; i++) assert.ok(res.items[i - 1].score >= res.items[i].score, 'sorted by score');

    const rows = pickRows(res);
    assert.equal(rows[0].label, 'ComputeInvoiceTotal');
    assert.match(rows[0].description, new RegExp(`^billing/invoice\\.go:${top.range.start.line + 1}-\\d+$`));
    const md = toMarkdown(res.items.slice(0, 1), { query: params.query });
    assert.match(md, /### `billing\/invoice\.go` \(lines \d+-\d+\): function `ComputeInvoiceTotal`\n\nWhy: [^\n]+\n\n```go\n[^`]*\/\/ ComputeInvoiceTotal adds up[^\n]*\nfunc ComputeInvoiceTotal/);
    // One range per item: the lines the list and the Markdown name are the
    // lines the text holds, and opening goes to the function's first line.
    for (const it of res.items) {
      const { first, last } = lineSpan(it.range);
      const heading = toMarkdown([it]).split('\n')[0];
      assert.ok(heading.includes(first === last ? `(line ${first})` : `(lines ${first}-${last})`), heading);
      assert.equal(itemRow(it, false).description.split(' · ')[0], first === last ? `line ${first}` : `lines ${first}-${last}`);
      if (!it.truncated) assert.equal(it.text.replace(/\n$/, '').split('\n').length, last - first + 1, `${it.id}: the text holds the lines of its range`);
      assert.ok(whyOf(it).length > 0);
    }
    assert.deepEqual(openTarget(top).cursor, { line: 14, character: 0 }, 'opening puts the cursor on the function\'s first line');
  });

  test('budget settings limit the items and their text', async () => {
    const res = await selectContext(s.rpc, buildSelectParams({ query: 'invoice refund router report', limit: 2, maxCharsPerItem: 40 }, settings));
    assert.ok(res.items.length <= 2 && res.items.length > 0, summary(res));
    for (const it of res.items) {
      assert.ok(it.text.length <= 40, `${it.id}: ${it.text.length} chars`);
    }
    assert.ok(res.items.some((it) => it.truncated), 'some item was cut to 40 chars');
  });

  test("a tool's token budget bounds the items' tokens", async () => {
    const maxTokens = tokenBudget(500, TOOL_TOKEN_SHARE);
    const res = await selectContext(s.rpc, buildSelectParams({ query: 'invoice refund router report', maxTokens }, settings));
    assert.equal(res.tokenEncoding, 'o200k_base', summary(res));
    assert.ok(res.items.length > 0 && res.usedTokens !== undefined && res.usedTokens > 0 && res.usedTokens <= 400, `${res.usedTokens} tokens: ${summary(res)}`);
  });

  test('didFocus makes the symbol under the cursor the active item', async () => {
    // 0-based line 6 is the first line of the body of Router.addRoute.
    await sendFocus(s.rpc, { uri: uri('web/router.ts'), position: { line: 6, character: 4 } });
    const res = await selectContext(s.rpc, buildSelectParams({ query: 'reject a duplicate route' }, settings));
    const active = res.items.filter((it) => it.reason === 'active');
    assert.deepEqual(
      active.map((it) => `${it.path} ${it.symbol}`),
      ['web/router.ts Router.addRoute'],
      summary(res),
    );
  });

  test('"Add Symbol to Context" finds the symbol under the cursor, "Add File" the file', async () => {
    const file = 'web/router.ts';
    const at = { line: 6, character: 4 }; // in the body of Router.addRoute
    const res = await selectContext(s.rpc, buildSelectParams(addSymbolParams(file, uri(file), 'routes', at), settings));
    assert.ok(res.items.every((it) => it.path === file), summary(res));
    assert.equal(itemAt(res.items, uri(file), at)?.symbol, 'Router.addRoute', summary(res));
    const f = await selectContext(s.rpc, buildSelectParams(addFileParams('billing/refund.go', uri('billing/refund.go')), settings));
    assert.deepEqual(
      f.items.map((it) => [it.path, it.symbol, it.reason]),
      [['billing/refund.go', '', 'pinned']],
      summary(f),
    );
  });

  test('an unsaved edit (didOpen, didChange) is selected before it reaches the disk', async () => {
    const file = 'web/router.ts';
    await s.conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri: uri(file), languageId: 'typescript', version: 1, text: fixture[file] },
    });
    const added = `
export function verifyWebhookSignature(body: string, signature: string, secret: string): boolean {
  return hmacSha256(secret, body) === signature;
}
`;
    const lines = fixture[file].split('\n').length - 1; // the text ends with a newline
    await s.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri: uri(file), version: 2 },
      contentChanges: [{ range: { start: { line: lines, character: 0 }, end: { line: lines, character: 0 } }, text: added }],
    });
    const res = await selectContext(
      s.rpc,
      buildSelectParams({ query: 'verify the webhook signature', activeUri: uri(file), position: { line: lines + 2, character: 2 } }, settings),
    );
    const hit = find(res, file, 'verifyWebhookSignature');
    assert.ok(hit, `the edited-in function was not selected:\n${summary(res)}${context()}`);
    assert.equal(res.items[0].symbol, 'verifyWebhookSignature', summary(res));
    assert.ok(hit.text.includes('hmacSha256(secret, body)'), hit.text);
    const decl = hit.text.split('\n').findIndex((l) => l.startsWith('export function verifyWebhookSignature'));
    assert.equal(hit.range.start.line + decl, lines + 1, 'the function is at its line in the buffer');
    assert.equal(fs.readFileSync(path.join(root, file), 'utf8'), fixture[file], 'the disk was not touched');
  });

  test('workspace/didChangeConfiguration changes the default limit', async () => {
    const q = { query: 'invoice refund router report parse query string' };
    const before = await selectContext(s.rpc, q);
    assert.ok(before.items.length > 2, summary(before));
    await sendConfiguration(s.rpc, { ...settings, limit: 2 });
    const after = await selectContext(s.rpc, q);
    assert.equal(after.items.length, 2, summary(after));
    await sendConfiguration(s.rpc, settings);
    const back = await selectContext(s.rpc, q);
    assert.equal(back.items.length, before.items.length);
  });

  test('a bad request is InvalidParams naming the field, and the server carries on', async () => {
    await assert.rejects(selectContext(s.rpc, { query: '' }), (err: unknown) => {
      assert.ok(err instanceof ResponseError, String(err));
      assert.equal(err.code, -32602);
      assert.match(err.message, /query/);
      return true;
    });
    await assert.rejects(selectContext(s.rpc, { query: 'x', activeUri: 'http://example.com/a.go' }), (err: unknown) => {
      assert.ok(err instanceof ResponseError);
      assert.equal(err.code, -32602);
      assert.match(err.message, /activeUri/);
      return true;
    });
    // A notification the server cannot apply is not fatal either.
    await s.conn.sendNotification(DID_FOCUS, { uri: 'untitled:Untitled-1' });
    const res = await selectContext(s.rpc, buildSelectParams({ query: 'render the monthly report' }, settings));
    assert.ok(find(res, 'reports/monthly.py', 'render_monthly_report'), summary(res));
  });

  test('shutdown and exit end the process with status 0', async () => {
    await s.conn.sendRequest('shutdown');
    await s.conn.sendNotification('exit');
    assert.equal(await s.exit(10_000), 0, context());
  });
});
