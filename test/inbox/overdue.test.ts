import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container } from 'tsyringe';
import { ConflictError, defineTool, park, Tokens, type WardrikEvent } from '../../src/index.js';
import { counter, errorCode, errorMessage, harness, inboxId } from '../runner/helpers.js';
import { eventually } from '../eventually.js';

/** A Wardrik whose clock the test moves, with a tool that asks and one that parks. */
async function deskWithClock(policy: { approvalTtlMs?: number; escalateAfterMs?: number }) {
  const clock = { at: 1_000_000, now: () => clock.at };
  const app = container.createChildContainer();
  app.register(Tokens.Clock, { useValue: clock });
  const ran = counter();
  const h = await harness(
    [
      defineTool({ name: 'refund', description: 'd', annotations: { idempotent: true }, run: () => ran.calls.push(1) }),
      defineTool({
        name: 'escalate',
        description: 'd',
        annotations: { readOnly: true },
        run: () => park('pick an amount'),
      }),
    ],
    { container: app, policy },
  );
  return { h, ran, clock };
}

describe('Inbox items that wait too long', () => {
  it('denies an unanswered item after approvalTtlMs, telling the model why, and runs nothing', async () => {
    const { h, ran, clock } = await deskWithClock({ approvalTtlMs: 60_000 });
    const id = inboxId(await h.call('refund', {}, { id: 'r1' }));
    const parkId = inboxId(await h.call('escalate', {}, { id: 'p1' }));
    clock.at += 59_999;
    assert.deepEqual((await h.wardrik.inbox.handleOverdue()).expired, []);
    clock.at += 1;
    assert.deepEqual((await h.wardrik.inbox.handleOverdue()).expired.sort(), [id, parkId].sort());
    const item = await h.wardrik.inbox.get(id);
    assert.deepEqual([item?.status, item?.by], ['denied', 'wardrik (policy.approvalTtlMs)']);
    const answer = await h.call('refund', {}, { id: 'r1' });
    assert.equal(errorCode(answer), 'refused');
    assert.match(
      errorMessage(answer),
      /Nobody answered this call within 1 minute \(policy.approvalTtlMs\), so it expired and did not run/,
    );
    await assert.rejects(
      h.wardrik.inbox.approve(id),
      (error: unknown) => error instanceof ConflictError && /already denied by wardrik/.test(error.message),
    );
    assert.equal(ran.count, 0);
    await h.close();
  });

  it('refuses an approval that comes after the deadline even before the item was swept', async () => {
    const { h, ran, clock } = await deskWithClock({ approvalTtlMs: 1_000 });
    const id = inboxId(await h.call('refund'));
    clock.at += 1_000;
    await assert.rejects(
      h.wardrik.inbox.approve(id),
      /waited longer than policy.approvalTtlMs \(1000 ms\), so it expired and was denied; nothing ran/,
    );
    assert.equal((await h.wardrik.inbox.get(id))?.status, 'denied');
    assert.equal(ran.count, 0);
    await h.close();
  });

  it('escalates once after escalateAfterMs with an inbox.escalated event, and the item still waits', async () => {
    const { h, clock } = await deskWithClock({ escalateAfterMs: 5_000 });
    const id = inboxId(await h.call('refund', {}, { id: 'r1' }));
    clock.at += 5_000;
    assert.deepEqual(await h.wardrik.inbox.handleOverdue(), { expired: [], escalated: [id] });
    clock.at += 5_000;
    assert.deepEqual(await h.wardrik.inbox.handleOverdue(), { expired: [], escalated: [] });
    const escalated = h.events.filter(
      (e): e is Extract<WardrikEvent, { type: 'inbox.escalated' }> => e.type === 'inbox.escalated',
    );
    assert.deepEqual(
      escalated.map((e) => [e.inboxId, e.call, e.tool, e.waitedMs]),
      [[id, 'r1', 't/refund', 5_000]],
    );
    assert.equal((await h.wardrik.inbox.get(id))?.status, 'pending');
    assert.equal((await h.wardrik.inbox.get(id))?.escalatedAt, 1_005_000);
    assert.equal((await h.wardrik.inbox.approve(id)).status, 'ok');
    await h.close();
  });

  it('does both by itself, on a timer, with the real clock', async () => {
    for (const policy of [{ escalateAfterMs: 50 }, { approvalTtlMs: 50 }]) {
      const h = await harness(
        [defineTool({ name: 'refund', description: 'd', annotations: { idempotent: true }, run: () => 'ran' })],
        { policy },
      );
      const id = inboxId(await h.call('refund'));
      const handled = async () => {
        const item = await h.wardrik.inbox.get(id);
        return item?.status === 'denied' || item?.escalatedAt !== undefined;
      };
      await eventually('the overdue item to be handled', handled);
      assert.deepEqual(
        h.types((e) => e.type === 'inbox.escalated' || e.type === 'tool.answered'),
        ['escalateAfterMs' in policy ? 'inbox.escalated' : 'tool.answered'],
      );
      await h.close();
    }
  });
});
