import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { hasCapability } from '../store/capabilities.js';
import { addLabels, addSpend, appendStep, releaseRun, writeCall, writeTurn } from '../store/journal-writes.js';
import type { FullStore } from '../store/store.js';
import { call, inboxItem, mcpServer, ok, range, turn, type ContractContext } from './store-contract-kit.js';

/** Values kept whole, durability across a reopen, and two instances on the same data (two nodes): the Store contract. */
export function valuesContract({ withStore, withFullStore, lease, options, makeStore, has }: ContractContext): void {
  describe('values', () => {
    it('round-trips nested JSON, unicode and large strings', () =>
      withStore(async (store) => {
        const large = 'x'.repeat(1_000_000) + 'ende';
        const args = {
          order: {
            id: 'pi_123',
            items: [
              { sku: 'A-1', qty: 2, price: 19.99 },
              { sku: 'B', qty: null, tags: [] },
            ],
            nested: { a: { b: { c: [1, [2, [3]]] } } },
          },
          text: 'Grüße, 東京, 🚀, "quotes", \\backslash\\, new\nline, tab\t, nul\u0000 end',
          flags: [true, false, null],
          number: -1.5e-7,
          large,
        };
        const record = call({
          state: 'succeeded',
          arguments: args,
          answer: ok({ echoed: args, note: 'ok ✓' }, ['outside', 'ünïcode']),
        });
        await writeCall(store, record, undefined);
        assert.deepEqual(await store.getCall(record.run, record.call), record);
        const item = inboxItem({ arguments: args, reason: 'Needs a manager — über 500 €', labels: ['outside'] });
        await store.putInboxItem(item);
        assert.deepEqual(await store.getInboxItem(item.id), item);
        // A remembered result keeps the answer whole too, on a store that remembers results.
        if (hasCapability(store, 'RememberedResults')) {
          const remembered = {
            key: `key-${randomUUID()}`,
            digest: 'd',
            answer: ok(large),
            expiresAt: Number.MAX_SAFE_INTEGER,
          };
          await store.putRemembered(remembered);
          assert.deepEqual(await store.getRemembered(remembered.key, 0), remembered);
        }
      }));

    it('keeps null and missing arguments apart, and error and parked answers whole', () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        const withNull = call({
          run,
          call: 'c1',
          state: 'failed',
          arguments: null,
          answer: { status: 'error', code: 'timeout', message: 'slow', labels: [] },
        });
        const without = call({
          run,
          call: 'c2',
          state: 'parked',
          arguments: undefined,
          inboxId: 'i1',
          answer: { status: 'parked', kind: 'approval', inboxId: 'i1', reason: 'why', labels: ['x'] },
        });
        await writeCall(store, withNull, undefined);
        await writeCall(store, without, undefined);
        assert.deepEqual(await store.getCall(run, 'c1'), withNull);
        assert.deepEqual(await store.getCall(run, 'c2'), without);
      }));

    it('keeps what a call spent (costUsd), through an update', () =>
      withStore(async (store) => {
        const started = call({ state: 'started', costUsd: 0.125 });
        await writeCall(store, started, undefined);
        assert.deepEqual(await store.getCall(started.run, started.call), started);
        const done = { ...started, state: 'succeeded' as const, answer: ok(1), costUsd: 0.375 };
        await writeCall(store, done, 'started');
        assert.deepEqual(await store.getCall(started.run, started.call), done);
      }));

    it('keeps what decided a call (decidedBy), through an update', () =>
      withStore(async (store) => {
        const started = call({ state: 'started', decidedBy: 'rule 3 (orders/* ask)' });
        await writeCall(store, started, undefined);
        assert.deepEqual(await store.getCall(started.run, started.call), started);
        const done = {
          ...started,
          state: 'succeeded' as const,
          answer: ok(1),
          decidedBy: 'rule 3 (orders/* ask); approved by alice',
        };
        await writeCall(store, done, 'started');
        assert.deepEqual(await store.getCall(started.run, started.call), done);
      }));

    it('leaves optional fields absent when they were not set', () =>
      withStore(async (store) => {
        const record = call({ state: 'started' });
        await writeCall(store, record, undefined);
        const read = await store.getCall(record.run, record.call);
        assert.equal(read !== undefined && 'answer' in read, false);
        assert.equal(read !== undefined && 'inboxId' in read, false);
        assert.equal(read !== undefined && 'costUsd' in read, false);
        assert.equal(read !== undefined && 'decidedBy' in read, false);
      }));
  });

  if (options.durable) {
    describe('durability', () => {
      it('keeps everything after close and reopen', async () => {
        const run = `run-${randomUUID()}`;
        const agent = `agent-${randomUUID()}`;
        const record = call({ run, agent, state: 'started' });
        const item = inboxItem({ run, agent });
        const remembered = { key: `key-${randomUUID()}`, digest: 'd', answer: ok(7), expiresAt: 10_000 };
        await withFullStore(async (store) => {
          await writeCall(store, record, undefined);
          await store.putInboxItem(item);
          await store.putRemembered(remembered);
          await addSpend(store, agent, 500_000);
          await addLabels(store, run, ['outside']);
        });
        await withFullStore(async (store) => {
          assert.deepEqual(await store.getCall(run, record.call), record);
          assert.deepEqual(await store.getInboxItem(item.id), item);
          assert.deepEqual(await store.getRemembered(remembered.key, 0), remembered);
          assert.equal(await store.getSpend(agent), 500_000);
          assert.deepEqual(await store.getLabels(run), ['outside']);
          assert.equal(
            (await store.listCalls({ state: 'started' })).some((listed) => listed.run === run),
            true,
          );
        });
      });

      it('refuses work after close with a StoreError', async () => {
        const store = await makeStore();
        await store.close();
        await assert.rejects(store.getSpend('a'), { name: 'StoreError', message: /closed/ });
        await store.close(); // a second close is harmless
      });
    });

    describe('between two instances on the same data (two nodes)', () => {
      async function withTwo(test: (a: FullStore, b: FullStore) => Promise<void>): Promise<void> {
        const [a, b] = (await Promise.all([makeStore(), makeStore()])) as [FullStore, FullStore];
        try {
          await test(a, b);
        } finally {
          await Promise.all([a.close(), b.close()]);
        }
      }

      it("sees the other node's lease, and takes it once it expires", () =>
        withTwo(async (a, b) => {
          const run = `run-${randomUUID()}`;
          assert.equal(await lease(a, run, 'node-a', 1_000, 100), true);
          assert.equal(await lease(b, run, 'node-b', 1_050, 100), false);
          assert.equal(await lease(b, run, 'node-b', 1_101, 100), true);
          assert.equal(await lease(a, run, 'node-a', 1_150, 100), false);
          await releaseRun(b, run, 'node-b');
          assert.equal(await lease(a, run, 'node-a', 1_160, 100), true);
        }));

      it('gives a run to exactly one of two nodes racing for it', () =>
        withTwo(async (a, b) => {
          const runs = range(10).map(() => `run-${randomUUID()}`);
          for (const run of runs) {
            const results = await Promise.all([
              lease(a, run, 'node-a', 1_000, 100),
              lease(b, run, 'node-b', 1_000, 100),
            ]);
            assert.equal(results.filter(Boolean).length, 1, `run ${run}: ${results.join(', ')}`);
          }
        }));

      it("sees the other node's turns and steps, and its compare-and-set", () =>
        withTwo(async (a, b) => {
          const record = turn({});
          await writeTurn(a, record, undefined);
          assert.deepEqual(await b.getTurn(record.run), record);
          const results = await Promise.all([
            writeTurn(a, { ...record, version: 2, data: { by: 'a' } }, 1),
            writeTurn(b, { ...record, version: 2, data: { by: 'b' } }, 1),
          ]);
          assert.equal(results.filter(Boolean).length, 1);
          assert.deepEqual(await a.getTurn(record.run), await b.getTurn(record.run));
          assert.deepEqual(await b.listTurns({ agent: record.agent }), [await a.getTurn(record.run)]);
          const step = { run: record.run, index: 0, data: { by: 'a' }, createdAt: 1 };
          assert.equal(await appendStep(a, step), true);
          assert.equal(await appendStep(b, { ...step, data: { by: 'b' } }), false);
          assert.deepEqual(await b.listSteps(record.run), [step]);
        }));

      if (has('McpServerRecords')) {
        it('sees the MCP servers the other node added and removed', () =>
          withTwo(async (a, b) => {
            const hub = `hub-${randomUUID()}`;
            const server = mcpServer({ hub, name: 'github' });
            await a.putMcpServer(server);
            assert.deepEqual(await b.listMcpServers(hub), [server]);
            assert.equal(await b.deleteMcpServer(hub, 'github'), true);
            assert.deepEqual(await a.listMcpServers(hub), []);
            assert.equal(await a.deleteMcpServer(hub, 'github'), false);
          }));
      }
    });
  }
}
