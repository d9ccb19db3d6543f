import 'reflect-metadata';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { MCP_DEFAULTS } from '../../src/mcp/options.js';
import { SseEventBytes } from '../../src/mcp/message-limit.js';
import { startRawServer } from './fixtures/raw-http-server.js';
import { harness, stdio } from './helpers.js';

const PROBE = fileURLToPath(new URL('./fixtures/too-large-probe.js', import.meta.url));
const CAP = MCP_DEFAULTS.maxMessageBytes;

interface ProbeResult {
  readonly answer: { readonly status: string; readonly message?: string };
  readonly written: number;
  readonly before: number;
  readonly after: number;
}

/**
 * Runs the probe in a child whose heap is capped at 256 MB: without the message limit it dies of an
 * out-of-memory abort (the 3.2 GB in ~14 s) and this test fails, instead of taking the runner
 * down with it.
 */
function probe(mode: 'sse' | 'json'): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--max-old-space-size=256', PROBE, mode],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`the probe failed (${error.message}): ${stderr.slice(-500)}`));
        resolve(JSON.parse(stdout) as ProbeResult);
      },
    );
  });
}

describe('The message limit on HTTP servers', () => {
  for (const [mode, what] of [
    ['sse', 'an SSE data: line that never ends'],
    ['json', 'a JSON body of 600 MB'],
  ] as const) {
    it(`fails a call answered with ${what} as too large, with peak memory under 3x the limit`, async () => {
      const result = await probe(mode);
      assert.equal(result.answer.status, 'error');
      assert.match(
        result.answer.message ?? '',
        /too large to read: the server sent a message larger than the limit of 16777216 bytes \(maxMessageBytes\)/,
      );
      // The client stopped reading at the limit: the server could write little more than it.
      assert.ok(result.written < CAP + 16 * 1024 * 1024, `the server wrote ${result.written} bytes`);
      const grew = result.after - result.before;
      assert.ok(
        grew < 3 * CAP,
        `peak resident memory grew by ${(grew / 2 ** 20).toFixed(1)} MiB, more than 3x the ${CAP / 2 ** 20} MiB limit`,
      );
    });
  }

  it('counts each SSE event on its own: a stream of many small events larger than the limit is read whole', async () => {
    const server = await startRawServer({
      tools: [
        {
          name: 'report',
          description: 'Reports progress.',
          inputSchema: { type: 'object' },
          annotations: { readOnlyHint: true },
        },
      ],
      onCall(call, res) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // 64 logging notifications of 4 KB each (256 KB in all, over the 16 KB limit), then the result;
        // line ends of every kind SSE allows.
        const ends = ['\n\n', '\r\n\r\n', '\r\r'];
        for (let i = 0; i < 64; i++) {
          const note = {
            jsonrpc: '2.0',
            method: 'notifications/message',
            params: { level: 'info', data: 'x'.repeat(4_000) },
          };
          res.write(`data: ${JSON.stringify(note)}${ends[i % 3]}`);
        }
        res.end(
          `data: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: 'done' }] } })}\n\n`,
        );
      },
    });
    const h = await harness({
      servers: { raw: { transport: { http: { url: server.url } } } },
      maxMessageBytes: 16 * 1024,
    });
    try {
      await h.toolsChanged('raw', 1);
      assert.deepEqual(await h.call('raw__report'), { status: 'ok', output: 'done', labels: ['outside'] });
    } finally {
      await h.close();
      await server.close();
    }
  });
});

describe('The message limit on stdio servers', () => {
  it('says the answer was too large, not that the connection closed, and the server comes back', async () => {
    const h = await harness({ servers: { fx: { transport: stdio() } }, maxMessageBytes: 16 * 1024 });
    try {
      await h.toolsChanged('fx', 12);
      const answer = await h.call('fx__huge', { chars: 100_000 });
      assert.equal(answer.status, 'error');
      const message = answer.status === 'error' ? answer.message : '';
      assert.match(message, /too large to read: the server sent a message larger than the limit of 16384 bytes/);
      assert.doesNotMatch(message, /connection closed during the call/);
      await h.toolsChanged('fx', 12, h.mark());
      assert.deepEqual(await h.call('fx__huge', { chars: 10 }), {
        status: 'ok',
        output: 'x'.repeat(10),
        labels: ['outside'],
      });
    } finally {
      await h.close();
    }
  });
});

describe('SseEventBytes', () => {
  it('counts the event under way and where the complete ones end, whatever the line ends and chunking', () => {
    const counter = new SseEventBytes();
    assert.deepEqual(counter.add(Buffer.from('data: a\n\ndata: bb')), { held: 8, complete: 9 });
    assert.deepEqual(counter.add(Buffer.from('b\r')), { held: 10, complete: 0 });
    assert.deepEqual(counter.add(Buffer.from('\n\r\ndata: c')), { held: 7, complete: 3 });
    assert.deepEqual(counter.add(Buffer.from('\r\rdata: d')), { held: 7, complete: 2 });
    assert.deepEqual(counter.add(Buffer.from('\n')), { held: 8, complete: 0 });
  });
});
