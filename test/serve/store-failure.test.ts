import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore, openStore, type CallRecord, type JournalWrite, type Store } from '../../src/index.js';
import { scratchStores } from '../crash/scratch-stores.js';
import { withoutSync } from '../runner/helpers.js';
import { serving, text } from './helpers.js';

const ALLOW_REFUNDS = { policy: { rules: [{ match: 'orders/refund', action: 'allow' as const }] } };

/**
 * A memory store whose journal fails at a chosen moment: `failWrite` picks the call write that fails
 * (once), and once `down` is set every read and write fails, as a database that went away.
 */
function failingStore(real: Store = new MemoryStore()) {
  const state = { failWrite: (_record: CallRecord): boolean => false, down: false, failed: 0 };
  const refused = (): Promise<never> => {
    state.failed++;
    return Promise.reject(new Error('connection terminated unexpectedly'));
  };
  const store: Store = withoutSync(real, {
    // A call's write alone (`writeCall`): the journal's batches of several writes go through.
    writeJournal: (writes: readonly JournalWrite[]) => {
      const [only] = writes;
      if (writes.length !== 1 || only === undefined || !('call' in only)) return real.writeJournal(writes);
      if (state.down) return refused();
      if (state.failWrite(only.call)) {
        state.failWrite = () => false;
        return refused();
      }
      return real.writeJournal(writes);
    },
    getCall: (run: string, call: string) => (state.down ? refused() : real.getCall(run, call)),
  });
  return { store, state };
}

const meta = (result: unknown): Record<string, unknown> => (result as { _meta?: Record<string, unknown> })._meta ?? {};

const { stores } = scratchStores('serve-store-failure');

describe('WardrikMcpServer when its store fails during a call', () => {
  for (const [name, url] of [['memory', () => 'memory:'] as const, ...stores]) {
    it(`says a call that ran may have happened, and names the in-doubt inbox item a person settles (${name})`, async () => {
      await saysItMayHaveHappened(await openStore(url()));
    });
  }

  async function saysItMayHaveHappened(real: Store): Promise<void> {
    const { store, state } = failingStore(real);
    const s = await serving({}, { store, ...ALLOW_REFUNDS });
    const warnings: string[] = [];
    const subscription = s.wardrik.events$.subscribe(
      (event) => event.type === 'warning' && warnings.push(event.message),
    );
    try {
      const client = await s.client();
      // The refund runs; writing its answer to the journal fails.
      state.failWrite = (record) => record.tool === 'orders/refund' && record.state === 'succeeded';
      const result = await client.callTool({ name: 'orders__refund', arguments: { id: 'o-90' } });
      assert.deepEqual(s.ledger.refunds, ['o-90'], 'the tool ran once');
      assert.equal(result.isError, true);
      const [item] = await s.store.listInbox();
      assert.equal(item?.kind, 'in_doubt');
      assert.equal(item.tool, 'orders/refund');
      assert.match(
        text(result),
        /^The tool ran, but the server's store failed before its outcome was recorded, so it may have happened\. Do not call it again: a repeat could do it twice\./,
      );
      assert.match(text(result), new RegExp(`a person will check and settle it \\(inbox item ${item.id}\\)`));
      assert.equal(meta(result)['wardrik/inbox'], item.id);
      assert.ok(
        warnings.some((warning) => /orders__refund .*connection terminated unexpectedly/.test(warning)),
        'the developer is told the cause',
      );
      // A person says it happened: the journal then holds its result, once.
      await s.wardrik.inbox.answer(item.id, { happened: true, result: 'refunded o-90' });
      assert.equal((await s.store.getCall(client.session, item.call))?.state, 'succeeded');
      assert.deepEqual(s.ledger.refunds, ['o-90']);
    } finally {
      subscription.unsubscribe();
      await s.close();
    }
  }

  it('says so without an inbox id while the store stays down, and recovery parks it once the store is back', async () => {
    const { store, state } = failingStore();
    const s = await serving({}, { store, ...ALLOW_REFUNDS });
    try {
      const client = await s.client();
      state.failWrite = (record) => {
        if (record.state !== 'succeeded') return false;
        state.down = true; // and it stays down
        return true;
      };
      const result = await client.callTool({ name: 'orders__refund', arguments: { id: 'o-91' } });
      assert.equal(result.isError, true);
      assert.match(
        text(result),
        /^The tool ran, but the server's store failed before its outcome was recorded, so it may have happened\. Do not call it again/,
      );
      assert.match(
        text(result),
        /Once the store is back, the call waits in the inbox, in doubt, for a person to settle it\./,
      );
      assert.equal(meta(result)['wardrik/inbox'], undefined);
      assert.deepEqual(s.ledger.refunds, ['o-91']);
      state.down = false;
      assert.equal((await s.wardrik.recover()).inDoubt, 1);
      assert.deepEqual(
        (await s.store.listInbox()).map((item) => item.kind),
        ['in_doubt'],
      );
    } finally {
      await s.close();
    }
  });

  it('says a call whose journal entry could not be written did not run', async () => {
    const { store, state } = failingStore();
    const s = await serving({}, { store, ...ALLOW_REFUNDS });
    try {
      const client = await s.client();
      state.failWrite = (record) => record.state === 'started';
      const result = await client.callTool({ name: 'orders__refund', arguments: { id: 'o-92' } });
      assert.equal(result.isError, true);
      assert.match(
        text(result),
        /^This call did not run: the server's store failed before it started\. Nothing happened; call it again in a moment\./,
      );
      assert.deepEqual(s.ledger.refunds, []);
      assert.deepEqual(await s.store.listInbox(), []);
      assert.equal(state.failed, 1);
    } finally {
      await s.close();
    }
  });

  it('says a call that could not be parked for a person did not run', async () => {
    const { store, state } = failingStore();
    const s = await serving({}, { store });
    try {
      const client = await s.client();
      state.failWrite = (record) => record.state === 'parked';
      const result = await client.callTool({ name: 'orders__refund', arguments: { id: 'o-94' } });
      assert.equal(result.isError, true);
      assert.match(text(result), /^This call did not run: the server's store failed before it started\./);
      assert.deepEqual(s.ledger.refunds, []);
    } finally {
      await s.close();
    }
  });

  it('answers a read-only call with its result: it is run again, as recovery would', async () => {
    const { store, state } = failingStore();
    const s = await serving({}, { store });
    try {
      const client = await s.client();
      state.failWrite = (record) => record.tool === 'orders/find_order' && record.state === 'succeeded';
      const result = await client.callTool({ name: 'orders__find_order', arguments: { id: 'o-93' } });
      assert.equal(result.isError, undefined);
      assert.deepEqual(result.structuredContent, { id: 'o-93', status: 'shipped' });
      assert.equal(state.failed, 1);
    } finally {
      await s.close();
    }
  });
});
