// `ctxls mcp` driven by the official MCP TypeScript SDK's client over
// stdio, as Claude Code, Cursor or VS Code start it: initialize, list the
// tools, select context on a fixture workspace, and see a bad argument
// come back as a tool error naming it.
//
// CTXLS_BIN names the binary (scripts/test-mcp.sh builds it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeTxtar } from '../../txtar.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const bin = process.env.CTXLS_BIN;
if (!bin) throw new Error('set CTXLS_BIN to the ctxls binary (scripts/test-mcp.sh does)');

let root, client, stderr = '';

before(async () => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxls-mcp-')));
  writeTxtar(path.join(repo, 'testdata/workspaces/shop.txtar'), root);
  const transport = new StdioClientTransport({
    command: bin,
    args: ['mcp', '--root', root, '--cache-dir', 'off'],
    stderr: 'pipe',
  });
  transport.stderr.on('data', (d) => { stderr += d; });
  client = new Client({ name: 'ctxls-node-test', version: '1.0.0' });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

async function waitReady() {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await client.callTool({ name: 'index_status', arguments: {} });
    if (res.structuredContent.ready) return res;
    if (Date.now() > deadline) throw new Error('the index never became ready: ' + res.content[0].text);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('initialize names the server and offers tools', () => {
  const info = client.getServerVersion();
  assert.equal(info.name, 'ctxls');
  assert.ok(client.getServerCapabilities().tools, 'no tools capability');
  assert.match(client.getInstructions() ?? '', /select_context/);
});

test('lists the three tools with schemas and descriptions', async () => {
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.deepEqual(Object.keys(byName).sort(), ['explain_selection', 'index_status', 'select_context']);
  const sel = byName.select_context;
  assert.deepEqual(sel.inputSchema.required, ['query']);
  for (const arg of ['query', 'history', 'activeFile', 'cursorLine', 'limit', 'maxChars', 'paths', 'kinds']) {
    assert.ok(sel.inputSchema.properties[arg]?.description, `select_context.${arg} has no description`);
  }
  assert.ok(sel.outputSchema, 'select_context has no output schema');
  assert.equal(sel.annotations.readOnlyHint, true);
});

test('select_context returns ranked items as text and as the structured result', async () => {
  await waitReady();
  const res = await client.callTool({
    name: 'select_context',
    arguments: { query: 'reject PayStream webhooks with old timestamps to prevent replay attacks', limit: 5 },
  });
  assert.ok(!res.isError, res.content[0]?.text);
  const { items, stats } = res.structuredContent;
  assert.ok(items.length > 0 && items.length <= 5, `want 1-5 items, got ${items.length}`);
  assert.ok(stats.ready);
  assert.ok(items.some((it) => it.path === 'internal/payment/webhook.go'), 'webhook.go not selected: ' + items.map((i) => i.path).join(', '));
  for (let i = 1; i < items.length; i++) {
    assert.ok(items[i - 1].score >= items[i].score || items[i].reason !== 'retrieved', 'items are not ranked by score');
  }
  // A text block per item, each starting with its rank, place and code.
  assert.equal(res.content.length, items.length + 1);
  assert.match(res.content[0].text, new RegExp(`^1\\. ${items[0].path.replace(/[.]/g, '\\.')}:\\d+-\\d+ `));
  assert.match(res.content[0].text, /```go\n/);
  assert.match(res.content.at(-1).text, /items?, \d+ characters/);
});

test('bad arguments are tool errors naming the argument', async () => {
  const cases = [
    [{ query: 'coupon', limit: 1000 }, /limit: must be between 1 and 100, got 1000/],
    [{ query: 'coupon', kinds: ['funktion'] }, /kinds\[0\]: unknown kind "funktion"/],
    [{ query: 'coupon', activeFile: 'ftp://host/x.go' }, /activeFile: unsupported URI scheme "ftp"/],
    [{ query: 'coupon', maxChars: 'lots' }, /maxChars/],
    [{ limit: 3 }, /query/],
  ];
  for (const [args, want] of cases) {
    const res = await client.callTool({ name: 'select_context', arguments: args });
    assert.equal(res.isError, true, `${JSON.stringify(args)} was not an error`);
    assert.match(res.content[0].text, want);
  }
  // The server goes on.
  const ok = await client.callTool({ name: 'select_context', arguments: { query: 'coupon' } });
  assert.ok(!ok.isError);
});

test('index_status reports the folder', async () => {
  const res = await waitReady();
  const [folder] = res.structuredContent.folders;
  assert.equal(folder.root, root);
  assert.ok(folder.files > 10 && folder.symbols > 50, JSON.stringify(folder));
  assert.match(res.content[0].text, /the index is ready/);
});

test('a file written on disk is selected without any notification', async () => {
  await waitReady();
  fs.mkdirSync(path.join(root, 'internal/gift'), { recursive: true });
  fs.writeFileSync(path.join(root, 'internal/gift/card.go'),
    'package gift\n\n// RedeemQuokkaCard applies a quokka gift card to an order.\nfunc RedeemQuokkaCard(code string) error { return nil }\n');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await client.callTool({ name: 'select_context', arguments: { query: 'RedeemQuokkaCard', limit: 3 } });
    if (res.structuredContent.items.some((it) => it.symbol === 'RedeemQuokkaCard')) break;
    if (Date.now() > deadline) assert.fail('the new file was never selected; server log:\n' + stderr);
    await new Promise((r) => setTimeout(r, 100));
  }
});
