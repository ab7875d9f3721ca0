import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import type { SelectStats } from '../src/protocol';
import { compactCount, onProgress, onStats, statusDetails, statusView, type Status } from '../src/status';

const stats = (over: Partial<SelectStats> = {}): SelectStats => ({
  ready: true,
  files: 212,
  symbols: 3190,
  candidates: 0,
  elapsedMs: 1,
  embedder: 'hash-384',
  merkleRoot: '9f2c0e4b7a1d3355',
  ...over,
});

describe('status', () => {
  test('starting → indexing with progress → ready with the symbol count', () => {
    let s: Status = { kind: 'starting' };
    assert.equal(statusView(s).text, '$(sync~spin) ctxls');
    s = onProgress(s, { kind: 'begin', title: 'ctxls: indexing', message: 'discovering files', percentage: 0 });
    assert.equal(statusView(s).text, '$(sync~spin) ctxls 0%');
    s = onProgress(s, { kind: 'report', message: '40/100 files', percentage: 40 });
    assert.deepEqual(statusView(s), {
      text: '$(sync~spin) ctxls 40%',
      tooltip: 'Indexing this workspace: 40/100 files. Answers meanwhile come from the files indexed so far. Click for details.',
      warning: false,
    });
    s = onProgress(s, { kind: 'report', message: '41/100 files' });
    assert.equal(statusView(s).text, '$(sync~spin) ctxls 40%', 'a report without a percentage keeps the last one');
    s = onProgress(s, { kind: 'end', message: 'indexed 100 files, 3190 symbols' });
    assert.equal(statusView(s).text, '$(sync~spin) ctxls 100%');
    s = onStats(s, stats());
    assert.deepEqual(statusView(s), {
      text: '$(symbol-misc) ctxls 3.2k',
      tooltip: 'Index up to date: 212 files, 3,190 symbols; embedder: built-in. Click for details.',
      warning: false,
    });
  });

  test('stats of an index not yet built keep the status indexing', () => {
    const s = onStats({ kind: 'starting' }, stats({ ready: false, symbols: 10 }));
    assert.equal(s.kind, 'indexing');
    const during = onStats({ kind: 'indexing', percentage: 30 }, stats({ ready: false }));
    assert.deepEqual(during, { kind: 'indexing', percentage: 30 });
  });

  test('a re-index after ready shows progress again', () => {
    const s = onProgress({ kind: 'ready', stats: stats() }, { kind: 'begin', title: 'ctxls: indexing', percentage: 0 });
    assert.equal(s.kind, 'indexing');
  });

  test('stopped stays stopped until the glue starts over, and warns', () => {
    const stopped: Status = { kind: 'stopped', reason: 'the ctxls binary was not found' };
    assert.equal(onProgress(stopped, { kind: 'begin' }), stopped);
    assert.equal(onStats(stopped, stats()), stopped);
    assert.deepEqual(statusView(stopped), { text: '$(warning) ctxls', tooltip: 'ctxls is off: the ctxls binary was not found. Click for details.', warning: true });
  });

  test('details name the counts, the embedder in words and the server, and no hashes', () => {
    assert.deepEqual(statusDetails({ kind: 'ready', stats: stats() }, { path: '/usr/local/bin/ctxls', version: '0.3.0' }), [
      'Index up to date: 212 files, 3,190 symbols; embedder: built-in.',
      'Server: /usr/local/bin/ctxls (0.3.0).',
    ]);
    const onnx = statusDetails({ kind: 'ready', stats: stats({ embedder: 'onnx-384-1f2e3d4c5b6a7980' }) });
    assert.equal(onnx[0], 'Index up to date: 212 files, 3,190 symbols; embedder: your ONNX model (ctxls.modelPath).');
    for (const s of [statusView({ kind: 'ready', stats: stats() }).tooltip, ...statusDetails({ kind: 'ready', stats: stats() })]) {
      assert.doesNotMatch(s, /Merkle|9f2c0e|hash-384/);
    }
    assert.match(statusDetails({ kind: 'indexing', percentage: 42.4, message: '10/24 files' })[0], /^Indexing \(42%\): 10\/24 files\./);
  });

  test('compactCount', () => {
    assert.deepEqual([0, 999, 1000, 3190, 9999, 12_345, 999_499, 999_999, 1_500_000].map(compactCount), ['0', '999', '1k', '3.2k', '10k', '12k', '999k', '1M', '1.5M']);
  });
});
