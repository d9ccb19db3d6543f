import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { ChildTransport } from '../../src/mcp/child-transport.js';
import { eventually } from '../eventually.js';

/** A child that runs `script` (with stdin echoed back line by line when it reads it). */
function transport(script: string, maxMessageBytes?: number): ChildTransport {
  return new ChildTransport({
    command: process.execPath,
    args: ['-e', script],
    env: { PATH: process.env.PATH ?? '' },
    ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
  });
}

/** Collects what the transport reports until it closes. */
function collect(t: ChildTransport): { messages: JSONRPCMessage[]; errors: string[]; closed: Promise<void> } {
  const messages: JSONRPCMessage[] = [];
  const errors: string[] = [];
  const closed = new Promise<void>((resolve) => {
    t.onclose = resolve;
  });
  t.onmessage = (message) => messages.push(message);
  t.onerror = (error) => errors.push(error.message);
  return { messages, errors, closed };
}

const note = (n: number) => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

describe('ChildTransport (stdio)', () => {
  it('reads messages split across writes, several in one write, and CRLF endings', async () => {
    // The first message arrives in two pieces 50 ms apart; then two in one write, the last with CRLF.
    const [a, b, c] = [note(1), note(2), note(3)];
    const script = `
      process.stdout.write(${JSON.stringify(a.slice(0, 10))});
      setTimeout(() => process.stdout.write(${JSON.stringify(`${a.slice(10)}\n${b}\n${c}\r\n`)}), 50);`;
    const t = transport(script);
    const seen = collect(t);
    await t.start();
    await seen.closed;
    assert.deepEqual(seen.messages, [JSON.parse(a), JSON.parse(b), JSON.parse(c)]);
    assert.deepEqual(seen.errors, []);
  });

  it('reports and skips lines that are not JSON-RPC 2.0, and keeps reading', async () => {
    const script = `process.stdout.write('starting up\\n[1,2]\\n{"jsonrpc":"1.0","id":1}\\n' + ${JSON.stringify(note(7))} + '\\n');`;
    const t = transport(script);
    const seen = collect(t);
    await t.start();
    await seen.closed;
    assert.deepEqual(seen.messages, [JSON.parse(note(7))]);
    assert.equal(seen.errors.length, 3);
    for (const error of seen.errors) assert.match(error, /not JSON-RPC; skipped it/);
  });

  it('closes the connection on a message over the size limit, saying so', async () => {
    // A line of 10 000 bytes with no end yet, against a limit of 1 000; the child would wait forever.
    const script = `process.stdout.write('{"jsonrpc":"2.0","method":"x","params":{"a":"' + 'x'.repeat(10000)); setInterval(() => {}, 1000);`;
    const t = transport(script, 1_000);
    const seen = collect(t);
    await t.start();
    await seen.closed;
    assert.deepEqual(seen.messages, []);
    assert.match(seen.errors.join('\n'), /larger than the limit of 1000 bytes/);
    assert.match(t.exit ?? '', /ended by SIGTERM|exited/);
  });

  it('reads nothing more after a message over the limit, whether its line ends in the same write or later', async () => {
    // Over the limit in one write with its end and a good message after it; then the rest of a long
    // line and another good message. None of it is delivered or parsed while the connection closes.
    const big = `{"jsonrpc":"2.0","method":"x","params":{"a":"${'x'.repeat(2000)}"}}`;
    for (const script of [
      `process.stdout.write(${JSON.stringify(`${big}
${note(1)}
`)}); setInterval(() => {}, 1000);`,
      `process.stdout.write(${JSON.stringify(big.slice(0, 1500))}); setTimeout(() => process.stdout.write(${JSON.stringify(`${big.slice(1500)}
${note(2)}
`)}), 50); setInterval(() => {}, 1000);`,
    ]) {
      const t = transport(script, 1_000);
      const seen = collect(t);
      await t.start();
      await seen.closed;
      assert.deepEqual(seen.messages, []);
      assert.deepEqual(seen.errors, [
        'the server sent a message larger than the limit of 1000 bytes (maxMessageBytes)',
      ]);
    }
  });

  it('holds stdout to 16 MiB a message unless told: exactly 16 MiB is read, one byte more closes the connection', async () => {
    // A notification padded to `bytes` on its line, then a small one after it.
    const script = (bytes: number) => `
      const shell = JSON.stringify({ jsonrpc: '2.0', method: 'big', params: { pad: '' } });
      process.stdout.write(shell.replace('"pad":""', '"pad":"' + 'x'.repeat(${bytes} - shell.length) + '"') + '\\n' + ${JSON.stringify(note(1))} + '\\n');
      setInterval(() => {}, 1000);`;
    const atLimit = transport(script(16 * 1024 * 1024));
    const read = collect(atLimit);
    await atLimit.start();
    await eventually('both messages read', () => read.messages.length >= 2);
    await atLimit.close();
    assert.deepEqual(
      read.messages.map((message) => (message as { method: string }).method),
      ['big', 'notifications/message'],
    );
    assert.deepEqual(read.errors, []);
    const over = transport(script(16 * 1024 * 1024 + 1));
    const refused = collect(over);
    await over.start();
    await refused.closed;
    assert.deepEqual(refused.messages, []);
    assert.deepEqual(refused.errors, [
      'the server sent a message larger than the limit of 16777216 bytes (maxMessageBytes)',
    ]);
  });

  it('sends messages made together in order, each whole', async () => {
    // The child echoes each line it reads back as the params of a notification.
    const script = `
      let rest = '';
      process.stdin.on('data', (d) => {
        const lines = (rest + d).split('\\n');
        rest = lines.pop();
        for (const line of lines) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'echo', params: JSON.parse(line) }) + '\\n');
      });`;
    const t = transport(script);
    const seen = collect(t);
    await t.start();
    const sent = [note(1), note(2), note(3)].map((text) => JSON.parse(text) as JSONRPCMessage);
    await Promise.all(sent.map((message) => t.send(message)));
    await eventually('every message echoed back', () => seen.messages.length >= sent.length);
    await t.close();
    assert.deepEqual(
      seen.messages.map((message) => (message as { params?: unknown }).params),
      sent,
    );
  });
});
