import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { findServer, INSTALL_COMMAND } from '../src/binary';

// Real files on disk: an executable ctxls in one bin dir, a non-executable
// one in another, a GOPATH with ctxls in it.
let dir: string;
let binA: string;
let binB: string;
let plain: string;
let gopath: string;

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ctxls-binary-'));
  binA = path.join(dir, 'a');
  binB = path.join(dir, 'b');
  plain = path.join(dir, 'plain');
  gopath = path.join(dir, 'gopath');
  for (const d of [binA, binB, plain, path.join(gopath, 'bin')]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(binB, 'ctxls'), '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(plain, 'ctxls'), 'not executable', { mode: 0o644 });
  fs.writeFileSync(path.join(gopath, 'bin', 'ctxls'), '#!/bin/sh\n', { mode: 0o755 });
  fs.mkdirSync(path.join(dir, 'ws', 'tools'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'ws', 'tools', 'ctxls'), '#!/bin/sh\n', { mode: 0o755 });
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

const posix = { platform: 'linux' as const, home: '/nonexistent-home' };

describe('findServer', () => {
  test('finds ctxls on PATH, first directory first, skipping non-executables', () => {
    const res = findServer({ ...posix, env: { PATH: [binA, plain, binB].join(':') } });
    assert.deepEqual(res, { found: true, path: path.join(binB, 'ctxls'), via: 'PATH' });
  });

  test('the setting wins over PATH', () => {
    const res = findServer({ ...posix, configured: path.join(gopath, 'bin', 'ctxls'), env: { PATH: binB } });
    assert.deepEqual(res, { found: true, path: path.join(gopath, 'bin', 'ctxls'), via: 'setting' });
  });

  test('a relative setting is resolved against the workspace folder', () => {
    const res = findServer({ ...posix, configured: './tools/ctxls', workspaceFolder: path.join(dir, 'ws'), env: { PATH: '' } });
    assert.deepEqual(res, { found: true, path: path.join(dir, 'ws', 'tools', 'ctxls'), via: 'setting' });
  });

  test('a setting that is a bare name is looked up on PATH', () => {
    const res = findServer({ ...posix, configured: 'ctxls', env: { PATH: binB } });
    assert.equal(res.found && res.path, path.join(binB, 'ctxls'));
  });

  test('a setting that points at nothing says so and does not fall back to PATH', () => {
    const res = findServer({ ...posix, configured: path.join(plain, 'ctxls'), env: { PATH: binB } });
    assert.equal(res.found, false);
    assert.ok(!res.found);
    assert.match(res.message, /ctxls\.path is ".*plain\/ctxls", but .* is not an executable file/);
    assert.match(res.fix, /clear ctxls\.path to use PATH/);
  });

  test('missing everywhere: the fix is the install command', () => {
    const res = findServer({ ...posix, env: { PATH: [binA, plain].join(':') } });
    assert.ok(!res.found);
    assert.match(res.message, /no ctxls binary on PATH/);
    assert.ok(res.fix.includes(INSTALL_COMMAND), res.fix);
  });

  test('installed with go install but not on PATH: the fix names the binary', () => {
    const res = findServer({ ...posix, env: { PATH: binA, GOPATH: gopath } });
    assert.ok(!res.found);
    const file = path.join(gopath, 'bin', 'ctxls');
    assert.equal(res.message, `ctxls is not on PATH, but ${file} exists.`);
    assert.match(res.fix, new RegExp(`Set ctxls\\.path to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
});

describe('findServer on Windows', () => {
  test('tries the PATHEXT extensions', () => {
    const seen: string[] = [];
    const res = findServer({
      platform: 'win32',
      home: 'C:\\Users\\ada',
      env: { PATH: 'C:\\tools;C:\\go\\bin', PATHEXT: '.COM;.EXE' },
      isExecutable: (f) => {
        seen.push(f);
        return f === 'C:\\go\\bin\\ctxls.exe';
      },
    });
    assert.deepEqual(res, { found: true, path: 'C:\\go\\bin\\ctxls.exe', via: 'PATH' });
    assert.deepEqual(seen, ['C:\\tools\\ctxls', 'C:\\tools\\ctxls.com', 'C:\\tools\\ctxls.exe', 'C:\\go\\bin\\ctxls', 'C:\\go\\bin\\ctxls.com', 'C:\\go\\bin\\ctxls.exe']);
  });
});
