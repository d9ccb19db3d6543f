import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container } from 'tsyringe';
import { IsInt } from 'class-validator';
import {
  ConfigurationError,
  defineTool,
  MemoryStore,
  Tokens,
  verifyAudit,
  type AuditRecord,
  type FullStore,
  type PolicyOptions,
  type WardrikOptions,
} from '../../src/index.js';
import { argumentsDigest } from '../../src/runner/digest.js';
import { CoreStore } from '../../examples/stores/core-store.js';
import { counter, harness, inboxId } from '../runner/helpers.js';
import { eventually } from '../eventually.js';

class AmountArgs {
  @IsInt()
  cents!: number;
}

const POLICY: PolicyOptions = {
  rules: [
    { match: 't/read', action: 'allow' },
    { match: 't/drop', action: 'deny' },
    { match: 't/pay', action: 'ask' },
    { match: 't/wire', action: 'ask', approvers: ['ops'], quorum: 2 },
  ],
};

/** A Wardrik with an audit trail, a tool each rule decides, and its store to read the trail from. */
async function audited(options: Omit<WardrikOptions, 'tools'> = {}) {
  const ran = counter();
  const tool = (name: string) =>
    defineTool({ name, description: 'd', input: AmountArgs, run: (a: AmountArgs) => ran.calls.push([name, a.cents]) });
  const h = await harness([tool('read'), tool('drop'), tool('pay'), tool('wire')], {
    policy: POLICY,
    audit: {},
    ...options,
  });
  const store = h.wardrik.container.resolve(Tokens.Store) as FullStore;
  const entries = async (kind?: string): Promise<AuditRecord[]> =>
    (await store.listAudit()).filter((entry) => kind === undefined || entry.kind === kind);
  return { h, ran, store, entries };
}

const dataOf = (entry: AuditRecord | undefined) => entry?.data as Record<string, unknown>;

