import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, defineTool, hasCapability, Wardrik } from '../../src/index.js';
import { CoreStore } from '../../examples/stores/core-store.js';
// The contract on a store of the core alone, as docs/durable-runs.md shows it.
import '../../examples/stores/core-store-contract.js';

const lookUp = defineTool({
  name: 'look_up',
  description: 'Look an order up.',
  annotations: { readOnly: true },
  run: () => 'shipped',
});

describe('Wardrik on a store of the core alone', () => {
  it('has none of the capabilities', () => {
    const store = new CoreStore();
    for (const capability of ['RememberedResults', 'SpendHolds', 'Pruning', 'McpServerRecords'] as const)
      assert.equal(hasCapability(store, capability), false, capability);
  });

  it('refuses at start-up to run retention on it, naming the capability and the fix', async () => {
    const store = new CoreStore();
    await assert.rejects(
      Wardrik.create({ store, tools: { workers: [lookUp] } }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /Store "CoreStore" does not implement Pruning \(missing prune\), which retention/.test(error.message) &&
        /retention: \{ finishedAfterMs: Infinity \}/.test(error.message),
    );
  });

  it('refuses an MCP hub that would keep its servers there, saying to pass store: false', async () => {
    const store = new CoreStore();
    await assert.rejects(
      Wardrik.create({
        store,
        retention: { finishedAfterMs: Infinity },
        mcp: { name: 'tools', servers: {} },
      }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /does not implement McpServerRecords/.test(error.message) &&
        /store: false/.test(error.message),
    );
  });

  it('runs calls on it without the features that need a capability', async () => {
    const store = new CoreStore();
    const wardrik = await Wardrik.create({
      store,
      tools: { workers: [lookUp] },
      policy: { rules: [{ match: 'workers/*', action: 'allow' }] },
      retention: { finishedAfterMs: Infinity },
    });
    try {
      const answer = await wardrik.runner.run({
        agent: 'a',
        run: 'run-1',
        call: { id: 'c1', name: 'workers__look_up' },
      });
      assert.equal(answer.status, 'ok');
      assert.equal((await store.getCall('run-1', 'c1'))?.state, 'succeeded');
      assert.throws(
        () => wardrik.prune(),
        (error: unknown) => error instanceof ConfigurationError && /Pruning/.test(String(error)),
      );
    } finally {
      await wardrik.close();
    }
  });
});
