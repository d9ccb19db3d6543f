import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IsInt } from 'class-validator';
import { ConflictError, defineTool, NotFoundError, park, type ToolContext } from '../../src/index.js';
import { counter, errorCode, errorMessage, harness, inboxId } from '../runner/helpers.js';

class AmountArgs {
  @IsInt()
  cents!: number;
}

async function refundDesk() {
  const ran = counter();
  const h = await harness([
    defineTool({
      name: 'refund',
      description: 'd',
      input: AmountArgs,
      annotations: { idempotent: true },
      run: (a: AmountArgs, ctx: ToolContext) => {
        ran.calls.push([a.cents, ctx.idempotencyKey]);
        return `refunded ${a.cents}`;
      },
    }),
    defineTool({
      name: 'escalate',
      description: 'd',
      annotations: { readOnly: true },
      run: () => park('A manager must pick the amount'),
    }),
  ]);
  return { h, ran };
}

describe('Inbox', () => {
  it('parks a call that needs approval and lists it with its tool, arguments, digest and reason', async () => {
    const { h, ran } = await refundDesk();
    const answer = await h.call('refund', { cents: 500 }, { id: 'r1' });
    assert.equal(answer.status, 'parked');
    const items = await h.wardrik.inbox.list();
    assert.equal(items.length, 1);
    const item = items[0]!;
    assert.deepEqual(
      [item.id, item.kind, item.status, item.agent, item.run, item.call, item.tool, item.arguments],
      [inboxId(answer), 'approval', 'pending', 'a', 'run-1', 'r1', 't/refund', { cents: 500 }],
    );
    assert.match(item.digest, /^[0-9a-f]{64}$/);
    assert.match(item.reason, /asks a person/);
    assert.deepEqual(await h.wardrik.inbox.get(item.id), item);
    assert.equal(ran.count, 0);
    assert.deepEqual(h.types(), ['tool.called', 'tool.decided', 'tool.parked']);
    await h.close();
  });

  it('runs an approved call once, with the idempotency key of the original call', async () => {
    const { h, ran } = await refundDesk();
    const id = inboxId(await h.call('refund', { cents: 500 }, { id: 'r1' }));
    const answer = await h.wardrik.inbox.approve(id, { by: 'dana' });
    assert.deepEqual(answer, { status: 'ok', output: 'refunded 500', labels: ['confidential'] });
    assert.deepEqual(ran.calls, [[500, 'run-1:r1']]);
    assert.equal((await h.wardrik.inbox.get(id))?.status, 'approved');
    assert.equal((await h.wardrik.inbox.get(id))?.by, 'dana');
    assert.deepEqual(await h.wardrik.inbox.list(), []);
    const answered = h.events.find((e) => e.type === 'tool.answered');
    assert.deepEqual(answered?.type === 'tool.answered' ? [answered.answer, answered.by, answered.call] : [], [
      'approved',
      'dana',
      'r1',
    ]);
    // The run asks again for the same call: the journal answers, nothing runs.
    assert.deepEqual(await h.call('refund', { cents: 500 }, { id: 'r1' }), answer);
    assert.equal(ran.count, 1);
    await h.close();
  });

  it('runs nothing on a second approval and says it was already approved', async () => {
    const { h, ran } = await refundDesk();
    const id = inboxId(await h.call('refund', { cents: 5 }));
    await h.wardrik.inbox.approve(id, { by: 'dana' });
    await assert.rejects(h.wardrik.inbox.approve(id, { by: 'lee' }), (error: unknown) => {
      assert.ok(error instanceof ConflictError);
      assert.match(error.message, /was already approved by dana; nothing ran/);
      return true;
    });
    assert.equal(ran.count, 1);
    await h.close();
  });

  it('runs a call once when two people approve it at the same moment', async () => {
    const { h, ran } = await refundDesk();
    const id = inboxId(await h.call('refund', { cents: 5 }));
    const results = await Promise.allSettled([
      h.wardrik.inbox.approve(id),
      h.wardrik.inbox.approve(id),
      h.wardrik.inbox.approve(id),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal(ran.count, 1);
    await h.close();
  });

  it('runs nothing when the approval is for other arguments than the call has (stale digest)', async () => {
    const { h, ran } = await refundDesk();
    const id = inboxId(await h.call('refund', { cents: 5 }));
    await assert.rejects(
      h.wardrik.inbox.approve(id, { digest: 'f'.repeat(64) }),
      /the approval was for other arguments .*; nothing ran/,
    );
    assert.equal(ran.count, 0);
    const item = await h.wardrik.inbox.get(id);
    assert.equal(item?.status, 'pending');
    await h.wardrik.inbox.approve(id, { digest: item!.digest });
    assert.equal(ran.count, 1);
    await h.close();
  });

  it('tells the model a person refused, with the reason, and never runs a denied call', async () => {
    const { h, ran } = await refundDesk();
    const id = inboxId(await h.call('refund', { cents: 5 }, { id: 'r2' }));
    const answer = await h.wardrik.inbox.deny(id, { reason: 'Refunds over 30 days need finance', by: 'dana' });
    assert.equal(errorCode(answer), 'refused');
    assert.equal(errorMessage(answer), 'A person (dana) refused this call: Refunds over 30 days need finance');
    assert.deepEqual(await h.call('refund', { cents: 5 }, { id: 'r2' }), answer);
    await assert.rejects(h.wardrik.inbox.approve(id), /already denied by dana/);
    assert.equal(ran.count, 0);
    await h.close();
  });

  it('requires a reason to deny', async () => {
    const { h } = await refundDesk();
    const id = inboxId(await h.call('refund', { cents: 5 }));
    await assert.rejects(h.wardrik.inbox.deny(id, { reason: ' ' }), /needs a reason/);
    await h.close();
  });

  it("turns a person's answer to a tool's own park into the call's result", async () => {
    const { h } = await refundDesk();
    const parked = await h.call('escalate', {}, { id: 'e1' });
    assert.deepEqual(parked, {
      status: 'parked',
      kind: 'park',
      inboxId: inboxId(parked),
      reason: 'A manager must pick the amount',
      labels: [],
    });
    const id = inboxId(parked);
    assert.equal((await h.wardrik.inbox.get(id))?.kind, 'park');
    await assert.rejects(h.wardrik.inbox.approve(id), /not an approval; answer it with inbox.answer/);
    const answer = await h.wardrik.inbox.answer(id, { cents: 1200 }, { by: 'manager' });
    assert.deepEqual(answer, { status: 'ok', output: { cents: 1200 }, labels: [] });
    assert.deepEqual(await h.call('escalate', {}, { id: 'e1' }), answer);
    await h.close();
  });

  it('refuses to answer an approval with a value', async () => {
    const { h, ran } = await refundDesk();
    const id = inboxId(await h.call('refund', { cents: 5 }));
    await assert.rejects(h.wardrik.inbox.answer(id, 'whatever'), /asks for approval; use inbox.approve/);
    assert.equal(ran.count, 0);
    await h.close();
  });

  it('says when an id is unknown', async () => {
    const { h } = await refundDesk();
    await assert.rejects(
      h.wardrik.inbox.approve('nope'),
      (error: unknown) => error instanceof NotFoundError && /No inbox item "nope" to approve/.test(error.message),
    );
    await h.close();
  });

  it('checks the budget again before an approved call runs', async () => {
    const ran = counter();
    const h = await harness([
      defineTool({
        name: 'buy',
        description: 'd',
        run: (_a, ctx: ToolContext) => {
          ran.calls.push(1);
          ctx.cost(2);
          return 'bought';
        },
      }),
      defineTool({
        name: 'spend',
        description: 'd',
        annotations: { readOnly: true },
        run: (_a, ctx: ToolContext) => {
          ctx.cost(5);
          return 'spent';
        },
      }),
    ]);
    const id = inboxId(await h.call('buy', {}, { budgetUsd: 4 }));
    await h.call('spend', {}, { budgetUsd: 4 });
    const answer = await h.wardrik.inbox.approve(id);
    assert.equal(errorCode(answer), 'budget_spent');
    assert.equal(ran.count, 0);
    await h.close();
  });
});
