// The one JSON-RPC client of the page and the extension (src/rpc.ts, web/src/rpc.ts's
// copy): its framing of a byte stream and its cancellation.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isCancelled, LineReader, Peer, RpcError, streamTransport } from '../../src/rpc';

describe('rpc', () => {
  test('LineReader: lines whatever the chunking, CR dropped, blank lines skipped, the last without newline at the end', () => {
    const text = '{"a":1}\r\n\n{"b":2}\n{"c":3}';
    for (let size = 1; size <= text.length; size++) {
      const got: string[] = [];
      const r = new LineReader((l) => got.push(l));
      for (let i = 0; i < text.length; i += size) r.push(text.slice(i, i + size));
      r.end();
      assert.deepEqual(got, ['{"a":1}', '{"b":2}', '{"c":3}'], `chunks of ${size}`);
    }
  });

  test('LineReader: linear in the input (a long line in small chunks, many lines in one chunk)', () => {
    // Quadratic framing (re-splitting the buffer from its start, or copying the rest after
    // each line) takes seconds on these; linear takes milliseconds.
    const time = (f: () => void) => {
      const t = process.hrtime.bigint();
      f();
      return Number(process.hrtime.bigint() - t) / 1e6;
    };
    const n = 1 << 20;
    let long = 0;
    const oneLong = time(() => {
      const r = new LineReader((l) => (long = l.length));
      const chunk = 'x'.repeat(16);
      for (let i = 0; i < n / 16; i++) r.push(chunk);
      r.push('\n');
    });
    assert.equal(long, n);
    let count = 0;
    const many = time(() => {
      const r = new LineReader(() => count++);
      r.push('{}\n'.repeat(n / 4));
    });
    assert.equal(count, n / 4);
    assert.ok(oneLong < 2000 && many < 2000, `one long line ${oneLong} ms, many lines ${many} ms`);
  });

  test('a cancelled request: the peer is told, and the answer is known by its code, not its words', async () => {
    const sent: Array<{ id?: number; method?: string; params?: { requestId?: number } }> = [];
    const t = streamTransport((d) => sent.push(JSON.parse(d)));
    const peer = new Peer(t, { cancelMethod: 'lm/cancel' });
    const abort = new AbortController();
    const p = peer.request('slow', {}, abort.signal);
    abort.abort();
    assert.deepEqual(sent[1], { jsonrpc: '2.0', method: 'lm/cancel', params: { requestId: 1 } });
    t.read(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32800, message: 'stopped' } }) + '\n');
    await assert.rejects(p, (e) => isCancelled(e));
    const q = peer.request('other', {});
    t.read(JSON.stringify({ jsonrpc: '2.0', id: 2, error: { code: -32000, message: 'the request was cancelled by the agent' } }) + '\n');
    await assert.rejects(q, (e) => e instanceof RpcError && !isCancelled(e), 'words about cancelling do not make a cancellation');
  });

  test('the end of the stream fails the open requests with its reason', async () => {
    const t = streamTransport(() => undefined);
    const peer = new Peer(t);
    const p = peer.request('x', {});
    t.end('parley exited');
    await assert.rejects(p, /parley exited/);
    await assert.rejects(peer.request('y', {}), /parley exited/);
  });
});
