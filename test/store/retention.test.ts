import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { container as root } from 'tsyringe';
import { MemoryStore, Tokens, type Clock, type Store } from '../../src/index.js';
import { SqliteStore } from '../../src/store/sqlite-store.js';
import { scriptedModel } from '../../src/testing/index.js';
import { agentHarness, shopTools } from '../agent/helpers.js';
import { eventually } from '../eventually.js';

const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'wardrik-retention-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A clock that moves only when told. */
function fakeClock(start = Date.UTC(2026, 0, 1)) {
  const clock = { at: start, now: () => clock.at };
  return clock;
}

function withClock(clock: Clock) {
  const container = root.createChildContainer();
  container.register(Tokens.Clock, { useValue: clock });
  return container;
}

/** A finished turn with one tool call, and a turn parked on a refund that asks a person. */
async function finishedAndParked(h: Awaited<ReturnType<typeof agentHarness>>) {
  const model = scriptedModel([
    { toolCalls: [{ name: 'shop__find_order', arguments: { id: 'ord_1' } }] },
    { text: 'Found.' },
  ]);
  const finished = await h.wardrik.startAgent({ id: 'finder', model, tools: ['shop/*'] }).send('find ord_1');
  assert.equal(finished.status, 'done');
  const refunder = scriptedModel([{ toolCalls: [{ name: 'shop__refund', arguments: { id: 'ord_2' } }] }]);
  const parked = await h.wardrik
    .startAgent({ id: 'refunder', model: refunder, tools: ['shop/*'] })
    .send('refund ord_2');
  assert.equal(parked.status, 'parked');
  return { finished: finished.run, parked: parked.run, inboxId: parked.parked[0]!.inboxId };
}

for (const [name, open] of [
  ['memory', () => new MemoryStore()],
  ['SQLite', () => new SqliteStore({ path: join(dir, `${Math.random().toString(36).slice(2)}.db`) })],
] as const) {
  describe(`Retention on the ${name} store`, () => {
    it('deletes a finished run once it is older than finishedAfterMs, and never a parked run, however old', async () => {
      const clock = fakeClock();
      const store: Store = open();
      const h = await agentHarness(shopTools(), {
        store,
        container: withClock(clock),
        retention: { finishedAfterMs: 30 * DAY, everyMs: Infinity },
      });
      try {
        const { finished, parked, inboxId } = await finishedAndParked(h);
        clock.at += 29 * DAY;
        assert.equal((await h.wardrik.prune()).runs, 0, 'not yet 30 days old');
        assert.equal((await store.getTurn(finished))?.status, 'done');

        clock.at += 2 * DAY;
        const dry = await h.wardrik.prune({ dryRun: true });
        assert.deepEqual(
          { runs: dry.runs, turns: dry.turns, steps: dry.steps, calls: dry.calls },
          { runs: 1, turns: 1, steps: 3, calls: 1 },
        );
        assert.equal((await store.getTurn(finished))?.status, 'done', 'a dry run deletes nothing');

        const report = await h.wardrik.prune();
        assert.deepEqual(report, dry);
        assert.equal(await store.getTurn(finished), undefined);
        assert.deepEqual(await store.listSteps(finished), []);
        assert.deepEqual(await store.listCalls({ run: finished }), []);
        assert.deepEqual(await store.lastFinishedTurns('finder', 10), []);

        assert.equal((await store.getTurn(parked))?.status, 'parked', 'the parked run stays');
        assert.equal((await store.listCalls({ run: parked }))[0]?.state, 'parked');
        assert.equal((await store.getInboxItem(inboxId))?.status, 'pending');
        assert.deepEqual(
          (await store.listRuns()).map((run) => run.run),
          [parked],
        );
      } finally {
        await h.close();
      }
    });

    it('deletes in the background, every everyMs, what a parked run left once it finishes and ages', async () => {
      const clock = fakeClock();
      const store: Store = open();
      const h = await agentHarness(shopTools(), {
        store,
        container: withClock(clock),
        retention: { finishedAfterMs: DAY, everyMs: 5 },
      });
      try {
        const { finished, parked, inboxId } = await finishedAndParked(h);
        clock.at += 400 * DAY;
        await eventually('the finished turn to be deleted', async () => (await store.getTurn(finished)) === undefined);
        await h.wardrik.inbox.approve(inboxId, { by: 'dana' });
        await eventually(
          'the approved turn to finish',
          async () =>
            (await store.getTurn(parked))?.status !== 'parked' && (await store.getTurn(parked))?.status !== 'running',
        );
        assert.ok((await store.getInboxItem(inboxId)) !== undefined, 'answered today: kept for a day');
        clock.at += 2 * DAY;
        await eventually(
          'the approved turn and its inbox item to be deleted',
          async () => (await store.getTurn(parked)) === undefined && (await store.getInboxItem(inboxId)) === undefined,
        );
        assert.deepEqual(await store.listRuns(), []);
      } finally {
        await h.close();
      }
    });
  });
}

describe('Retention options', () => {
  it('refuses a negative finishedAfterMs, naming the option', async () => {
    await assert.rejects(
      agentHarness([], { retention: { finishedAfterMs: -1 } }),
      /retention\.finishedAfterMs must be a number of milliseconds of at least 0/,
    );
  });
});
