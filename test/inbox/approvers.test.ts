import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IsInt } from 'class-validator';
import {
  ConfigurationError,
  ConflictError,
  defineTool,
  NotPermittedError,
  Policy,
  type PolicyOptions,
  type ToolContext,
} from '../../src/index.js';
import { counter, harness, inboxId } from '../runner/helpers.js';

class AmountArgs {
  @IsInt()
  cents!: number;
}

async function payments(policy: PolicyOptions) {
  const ran = counter();
  const h = await harness(
    [
      defineTool({
        name: 'pay',
        description: 'd',
        input: AmountArgs,
        run: (a: AmountArgs, ctx: ToolContext) => {
          ran.calls.push([a.cents, ctx.idempotencyKey]);
          return `paid ${a.cents}`;
        },
      }),
    ],
    { policy },
  );
  return { h, ran };
}

const FINANCE: PolicyOptions = { rules: [{ match: 't/*', action: 'ask', approvers: ['finance-leads'] }] };

describe('Who may answer (approvers)', () => {
  it('records who may answer and whom the call was for on the item', async () => {
    const { h } = await payments(FINANCE);
    const id = inboxId(await h.call('pay', { cents: 5 }, { onBehalfOf: 'ana' }));
    const item = (await h.wardrik.inbox.get(id))!;
    assert.deepEqual(item.answerers, { groups: [['finance-leads']], separateFrom: 'requester' });
    assert.equal(item.requester, 'ana');
    await h.close();
  });

  it('refuses an approval or a denial from a person outside the groups, saying who may answer; nothing runs', async () => {
    const { h, ran } = await payments(FINANCE);
    const id = inboxId(await h.call('pay', { cents: 5 }, { onBehalfOf: 'ana' }));
    for (const answer of [
      () => h.wardrik.inbox.approve(id, { by: 'bob', groups: ['support'] }),
      () => h.wardrik.inbox.deny(id, { by: 'bob', groups: ['support'], reason: 'no' }),
      () => h.wardrik.inbox.approve(id, { by: 'bob' }),
      () => h.wardrik.inbox.approve(id, {}),
    ]) {
      await assert.rejects(answer, (error: unknown) => {
        assert.ok(error instanceof NotPermittedError, String(error));
        assert.equal(error.code, 'not_permitted');
        assert.match(
          error.message,
          /Who may answer it: a person in "finance-leads", other than ana \(who asked for it\)/,
        );
        return true;
      });
    }
    assert.equal((await h.wardrik.inbox.get(id))!.status, 'pending');
    assert.equal(ran.count, 0);
    const answer = await h.wardrik.inbox.approve(id, { by: 'carla', groups: ['finance-leads'] });
    assert.equal(answer.status, 'ok');
    assert.equal(ran.count, 1);
    await h.close();
  });

  it('keeps the requester from answering their own call, even in the groups (separateFrom, on by default)', async () => {
    const { h, ran } = await payments(FINANCE);
    const id = inboxId(await h.call('pay', { cents: 5 }, { onBehalfOf: 'ana' }));
    await assert.rejects(
      h.wardrik.inbox.approve(id, { by: 'ana', groups: ['finance-leads'] }),
      /ana asked for this call/,
    );
    await assert.rejects(
      h.wardrik.inbox.deny(id, { by: 'ana', groups: ['finance-leads'], reason: 'x' }),
      NotPermittedError,
    );
    assert.equal(ran.count, 0);
    await h.close();
  });

  it("takes the MCP caller's principal as the requester when no onBehalfOf is given", async () => {
    const { h } = await payments(FINANCE);
    const id = inboxId(await h.call('pay', { cents: 5 }, { caller: { door: 'mcp', principal: 'mia' } }));
    assert.equal((await h.wardrik.inbox.get(id))!.requester, 'mia');
    await assert.rejects(h.wardrik.inbox.approve(id, { by: 'mia', groups: ['finance-leads'] }), NotPermittedError);
    await h.close();
  });

  it("lets the requester answer when the rule says separateFrom: 'none'", async () => {
    const { h, ran } = await payments({
      rules: [{ match: 't/*', action: 'ask', approvers: ['finance-leads'], separateFrom: 'none' }],
    });
    const id = inboxId(await h.call('pay', { cents: 5 }, { onBehalfOf: 'ana' }));
    assert.equal((await h.wardrik.inbox.approve(id, { by: 'ana', groups: ['finance-leads'] })).status, 'ok');
    assert.equal(ran.count, 1);
    await h.close();
  });

  it('needs a person in every group list when two asking rules name approvers', async () => {
    const { h } = await payments({
      rules: [
        { match: 't/*', action: 'ask', approvers: ['finance-leads', 'cfo'] },
        { match: 't/pay', action: 'ask', approvers: ['security'], quorum: 2 },
      ],
    });
    const id = inboxId(await h.call('pay', { cents: 5 }));
    const item = (await h.wardrik.inbox.get(id))!;
    assert.deepEqual(item.answerers, {
      groups: [['finance-leads', 'cfo'], ['security']],
      separateFrom: 'requester',
      quorum: 2,
    });
    await assert.rejects(h.wardrik.inbox.approve(id, { by: 'x', groups: ['cfo'] }), /not in "security"/);
    await h.close();
  });

  it('lets the decide hook name approvers, and denies a hook answer it cannot read', async () => {
    const { h } = await payments({
      decide: (input) => (input.tool === 't/pay' ? { action: 'ask', approvers: ['treasury'] } : undefined),
    });
    const id = inboxId(await h.call('pay', { cents: 5 }));
    assert.deepEqual((await h.wardrik.inbox.get(id))!.answerers?.groups, [['treasury']]);
    await h.close();
    const bad = await payments({ decide: () => ({ action: 'ask', approvers: [] }) });
    const answer = await bad.h.call('pay', { cents: 5 });
    assert.equal(answer.status, 'error');
    assert.match(answer.status === 'error' ? answer.message : '', /approvers must name at least one group/);
    await bad.h.close();
  });

  it('refuses rule mistakes at start-up: unknown keys, empty groups, a quorum out of range, approvers on allow', () => {
    const cases: [PolicyOptions['rules'], RegExp][] = [
      [[{ match: 't/*', action: 'ask', approver: ['x'] } as never], /"approver" is not part of a rule/],
      [[{ match: 't/*', action: 'ask', approvers: [] }], /approvers must name at least one group/],
      [[{ match: 't/*', action: 'ask', approvers: [''] }], /approvers names groups/],
      [[{ match: 't/*', action: 'ask', quorum: 0 }], /quorum is how many distinct people/],
      [[{ match: 't/*', action: 'ask', quorum: 1.5 }], /quorum is how many distinct people/],
      [[{ match: 't/*', action: 'allow', approvers: ['x'] }], /this rule's action is "allow"/],
      [[{ match: 't/*', action: 'ask', separateFrom: 'manager' as never }], /separateFrom is "requester"/],
    ];
    for (const [rules, message] of cases)
      assert.throws(
        () => new Policy({ rules }),
        (error: unknown) => error instanceof ConfigurationError && message.test(error.message),
      );
  });
});

describe('Four eyes (quorum)', () => {
  const FOUR_EYES: PolicyOptions = {
    rules: [{ match: 't/*', action: 'ask', approvers: ['finance-leads'], quorum: 2 }],
  };
  const lead = (by: string) => ({ by, groups: ['finance-leads'] });

  it('runs the call once two distinct permitted people approved the same digest', async () => {
    const { h, ran } = await payments(FOUR_EYES);
    const id = inboxId(await h.call('pay', { cents: 5 }, { onBehalfOf: 'ana' }));
    const digest = (await h.wardrik.inbox.get(id))!.digest;
    const first = await h.wardrik.inbox.approve(id, { ...lead('bob'), digest });
    assert.equal(first.status, 'parked');
    assert.match(first.status === 'parked' ? first.reason : '', /bob approved this call \(1 of 2\)/);
    assert.equal(ran.count, 0);
    await assert.rejects(
      h.wardrik.inbox.approve(id, { ...lead('bob'), digest }),
      (error: unknown) => error instanceof ConflictError && error.is('already_approved'),
    );
    assert.equal(ran.count, 0);
    const second = await h.wardrik.inbox.approve(id, { ...lead('carla'), digest });
    assert.deepEqual(second, { status: 'ok', output: 'paid 5', labels: ['confidential'] });
    const item = (await h.wardrik.inbox.get(id))!;
    assert.equal(item.status, 'approved');
    assert.deepEqual(
      item.approvals?.map((given) => given.by),
      ['bob', 'carla'],
    );
    assert.equal(ran.count, 1);
    await h.close();
  });

  it('denies at one denial after an approval', async () => {
    const { h, ran } = await payments(FOUR_EYES);
    const id = inboxId(await h.call('pay', { cents: 5 }));
    await h.wardrik.inbox.approve(id, lead('bob'));
    const denied = await h.wardrik.inbox.deny(id, { ...lead('carla'), reason: 'Not this month' });
    assert.equal(denied.status, 'error');
    const item = (await h.wardrik.inbox.get(id))!;
    assert.equal(item.status, 'denied');
    assert.equal(item.by, 'carla');
    await assert.rejects(h.wardrik.inbox.approve(id, lead('dave')), /already denied/);
    assert.equal(ran.count, 0);
    await h.close();
  });

  it("resets the others' approvals when one person changes the arguments", async () => {
    const { h, ran } = await payments(FOUR_EYES);
    const id = inboxId(await h.call('pay', { cents: 500 }));
    const original = (await h.wardrik.inbox.get(id))!.digest;
    await h.wardrik.inbox.approve(id, { ...lead('bob'), digest: original });
    const edited = await h.wardrik.inbox.approve(id, { ...lead('carla'), digest: original, arguments: { cents: 50 } });
    assert.equal(edited.status, 'parked');
    const item = (await h.wardrik.inbox.get(id))!;
    assert.deepEqual(
      item.approvals?.map((given) => given.by),
      ['carla'],
    );
    assert.equal(ran.count, 0);
    // Bob approved other arguments: his approval of the original no longer counts, nor can he give it again.
    await assert.rejects(
      h.wardrik.inbox.approve(id, { ...lead('bob'), digest: original }),
      /changed them before approving/,
    );
    const done = await h.wardrik.inbox.approve(id, { ...lead('bob'), digest: item.edited!.digest });
    assert.equal(done.status, 'ok');
    assert.deepEqual(ran.calls, [[50, `run-1:${item.call}`]]);
    await h.close();
  });

  it('counts each of many people approving at once once, and runs the call once', async () => {
    const { h, ran } = await payments({
      rules: [{ match: 't/*', action: 'ask', approvers: ['finance-leads'], quorum: 3 }],
    });
    for (let round = 0; round < 20; round++) {
      const id = inboxId(await h.call('pay', { cents: round }));
      const answers = await Promise.allSettled(
        ['p1', 'p2', 'p3', 'p4', 'p5'].map((by) => h.wardrik.inbox.approve(id, lead(by))),
      );
      const ok = answers.filter((a) => a.status === 'fulfilled' && a.value.status === 'ok');
      const parked = answers.filter((a) => a.status === 'fulfilled' && a.value.status === 'parked');
      assert.equal(ok.length, 1, `round ${round}`);
      assert.equal(parked.length, 2, `round ${round}`);
      const item = (await h.wardrik.inbox.get(id))!;
      assert.equal(item.status, 'approved');
      assert.equal(new Set(item.approvals?.map((given) => given.by)).size, 3);
    }
    assert.equal(ran.count, 20);
    await h.close();
  });
});
