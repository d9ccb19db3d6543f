import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { container as root } from 'tsyringe';
import { defineTool, Tokens, Wardrik } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { killAtCrashPoint } from '../crash/kill-at-crash-point.js';
import { lapseLeases } from '../crash/scratch-stores.js';

const NODE_SCRIPT = fileURLToPath(new URL('./crash-agent-node.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wardrik-agent-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function crash(store: string): Promise<void> {
  return killAtCrashPoint(NODE_SCRIPT, { WARDRIK_STORE: store });
}

describe('An agent turn killed with SIGKILL (SQLite store)', () => {
  it('resumes on a new node from the journal, without asking the model again for the step it answered', async () => {
    const store = `sqlite:${join(dir, 'crash.db')}`;
    await crash(store);
    // The dead node's lease has run out (on the store's clock); the new node's clock is an hour on too.
    await lapseLeases(store);
    const container = root.createChildContainer();
    container.register(Tokens.Clock, { useValue: { now: () => Date.now() + 3_600_000 } });
    const lookup = defineTool({
      name: 'lookup',
      description: 'Looks an order up.',
      annotations: { readOnly: true },
      run: () => ({ found: 'ord_1' }),
    });
    // Wardrik.create recovers the call the crash left in flight (read-only, so it runs again).
    const wardrik = await Wardrik.create({
      store,
      container,
      recoverMs: Infinity,
      runner: { node: 'survivor' },
      tools: { shop: [lookup] },
    });
    try {
      const model = scriptedModel([(call) => ({ text: `Found: ${call.lastToolResult}` })], { name: 'survivor' });
      const agent = wardrik.startAgent({ id: 'support', model, tools: ['shop/*'] });
      const [run] = await wardrik.agents.recover();
      assert.ok(run, 'the running turn was taken up');
      const turn = await agent.result(run);
      assert.equal(turn.status, 'done');
      assert.equal(turn.text, '[scripted] Found: {"found":"ord_1"}');
      assert.equal(model.calls.length, 1);
      assert.deepEqual(
        model.calls[0]!.prompt.map((message) => message.role),
        ['user', 'assistant', 'tool'],
      );
      assert.deepEqual((model.calls[0]!.prompt[1]!.content[0] as { text: string }).text, '[scripted] Looking.');
    } finally {
      await wardrik.close();
    }
  });
});
