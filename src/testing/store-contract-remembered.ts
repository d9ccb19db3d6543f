import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { addSpend } from '../store/journal-writes.js';
import type { RememberedClaim, SpendHold } from '../store/store.js';
import { ok, range, type ContractContext } from './store-contract-kit.js';

/** The `RememberedResults` and `SpendHolds` capabilities of the Store contract, for a store that claims them. */
export function rememberedContract({ withFullStore, has }: ContractContext): void {
  if (has('RememberedResults')) {
    describe('remembered results', () => {
      it('returns a result until it expires, and nothing from then on', () =>
        withFullStore(async (store) => {
          const record = {
            key: `key-${randomUUID()}`,
            digest: 'abc',
            answer: ok({ refund: 're_1' }),
            expiresAt: 1_000,
          };
          await store.putRemembered(record);
          assert.deepEqual(await store.getRemembered(record.key, 999), record);
          assert.equal(await store.getRemembered(record.key, 1_000), undefined);
          assert.equal(await store.getRemembered(record.key, 5_000), undefined);
        }));

      it('replaces a result put again under the same key', () =>
        withFullStore(async (store) => {
          const key = `key-${randomUUID()}`;
          await store.putRemembered({ key, digest: 'one', answer: ok(1), expiresAt: 100 });
          const second = { key, digest: 'two', answer: ok(2), expiresAt: 200 };
          await store.putRemembered(second);
          assert.deepEqual(await store.getRemembered(key, 150), second);
        }));

      it('prunes the expired results and says how many', () =>
        withFullStore(async (store) => {
          // Far in the past, so results other tests left behind (which expire later) are not pruned here.
          const now = -1_000_000 - Math.floor(Math.random() * 1_000_000);
          const keys = range(4).map((i) => `key-${randomUUID()}-${i}`);
          const expiries = [now - 10, now, now + 1, now + 100];
          for (const [i, key] of keys.entries())
            await store.putRemembered({ key, digest: 'd', answer: ok(i), expiresAt: expiries[i]! });
          assert.equal(await store.pruneRemembered(now), 2);
          assert.equal(await store.pruneRemembered(now), 0);
          assert.equal((await store.getRemembered(keys[2]!, now))?.digest, 'd');
          assert.equal((await store.getRemembered(keys[3]!, now))?.digest, 'd');
        }));
    });
  }

  if (has('RememberedResults')) {
    describe('claims on remembered keys', () => {
      const claim = (key: string, owner: string, over: Partial<RememberedClaim> = {}): RememberedClaim => ({
        key,
        digest: 'd1',
        owner,
        expiresAt: 1_000,
        ...over,
      });

      it('gives a free key to its first claimer, and shows the claim to others', () =>
        withFullStore(async (store) => {
          const key = `key-${randomUUID()}`;
          assert.deepEqual(await store.claimRemembered(claim(key, '["run-1","c1"]'), 1), { claimed: true });
          assert.deepEqual(await store.claimRemembered(claim(key, '["run-2","c1"]'), 2), {
            claimed: false,
            heldBy: '["run-1","c1"]',
            digest: 'd1',
          });
          assert.deepEqual(
            await store.claimRemembered(claim(key, '["run-1","c1"]'), 3),
            { claimed: true },
            'its owner takes it again (a call run again after a crash)',
          );
        }));

      it('gives exactly one of 10 concurrent claimers the key', () =>
        withFullStore(async (store) => {
          const key = `key-${randomUUID()}`;
          const outcomes = await Promise.all(
            range(10).map((i) => store.claimRemembered(claim(key, `["run-${i}","c1"]`), 1)),
          );
          assert.equal(outcomes.filter((o) => o.claimed).length, 1);
        }));

      it('answers the remembered result once it is put, and ends the claim', () =>
        withFullStore(async (store) => {
          const key = `key-${randomUUID()}`;
          await store.claimRemembered(claim(key, '["run-1","c1"]', { expiresAt: 10_000 }), 1);
          const record = { key, digest: 'd1', answer: ok('refunded'), expiresAt: 5_000 };
          await store.putRemembered(record);
          assert.deepEqual(await store.claimRemembered(claim(key, '["run-2","c1"]'), 2), {
            claimed: false,
            remembered: record,
          });
          assert.equal(
            (await store.claimRemembered(claim(key, '["run-2","c1"]'), 6_000)).claimed,
            true,
            'once the result expired the key is free: the claim ended with it',
          );
        }));

      it('frees a key its owner released, or whose claim expired', () =>
        withFullStore(async (store) => {
          const [released, expired] = [`key-${randomUUID()}`, `key-${randomUUID()}`];
          await store.claimRemembered(claim(released, '["run-1","c1"]'), 1);
          await store.releaseRemembered(released, '["run-9","c1"]');
          assert.equal(
            (await store.claimRemembered(claim(released, '["run-2","c1"]'), 2)).claimed,
            false,
            'only its owner releases it',
          );
          await store.releaseRemembered(released, '["run-1","c1"]');
          assert.equal((await store.claimRemembered(claim(released, '["run-2","c1"]'), 2)).claimed, true);
          await store.claimRemembered(claim(expired, '["run-1","c1"]', { expiresAt: 50 }), 1);
          assert.equal((await store.claimRemembered(claim(expired, '["run-2","c1"]'), 49)).claimed, false);
          assert.equal((await store.claimRemembered(claim(expired, '["run-2","c1"]'), 50)).claimed, true);
        }));
    });
  }

  if (has('SpendHolds')) {
    describe('budget holds', () => {
      const hold = (agent: string, id: string, over: Partial<SpendHold> = {}): SpendHold => ({
        agent,
        id,
        tool: 't/search',
        budgetMicroUsd: 1_000_000,
        maxMicroUsd: 100_000,
        expiresAt: 10_000,
        ...over,
      });

      it('holds while spend plus holds is under the budget, and refuses once it is not', () =>
        withFullStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          for (let i = 0; i < 10; i++) assert.equal(await store.holdSpend(hold(agent, `c${i}`), 1), 'held');
          assert.equal(await store.holdSpend(hold(agent, 'c10'), 1), 'spent', 'ten $0.10 holds fill a $1 budget');
          await addSpend(store, agent, 100_000);
          await store.releaseSpend(agent, 'c0', 't/search', 100_000);
          assert.equal(
            await store.holdSpend(hold(agent, 'c10'), 1),
            'spent',
            "the spend took the released hold's place",
          );
        }));

      it('lets exactly ten of 40 concurrent $0.10 holds into a $1 budget', () =>
        withFullStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const outcomes = await Promise.all(range(40).map((i) => store.holdSpend(hold(agent, `c${i}`), 1)));
          assert.equal(outcomes.filter((o) => o === 'held').length, 10);
          assert.equal(outcomes.filter((o) => o === 'spent').length, 30);
        }));

      it('lets a hold lapse at its expiry', () =>
        withFullStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          assert.equal(await store.holdSpend(hold(agent, 'c1', { maxMicroUsd: 1_000_000, expiresAt: 50 }), 1), 'held');
          assert.equal(await store.holdSpend(hold(agent, 'c2'), 49), 'spent');
          assert.equal(await store.holdSpend(hold(agent, 'c2'), 50), 'held');
        }));

      it('holds one call at a time of a tool of unknown cost, then what it cost at most', () =>
        withFullStore(async (store) => {
          const agent = `agent-${randomUUID()}`;
          const tool = `t/unknown-${randomUUID()}`;
          const unknown = (id: string) => hold(agent, id, { tool, maxMicroUsd: undefined });
          const outcomes = await Promise.all(range(5).map((i) => store.holdSpend(unknown(`c${i}`), 1)));
          assert.deepEqual(outcomes.filter((o) => o === 'held').length, 1);
          const first = `c${outcomes.indexOf('held')}`;
          assert.equal(
            await store.holdSpend(hold(agent, 'other', { tool: 't/other', maxMicroUsd: undefined }), 1),
            'held',
            'another tool is not held up',
          );
          await store.releaseSpend(agent, first, tool, undefined);
          assert.equal(
            await store.holdSpend(unknown('c9'), 1),
            'held',
            'a call that did not run tells nothing, but frees the turn',
          );
          await store.releaseSpend(agent, 'c9', tool, 300_000);
          await addSpend(store, agent, 300_000);
          // Its cost is known now ($0.30): held for each call, so $0.30 spent + two holds reach the $1 budget at the third.
          const next = await Promise.all(range(4).map((i) => store.holdSpend(unknown(`d${i}`), 1)));
          assert.equal(next.filter((o) => o === 'held').length, 3);
          assert.equal(next.filter((o) => o === 'spent').length, 1);
        }));

      it('keeps each agent apart', () =>
        withFullStore(async (store) => {
          const [a, b] = [`agent-${randomUUID()}`, `agent-${randomUUID()}`];
          assert.equal(await store.holdSpend(hold(a, 'c1', { maxMicroUsd: 1_000_000 }), 1), 'held');
          assert.equal(await store.holdSpend(hold(b, 'c1'), 1), 'held');
          assert.equal(await store.holdSpend(hold(a, 'c2'), 1), 'spent');
        }));
    });
  }
}
