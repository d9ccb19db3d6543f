import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IsInt, IsString } from 'class-validator';
import { defineTool, ToolResult, type ToolContext } from '../../src/index.js';
import { counter, harness, inboxId } from '../runner/helpers.js';

class RefundArgs {
  @IsString()
  orderId!: string;

  @IsInt()
  cents!: number;
}

async function desk() {
  const ran = counter();
  const h = await harness([
    defineTool({
      name: 'refund',
      description: 'd',
      input: RefundArgs,
      annotations: { idempotent: true },
      run: (a: RefundArgs, ctx: ToolContext) => ran.calls.push([ctx.run, ctx.agent, a.orderId, a.cents]),
    }),
    defineTool({ name: 'note', description: 'd', annotations: { idempotent: true }, run: () => 'noted' }),
    defineTool({
      name: 'page',
      description: 'd',
      annotations: { readOnly: true },
      run: () => new ToolResult('web text', { labels: ['outside'] }),
    }),
  ]);
  const refund = (run: string, orderId: string, cents: number, agent = 'a') =>
    h.call('refund', { orderId, cents }, { run, agent });
  return { h, ran, refund };
}

describe("Approvals for the rest of a run (scope: 'run')", () => {
  it("lets later calls of the tool with the same allowIf fields go, recorded with the person's name", async () => {
    const { h, ran, refund } = await desk();
    const id = inboxId(await refund('run-1', 'o1', 100));
    await h.wardrik.inbox.approve(id, { by: 'dana', scope: 'run', allowIf: ['orderId'] });
    assert.equal((await refund('run-1', 'o1', 250)).status, 'ok');
    assert.equal((await refund('run-1', 'o1', 300)).status, 'ok');
    const decided = h.events
      .filter((e) => e.type === 'tool.decided')
      .map((e) => (e.type === 'tool.decided' ? e.rule : ''));
    assert.match(
      decided[1]!,
      new RegExp(`approved for the rest of the run by dana \\(inbox item ${id}\\), the same orderId`),
    );
    // Another order, another tool: they ask.
    assert.equal((await refund('run-1', 'o2', 100)).status, 'parked');
    assert.equal((await h.call('note', {}, { run: 'run-1' })).status, 'parked');
    assert.deepEqual(
      ran.calls.map((c) => (c as unknown[]).slice(2)),
      [
        ['o1', 100],
        ['o1', 250],
        ['o1', 300],
      ],
    );
    assert.equal((await h.wardrik.inbox.get(id))?.scope, 'run');
    await h.close();
  });

  it('never applies to another run or another agent, even with the same arguments', async () => {
    const { h, ran, refund } = await desk();
    await h.wardrik.inbox.approve(inboxId(await refund('run-1', 'o1', 100)), { by: 'dana', scope: 'run' });
    assert.equal((await refund('run-2', 'o1', 100)).status, 'parked');
    assert.equal((await refund('run-1', 'o1', 100, 'b')).status, 'parked', 'another agent in the same run id');
    assert.equal((await refund('run-1', 'o9', 1)).status, 'ok', 'no allowIf: any arguments in the run');
    assert.equal(ran.count, 2);
    await h.close();
  });

  it('asks again once the run carries a label it did not carry when the person approved', async () => {
    const { h, refund } = await desk();
    await h.wardrik.inbox.approve(inboxId(await refund('run-1', 'o1', 100)), {
      by: 'dana',
      scope: 'run',
      allowIf: ['orderId'],
    });
    assert.equal((await h.call('page', {}, { run: 'run-1' })).status, 'ok');
    assert.equal((await refund('run-1', 'o1', 100)).status, 'parked');
    await h.close();
  });

  it('refuses allowIf fields the call does not have, and allowIf without scope: run', async () => {
    const { h, refund } = await desk();
    const id = inboxId(await refund('run-1', 'o1', 100));
    await assert.rejects(
      h.wardrik.inbox.approve(id, { scope: 'run', allowIf: ['order'] }),
      /allowIf names argument fields of the approved call, such as \["orderId","cents"\]/,
    );
    await assert.rejects(h.wardrik.inbox.approve(id, { allowIf: ['orderId'] }), /add scope: 'run'/);
    await assert.rejects(
      h.wardrik.inbox.approve(id, { scope: 'forever' as 'run' }),
      /scope is 'call' \(the default\) or 'run'/,
    );
    assert.equal((await h.wardrik.inbox.get(id))?.status, 'pending');
    await h.close();
  });

  it('holds under concurrent runs: calls racing in other runs and agents park while one run is granted', async () => {
    const { h, ran, refund } = await desk();
    const firsts = await Promise.all(Array.from({ length: 6 }, (_, i) => refund(`run-${i}`, 'o1', 100)));
    // Approve run-0 for the run while every other run sends more calls at the same moment.
    const [, ...others] = await Promise.all([
      h.wardrik.inbox.approve(inboxId(firsts[0]!), { by: 'dana', scope: 'run', allowIf: ['orderId'] }),
      ...Array.from({ length: 5 }, (_, i) => refund(`run-${i + 1}`, 'o1', 100)),
      ...Array.from({ length: 5 }, (_, i) => refund('run-0', 'o1', 100, `other-${i}`)),
    ]);
    assert.deepEqual(
      others.map((answer) => answer.status),
      Array(10).fill('parked'),
    );
    const later = await Promise.all(Array.from({ length: 5 }, () => refund('run-0', 'o1', 100)));
    assert.deepEqual(
      later.map((answer) => answer.status),
      Array(5).fill('ok'),
    );
    assert.deepEqual([...new Set(ran.calls.map((c) => `${(c as string[])[0]}/${(c as string[])[1]}`))], ['run-0/a']);
    assert.equal(ran.count, 6);
    // Approving the other runs' first items for that call only lets nothing else go.
    for (const first of firsts.slice(1)) await h.wardrik.inbox.approve(inboxId(first));
    assert.equal((await refund('run-1', 'o1', 100)).status, 'parked');
    await h.close();
  });
});
