import 'reflect-metadata';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { harness } from './helpers.js';

const FLOODING = fileURLToPath(new URL('./fixtures/flooding-server.js', import.meta.url));

describe('A server that asks many questions at once', () => {
  it('gets at most 32 of them to a person at a time; the rest are declined at once, with a warning naming the server; the call goes on', async () => {
    const h = await harness({
      servers: { f: { transport: { stdio: { command: process.execPath, args: [FLOODING] } } } },
      elicitationWaitMs: 1_000,
    });
    try {
      await h.toolsChanged('f', 1);
      // A call whose server asks parks for its caller, and runs on until its server answers.
      await h.call('f__flood', { count: 200 });
      await h.until((event) => event.type === 'tool.succeeded' && event.tool === 'f/flood');
      const asked = h.events.filter((event) => event.type === 'tool.parked' && event.kind === 'question');
      assert.equal(asked.length, 32, 'a person was asked 32 of the 200 questions');
      const warnings = h.events
        .filter((event) => event.type === 'warning')
        .map((event) => (event as { message: string }).message);
      assert.ok(
        warnings.some((message) => /MCP server "f" .* 32 questions waiting/.test(message)),
        warnings.join('\n'),
      );
    } finally {
      await h.close();
    }
  });
});
