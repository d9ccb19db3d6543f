import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { scriptedModel } from '../../src/testing/index.js';
import { Wardrik } from '../../src/index.js';
import { shopTools } from './helpers.js';

/** `{"a":{"a":...}}` nested `depth` deep, as JSON text (built without recursion). */
function deepJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe("A model's hostile arguments in an agent turn on SQLite", () => {
  // With labels on values (the default) handles are put back in the arguments before the runner checks them:
  // that walk overflowed the stack on 10,000-deep arguments until arguments past the limits were left to the runner.
  for (const labels of ['values', 'run'] as const) {
    it(`answers 10,000-deep arguments as the model's error, and the turn ends and survives a restart (labels on ${labels === 'run' ? 'the run' : 'values'})`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'wardrik-hostile-'));
      const store = `sqlite:${join(dir, 'turns.db')}`;
      try {
        const first = await Wardrik.create({
          store,
          recoverMs: Infinity,
          tools: { shop: shopTools() },
          policy: { labels },
        });
        const model = scriptedModel([
          { toolCalls: [{ name: 'shop__find_order', arguments: deepJson(10_000) }] },
          (call) => ({ text: `saw: ${call.lastToolResult?.slice(0, 60)}` }),
        ]);
        const turn = await first.startAgent({ id: 'a', model, tools: ['shop/*'] }).send('go');
        assert.equal(turn.status, 'done', JSON.stringify(turn).slice(0, 600));
        assert.match(turn.text, /saw: .*Invalid arguments for tool "shop__find_order"/);
        await first.close();
        const second = await Wardrik.create({ store, recoverMs: Infinity, tools: { shop: shopTools() } });
        assert.deepEqual(await second.agents.recover(), []);
        await second.recover();
        await second.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it('journals a turn whose model sent 20 calls of 10 MB as notes, not 200 MB', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-hostile-'));
    const path = join(dir, 'turns.db');
    const bytes = (): number =>
      ['', '-wal'].reduce((sum, suffix) => sum + (statSync(path + suffix, { throwIfNoEntry: false })?.size ?? 0), 0);
    try {
      const wardrik = await Wardrik.create({
        store: `sqlite:${path}`,
        recoverMs: Infinity,
        tools: { shop: shopTools() },
      });
      const before = bytes();
      const big = JSON.stringify({ id: 'x'.repeat(10 * 1024 * 1024) });
      const calls = Array.from({ length: 20 }, (_, i) => ({ name: 'shop__find_order', arguments: big, id: `big${i}` }));
      const model = scriptedModel([
        { toolCalls: calls },
        (call) => ({ text: `saw: ${call.lastToolResult?.slice(0, 300)}` }),
      ]);
      const turn = await wardrik.startAgent({ id: 'a', model, tools: ['shop/*'] }).send('go');
      assert.equal(turn.status, 'done');
      assert.match(turn.text, /too large/);
      assert.ok(bytes() - before < 2 * 1024 * 1024, `the journal grew by ${bytes() - before} bytes`);
      await wardrik.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
