import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';

import { Debouncer, FocusReporter, focusParams } from '../src/focus';
import type { DidFocusParams } from '../src/protocol';

describe('Debouncer', () => {
  test('calls once with the last arguments after a quiet period', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const calls: number[] = [];
    const d = new Debouncer((n: number) => calls.push(n), 200);
    d.call(1);
    t.mock.timers.tick(150);
    d.call(2);
    t.mock.timers.tick(150);
    d.call(3);
    t.mock.timers.tick(199);
    assert.deepEqual(calls, []);
    t.mock.timers.tick(1);
    assert.deepEqual(calls, [3]);
    t.mock.timers.tick(1000);
    assert.deepEqual(calls, [3]);
  });

  test('flush runs the waiting call now; cancel drops it', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const calls: string[] = [];
    const d = new Debouncer((s: string) => calls.push(s), 200);
    d.call('a');
    d.flush();
    assert.deepEqual(calls, ['a']);
    d.flush();
    assert.deepEqual(calls, ['a']);
    d.call('b');
    d.cancel();
    t.mock.timers.tick(500);
    assert.deepEqual(calls, ['a']);
  });
});

describe('focusParams', () => {
  test('file documents give params; other schemes none', () => {
    assert.deepEqual(focusParams('file:///w/a.go', { line: 2, character: 5 }), { uri: 'file:///w/a.go', position: { line: 2, character: 5 } });
    assert.deepEqual(focusParams('file:///w/a.go'), { uri: 'file:///w/a.go' });
    assert.equal(focusParams('untitled:Untitled-1', { line: 0, character: 0 }), undefined);
    assert.equal(focusParams('git:/w/a.go?ref', { line: 0, character: 0 }), undefined);
    assert.equal(focusParams('output:extension-output-ctxls'), undefined);
  });
});

describe('FocusReporter', () => {
  test('moving the cursor sends one didFocus where it comes to rest', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const sent: DidFocusParams[] = [];
    const r = new FocusReporter((p) => sent.push(p), 200);
    for (let line = 0; line < 20; line++) {
      r.update('file:///w/a.go', { line, character: 0 });
      t.mock.timers.tick(50);
    }
    assert.deepEqual(sent, []);
    t.mock.timers.tick(200);
    assert.deepEqual(sent, [{ uri: 'file:///w/a.go', position: { line: 19, character: 0 } }]);
  });

  test('the same focus is not sent twice in a row, until reset', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const sent: DidFocusParams[] = [];
    const r = new FocusReporter((p) => sent.push(p), 100);
    const here = { line: 4, character: 2 };
    r.update('file:///w/a.go', here);
    t.mock.timers.tick(100);
    r.update('file:///w/a.go', { ...here });
    t.mock.timers.tick(100);
    assert.equal(sent.length, 1);
    r.update('file:///w/b.go', here);
    r.flush();
    r.update('file:///w/a.go', here);
    r.flush();
    assert.deepEqual(sent.map((p) => p.uri), ['file:///w/a.go', 'file:///w/b.go', 'file:///w/a.go']);
    r.reset();
    r.update('file:///w/a.go', here);
    r.flush();
    assert.equal(sent.length, 4);
  });

  test('non-file documents never reach the server and do not cancel a waiting focus', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const send = mock.fn((_p: DidFocusParams) => {});
    const r = new FocusReporter(send, 100);
    r.update('file:///w/a.go', { line: 1, character: 0 });
    r.update('untitled:Untitled-1', { line: 0, character: 0 });
    t.mock.timers.tick(100);
    assert.equal(send.mock.callCount(), 1);
    assert.equal(send.mock.calls[0].arguments[0].uri, 'file:///w/a.go');
  });
});
