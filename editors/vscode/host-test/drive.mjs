// Drives the ctxls extension in a real VS Code host: code-server (VS Code
// in the browser) on a fixture workspace, with headless Chromium through
// puppeteer-core. scripts/test-codeserver.sh installs everything and runs
// this with:
//
//   CODE_SERVER_NODE  node 24, to run code-server with
//   CODE_SERVER       code-server's out/node/entry.js
//   CHROMIUM          the browser
//   CTXLS_BIN         the server; CTXLS_VSIX and PROBE_VSIX the extensions
//
// Cases: the status bar shows the index; "ctxls: Select Context…" from the
// command palette lists ranked items; the context view shows them by file
// with why each is there, and opening one puts the cursor on the symbol's
// first line, selects nothing and highlights the lines the list names; a
// second extension gets the same
// through the exported API and the #ctxls language-model tool; VS Code
// lists and starts `ctxls mcp` from the extension's MCP server definition;
// a restricted (untrusted) workspace says why ctxls is off. Screenshots go
// to CTXLS_SCREENSHOTS (default: host-test/screenshots).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { writeTxtar } from '../../txtar.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`test-codeserver: ${name} is not set`);
  return v;
};
const NODE = env('CODE_SERVER_NODE');
const ENTRY = env('CODE_SERVER');
const CHROMIUM = env('CHROMIUM');
const BIN = env('CTXLS_BIN');
const QUERY = 'expired coupon codes are still accepted at checkout';
const SHOTS = process.env.CTXLS_SCREENSHOTS || path.join(here, 'screenshots');
fs.mkdirSync(SHOTS, { recursive: true });
async function screenshot(page, name) {
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(`     screenshot: ${path.relative(process.cwd(), file)}`);
}

