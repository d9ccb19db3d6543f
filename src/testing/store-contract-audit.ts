import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { chainAfter, type AuditDraft } from '../audit/audit-chain.js';
import { verifyAudit } from '../audit/audit-verify.js';
import type { AuditLog, AuditRecord } from '../store/audit-log.js';
import type { ContractContext } from './store-contract-kit.js';

/** Appends `drafts` as the audit trail appends them: chained after the head the store reads. */
function append(log: AuditLog, drafts: readonly AuditDraft[], key?: string): Promise<readonly AuditRecord[]> {
  return log.appendAudit((head) => chainAfter(head, drafts, key));
}

/** The entries of `log` whose data carries `tag`, in position order. */
async function tagged(log: AuditLog, tag: string): Promise<AuditRecord[]> {
  const all = await log.listAudit();
  return all.filter((entry) => (entry.data as { tag?: unknown } | null)?.tag === tag);
}

/**
 * The `AuditLog` capability of the Store contract. Stores share one trail across tests (one file, one
 * schema), so each test tags its entries and reads them by tag; the whole trail must verify after each.
 */
export function auditContract({ withFullStore, has }: ContractContext): void {
  if (!has('AuditLog')) return;
  // Times after every other test's entries, in the order the tests run, so a prune takes only older ones.
  const at = (n: number): number => 2_000_000_000_000 + n;

  describe('the audit trail (AuditLog)', () => {
    it('appends entries after the head, in order, and reads them back as written', () =>
      withFullStore(async (store) => {
        const tag = randomUUID();
        const data = { tag, nested: { b: [1, 2.5, 'ü\u0000"'], a: null }, empty: {} };
        const added = await append(store, [
          { at: at(1), kind: 'decision', data },
          { at: at(2), kind: 'answer', data: { tag } },
        ]);
        assert.equal(added[1]!.seq, added[0]!.seq + 1);
        assert.equal(added[1]!.prev, added[0]!.hash);
        assert.deepEqual(await tagged(store, tag), added);
        assert.deepEqual(await store.listAudit({ from: added[1]!.seq }), [added[1]]);
        assert.deepEqual(await store.listAudit({ from: added[0]!.seq, limit: 1 }), [added[0]]);
        assert.deepEqual(
          (await store.listAudit({ since: at(2) })).map((entry) => entry.seq),
          [added[1]!.seq],
        );
        assert.equal((await verifyAudit(store)).problem, undefined);
      }));

    it('keeps the chain whole when many appends race: each entry follows the one before it', () =>
      withFullStore(async (store) => {
        const tag = randomUUID();
        const batches = await Promise.all(
          Array.from({ length: 20 }, (_, i) => append(store, [{ at: at(10), kind: 'decision', data: { tag, i } }])),
        );
        const seqs = batches.map((batch) => batch[0]!.seq).sort((a, b) => a - b);
        assert.deepEqual(
          seqs,
          Array.from({ length: 20 }, (_, i) => seqs[0]! + i),
        );
        const result = await verifyAudit(store);
        assert.equal(result.problem, undefined);
        assert.equal(result.head.seq, seqs[19]);
      }));

    it('keeps a signature with its entry', () =>
      withFullStore(async (store) => {
        const tag = randomUUID();
        const [entry] = await append(store, [{ at: at(20), kind: 'decision', data: { tag } }], 'k');
        assert.match(entry!.signature!, /^[0-9a-f]{64}$/);
        assert.deepEqual(await tagged(store, tag), [entry]);
      }));

    it('prunes entries recorded before a time, never the last, and appends a checkpoint that vouches for them', () =>
      withFullStore(async (store) => {
        const tag = randomUUID();
        const [older, last] = await append(store, [
          { at: at(30), kind: 'decision', data: { tag } },
          { at: at(31), kind: 'decision', data: { tag } },
        ]);
        let checkpointed: { head: number; last: number; removed: number } | undefined;
        const removed = await store.pruneAudit(at(40), (head, lastGone, count) => {
          checkpointed = { head: head.seq, last: lastGone.seq, removed: count };
          const data = { through: lastGone.seq, lastHash: lastGone.hash, removed: count };
          return chainAfter(head, [{ at: at(41), kind: 'checkpoint', data }], undefined)[0]!;
        });
        assert.ok(removed >= 1);
        assert.deepEqual(checkpointed, { head: last!.seq, last: older!.seq, removed });
        assert.deepEqual(await tagged(store, tag), [last]);
        const rest = await store.listAudit();
        assert.equal(rest[0]!.seq, last!.seq);
        assert.equal(rest[rest.length - 1]!.kind, 'checkpoint');
        assert.equal((await verifyAudit(store)).problem, undefined);
        assert.equal(await store.pruneAudit(at(31), () => assert.fail('nothing to prune, no checkpoint')), 0);
      }));
  });
}
