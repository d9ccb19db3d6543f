import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { IsInt, IsString, Max, Min } from 'class-validator';
import {
  answerText,
  defineTool,
  InvalidAnswerError,
  InvalidArgumentsError,
  Wardrik,
  type ToolContext,
} from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { counter, harness, inboxId } from '../runner/helpers.js';

class RefundArgs {
  @IsString()
  orderId!: string;

  @IsInt()
  @Min(1)
  @Max(10_000)
  cents!: number;
}

function refundTool(ran: ReturnType<typeof counter>) {
  return defineTool({
    name: 'refund',
    description: 'd',
    input: RefundArgs,
    annotations: { idempotent: true },
    run: (a: RefundArgs, ctx: ToolContext) => {
      ran.calls.push([a.orderId, a.cents, ctx.idempotencyKey]);
      return `refunded ${a.cents} on ${a.orderId}`;
    },
  });
}

describe('Approving with edited arguments', () => {
  it("runs the call with the person's arguments, keeps both with who changed them, and tells the model", async () => {
    const ran = counter();
    const h = await harness([refundTool(ran)]);
    const id = inboxId(await h.call('refund', { orderId: 'o1', cents: 5000 }, { id: 'r1' }));
    const item = (await h.wardrik.inbox.get(id))!;
    const answer = await h.wardrik.inbox.approve(id, {
      by: 'dana',
      digest: item.digest,
      arguments: { orderId: 'o1', cents: 500 },
    });
    assert.deepEqual(ran.calls, [['o1', 500, 'run-1:r1']]);
    assert.equal(answer.status, 'ok');
    assert.deepEqual(answer.status === 'ok' ? answer.edited : undefined, {
      original: { orderId: 'o1', cents: 5000 },
      arguments: { orderId: 'o1', cents: 500 },
      by: 'dana',
    });
    assert.match(
      answerText(answer),
      /^A person \(dana\) changed this call's arguments before approving it: it ran with \{"orderId":"o1","cents":500\}, not \{"orderId":"o1","cents":5000\} as you sent\. Its answer:\nrefunded 500 on o1$/,
    );
    const kept = (await h.wardrik.inbox.get(id))!;
    assert.deepEqual(kept.arguments, { orderId: 'o1', cents: 5000 }, 'the item keeps what the model sent');
    assert.deepEqual(kept.edited?.arguments, { orderId: 'o1', cents: 500 });
    assert.equal(kept.edited?.by, 'dana');
    const answered = h.events.find((e) => e.type === 'tool.answered');
    assert.equal(answered?.type === 'tool.answered' ? answered.edited : undefined, true);
    // The model sends the same call again (a resumed turn): it gets the edited call's answer, not a conflict, and nothing runs.
    assert.deepEqual(await h.call('refund', { orderId: 'o1', cents: 5000 }, { id: 'r1' }), answer);
    assert.equal(ran.count, 1);
    await h.close();
  });

  it("refuses arguments that fail the tool's checks, naming every field, and leaves the item waiting", async () => {
    const ran = counter();
    const h = await harness([refundTool(ran)]);
    const id = inboxId(await h.call('refund', { orderId: 'o1', cents: 5000 }));
    const item = (await h.wardrik.inbox.get(id))!;
    await assert.rejects(
      h.wardrik.inbox.approve(id, { digest: item.digest, arguments: { orderId: 7, cents: 0, extra: true } }),
      (error: unknown) => {
        assert.ok(error instanceof InvalidArgumentsError);
        assert.match(error.message, /orderId/);
        assert.match(error.message, /cents/);
        assert.match(error.message, /extra/);
        return true;
      },
    );
    assert.equal((await h.wardrik.inbox.get(id))?.status, 'pending');
    await assert.rejects(
      h.wardrik.inbox.approve(id, { arguments: { orderId: 'o1', cents: 5 } }),
      (error: unknown) =>
        error instanceof InvalidAnswerError &&
        error.code === 'invalid_answer' &&
        /needs the digest of the arguments the person changed/.test(error.message),
    );
    assert.equal(ran.count, 0);
    await h.close();
  });

  it('checks edits on a node without the tool against the schema the item kept, and the node with the tool runs them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-edit-'));
    const store = `sqlite:${join(dir, 'w.db')}`;
    const ran = counter();
    const app = await Wardrik.create({ store, tools: { t: [refundTool(ran)] }, recoverMs: Infinity });
    const inspector = await Wardrik.create({ store, recoverMs: Infinity });
    try {
      const id = inboxId(
        await app.runner.run({
          agent: 'a',
          run: 'run-1',
          call: { id: 'r1', name: 't__refund', arguments: { orderId: 'o1', cents: 5000 } },
        }),
      );
      const item = (await inspector.inbox.get(id))!;
      await assert.rejects(
        inspector.inbox.approve(id, { digest: item.digest, arguments: { orderId: 'o1', cents: 'all' } }),
        /cents: must be/,
      );
      const waiting = await inspector.inbox.approve(id, {
        by: 'lee',
        digest: item.digest,
        arguments: { orderId: 'o1', cents: 700 },
      });
      assert.equal(waiting.status, 'parked');
      await app.recover();
      assert.deepEqual(ran.calls, [['o1', 700, 'run-1:r1']]);
    } finally {
      await inspector.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells the model in the next step of its turn', async () => {
    const ran = counter();
    const h = await harness([refundTool(ran)]);
    const model = scriptedModel([
      { toolCalls: [{ name: 't__refund', arguments: { orderId: 'o1', cents: 5000 } }] },
      (call) => ({ text: call.lastToolResult ?? '' }),
    ]);
    const agent = h.wardrik.startAgent({ id: 'desk', model, tools: ['t/*'] });
    const turn = await agent.send('refund o1');
    assert.equal(turn.status, 'parked');
    const item = (await h.wardrik.inbox.get(turn.parked[0]!.inboxId))!;
    await h.wardrik.inbox.approve(item.id, {
      by: 'dana',
      digest: item.digest,
      arguments: { orderId: 'o1', cents: 50 },
    });
    const done = await agent.result(turn.run);
    assert.equal(done.status, 'done');
    assert.match(
      done.text,
      /A person \(dana\) changed this call's arguments before approving it: it ran with \{"orderId":"o1","cents":50\}/,
    );
    assert.deepEqual(ran.calls, [['o1', 50, `${turn.run}:0.scripted-0-0`]]);
    await h.close();
  });
});