let failures = 0;
function ok(cond, what, detail = '') {
  console.log(`${cond ? 'ok  ' : 'FAIL'} ${what}${!cond && detail ? `\n     ${detail}` : ''}`);
  if (!cond) failures++;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitFor(what, fn, ms = 60_000, every = 250) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last && !(typeof last === 'string' && last.startsWith('not yet: '))) return last;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${last})`);
    await new Promise((r) => setTimeout(r, every));
  }
}

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxls-codeserver-')));
const ws = path.join(tmp, 'shop');
writeTxtar(path.join(repo, 'testdata/workspaces/shop.txtar'), ws);
// A server that sends why also promises that range is exactly the lines
// the text holds (docs/protocol.md); an older one may put a class header
// before a method, so the copied line counts are checked only with it.
const serverSaysWhy = (() => {
  const out = execFileSync(BIN, ['select', '--root', ws, '--cache-dir', 'off', '--json', QUERY], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out).items.some((it) => typeof it.why === 'string' && it.why !== '');
})();
console.log(`     the server ${serverSaysWhy ? 'sends' : 'does not send'} why`);
const userData = path.join(tmp, 'user');
const extDir = path.join(tmp, 'extensions');
const probeOut = path.join(tmp, 'probe.json');
// Settings go to User (the browser side) and Machine (the remote side,
// where code-server reads machine-overridable settings such as ctxls.path).
const settings = JSON.stringify({
  'ctxls.path': BIN,
  'ctxls.cacheDir': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
});
for (const dir of ['User', 'Machine']) {
  fs.mkdirSync(path.join(userData, dir), { recursive: true });
  fs.writeFileSync(path.join(userData, dir, 'settings.json'), settings);
}

execFileSync(NODE, [ENTRY, '--user-data-dir', userData, '--extensions-dir', extDir,
  '--install-extension', env('CTXLS_VSIX'), '--install-extension', env('PROBE_VSIX')], { stdio: 'inherit' });

async function startServer(trusted) {
  const port = await freePort();
  const args = [ENTRY, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--user-data-dir', userData,
    '--extensions-dir', extDir, '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override'];
  if (trusted) args.push('--disable-workspace-trust');
  const proc = spawn(NODE, args, { env: { ...process.env, CTXLS_PROBE_OUT: probeOut }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (d) => (log += d));
  proc.stderr.on('data', (d) => (log += d));
  await waitFor('code-server to listen', () => log.includes('HTTP server listening'), 60_000, 100);
  return { port, proc, log: () => log };
}

const browser = await puppeteer.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  defaultViewport: { width: 1400, height: 900 },
});

async function openWorkbench(port) {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: 60_000 });
  return page;
}

// The text of the ctxls status bar item.
function statusText(page) {
  return page.evaluate(() => {
    const items = [...document.querySelectorAll('.statusbar-item')];
    const it = items.find((e) => /ctxls/.test(e.textContent ?? '') || /ctxls/.test(e.getAttribute('aria-label') ?? ''));
    return it ? `${it.textContent} | ${it.getAttribute('aria-label') ?? ''}` : '';
  });
}

// Runs a command from the command palette by its title.
async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget input', { visible: true });
  await page.keyboard.type(title);
  await waitFor(`"${title}" in the palette`, () =>
    page.evaluate((t) => [...document.querySelectorAll('.quick-input-list .monaco-list-row')].some((r) => (r.getAttribute('aria-label') ?? '').includes(t)), title),
  );
  await page.keyboard.press('Enter');
}

function quickPickRows(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('.quick-input-widget .quick-input-list .monaco-list-row')].map((r) => r.getAttribute('aria-label') ?? r.textContent),
  );
}

let server;
try {
  // 1. A trusted workspace: the extension starts the server and indexes.
  server = await startServer(true);
  const page = await openWorkbench(server.port);
  const status = await waitFor('the status bar to show the index', async () => {
    const t = await statusText(page);
    return /Index up to date/.test(t) ? t : `not yet: ${JSON.stringify(t)}; status bar: ${await page.evaluate(() => [...document.querySelectorAll('.statusbar-item')].map((e) => e.id).join(', '))}`;
  }, 90_000);
  ok(true, `the status bar shows the index (${status.split(' | ')[0].trim()})`);
  ok(!/Merkle|hash-\d/.test(status) && /embedder: built-in/.test(status), 'the status tooltip is in user words', status);
  // One indexing indicator: the language client's own window progress
  // ("indexing: 7/65 files") is never shown beside the ctxls item.
  const others = await page.evaluate(() =>
    [...document.querySelectorAll('.statusbar-item')].map((e) => e.textContent ?? '').filter((t) => /indexing|files/i.test(t) && !/ctxls/.test(t)),
  );
  ok(others.length === 0, 'no second indexing indicator in the status bar', others.join(' | '));

  // 2. "ctxls: Select Context…" from the command palette.
  // Under load the palette may still hold the command's title when the
  // query box opens, or lose keystrokes: type, check the box holds exactly
  // the query, then ask; one more try if no answer came.
  const ask = async () => {
    await runCommand(page, 'ctxls: Select Context');
    await page.waitForSelector('.quick-input-widget input', { visible: true });
    await waitFor('an empty query box', () => page.$eval('.quick-input-widget input', (e) => e.value === '' || `not yet: ${e.value}`), 10_000);
    await page.keyboard.type(QUERY);
    await waitFor('the query typed', () => page.$eval('.quick-input-widget input', (e, q) => e.value === q || `not yet: ${e.value}`, QUERY), 10_000);
    await page.keyboard.press('Enter');
    return waitFor('the selected items', async () => {
      const r = await quickPickRows(page);
      return r.some((x) => /internal\/cart\/pricing\.go/.test(x)) ? r : `not yet: ${JSON.stringify(r.slice(0, 6))}`;
    }, 45_000);
  };
  let rows = await ask().catch((err) => ({ err }));
  if (!Array.isArray(rows)) {
    console.log(`     (retrying once: ${rows.err})`);
    await page.keyboard.press('Escape');
    rows = await ask().catch((err) => ({ err }));
  }
  ok(Array.isArray(rows), '"ctxls: Select Context…" lists internal/cart/pricing.go among the items', rows.err ?? '');
  if (Array.isArray(rows)) {
    ok(rows.some((x) => /Copy all as Markdown/.test(x)), 'the list offers "Copy all as Markdown"', rows.join('\n     '));
    console.log(`     rows: ${rows.slice(0, 4).join(' / ')}`);
    await screenshot(page, '1-select-context-quick-pick');
  }
  await page.keyboard.press('Escape');

  // 2b. The context view holds the same selection, by file, with reasons.
  await runCommand(page, 'ctxls: Show Context View');
  const viewRows = await waitFor('the context view\'s items', async () => {
    const r = await page.evaluate(() =>
      [...document.querySelectorAll('.part.sidebar .monaco-list-row')].map((e) => ({
        aria: e.getAttribute('aria-label') ?? '',
        label: e.querySelector('.label-name')?.textContent ?? '',
        description: e.querySelector('.label-description')?.textContent ?? '',
      })),
    );
    return r.some((x) => /internal\/cart\/pricing\.go lines \d+-\d+: ./.test(x.aria)) ? r : `not yet: ${JSON.stringify(r.slice(0, 4))}`;
  }, 30_000).catch((err) => ({ err }));
  ok(Array.isArray(viewRows), 'the context view lists the selection', viewRows.err ?? '');
  if (Array.isArray(viewRows)) {
    const items = viewRows.filter((x) => / lines? \d+(-\d+)?: ./.test(x.aria));
    const files = viewRows.filter((x) => x.label === 'pricing.go');
    ok(files.length === 1 && files[0].description === 'internal/cart', 'items are grouped under their file', JSON.stringify(viewRows.slice(0, 6)));
    ok(items.length > 0 && items.every((x) => /^lines? \d+(-\d+)? · \S/.test(x.description)), 'every item shows its lines and why it is there',
      items.map((x) => `${x.label} | ${x.description}`).join('\n     '));
    console.log(`     view: ${items.slice(0, 3).map((x) => `${x.label} — ${x.description}`).join(' / ')}`);
    await screenshot(page, '2-context-view');

    // Open the pricing.go item: the cursor on the symbol's first line (its
    // doc comment), nothing selected, the item's lines highlighted.
    const target = items.find((x) => /internal\/cart\/pricing\.go/.test(x.aria) && !x.label.includes('/'));
    const [, first, last] = /lines? (\d+)(?:-(\d+))?/.exec(target.description).map(Number);
    const handles = await page.$$('.part.sidebar .monaco-list-row');
    for (const h of handles) {
      if ((await h.evaluate((e) => e.getAttribute('aria-label'))) === target.aria) {
        await h.click();
        break;
      }
    }
    const cursor = await waitFor('the editor cursor', async () => {
      const t = await page.evaluate(() => document.getElementById('status.editor.selection')?.textContent ?? '');
      return /Ln \d+/.test(t) && (await page.evaluate(() => !!document.querySelector('.editor-instance .monaco-editor'))) ? t : `not yet: ${t}`;
    }, 20_000).catch((err) => ({ err }));
    ok(typeof cursor === 'string', 'opening an item opens its file', cursor.err ?? '');
    if (typeof cursor === 'string') {
      const line = Number(/Ln (\d+)/.exec(cursor)[1]);
      const src = fs.readFileSync(path.join(ws, 'internal/cart/pricing.go'), 'utf8').split('\n');
      const name = target.label.replace(/ \(part \d+ of \d+\)$/, '').split('.').pop();
      // From the cursor, past the doc comment, comes the declaration.
      let decl = line - 1;
      while (decl < src.length && /^\s*\/\//.test(src[decl])) decl++;
      ok(line >= first && line <= (last || first) && new RegExp(`\\b${name}\\b`).test(src[decl] ?? ''),
        `the cursor is on the first line of ${target.label} (line ${line}, inside the lines ${first}-${last || first} the list shows)`,
        `${cursor}; line ${decl + 1}: ${src[decl]}`);
      ok(!/selected/.test(cursor), 'nothing is selected', cursor);
      // The highlight arrives just after the editor opens.
      const highlighted = await waitFor('the highlight', () =>
        page.evaluate(() => document.querySelectorAll('.editor-instance .view-overlays [class*="ced-"]').length), 10_000).catch(() => 0);
      const classes = highlighted > 0 ? '' : await page.evaluate(() =>
        [...new Set([...document.querySelectorAll('.editor-instance .view-overlays div')].map((e) => e.className))].join(' | '));
      ok(highlighted > 0, `the item's lines are highlighted (${highlighted} decorated lines in view)`, classes);
      await screenshot(page, '3-item-opened');
    }

    // Every item: the line opened lies in the lines the list shows, and
    // nothing is selected.
    const clickRow = async (aria) => {
      for (const h of await page.$$('.part.sidebar .monaco-list-row')) {
        if ((await h.evaluate((e) => e.getAttribute('aria-label'))) === aria) {
          await h.click();
          return h;
        }
      }
      throw new Error(`no row ${aria}`);
    };
    const bad = [];
    for (const it of items) {
      const [, f, l] = /lines? (\d+)(?:-(\d+))?/.exec(it.description).map(Number);
      const file = /, (\S+) lines? /.exec(it.aria)?.[1];
      await clickRow(it.aria);
      // Waits for the editor of the item's file with the cursor in its lines.
      const at = await waitFor(`${it.label} opened`, async () => {
        const tab = await page.evaluate(() => document.querySelector('.tab.active')?.getAttribute('aria-label') ?? '');
        const t = await page.evaluate(() => document.getElementById('status.editor.selection')?.textContent ?? '');
        const ln = Number(/Ln (\d+)/.exec(t)?.[1]);
        return file && tab.includes(file.split('/').pop()) && ln >= f && ln <= (l || f) ? t : `not yet: ${tab} ${t}`;
      }, 10_000).catch((err) => String(err));
      if (!/^Ln/.test(at) || /selected/.test(at)) bad.push(`${it.label} (${it.description.split(' · ')[0]}): ${at}`);
    }
    ok(bad.length === 0, `every item opens inside the lines the list shows, nothing selected (${items.length} items)`, bad.join('\n     '));

    // Remove the last item, then copy: the Markdown labels the lines the
    // list shows, with the why, holds exactly those lines, and leaves the
    // removed item out.
    const removed = items[items.length - 1];
    const row = await clickRow(removed.aria);
    await row.hover();
    const removeButton = await row.$('.action-label[aria-label="Remove from Context"]');
    ok(removeButton !== null, 'an item offers "Remove from Context"');
    if (removeButton) await removeButton.click();
    const left = await waitFor('the item removed', async () => {
      const r = await page.evaluate(() => [...document.querySelectorAll('.part.sidebar .monaco-list-row')].map((e) => e.getAttribute('aria-label') ?? ''));
      return r.includes(removed.aria) ? `not yet: ${removed.aria} is still listed` : r;
    }, 10_000).catch((err) => ({ err }));
    ok(Array.isArray(left), `removing ${removed.label} drops it from the view`, left.err ?? '');
    await browser.defaultBrowserContext().overridePermissions(`http://127.0.0.1:${server.port}`, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    await page.evaluate(() => navigator.clipboard.writeText(''));
    await runCommand(page, 'ctxls: Copy All as Markdown');
    const md = await waitFor('the Markdown on the clipboard', async () => {
      const t = await page.evaluate(() => navigator.clipboard.readText());
      return t.startsWith('## Context for:') ? t : 'not yet: ' + t.slice(0, 40);
    }, 10_000).catch((err) => ({ err }));
    ok(typeof md === 'string', '"Copy All as Markdown" puts the selection on the clipboard', md.err ?? '');
    if (typeof md === 'string') {
      const kept = items.filter((x) => x !== removed);
      const sections = md.split(/^### /m).slice(1);
      const mismatch = [];
      kept.forEach((it) => {
        const file = /, (\S+) lines? /.exec(it.aria)?.[1];
        const lines = it.description.split(' · ')[0];
        const sec = sections.find((x) => x.startsWith(`\`${file}\` (${lines})`)) ?? '';
        const why = it.aria.slice(it.aria.indexOf(': ') + 2);
        const [, f, l] = /lines? (\d+)(?:-(\d+))?/.exec(lines).map(Number);
        const code = /\n(`{3,})[^\n]*\n([\s\S]*?)\1/.exec(sec)?.[2] ?? '';
        // The lines before an elision marker (a type's header) are context,
        // not part of the range (docs/protocol.md): count what follows it.
        const codeLines = code.replace(/\n$/, '').split('\n');
        const marker = codeLines.findLastIndex((x) => /^\s*(\/\/|#|<!--)?\s*… \d+ lines? …/.test(x));
        const n = codeLines.length - (marker + 1);
        const exact = serverSaysWhy && !/_\(truncated\)_/.test(sec);
        if (!sec.startsWith(`\`${file}\` (${lines})`) || !sec.includes(`\nWhy: ${why}\n`) || (exact && n !== (l || f) - f + 1)) {
          mismatch.push(`${it.label} ${lines} (${why}) vs ${sec.split('\n')[0]} / ${n} lines`);
        }
      });
      ok(sections.length === kept.length && mismatch.length === 0,
        `the copied Markdown names the lines the list shows, says why, ${serverSaysWhy ? 'and holds those lines' : '(a server without why: line counts not checked)'} (${sections.length} items, the removed one left out)`,
        mismatch.join('\n     '));
    }
    await screenshot(page, '4-item-removed');
  }

  // 3. Another extension: the exported API and the language-model tool.
  fs.rmSync(probeOut, { force: true });
  await runCommand(page, 'ctxls probe: Run Probe');
  const probe = await waitFor('the probe extension to write its answer', () => fs.existsSync(probeOut) && JSON.parse(fs.readFileSync(probeOut, 'utf8')), 60_000);
  ok(!probe.fatal, 'the probe ran', probe.fatal);
  ok(probe.api && probe.api.paths.includes('internal/cart/pricing.go'), 'the exported selectContext(params) returns ranked items', JSON.stringify(probe.api ?? probe.apiError));
  ok(/limit/.test(probe.badParams ?? ''), 'a bad limit is an error naming it', String(probe.badParams));
  ok(probe.tools.includes('ctxls_selectContext'), 'vscode.lm.tools lists ctxls_selectContext', probe.tools.join(', '));
  ok(typeof probe.tool === 'string' && /internal\/cart\/pricing\.go/.test(probe.tool) && /```go/.test(probe.tool),
    'vscode.lm.invokeTool("ctxls_selectContext") answers with the selection as Markdown', String(probe.tool ?? probe.toolError));
  const headings = (String(probe.tool).match(/^### /gm) ?? []).length;
  const whys = (String(probe.tool).match(/^Why: \S/gm) ?? []).length;
  ok(headings > 0 && whys === headings, `the #ctxls tool says why for each item (${whys} of ${headings})`, String(probe.tool).slice(0, 600));
  // 4. The MCP server definition: VS Code lists `ctxls mcp` among its MCP
  // servers with no .vscode/mcp.json.
  await runCommand(page, 'MCP: List Servers');
  const servers = await waitFor('ctxls among the MCP servers', async () => {
    const r = await quickPickRows(page);
    return r.some((x) => /\bctxls\b/.test(x)) ? r : null;
  }, 30_000).catch((err) => ({ err }));
  ok(Array.isArray(servers), '"MCP: List Servers" lists ctxls (mcpServerDefinitionProviders)', servers.err ?? '');
  if (Array.isArray(servers)) {
    // Pick it, then "Start Server": VS Code runs `ctxls mcp` and lists its tools.
    await page.keyboard.type('ctxls');
    await page.keyboard.press('Enter');
    const actions = await waitFor('the server actions', async () => {
      const r = await quickPickRows(page);
      return r.some((x) => /Start Server/.test(x)) ? r : null;
    }, 15_000).catch((err) => ({ err }));
    ok(Array.isArray(actions), 'the ctxls MCP server can be started', actions.err ?? '');
    if (Array.isArray(actions)) {
      await page.keyboard.type('Start Server');
      await page.keyboard.press('Enter');
      const running = await waitFor('the ctxls MCP server to run', async () => {
        await page.keyboard.press('Escape');
        await runCommand(page, 'MCP: List Servers');
        const r = await waitFor('the server list', async () => {
          const rows = await quickPickRows(page);
          return rows.some((x) => /\bctxls\b/.test(x)) ? rows : null;
        }, 10_000);
        const row = r.find((x) => /\bctxls\b/.test(x) && !/Add Server/.test(x));
        return /Running/.test(row ?? '') ? row : `not yet: ${row}`;
      }, 60_000, 2000).catch((err) => ({ err }));
      ok(typeof running === 'string', 'VS Code runs `ctxls mcp` from the definition', running.err ?? '');
    }
  }
  await page.keyboard.press('Escape');
  await page.close();
  server.proc.kill();
  server = undefined;

  // 5. Restricted Mode: nothing starts, and the user is told why.
  server = await startServer(false);
  const restricted = await openWorkbench(server.port);
  // The startup trust prompt: Escape keeps the workspace untrusted.
  await waitFor('the workspace trust prompt', () => restricted.evaluate(() => !!document.querySelector('.monaco-dialog-box')), 30_000)
    .then(() => restricted.keyboard.press('Escape'))
    .catch(() => undefined);
  // The notification, in the toasts or, once they have timed out, in the
  // notification center.
  const findNote = () =>
    restricted.evaluate(() =>
      [...document.querySelectorAll('.notification-list-item-message')].map((t) => t.textContent).find((t) => /Restricted Mode/.test(t ?? '')) ?? '',
    );
  let note = await waitFor('the Restricted Mode notification', findNote, 20_000).catch(() => '');
  if (!note) {
    await runCommand(restricted, 'Notifications: Show Notifications');
    note = await waitFor('the Restricted Mode notification in the notification center', findNote, 20_000).catch((err) => ({ err }));
  }
  ok(typeof note === 'string' && /ctxls is off in Restricted Mode/.test(note), 'a restricted workspace says why ctxls is off', note.err ?? String(note));
  const rstatus = await statusText(restricted);
  ok(/Restricted Mode/.test(rstatus), 'the status bar says Restricted Mode', rstatus);
  await restricted.close();
} catch (err) {
  failures++;
  console.log(`FAIL ${err.stack ?? err}`);
  if (server) console.log(`     code-server log:\n${server.log().split('\n').slice(-30).join('\n')}`);
} finally {
  await browser.close();
  server?.proc.kill();
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (failures > 0) {
  console.log(`${failures} failed`);
  process.exit(1);
}
console.log('all passed');
