import assert from 'node:assert/strict';
import { test } from 'node:test';

import { serverLogLine } from '../src/logs';

test('slog lines keep their level; those the server mirrors are marked', () => {
  assert.deepEqual(serverLogLine('time=2026-11-25T08:41:10.517Z level=INFO msg="indexed 47 files, 267 symbols in 40 ms"'), {
    level: 'info',
    message: 'msg="indexed 47 files, 267 symbols in 40 ms"',
    mirrored: true,
  });
  assert.equal(serverLogLine('time=t level=WARN msg=x').level, 'warn');
  assert.equal(serverLogLine('time=t level=ERROR msg=x').level, 'error');
  assert.deepEqual(serverLogLine('time=t level=DEBUG msg="files changed on disk" events=2'), {
    level: 'debug',
    message: 'msg="files changed on disk" events=2',
    mirrored: false,
  });
  assert.equal(serverLogLine('time=t level=DEBUG-2 msg=x').level, 'debug');
});

test('anything else on stderr is an error, shown once', () => {
  for (const line of ['panic: runtime error: index out of range', 'ctxls: --log-level must be debug, info, warn or error', 'goroutine 1 [running]:']) {
    assert.deepEqual(serverLogLine(line), { level: 'error', message: line, mirrored: false });
  }
});