describe('The audit trail', () => {
  it("records every verdict with its rule and the arguments' digest: allow, deny, ask", async () => {
    const { h, ran, store, entries } = await audited();
    await h.call('read', { cents: 1 }, { id: 'r1' });
    await h.call('drop', { cents: 2 }, { id: 'd1' });
    await h.call('pay', { cents: 3 }, { id: 'p1', onBehalfOf: 'ana' });
    const decisions = (await entries('decision')).map(dataOf);
    assert.deepEqual(
      decisions.map((d) => [d.call, d.tool, d.action, d.rule]),
      [
        ['r1', 't/read', 'allow', 'rule 1 (t/read allow)'],
        ['d1', 't/drop', 'deny', 'rule 2 (t/drop deny)'],
        ['p1', 't/pay', 'ask', 'rule 3 (t/pay ask)'],
      ],
    );
    assert.equal(decisions[2]!.digest, argumentsDigest({ cents: 3 }));
    assert.equal(decisions[2]!.requester, 'ana');
    assert.match(String(decisions[2]!.reason), /Needs approval/);
    assert.equal(ran.count, 1);
    assert.equal((await verifyAudit(store)).problem, undefined);
    await h.close();
  });

  it("records each answer: who, the digest seen, the changed arguments' digest and the scope", async () => {
    const { h, entries } = await audited();
    const approved = inboxId(await h.call('pay', { cents: 3 }, { id: 'p1' }));
    const denied = inboxId(await h.call('pay', { cents: 4 }, { id: 'p2' }));
    const item = (await h.wardrik.inbox.get(approved))!;
    await h.wardrik.inbox.approve(approved, {
      by: 'carla',
      digest: item.digest,
      arguments: { cents: 2 },
      scope: 'run',
    });
    await h.wardrik.inbox.deny(denied, { by: 'bob', reason: 'too much' });
    const answers = (await entries('answer')).map(dataOf);
    assert.deepEqual(answers[0], {
      item: approved,
      itemKind: 'approval',
      agent: 'a',
      run: 'run-1',
      call: 'p1',
      tool: 't/pay',
      digest: item.digest,
      status: 'approved',
      by: 'carla',
      editedDigest: argumentsDigest({ cents: 2 }),
      scope: 'run',
      allowIf: [],
    });
    assert.deepEqual([answers[1]!.item, answers[1]!.status, answers[1]!.by], [denied, 'denied', 'bob']);
    await h.close();
  });

  it('records each approval toward a quorum with its count, then the one that lets the call run', async () => {
    const { h, ran, entries } = await audited();
    const id = inboxId(await h.call('wire', { cents: 9 }));
    await h.wardrik.inbox.approve(id, { by: 'ida', groups: ['ops'] });
    await h.wardrik.inbox.approve(id, { by: 'jon', groups: ['ops'] });
    const answers = (await entries('answer')).map(dataOf);
    assert.deepEqual(
      answers.map((a) => [a.by, a.status, a.approvals, a.quorum]),
      [
        ['ida', 'approved', 1, 2],
        ['jon', 'approved', undefined, undefined],
      ],
    );
    assert.equal(ran.count, 1);
    await h.close();
  });

  it('records expiries and escalations', async () => {
    const clock = { at: 1_000_000, now: () => clock.at };
    const app = container.createChildContainer();
    app.register(Tokens.Clock, { useValue: clock });
    const { h, entries } = await audited({
      container: app,
      policy: { ...POLICY, approvalTtlMs: 60_000, escalateAfterMs: 10_000 },
    });
    const id = inboxId(await h.call('pay', { cents: 3 }));
    clock.at += 10_000;
    await h.wardrik.inbox.handleOverdue();
    clock.at += 50_000;
    await h.wardrik.inbox.handleOverdue();
    const { status, ...item } = dataOf((await entries('expired'))[0]);
    assert.equal(status, 'denied');
    assert.deepEqual(dataOf((await entries('escalated'))[0]), { ...item, waitedMs: 10_000 });
    assert.deepEqual(
      [dataOf((await entries('expired'))[0]).item, dataOf((await entries('expired'))[0]).status],
      [id, 'denied'],
    );
    await h.close();
  });

  it('runs nothing whose verdict the trail could not take, and says why', async () => {
    class FullDisk extends MemoryStore {
      override async appendAudit(): Promise<never> {
        throw new Error('disk full');
      }
    }
    const { h, ran } = await audited({ store: new FullDisk() });
    await assert.rejects(h.call('read', { cents: 1 }), /disk full/);
    assert.equal(ran.count, 0);
    await h.close();
  });

  it('keeps the chain whole under 50 calls at once', async () => {
    const { h, store, entries } = await audited();
    await Promise.all(Array.from({ length: 50 }, (_, i) => h.call('read', { cents: i })));
    assert.equal((await entries('decision')).length, 50);
    const result = await verifyAudit(store);
    assert.deepEqual([result.problem, result.entries], [undefined, 50]);
    await h.close();
  });

  it('signs every entry with the key the credential provider has; another key fails from the first entry', async () => {
    const app = container.createChildContainer();
    const asked: unknown[] = [];
    app.register(Tokens.Credentials, {
      useValue: { resolve: (name: string, context: unknown) => (asked.push([name, context]), 's3cret') },
    });
    const { h, store } = await audited({ container: app, audit: { signingKey: 'AUDIT_KEY' } });
    await h.call('read', { cents: 1 });
    await h.call('drop', { cents: 1 });
    assert.deepEqual(asked, [['AUDIT_KEY', { hub: '(audit)', server: '(audit)' }]]);
    assert.equal((await verifyAudit(store, 's3cret')).problem, undefined);
    assert.deepEqual((await verifyAudit(store, 'another')).problem?.seq, 1);
    await h.close();
  });

  it('refuses to start without the signing key, or on a store that keeps no audit log', async () => {
    await assert.rejects(
      audited({ audit: { signingKey: 'WARDRIK_TEST_NO_SUCH_KEY' } }),
      (error: unknown) =>
        error instanceof ConfigurationError && /credential "WARDRIK_TEST_NO_SUCH_KEY"/.test(error.message),
    );
    await assert.rejects(
      audited({ store: new CoreStore(), retention: { finishedAfterMs: Infinity } }),
      (error: unknown) => error instanceof ConfigurationError && /does not implement AuditLog/.test(error.message),
    );
  });

  it('prunes entries older than keepForMs, leaving a checkpoint; the rest still verifies', async () => {
    const clock = { at: 1_000_000, now: () => clock.at };
    const app = container.createChildContainer();
    app.register(Tokens.Clock, { useValue: clock });
    const { h, store, entries } = await audited({
      container: app,
      audit: { keepForMs: 60_000 },
      retention: { everyMs: 5 },
    });
    await h.call('read', { cents: 1 });
    await h.call('read', { cents: 2 });
    clock.at += 60_001;
    await h.call('read', { cents: 3 });
    const [checkpoint] = await eventually('a checkpoint', async () => {
      const found = await entries('checkpoint');
      return found.length > 0 ? found : undefined;
    });
    assert.deepEqual(dataOf(checkpoint).through, 2);
    assert.deepEqual(
      (await store.listAudit()).map((entry) => entry.seq),
      [3, 4],
    );
    const result = await verifyAudit(store);
    assert.deepEqual([result.problem, result.first], [undefined, 3]);
    await h.close();
  });
});
