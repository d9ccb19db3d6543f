import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, Tokens, Wardrik, type CallRecord, type PolicyRule, type ToolAnswer } from '../../src/index.js';
import { openStore } from '../../src/store/open-store.js';
import { writeCall } from '../../src/store/journal-writes.js';
import { scratchStores } from '../crash/scratch-stores.js';
import { inboxId } from './helpers.js';

// What decided each call is in its journal entry (CallRecord.decidedBy), on every store, and still there
// when a new store object opens the same file or schema, as a restarted process would.
const { stores } = scratchStores('decided-by');
const every: readonly [string, () => string][] = [['memory', () => 'memory:'], ...stores];

const TOOLS = 50;
const tools = Array.from({ length: TOOLS }, (_, i) =>
  defineTool({ name: `tool${i}`, description: 'd', annotations: { idempotent: true }, run: () => i }),
);
const refund = defineTool({ name: 'refund', description: 'd', run: () => 'refunded' });
const wipe = defineTool({ name: 'wipe', description: 'd', run: () => 'wiped' });
const pay = defineTool({ name: 'pay', description: 'd', run: () => 'paid' });
const RULES: readonly PolicyRule[] = [
  ...tools.map((_, i): PolicyRule => ({ match: `t/tool${i}`, action: 'allow' })),
  { match: 't/refund', action: 'ask' },
  { match: 't/wipe', action: 'deny' },
  { match: 't/pay', action: 'ask', quorum: 2 },
];
const ruleOf = (i: number) => `rule ${i + 1} (t/tool${i} allow)`;
const ASKS = `rule ${TOOLS + 1} (t/refund ask)`;
const DENIES = `rule ${TOOLS + 2} (t/wipe deny)`;
const QUORUM = `rule ${TOOLS + 3} (t/pay ask)`;

async function open(store: string) {
  const wardrik = await Wardrik.create({
    store,
    recoverMs: Infinity,
    tools: { t: [...tools, refund, wipe, pay] },
    policy: { rules: RULES },
  });
  const call = (name: string, id: string): Promise<ToolAnswer> =>
    wardrik.runner.run({ agent: 'a', run: 'run-1', call: { id, name: `t__${name}`, arguments: {} } });
  return { wardrik, call, store: wardrik.container.resolve(Tokens.Store) };
}

/** The journal's calls of run-1, by call id, through a new store object on `url` (memory has no other). */
async function readBack(url: string, same: Awaited<ReturnType<typeof open>>): Promise<Map<string, CallRecord>> {
  const store = url === 'memory:' ? same.store : await openStore(url);
  try {
    return new Map((await store.listCalls({ run: 'run-1' })).map((record) => [record.call, record]));
  } finally {
    if (store !== same.store) await store.close();
  }
}

for (const [name, url] of every) {
  describe(`What decided a call, in the journal (${name})`, () => {
    it('names the rule that allowed each of 50 calls made at once, each its own', async () => {
      const store = url();
      const h = await open(store);
      try {
        const answers = await Promise.all(tools.map((_, i) => h.call(`tool${i}`, `c${i}`)));
        assert.deepEqual(
          answers.map((answer) => answer.status),
          tools.map(() => 'ok'),
        );
        const calls = await readBack(store, h);
        assert.deepEqual(
          tools.map((_, i) => calls.get(`c${i}`)?.decidedBy),
          tools.map((_, i) => ruleOf(i)),
        );
      } finally {
        await h.wardrik.close();
      }
    });

    it('names the rule that denied a call, and the one that asked, then who approved or denied it', async () => {
      const store = url();
      const h = await open(store);
      try {
        assert.equal((await h.call('wipe', 'denied')).status, 'error');
        const approved = inboxId(await h.call('refund', 'approved'));
        const refused = inboxId(await h.call('refund', 'refused'));
        const waiting = await readBack(store, h);
        assert.equal(waiting.get('approved')?.decidedBy, ASKS, 'a parked call names the rule that asked');
        assert.equal((await h.wardrik.inbox.approve(approved, { by: 'alice' })).status, 'ok');
        assert.equal((await h.wardrik.inbox.deny(refused, { by: 'bob', reason: 'not today' })).status, 'error');
        const calls = await readBack(store, h);
        assert.deepEqual(
          ['denied', 'approved', 'refused'].map((id) => [id, calls.get(id)?.state, calls.get(id)?.decidedBy]),
          [
            ['denied', 'failed', DENIES],
            ['approved', 'succeeded', `${ASKS}; approved by alice`],
            ['refused', 'failed', `${ASKS}; denied by bob`],
          ],
        );
      } finally {
        await h.wardrik.close();
      }
    });

    it('names everyone whose approvals made a quorum', async () => {
      const store = url();
      const h = await open(store);
      try {
        const id = inboxId(await h.call('pay', 'paid'));
        assert.equal((await h.wardrik.inbox.approve(id, { by: 'alice' })).status, 'parked', '1 of 2');
        assert.equal((await h.wardrik.inbox.approve(id, { by: 'bob' })).status, 'ok');
        assert.equal((await readBack(store, h)).get('paid')?.decidedBy, `${QUORUM}; approved by alice, bob`);
      } finally {
        await h.wardrik.close();
      }
    });

    it('keeps it for a call recovery takes over, and leaves it unknown for one journaled without it', async () => {
      const store = url();
      const first = await open(store);
      const started = (call: string, decidedBy?: string): CallRecord => ({
        run: 'run-1',
        call,
        agent: 'a',
        tool: 't/tool7',
        arguments: {},
        idempotencyKey: `run-1:${call}`,
        state: 'started',
        attempt: 1,
        updatedAt: 1,
        ...(decidedBy === undefined ? {} : { decidedBy }),
      });
      await writeCall(first.store, started('known', ruleOf(7)), undefined);
      await writeCall(first.store, started('unknown'), undefined);
      try {
        assert.equal((await first.wardrik.recover()).rerun, 2);
        const calls = await readBack(store, first);
        assert.deepEqual(
          ['known', 'unknown'].map((id) => [calls.get(id)?.state, calls.get(id)?.attempt, calls.get(id)?.decidedBy]),
          [
            ['succeeded', 2, ruleOf(7)],
            ['succeeded', 2, undefined],
          ],
        );
      } finally {
        await first.wardrik.close();
      }
    });
  });
}
