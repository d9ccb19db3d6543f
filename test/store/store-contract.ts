import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { CallRecord, CallState, InboxRecord, Store } from '../../src/store/store.js';

export interface ContractOptions {
  /** The store keeps its data across `close()` and a new `makeStore()` (SQLite, PostgreSQL). */
  readonly durable: boolean;
}

/**
 * The behaviour every Store must have, run against each implementation. `makeStore` may return
 * stores that share data with earlier ones (one SQLite file, one PostgreSQL schema per test file):
 * each test uses its own run, agent and item ids, and reads lists only through them.
 */
export function storeContract(name: string, makeStore: () => Promise<Store>, options: ContractOptions): void {
  async function withStore(test: (store: Store) => Promise<void>): Promise<void> {
    const store = await makeStore();
    try {
      await test(store);
    } finally {
      await store.close();
    }
  }

  describe(`${name} (the Store contract)`, () => {
    describe('writeCall', () => {
      it('writes a first record only when the call has none (expected undefined)', () =>
        withStore(async (store) => {
          const first = call({ state: 'started' });
          assert.equal(await store.writeCall(first, undefined), true);
          assert.equal(await store.writeCall({ ...first, attempt: 2 }, undefined), false);
          assert.deepEqual(await store.getCall(first.run, first.call), first);
        }));

      it('moves a started call on only while it is still started', () =>
        withStore(async (store) => {
          const started = call({ state: 'started' });
          await store.writeCall(started, undefined);
          const done = { ...started, state: 'succeeded' as const, answer: ok('done'), updatedAt: 2 };
          assert.equal(await store.writeCall(done, 'parked'), false);
          assert.equal(await store.writeCall(done, 'started'), true);
          assert.equal(await store.writeCall({ ...done, state: 'failed' }, 'started'), false);
          assert.deepEqual(await store.getCall(started.run, started.call), done);
        }));

      it('moves a parked call on only while it is still parked', () =>
        withStore(async (store) => {
          const parked = call({ state: 'parked', inboxId: `inbox-${randomUUID()}` });
          await store.writeCall(parked, undefined);
          const running = { ...parked, state: 'started' as const, attempt: 1 };
          assert.equal(await store.writeCall(running, 'started'), false);
          assert.equal(await store.writeCall(running, 'parked'), true);
          assert.equal(await store.writeCall(running, 'parked'), false);
          assert.deepEqual(await store.getCall(parked.run, parked.call), running);
        }));

      it('refuses a compare-and-set on a call that does not exist', () =>
        withStore(async (store) => {
          const record = call({ state: 'succeeded' });
          assert.equal(await store.writeCall(record, 'started'), false);
          assert.equal(await store.getCall(record.run, record.call), undefined);
        }));

      it('lets exactly one of 10 concurrent first writes win', () =>
        withStore(async (store) => {
          const base = call({ state: 'started' });
          const results = await Promise.all(range(10).map((i) => store.writeCall({ ...base, agent: `agent-${i}` }, undefined)));
          assert.equal(results.filter(Boolean).length, 1);
          const winner = results.indexOf(true);
          assert.equal((await store.getCall(base.run, base.call))?.agent, `agent-${winner}`);
        }));

      it('lets exactly one of 10 concurrent started-to-final writes win', () =>
        withStore(async (store) => {
          const base = call({ state: 'started' });
          await store.writeCall(base, undefined);
          const results = await Promise.all(
            range(10).map((i) => store.writeCall({ ...base, state: i % 2 === 0 ? 'succeeded' : 'failed', answer: ok(i) }, 'started')),
          );
          assert.equal(results.filter(Boolean).length, 1);
          const winner = results.indexOf(true);
          assert.deepEqual((await store.getCall(base.run, base.call))?.answer, ok(winner));
        }));

      it('answers undefined for a call never written', () =>
        withStore(async (store) => {
          assert.equal(await store.getCall(`run-${randomUUID()}`, 'c1'), undefined);
        }));
    });

    describe('listCalls', () => {
      it('lists the calls in one state, oldest updatedAt first', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          // Written out of time order, with a tie (c2, c4) kept in the order first written.
          const times: Record<string, number> = { c1: 30, c2: 10, c3: 20, c4: 10, c5: 5 };
          for (const [id, updatedAt] of Object.entries(times)) {
            await store.writeCall(call({ run, call: id, state: id === 'c5' ? 'parked' : 'started', updatedAt }), undefined);
          }
          const started = (await store.listCalls({ state: 'started' })).filter((record) => record.run === run);
          assert.deepEqual(started.map((record) => record.call), ['c2', 'c4', 'c3', 'c1']);
          const parked = (await store.listCalls({ state: 'parked' })).filter((record) => record.run === run);
          assert.deepEqual(parked.map((record) => record.call), ['c5']);
        }));

      it('returns at most limit calls, the oldest', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          for (const [i, updatedAt] of [3, 1, 2].entries()) await store.writeCall(call({ run, call: `c${i}`, state: 'failed', updatedAt }), undefined);
          const all = await store.listCalls({ state: 'failed' });
          const limited = await store.listCalls({ state: 'failed', limit: 2 });
          assert.equal(limited.length, 2);
          assert.deepEqual(limited, all.slice(0, 2));
        }));

      it('follows a call as its state changes', () =>
        withStore(async (store) => {
          const record = call({ state: 'started' });
          await store.writeCall(record, undefined);
          await store.writeCall({ ...record, state: 'succeeded', answer: ok(1) }, 'started');
          const started = await store.listCalls({ state: 'started' });
          const succeeded = await store.listCalls({ state: 'succeeded' });
          assert.equal(started.some((r) => r.run === record.run), false);
          assert.equal(succeeded.filter((r) => r.run === record.run).length, 1);
        }));
    });

    describe('inbox', () => {
      it('lists pending items oldest first, and every item with all', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const a = inboxItem({ run, createdAt: 30 });
          const b = inboxItem({ run, createdAt: 10 });
          const c = inboxItem({ run, createdAt: 20, status: 'denied', by: 'ana', answeredAt: 40 });
          for (const item of [a, b, c]) await store.putInboxItem(item);
          const mine = (items: InboxRecord[]) => items.filter((item) => item.run === run).map((item) => item.id);
          assert.deepEqual(mine(await store.listInbox()), [b.id, a.id]);
          assert.deepEqual(mine(await store.listInbox({ all: true })), [b.id, c.id, a.id]);
          assert.deepEqual(await store.getInboxItem(c.id), c);
        }));

      it('answers an item only while it has the expected status', () =>
        withStore(async (store) => {
          const item = inboxItem({});
          await store.putInboxItem(item);
          const approved: InboxRecord = { ...item, status: 'approved', by: 'ana', answeredAt: 50 };
          assert.equal(await store.updateInboxItem(approved, 'denied'), false);
          assert.equal(await store.updateInboxItem(approved, 'pending'), true);
          assert.equal(await store.updateInboxItem({ ...item, status: 'denied', by: 'bo' }, 'pending'), false);
          assert.deepEqual(await store.getInboxItem(item.id), approved);
          assert.equal((await store.listInbox()).some((listed) => listed.id === item.id), false);
        }));

      it('lets exactly one of 10 concurrent answers win', () =>
        withStore(async (store) => {
          const item = inboxItem({});
          await store.putInboxItem(item);
          const results = await Promise.all(
            range(10).map((i) => store.updateInboxItem({ ...item, status: 'approved', by: `person-${i}` }, 'pending')),
          );
          assert.equal(results.filter(Boolean).length, 1);
          assert.equal((await store.getInboxItem(item.id))?.by, `person-${results.indexOf(true)}`);
        }));

      it('refuses to update an item that does not exist', () =>
        withStore(async (store) => {
          const item = inboxItem({ status: 'approved' });
          assert.equal(await store.updateInboxItem(item, 'pending'), false);
          assert.equal(await store.getInboxItem(item.id), undefined);
        }));
    });

    describe('remembered results', () => {
      it('returns a result until it expires, and nothing from then on', () =>
        withStore(async (store) => {
          const record = { key: `key-${randomUUID()}`, digest: 'abc', answer: ok({ refund: 're_1' }), expiresAt: 1_000 };
          await store.putRemembered(record);
          assert.deepEqual(await store.getRemembered(record.key, 999), record);
          assert.equal(await store.getRemembered(record.key, 1_000), undefined);
          assert.equal(await store.getRemembered(record.key, 5_000), undefined);
        }));

      it('replaces a result put again under the same key', () =>
        withStore(async (store) => {
          const key = `key-${randomUUID()}`;
          await store.putRemembered({ key, digest: 'one', answer: ok(1), expiresAt: 100 });
          const second = { key, digest: 'two', answer: ok(2), expiresAt: 200 };
          await store.putRemembered(second);
          assert.deepEqual(await store.getRemembered(key, 150), second);
        }));

      it('prunes the expired results and says how many', () =>
        withStore(async (store) => {
          // Far in the past, so results other tests left behind (which expire later) are not pruned here.
          const now = -1_000_000 - Math.floor(Math.random() * 1_000_000);
          const keys = range(4).map((i) => `key-${randomUUID()}-${i}`);
          const expiries = [now - 10, now, now + 1, now + 100];
          for (const [i, key] of keys.entries()) await store.putRemembered({ key, digest: 'd', answer: ok(i), expiresAt: expiries[i]! });
          assert.equal(await store.pruneRemembered(now), 2);
          assert.equal(await store.pruneRemembered(now), 0);
          assert.equal((await store.getRemembered(keys[2]!, now))?.digest, 'd');
          assert.equal((await store.getRemembered(keys[3]!, now))?.digest, 'd');
        }));
    });

    describe('spend', () => {
      it('is 0 for an agent that spent nothing', () =>
        withStore(async (store) => {
          assert.equal(await store.getSpend(`agent-${randomUUID()}`), 0);
        }));

      it('adds 50 concurrent amounts without losing one', () =>
        withStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          // Quarters add exactly in binary floating point, so the order of the adds cannot show.
          const totals = await Promise.all(range(50).map(() => store.addSpend(agent, 0.25)));
          assert.equal(await store.getSpend(agent), 12.5);
          assert.equal(Math.max(...totals), 12.5);
          assert.equal(new Set(totals).size, 50, 'each add returns the total right after it');
        }));

      it('keeps each agent apart', () =>
        withStore(async (store) => {
          const [a, b] = [`agent-${randomUUID()}`, `agent-${randomUUID()}`];
          assert.equal(await store.addSpend(a, 1.5), 1.5);
          assert.equal(await store.addSpend(b, 0.125), 0.125);
          assert.equal(await store.addSpend(a, 2), 3.5);
          assert.equal(await store.getSpend(b), 0.125);
        }));
    });

    describe('labels', () => {
      it('returns only the labels that were new, in the order given', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          assert.deepEqual(await store.addLabels(run, ['outside', 'pii']), ['outside', 'pii']);
          assert.deepEqual(await store.addLabels(run, ['secret', 'pii', 'outside', 'external']), ['secret', 'external']);
          assert.deepEqual(await store.addLabels(run, ['pii']), []);
          assert.deepEqual(await store.getLabels(run), ['outside', 'pii', 'secret', 'external']);
        }));

      it('keeps each run apart', () =>
        withStore(async (store) => {
          const [a, b] = [`run-${randomUUID()}`, `run-${randomUUID()}`];
          await store.addLabels(a, ['outside']);
          assert.deepEqual(await store.addLabels(b, ['outside']), ['outside']);
          assert.deepEqual(await store.getLabels(`run-${randomUUID()}`), []);
        }));

      it('gives a label to exactly one of 10 concurrent adds', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const results = await Promise.all(range(10).map(() => store.addLabels(run, ['outside'])));
          assert.equal(results.filter((added) => added.length === 1).length, 1);
        }));
    });

    describe('values', () => {
      it('round-trips nested JSON, unicode and large strings', () =>
        withStore(async (store) => {
          const large = 'x'.repeat(1_000_000) + 'ende';
          const args = {
            order: { id: 'pi_123', items: [{ sku: 'A-1', qty: 2, price: 19.99 }, { sku: 'B', qty: null, tags: [] }], nested: { a: { b: { c: [1, [2, [3]]] } } } },
            text: 'Grüße, 東京, 🚀, "quotes", \\backslash\\, new\nline, tab\t, nul\u0000 end',
            flags: [true, false, null],
            number: -1.5e-7,
            large,
          };
          const record = call({ state: 'succeeded', arguments: args, answer: ok({ echoed: args, note: 'ok ✓' }, ['outside', 'ünïcode']) });
          await store.writeCall(record, undefined);
          assert.deepEqual(await store.getCall(record.run, record.call), record);
          const item = inboxItem({ arguments: args, reason: 'Needs a manager — über 500 €', labels: ['outside'] });
          await store.putInboxItem(item);
          assert.deepEqual(await store.getInboxItem(item.id), item);
          const remembered = { key: `key-${randomUUID()}`, digest: 'd', answer: ok(large), expiresAt: Number.MAX_SAFE_INTEGER };
          await store.putRemembered(remembered);
          assert.deepEqual(await store.getRemembered(remembered.key, 0), remembered);
        }));

      it('keeps null and missing arguments apart, and error and parked answers whole', () =>
        withStore(async (store) => {
          const run = `run-${randomUUID()}`;
          const withNull = call({ run, call: 'c1', state: 'failed', arguments: null, answer: { status: 'error', code: 'timeout', message: 'slow', labels: [] } });
          const without = call({ run, call: 'c2', state: 'parked', arguments: undefined, inboxId: 'i1', answer: { status: 'parked', inboxId: 'i1', reason: 'why', labels: ['x'] } });
          await store.writeCall(withNull, undefined);
          await store.writeCall(without, undefined);
          assert.deepEqual(await store.getCall(run, 'c1'), withNull);
          assert.deepEqual(await store.getCall(run, 'c2'), without);
        }));

      it('leaves optional fields absent when they were not set', () =>
        withStore(async (store) => {
          const record = call({ state: 'started' });
          await store.writeCall(record, undefined);
          const read = await store.getCall(record.run, record.call);
          assert.equal(read !== undefined && 'answer' in read, false);
          assert.equal(read !== undefined && 'inboxId' in read, false);
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
          await withStore(async (store) => {
            await store.writeCall(record, undefined);
            await store.putInboxItem(item);
            await store.putRemembered(remembered);
            await store.addSpend(agent, 0.5);
            await store.addLabels(run, ['outside']);
          });
          await withStore(async (store) => {
            assert.deepEqual(await store.getCall(run, record.call), record);
            assert.deepEqual(await store.getInboxItem(item.id), item);
            assert.deepEqual(await store.getRemembered(remembered.key, 0), remembered);
            assert.equal(await store.getSpend(agent), 0.5);
            assert.deepEqual(await store.getLabels(run), ['outside']);
            assert.equal((await store.listCalls({ state: 'started' })).some((listed) => listed.run === run), true);
          });
        });

        it('refuses work after close with a StoreError', async () => {
          const store = await makeStore();
          await store.close();
          await assert.rejects(store.getSpend('a'), { name: 'StoreError', message: /closed/ });
          await store.close(); // a second close is harmless
        });
      });
    }
  });
}

function call(over: Partial<CallRecord> & { readonly state: CallState }): CallRecord {
  return {
    run: `run-${randomUUID()}`,
    call: 'c1',
    agent: 'triage',
    tool: 'orders/refund_order',
    arguments: { orderId: 'o-1', amount: 12.5 },
    idempotencyKey: `key-${randomUUID()}`,
    attempt: 1,
    updatedAt: 1_700_000_000_000,
    ...over,
  };
}

function inboxItem(over: Partial<InboxRecord>): InboxRecord {
  return {
    id: `inbox-${randomUUID()}`,
    kind: 'approval',
    status: 'pending',
    agent: 'triage',
    run: `run-${randomUUID()}`,
    call: 'c1',
    tool: 'orders/refund_order',
    arguments: { orderId: 'o-1' },
    digest: 'f'.repeat(64),
    labels: [],
    reason: 'refunds ask a person',
    createdAt: 1_700_000_000_000,
    budgetUsd: 2,
    ...over,
  };
}

function ok(output: unknown, labels: readonly string[] = []) {
  return { status: 'ok' as const, output, labels };
}

function range(count: number): number[] {
  return Array.from({ length: count }, (_, i) => i);
}
