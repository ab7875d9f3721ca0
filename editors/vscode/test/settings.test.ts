import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import {
  buildSelectParams,
  configurationParams,
  DEFAULT_SETTINGS,
  initializationOptions,
  readSettings,
  serveArgs,
  type Settings,
} from '../src/settings';

const home = '/home/ada';
const from = (values: Record<string, unknown>) => (key: string) => values[key];

describe('readSettings', () => {
  test('unset settings are the defaults, with no problems', () => {
    const { settings, problems } = readSettings(from({}), home);
    assert.deepEqual(settings, DEFAULT_SETTINGS);
    assert.deepEqual(problems, []);
  });

  test('valid values are taken, trimmed, with ~ expanded in paths', () => {
    const { settings, problems } = readSettings(
      from({
        path: ' ~/go/bin/ctxls ',
        shareIndex: true,
        embedder: 'onnx',
        modelPath: '~/models/minilm',
        onnxRuntimeLibrary: '/opt/ort/libonnxruntime.so',
        exclude: ['**/fixtures/**', ' ', 'gen/**'],
        maxFileBytes: 2048,
        cacheDir: 'off',
        limit: 20,
        maxChars: 30000,
        maxCharsPerItem: 4000,
      }),
      home,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, {
      path: '/home/ada/go/bin/ctxls',
      shareIndex: true,
      embedder: 'onnx',
      modelPath: '/home/ada/models/minilm',
      onnxRuntimeLibrary: '/opt/ort/libonnxruntime.so',
      exclude: ['**/fixtures/**', 'gen/**'],
      maxFileBytes: 2048,
      cacheDir: 'off',
      limit: 20,
      maxChars: 30000,
      maxCharsPerItem: 4000,
    });
  });

  test('each invalid value falls back to its default and is reported by name', () => {
    const { settings, problems } = readSettings(
      from({ embedder: 'bert', limit: 500, maxChars: 0, maxCharsPerItem: 2.5, exclude: 'vendor/**', cacheDir: 42, shareIndex: 'yes' }),
      home,
    );
    assert.equal(settings.embedder, 'hash');
    assert.equal(settings.limit, 8);
    assert.equal(settings.maxChars, 12000);
    assert.equal(settings.maxCharsPerItem, 1500);
    assert.deepEqual(settings.exclude, []);
    assert.equal(settings.cacheDir, '');
    assert.equal(settings.shareIndex, false);
    assert.equal(problems.length, 7);
    for (const name of ['ctxls.embedder', 'ctxls.limit', 'ctxls.maxChars', 'ctxls.maxCharsPerItem', 'ctxls.exclude', 'ctxls.cacheDir', 'ctxls.shareIndex']) {
      assert.ok(problems.some((p) => p.startsWith(name + ' ')), `no problem names ${name}: ${problems.join('; ')}`);
    }
    assert.match(problems.find((p) => p.startsWith('ctxls.limit'))!, /between 1 and 100, got number 500; using 8/);
  });
});

describe('how the server is started', () => {
  test('serve runs in its own process unless the index is shared through the daemon', () => {
    assert.deepEqual(serveArgs(DEFAULT_SETTINGS), ['serve']);
    assert.deepEqual(serveArgs({ shareIndex: true }), ['serve', '--remote=auto']);
  });
});

describe('what the server is sent', () => {
  const s: Settings = { ...DEFAULT_SETTINGS, path: '/usr/bin/ctxls', exclude: ['a/**'], cacheDir: 'off', limit: 3 };

  test('initializationOptions carries every init option and nothing of the client', () => {
    assert.deepEqual(initializationOptions(s), {
      embedder: 'hash',
      modelPath: '',
      onnxRuntimeLibrary: '',
      exclude: ['a/**'],
      maxFileBytes: 1048576,
      cacheDir: 'off',
    });
  });

  test('didChangeConfiguration sends the options and request defaults under settings.ctxls', () => {
    const p = configurationParams(s);
    assert.deepEqual(Object.keys(p.settings), ['ctxls']);
    assert.equal(p.settings.ctxls.limit, 3);
    assert.equal(p.settings.ctxls.maxChars, 12000);
    assert.equal(p.settings.ctxls.maxCharsPerItem, 1500);
    assert.deepEqual(p.settings.ctxls.exclude, ['a/**']);
    assert.equal('path' in p.settings.ctxls, false);
  });

  test('the exclude list sent is a copy', () => {
    const opts = initializationOptions(s);
    opts.exclude.push('b/**');
    assert.deepEqual(s.exclude, ['a/**']);
  });
});

describe('buildSelectParams', () => {
  const defaults = { limit: 5, maxChars: 9000, maxCharsPerItem: 700 };

  test('fills the budget from the settings and keeps the caller fields', () => {
    const p = buildSelectParams(
      { query: '  retry the webhook  ', activeUri: 'file:///w/a.go', position: { line: 3, character: 1 }, history: ['earlier'] },
      defaults,
    );
    assert.deepEqual(p, {
      query: 'retry the webhook',
      activeUri: 'file:///w/a.go',
      position: { line: 3, character: 1 },
      history: ['earlier'],
      limit: 5,
      maxChars: 9000,
      maxCharsPerItem: 700,
    });
  });

  test('caller budget wins over the settings', () => {
    const p = buildSelectParams({ query: 'q', limit: 2, maxChars: 100 }, defaults);
    assert.equal(p.limit, 2);
    assert.equal(p.maxChars, 100);
    assert.equal(p.maxCharsPerItem, 700);
  });

  test('empty lists and a position without activeUri are dropped', () => {
    const p = buildSelectParams({ query: 'q', pinned: [], kinds: [], position: { line: 1, character: 0 } }, defaults);
    assert.equal('pinned' in p, false);
    assert.equal('kinds' in p, false);
    assert.equal('position' in p, false);
  });

  test('a missing or blank query is refused, naming the field', () => {
    assert.throws(() => buildSelectParams({ query: '   ' }, defaults), /params\.query must be a non-empty string, got "   "/);
    assert.throws(() => buildSelectParams({} as never, defaults), /params\.query must be a non-empty string, got nothing/);
    assert.throws(() => buildSelectParams(null as never, defaults), /params must be an object with a query, got null/);
  });

  test('fields of the wrong type are refused, naming the field', () => {
    assert.throws(() => buildSelectParams({ query: 'q', history: 'earlier' as never }, defaults), /params\.history must be a list of strings/);
    assert.throws(() => buildSelectParams({ query: 'q', limit: '8' as never }, defaults), /params\.limit must be a number, got "8"/);
  });
});
