import 'reflect-metadata';
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioLines } from '../../src/serve/stdio-lines.js';
import { eventually } from '../eventually.js';

/** An output that records each system-call-sized write it is given: one chunk, or several at once (writev). */
function recordingOutput(): { output: Writable; writes: string[][] } {
  const writes: string[][] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => (chunk as Buffer).toString()));
      done();
    },
  });
  return { output, writes };
}

function transport(maxLineBytes = 1_000) {
  const input = new PassThrough();
  const { output, writes } = recordingOutput();
  const lines = new StdioLines(input, output, maxLineBytes);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closed = 0;
  lines.onmessage = (message) => received.push(message);
  lines.onerror = (error) => errors.push(error.message);
  lines.onclose = () => void closed++;
  return { input, lines, writes, received, errors, closed: () => closed };
}

describe('StdioLines (the MCP server over stdin and stdout)', () => {
  it('reads one message a line, however the lines are cut into chunks', async () => {
    const t = transport();
    await t.lines.start();
    t.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0",');
    t.input.write('"id":2,"method":"pi');
    t.input.write('ng"}\r\n');
    await eventually('t.received.length === 2', () => t.received.length === 2);
    assert.deepEqual(t.received, [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
    ]);
  });

  it('writes the messages sent in one tick with one write, each on its own line', async () => {
    const t = transport();
    await t.lines.start();
    await Promise.all(Array.from({ length: 32 }, (_, id) => t.lines.send({ jsonrpc: '2.0', id, result: {} })));
    await eventually('t.writes.length > 0', () => t.writes.length > 0);
    assert.equal(t.writes.length, 1);
    assert.equal(t.writes[0]!.length, 32);
    assert.deepEqual(JSON.parse(t.writes[0]![31]!), { jsonrpc: '2.0', id: 31, result: {} });
    assert.ok(t.writes[0]!.every((line) => line.endsWith('}\n')));
    // A later tick's message is a write of its own.
    await t.lines.send({ jsonrpc: '2.0', id: 99, result: {} });
    await eventually('t.writes.length === 2', () => t.writes.length === 2);
  });

  it('skips a line that is not JSON-RPC, saying so, and reads on', async () => {
    const t = transport();
    await t.lines.start();
    t.input.write('hello from a log line\n[1,2]\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    await eventually('t.received.length === 1', () => t.received.length === 1);
    assert.equal(t.errors.length, 2);
    assert.match(t.errors[0]!, /not a JSON-RPC 2.0 message.*"hello from a log line"/);
    assert.equal(t.closed(), 0);
  });

  it('closes the connection at a line over the limit, ended or not, naming the limit', async () => {
    for (const line of [`{"jsonrpc":"2.0","id":1,"method":"${'x'.repeat(2_000)}"}\n`, 'x'.repeat(600)]) {
      const t = transport(1_000);
      await t.lines.start();
      t.input.write(line);
      t.input.write('x'.repeat(600));
      await eventually('t.closed() === 1', () => t.closed() === 1);
      assert.match(t.errors[0]!, /longer than 1000 bytes/);
      assert.deepEqual(t.received, []);
      await assert.rejects(t.lines.send({ jsonrpc: '2.0', id: 1, result: {} }), /closed/);
    }
  });

  it('closes once when its input ends', async () => {
    const t = transport();
    await t.lines.start();
    t.input.end();
    await eventually('t.closed() === 1', () => t.closed() === 1);
    await t.lines.close();
    assert.equal(t.closed(), 1);
  });
});
