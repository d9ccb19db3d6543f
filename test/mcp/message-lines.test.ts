import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { MessageLines } from '../../src/mcp/message-lines.js';
import { MAX_MESSAGE_BYTES } from '../../src/mcp/message-limit.js';

/** A reader with the given limit, and what it reported. */
function reader(maxLineBytes: number) {
  const messages: JSONRPCMessage[] = [];
  const skipped: string[] = [];
  let tooLong = 0;
  const lines = new MessageLines(maxLineBytes, {
    message: (message) => messages.push(message),
    notMessage: (line) => skipped.push(line),
    tooLong: () => void tooLong++,
  });
  return { lines, messages, skipped, tooLong: () => tooLong };
}

/** A JSON-RPC notification whose line (without its `\n`) is exactly `bytes` long. */
function messageOf(bytes: number): string {
  const shell = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { pad: '' } });
  return shell.replace('"pad":""', `"pad":"${'x'.repeat(bytes - shell.length)}"`);
}

describe('MessageLines (MCP stdio framing, read)', () => {
  it('reads one message a line however the chunks cut it, a multi-byte character included, and drops a \\r before the \\n', () => {
    const text = '{"jsonrpc":"2.0","method":"a","params":{"s":"żółw ✓"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\r\n';
    const bytes = Buffer.from(text);
    // Every way of cutting the stream in two, and one byte at a time.
    for (let cut = 0; cut <= bytes.length; cut++) {
      const r = reader(1_000);
      r.lines.push(bytes.subarray(0, cut));
      r.lines.push(bytes.subarray(cut));
      assert.deepEqual(r.messages, [
        { jsonrpc: '2.0', method: 'a', params: { s: 'żółw ✓' } },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ]);
    }
    const r = reader(1_000);
    for (let i = 0; i < bytes.length; i++) r.lines.push(bytes.subarray(i, i + 1));
    assert.equal(r.messages.length, 2);
    assert.deepEqual(r.skipped, []);
  });

  it('skips lines that are not JSON-RPC 2.0 messages and reads on', () => {
    const r = reader(1_000);
    r.lines.push(
      Buffer.from('starting up\n[1,2]\nnull\n{"jsonrpc":"1.0","id":1}\n\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n'),
    );
    assert.deepEqual(r.skipped, ['starting up', '[1,2]', 'null', '{"jsonrpc":"1.0","id":1}', '']);
    assert.deepEqual(r.messages, [{ jsonrpc: '2.0', id: 3, method: 'ping' }]);
    assert.equal(r.tooLong(), 0);
  });

  it('reads a line of exactly the limit and refuses one byte more, ended in the chunk or not', () => {
    const atLimit = reader(1_000);
    atLimit.lines.push(Buffer.from(`${messageOf(600)}\n${messageOf(1_000)}`));
    atLimit.lines.push(Buffer.from('\n'));
    assert.equal(atLimit.messages.length, 2);
    assert.equal(atLimit.tooLong(), 0);
    // One byte over, with its end in the same chunk, then cut before its end: refused either way.
    for (const chunks of [
      [`${messageOf(1_001)}\n`],
      [messageOf(1_001).slice(0, 500), `${messageOf(1_001).slice(500)}\n`],
    ]) {
      const over = reader(1_000);
      for (const chunk of chunks) over.lines.push(Buffer.from(chunk));
      assert.equal(over.tooLong(), 1);
      assert.deepEqual(over.messages, []);
    }
  });

  it('stops at a line that never ends as soon as it passes the limit, holding no more of it', () => {
    const r = reader(1_000);
    for (let i = 0; i < 9; i++) r.lines.push(Buffer.alloc(100, 0x78));
    assert.equal(r.tooLong(), 0);
    r.lines.push(Buffer.alloc(101, 0x78));
    assert.equal(r.tooLong(), 1);
    // Nothing more is read, not even a whole message after it.
    r.lines.push(Buffer.from('\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
    assert.deepEqual(r.messages, []);
    assert.equal(r.tooLong(), 1);
  });

  it('reads nothing after a line over the limit, not even the rest of the chunk it came in', () => {
    const r = reader(100);
    r.lines.push(
      Buffer.from(
        `{"jsonrpc":"2.0","id":1,"method":"ping"}\n${messageOf(200)}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\nnot json\n`,
      ),
    );
    assert.deepEqual(r.messages, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    assert.deepEqual(r.skipped, []);
    assert.equal(r.tooLong(), 1);
  });

  it('reads nothing once stopped, and drops the line under way', () => {
    const r = reader(1_000);
    r.lines.push(Buffer.from('{"jsonrpc":"2.0",'));
    r.lines.stop();
    r.lines.push(Buffer.from('"id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n'));
    assert.deepEqual(r.messages, []);
    assert.deepEqual(r.skipped, []);
  });

  it('reads a message of exactly 16 MiB, the limit both ends of stdio have unless told, and refuses one byte more', () => {
    assert.equal(MAX_MESSAGE_BYTES, 16 * 1024 * 1024);
    const big = Buffer.from(`${messageOf(MAX_MESSAGE_BYTES)}\n`);
    const atLimit = reader(MAX_MESSAGE_BYTES);
    // Cut in 64 KiB chunks, as a pipe delivers it.
    for (let at = 0; at < big.length; at += 65_536) atLimit.lines.push(big.subarray(at, at + 65_536));
    assert.equal(atLimit.messages.length, 1);
    assert.equal(atLimit.tooLong(), 0);
    const over = reader(MAX_MESSAGE_BYTES);
    const bigger = Buffer.from(`${messageOf(MAX_MESSAGE_BYTES + 1)}\n`);
    for (let at = 0; at < bigger.length; at += 65_536) over.lines.push(bigger.subarray(at, at + 65_536));
    assert.equal(over.tooLong(), 1);
    assert.deepEqual(over.messages, []);
  });
});
