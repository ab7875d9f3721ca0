// An editor and an agent sharing one ctxls daemon (issue 24): the editor's
// `ctxls serve --remote=SOCKET` opens a file and adds a function without
// saving it, with the cursor in it; the agent's `ctxls mcp
// --remote=SOCKET`, driven by the official MCP TypeScript SDK's client,
// asks select_context without naming a file and gets that unsaved
// function, with the recent-edit evidence and the editor session named
// in stats.editorState.
//
// CTXLS_BIN names the binary (scripts/test-mcp.sh builds it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeTxtar } from '../../txtar.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const bin = process.env.CTXLS_BIN;
if (!bin) throw new Error('set CTXLS_BIN to the ctxls binary (scripts/test-mcp.sh does)');

let home, root, socket, daemon, editor, client, log = '';
// Private directories, so the daemon's socket and cache are this test's.
const env = () => ({ ...process.env, XDG_CACHE_HOME: path.join(home, 'cache'), XDG_RUNTIME_DIR: path.join(home, 'run'), CTXLS_REMOTE: '' });

// lsp is a minimal LSP client over a child's stdio: Content-Length framing.
function lsp(child) {
  let buf = Buffer.alloc(0);
  const waiting = new Map();
  let next = 0;
  child.stdout.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, end).toString())[1]);
      if (buf.length < end + 4 + len) return;
      const msg = JSON.parse(buf.subarray(end + 4, end + 4 + len).toString());
      buf = buf.subarray(end + 4 + len);
      if (msg.id !== undefined && !msg.method && waiting.has(msg.id)) {
        waiting.get(msg.id)(msg);
        waiting.delete(msg.id);
      }
    }
  });
  const write = (m) => {
    const body = JSON.stringify({ jsonrpc: '2.0', ...m });
    child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  return {
    notify: (method, params) => write({ method, params }),
    call: (method, params) => new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
      write({ id, method, params });
    }),
  };
}

async function waitSocket() {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const c = net.connect(socket, () => { c.end(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error('the daemon never listened:\n' + log);
    await new Promise((r) => setTimeout(r, 50));
  }
}

before(async () => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'c24-')));
  fs.mkdirSync(path.join(home, 'run'), { mode: 0o700 });
  socket = path.join(home, 'run', 'ctxls', 'daemon.sock');
  root = path.join(home, 'shop');
  writeTxtar(path.join(repo, 'testdata/workspaces/shop.txtar'), root);
  daemon = spawn(bin, ['daemon', '--socket', socket, '--idle', '1m'], { env: env(), stdio: ['ignore', 'ignore', 'pipe'] });
  daemon.stderr.on('data', (d) => { log += d; });
  await waitSocket();
});

after(async () => {
  await client?.close();
  editor?.kill();
  daemon?.kill('SIGTERM');
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

test('the agent sees the editor\'s unsaved function and cursor through the shared daemon', async () => {
  const child = spawn(bin, ['serve', `--remote=${socket}`], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
  editor = child;
  let editorErr = '';
  child.stderr.on('data', (d) => { editorErr += d; });
  const ed = lsp(child);
  await ed.call('initialize', { processId: process.pid, rootUri: pathToFileURL(root).href, capabilities: {} });
  ed.notify('initialized', {});
  const file = path.join(root, 'internal/cart/cart.go');
  const uri = pathToFileURL(file).href;
  const disk = fs.readFileSync(file, 'utf8');
  const added = '\n// SplitQuokkaBasket divides a cart between two shoppers.\nfunc SplitQuokkaBasket(c *Cart) (*Cart, *Cart) {\n\treturn c, nil\n}\n';
  ed.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'go', version: 1, text: disk } });
  ed.notify('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: disk + added }] });
  const line = (disk + added).split('\n').findIndex((l) => l.includes('return c, nil'));
  ed.notify('ctxls/didFocus', { uri, position: { line, character: 1 } });
  await ed.call('workspace/contextSelect', { query: 'split basket' }); // the notifications are applied
  assert.doesNotMatch(editorErr, /warning/, 'the editor did not use the daemon');

  const transport = new StdioClientTransport({ command: bin, args: ['mcp', `--remote=${socket}`, '--root', root], env: env(), stderr: 'pipe' });
  client = new Client({ name: 'ctxls-node-daemon-test', version: '1.0.0' });
  await client.connect(transport);
  const res = await client.callTool({ name: 'select_context', arguments: { query: 'why does this fail', limit: 5 } });
  assert.ok(!res.isError, res.content[0]?.text);
  const { items, stats } = res.structuredContent;
  assert.equal(items[0]?.symbol, 'SplitQuokkaBasket', 'first items: ' + items.map((i) => i.symbol).join(', '));
  assert.equal(items[0].path, 'internal/cart/cart.go');
  assert.ok(items[0].signals.edit, 'no recent-edit signal: ' + JSON.stringify(items[0].signals));
  assert.equal(stats.editorState?.activeUri, uri);
  assert.match(res.content.at(-1).text, /Used the state of editor session \d+/);

  const status = await client.callTool({ name: 'index_status', arguments: {} });
  assert.equal(status.structuredContent.folders[0]?.root, root);
});
