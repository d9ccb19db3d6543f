import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { writeCall, writeTurn } from '../store/journal-writes.js';
import type { InboxRecord } from '../store/store.js';
import { call, inboxItem, ok, range, turn, type ContractContext } from './store-contract-kit.js';

/** The calls, runs and inbox of the Store contract: compare-and-set call writes, their listings and the parked calls a person answers. */
export function callsContract({ withStore }: ContractContext): void {
  describe('writeCall', () => {
    it('writes a first record only when the call has none (expected undefined)', () =>
      withStore(async (store) => {
        const first = call({ state: 'started' });
        assert.equal(await writeCall(store, first, undefined), true);
        assert.equal(await writeCall(store, { ...first, attempt: 2 }, undefined), false);
        assert.deepEqual(await store.getCall(first.run, first.call), first);
      }));

    it('moves a started call on only while it is still started', () =>
      withStore(async (store) => {
        const started = call({ state: 'started' });
        await writeCall(store, started, undefined);
        const done = { ...started, state: 'succeeded' as const, answer: ok('done'), updatedAt: 2 };
        assert.equal(await writeCall(store, done, 'parked'), false);
        assert.equal(await writeCall(store, done, 'started'), true);
        assert.equal(await writeCall(store, { ...done, state: 'failed' }, 'started'), false);
        assert.deepEqual(await store.getCall(started.run, started.call), done);
      }));

    it('moves a parked call on only while it is still parked', () =>
      withStore(async (store) => {
        const parked = call({ state: 'parked', inboxId: `inbox-${randomUUID()}` });
        await writeCall(store, parked, undefined);
        const running = { ...parked, state: 'started' as const, attempt: 1 };
        assert.equal(await writeCall(store, running, 'started'), false);
        assert.equal(await writeCall(store, running, 'parked'), true);
        assert.equal(await writeCall(store, running, 'parked'), false);
        assert.deepEqual(await store.getCall(parked.run, parked.call), running);
      }));

    it('refuses a compare-and-set on a call that does not exist', () =>
      withStore(async (store) => {
        const record = call({ state: 'succeeded' });
        assert.equal(await writeCall(store, record, 'started'), false);
        assert.equal(await store.getCall(record.run, record.call), undefined);
      }));

    it('lets exactly one of 10 concurrent first writes win', () =>
      withStore(async (store) => {
        const base = call({ state: 'started' });
        const results = await Promise.all(
          range(10).map((i) => writeCall(store, { ...base, agent: `agent-${i}` }, undefined)),
        );
        assert.equal(results.filter(Boolean).length, 1);
        const winner = results.indexOf(true);
        assert.equal((await store.getCall(base.run, base.call))?.agent, `agent-${winner}`);
      }));

    it('lets exactly one of 10 concurrent started-to-final writes win', () =>
      withStore(async (store) => {
        const base = call({ state: 'started' });
        await writeCall(store, base, undefined);
        const results = await Promise.all(
          range(10).map((i) =>
            writeCall(store, { ...base, state: i % 2 === 0 ? 'succeeded' : 'failed', answer: ok(i) }, 'started'),
          ),
        );
        assert.equal(results.filter(Boolean).length, 1);
        const winner = results.indexOf(true);
        assert.deepEqual((await store.getCall(base.run, base.call))?.answer, ok(winner));
      }));

    it('moves a started call to started again only when the attempt goes up', () =>
      withStore(async (store) => {
        const started = call({ state: 'started', attempt: 2 });
        await writeCall(store, started, undefined);
        assert.equal(await writeCall(store, { ...started, updatedAt: 5 }, 'started'), false, 'the same attempt');
        assert.equal(await writeCall(store, { ...started, attempt: 1 }, 'started'), false, 'a lower attempt');
        assert.equal(await writeCall(store, { ...started, attempt: 3 }, 'started'), true);
        assert.equal((await store.getCall(started.run, started.call))?.attempt, 3);
      }));

    it('lets exactly one of 10 concurrent writers of the same next attempt take a started call', () =>
      withStore(async (store) => {
        const base = call({ state: 'started', attempt: 1 });
        await writeCall(store, base, undefined);
        const results = await Promise.all(
          range(10).map((i) => writeCall(store, { ...base, attempt: 2, agent: `agent-${i}` }, 'started')),
        );
        assert.equal(results.filter(Boolean).length, 1);
        assert.equal((await store.getCall(base.run, base.call))?.agent, `agent-${results.indexOf(true)}`);
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
          await writeCall(
            store,
            call({ run, call: id, state: id === 'c5' ? 'parked' : 'started', updatedAt }),
            undefined,
          );
        }
        const started = (await store.listCalls({ state: 'started' })).filter((record) => record.run === run);
        assert.deepEqual(
          started.map((record) => record.call),
          ['c2', 'c4', 'c3', 'c1'],
        );
        const parked = (await store.listCalls({ state: 'parked' })).filter((record) => record.run === run);
        assert.deepEqual(
          parked.map((record) => record.call),
          ['c5'],
        );
      }));

    it('keeps ties across runs in the order the calls were first written', () =>
      withStore(async (store) => {
        const [a, b] = [`run-${randomUUID()}`, `run-${randomUUID()}`];
        const updatedAt = 7;
        for (const [run, id] of [
          [a, 'a1'],
          [b, 'b1'],
          [a, 'a2'],
        ] as const)
          await writeCall(store, call({ run, call: id, state: 'started', updatedAt }), undefined);
        const started = (await store.listCalls({ state: 'started' })).filter(
          (record) => record.run === a || record.run === b,
        );
        assert.deepEqual(
          started.map((record) => record.call),
          ['a1', 'b1', 'a2'],
        );
      }));

    it('returns at most limit calls, the oldest', () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        for (const [i, updatedAt] of [3, 1, 2].entries())
          await writeCall(store, call({ run, call: `c${i}`, state: 'failed', updatedAt }), undefined);
        const all = await store.listCalls({ state: 'failed' });
        const limited = await store.listCalls({ state: 'failed', limit: 2 });
        assert.equal(limited.length, 2);
        assert.deepEqual(limited, all.slice(0, 2));
      }));

    it("lists a run's calls in the order first written, whatever their times, and in one state with state", () =>
      withStore(async (store) => {
        const run = `run-${randomUUID()}`;
        const other = call({ state: 'started' });
        await writeCall(store, other, undefined);
        const times: Record<string, number> = { c3: 30, c1: 10, c2: 20 };
        for (const [id, updatedAt] of Object.entries(times))
          await writeCall(store, call({ run, call: id, state: 'started', updatedAt }), undefined);
        // An update moves c3's time after the others' but not its place in the timeline.
        await writeCall(store, call({ run, call: 'c3', state: 'parked', updatedAt: 99 }), 'started');
        assert.deepEqual(
          (await store.listCalls({ run })).map((record) => record.call),
          ['c3', 'c1', 'c2'],
        );
        assert.deepEqual(
          (await store.listCalls({ run, state: 'started' })).map((record) => record.call),
          ['c1', 'c2'],
        );
        assert.deepEqual(
          (await store.listCalls({ run, limit: 2 })).map((record) => record.call),
          ['c3', 'c1'],
        );
        assert.deepEqual(await store.listCalls({ run: `run-${randomUUID()}` }), []);
      }));

    it('follows a call as its state changes', () =>
      withStore(async (store) => {
        const record = call({ state: 'started' });
        await writeCall(store, record, undefined);
        await writeCall(store, { ...record, state: 'succeeded', answer: ok(1) }, 'started');
        const started = await store.listCalls({ state: 'started' });
        const succeeded = await store.listCalls({ state: 'succeeded' });
        assert.equal(
          started.some((r) => r.run === record.run),
          false,
        );
        assert.equal(succeeded.filter((r) => r.run === record.run).length, 1);
      }));
  });

  describe('listRuns', () => {
    it('sums a run up from its calls and its turn: agent, status, calls, parked, cost and times', () =>
      withStore(async (store) => {
        const agent = `agent-${randomUUID()}`;
        const run = `run-${randomUUID()}`;
        await writeTurn(store, turn({ run, agent, status: 'parked', createdAt: 100, updatedAt: 400 }), undefined);
        await writeCall(
          store,
          call({ run, agent, call: 'c1', state: 'succeeded', costUsd: 0.25, updatedAt: 200 }),
          undefined,
        );
        await writeCall(
          store,
          call({ run, agent, call: 'c2', state: 'parked', costUsd: 0.5, updatedAt: 300 }),
          undefined,
        );
        await writeCall(store, call({ run, agent, call: 'c3', state: 'failed', updatedAt: 250 }), undefined);
        assert.deepEqual(await store.listRuns({ agent }), [
          { run, agent, status: 'parked', calls: 3, parked: 1, costUsd: 0.75, firstAt: 100, lastAt: 400 },
        ]);
      }));

    it('lists runs with calls only, and turns without calls, most recent first, at most limit', () =>
      withStore(async (store) => {
        const agent = `agent-${randomUUID()}`;
        const [a, b, c] = [`run-a-${randomUUID()}`, `run-b-${randomUUID()}`, `run-c-${randomUUID()}`];
        await writeCall(store, call({ run: a, agent, state: 'succeeded', updatedAt: 1_000 }), undefined);
        await writeTurn(store, turn({ run: b, agent, status: 'done', createdAt: 2_000, updatedAt: 3_000 }), undefined);
        await writeCall(store, call({ run: c, agent, state: 'started', updatedAt: 2_500 }), undefined);
        const runs = await store.listRuns({ agent });
        assert.deepEqual(
          runs.map((summary) => summary.run),
          [b, c, a],
        );
        assert.deepEqual(runs[0], {
          run: b,
          agent,
          status: 'done',
          calls: 0,
          parked: 0,
          costUsd: 0,
          firstAt: 2_000,
          lastAt: 3_000,
        });
        assert.equal('status' in runs[2]!, false);
        assert.deepEqual(
          (await store.listRuns({ agent, limit: 2 })).map((summary) => summary.run),
          [b, c],
        );
      }));

    it("lists only the given agent's runs, and every agent's without one", () =>
      withStore(async (store) => {
        const [one, two] = [`agent-${randomUUID()}`, `agent-${randomUUID()}`];
        const record = call({ agent: one, state: 'succeeded', updatedAt: 5_000 });
        await writeCall(store, record, undefined);
        await writeTurn(store, turn({ agent: two }), undefined);
        assert.deepEqual(
          (await store.listRuns({ agent: one })).map((summary) => summary.run),
          [record.run],
        );
        assert.equal((await store.listRuns({ agent: two })).length, 1);
        const all = (await store.listRuns()).filter((summary) => summary.agent === one || summary.agent === two);
        assert.equal(all.length, 2);
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
        assert.equal(
          (await store.listInbox()).some((listed) => listed.id === item.id),
          false,
        );
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

    it('writes an item given an expected revision only over that revision, so one of 10 racing writes wins', () =>
      withStore(async (store) => {
        const item = inboxItem({});
        await store.putInboxItem(item);
        const counted = (by: string, revision: number): InboxRecord => ({
          ...item,
          approvals: [{ by, digest: item.digest, at: 1 }],
          revision,
        });
        const results = await Promise.all(
          range(10).map((i) => store.updateInboxItem(counted(`person-${i}`, 1), 'pending', 0)),
        );
        assert.equal(results.filter(Boolean).length, 1);
        const now = await store.getInboxItem(item.id);
        assert.deepEqual(now, counted(`person-${results.indexOf(true)}`, 1));
        assert.equal(await store.updateInboxItem(counted('late', 1), 'pending', 0), false);
        assert.equal(await store.updateInboxItem({ ...now!, status: 'approved', revision: 2 }, 'pending', 1), true);
        assert.equal((await store.getInboxItem(item.id))?.status, 'approved');
      }));

    it('refuses to update an item that does not exist', () =>
      withStore(async (store) => {
        const item = inboxItem({ status: 'approved' });
        assert.equal(await store.updateInboxItem(item, 'pending'), false);
        assert.equal(await store.getInboxItem(item.id), undefined);
      }));
  });
}
