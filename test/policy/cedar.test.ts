import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  ConfigurationError,
  defineTool,
  Tokens,
  Wardrik,
  type ToolAnswer,
  type WardrikEvent,
  type WardrikOptions,
} from '../../src/index.js';
import { addLabels } from '../../src/store/journal-writes.js';
import { openStore } from '../../src/store/open-store.js';
import { OrderTools, POLICIES, ran } from './cedar-toolset.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-cedar-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function cedarWardrik(options: Partial<WardrikOptions> = {}) {
  const wardrik = await Wardrik.create({
    store: 'memory:',
    recoverMs: Infinity,
    toolsets: [OrderTools],
    policy: { cedar: { policies: POLICIES } },
    ...options,
  });
  const decided: { call: string; rule: string; decision: string }[] = [];
  const sub = wardrik.events$.subscribe((event: WardrikEvent) => {
    if (event.type === 'tool.decided') decided.push({ call: event.call, rule: event.rule, decision: event.decision });
  });
  let next = 0;
  const call = (
    name: string,
    args: unknown,
    extra: { agent?: string; onBehalfOf?: string; id?: string; run?: string } = {},
  ): Promise<ToolAnswer> =>
    wardrik.runner.run({
      agent: extra.agent ?? 'support',
      run: extra.run ?? 'run-1',
      call: { id: extra.id ?? `c${++next}`, name, arguments: args },
      ...(extra.onBehalfOf === undefined ? {} : { onBehalfOf: extra.onBehalfOf }),
    });
  return {
    wardrik,
    decided,
    call,
    close: async () => {
      sub.unsubscribe();
      await wardrik.close();
    },
  };
}

const refund = (orderId: string, amount: number) => ({ orderId, amount, items: 1 });
const message = (answer: ToolAnswer) => (answer.status === 'error' ? answer.message : `(${answer.status})`);

describe('Cedar policies through the runner', () => {
  it('permits, forbids, and asks when no policy permits, naming the policy that decided', async () => {
    const h = await cedarWardrik();
    try {
      ran.length = 0;
      const small = await h.call('orders__refund', refund('o-1', 50));
      assert.equal(small.status, 'ok');
      const large = await h.call('orders__refund', refund('o-2', 600));
      assert.equal(large.status, 'error');
      assert.match(message(large), /cedar policy "no-large-refunds"/);
      const middling = await h.call('orders__refund', refund('o-3', 200));
      assert.equal(middling.status, 'parked');
      const locked = await h.call('orders__refund', refund('locked-9', 10));
      assert.match(message(locked), /cedar policy "no-locked-orders"/, 'a forbid on the resource @Resources named');
      // Read-only, yet nobody permits it for this agent: Cedar's default asks.
      assert.equal((await h.call('orders__find', { orderId: 'o-1' }, { agent: 'reports' })).status, 'parked');
      // The person the agent acts for is its parent: `principal in Person::"dana"`.
      const forDana = await h.call('orders__find', { orderId: 'o-1' }, { agent: 'reports', onBehalfOf: 'dana' });
      assert.equal(forDana.status, 'ok');
      assert.deepEqual(ran, ['refund o-1', 'find o-1']);
      assert.deepEqual(
        h.decided.map((d) => [d.decision, d.rule]),
        [
          ['allow', 'cedar policy "support-small-refunds"'],
          ['deny', 'cedar policy "no-large-refunds"'],
          ['ask', 'cedar: no policy permits this call, so it asks a person'],
          ['deny', 'cedar policy "no-locked-orders"'],
          ['ask', 'cedar: no policy permits this call, so it asks a person'],
          ['allow', 'cedar policy "dana-reads"'],
        ],
      );
    } finally {
      await h.close();
    }
  });

  it('tests the run labels: a run that read outside text gets no permit', async () => {
    const h = await cedarWardrik();
    try {
      await addLabels(h.wardrik.container.resolve(Tokens.Store), 'run-out', ['outside']);
      const answer = await h.call('orders__refund', refund('o-1', 50), { run: 'run-out' });
      assert.equal(answer.status, 'parked');
    } finally {
      await h.close();
    }
  });

  it("joins today's rules: a deny from either wins, either asking asks, and both must allow", async () => {
    const h = await cedarWardrik({
      policy: {
        cedar: { policies: POLICIES },
        rules: [
          { match: 'orders/refund', action: 'allow' },
          { match: 'orders/find', action: 'deny' },
          { match: 'orders/refund', action: 'ask', when: { resources: ['orders/o-7'] } },
        ],
      },
    });
    try {
      assert.match(
        message(await h.call('orders__refund', refund('o-1', 900))),
        /no-large-refunds/,
        'rule allows, Cedar forbids',
      );
      assert.match(
        message(await h.call('orders__find', { orderId: 'o-1' }, { onBehalfOf: 'dana' })),
        /rule 2 \(orders\/find deny\)/,
        'Cedar permits, a rule denies',
      );
      assert.equal((await h.call('orders__refund', refund('o-7', 10))).status, 'parked', 'Cedar permits, a rule asks');
      assert.equal((await h.call('orders__refund', refund('o-8', 10))).status, 'ok', 'both allow');
      assert.equal((await h.call('orders__refund', refund('o-9', 200))).status, 'parked', 'a rule allows, no permit');
      assert.deepEqual(
        h.decided.map((d) => d.rule),
        [
          'cedar policy "no-large-refunds"',
          'rule 2 (orders/find deny)',
          'rule 3 (orders/refund ask)',
          'rule 1 (orders/refund allow)',
          'cedar: no policy permits this call, so it asks a person',
        ],
      );
    } finally {
      await h.close();
    }
  });

  it('decides a tool the schema does not know (added at run time) without the schema', async () => {
    const h = await cedarWardrik({
      policy: {
        // A tool the schema lacks cannot be named (validation refuses it); policies on every action reach it.
        cedar: {
          policies:
            '@id("late") permit (principal == Wardrik::Agent::"support", action, resource) when { context.labels.isEmpty() };',
        },
      },
    });
    try {
      h.wardrik.tool({ name: 'late', description: 'Added later.', run: () => 'late ran' });
      const answer = await h.call('workers__late', {});
      assert.equal(answer.status, 'ok', JSON.stringify(answer));
      assert.deepEqual(h.decided.at(-1), {
        call: h.decided.at(-1)?.call,
        rule: 'cedar policy "late"',
        decision: 'allow',
      });
    } finally {
      await h.close();
    }
  });

  it('decides 200 calls at once, each by its own arguments', async () => {
    const h = await cedarWardrik();
    try {
      const amounts = Array.from({ length: 200 }, (_, i) => [10, 200, 700][i % 3]!);
      const answers = await Promise.all(
        amounts.map((amount, i) => h.call('orders__refund', refund(`p-${i}`, amount), { run: `r-${i % 7}` })),
      );
      answers.forEach((answer, i) => {
        const expected = amounts[i] === 10 ? 'ok' : amounts[i] === 200 ? 'parked' : 'error';
        assert.equal(answer.status, expected, `call ${i} of ${amounts[i]}`);
      });
    } finally {
      await h.close();
    }
  });

  it('keeps the deciding policy on the inbox item and in the journal, read back after a restart on SQLite', async () => {
    const path = join(dir, 'decided.db');
    const h = await cedarWardrik({ store: `sqlite:${path}` });
    const ASKS = 'cedar: no policy permits this call, so it asks a person';
    try {
      assert.equal((await h.call('orders__refund', refund('o-1', 50), { id: 'permitted' })).status, 'ok');
      const denied = await h.call('orders__refund', refund('o-4', 900), { id: 'forbidden' });
      assert.match(message(denied), /cedar policy "no-large-refunds"/);
      const answer = await h.call('orders__refund', refund('o-3', 200), { id: 'asked' });
      assert.equal(answer.status, 'parked');
      const [item] = await h.wardrik.inbox.list();
      assert.equal(item?.decidedBy, ASKS);
      const store = h.wardrik.container.resolve(Tokens.Store);
      assert.equal((await store.getCall('run-1', 'asked'))?.decidedBy, ASKS);
      assert.equal((await h.wardrik.inbox.approve(item!.id, { by: 'alice' })).status, 'ok');
    } finally {
      await h.close();
    }
    const reopened = await openStore(`sqlite:${path}`);
    try {
      const calls = await reopened.listCalls({ run: 'run-1' });
      assert.deepEqual(
        calls.map((call) => [call.call, call.state, call.decidedBy]),
        [
          ['permitted', 'succeeded', 'cedar policy "support-small-refunds"'],
          ['forbidden', 'failed', 'cedar policy "no-large-refunds"'],
          ['asked', 'succeeded', `${ASKS}; approved by alice`],
        ],
      );
    } finally {
      await reopened.close();
    }
  });
});

describe('Cedar policies at start-up', () => {
  it('refuses policies that do not parse, naming the line', async () => {
    const text = `permit (principal, action, resource);\n\nforbid (principal, action, resource) when { context.labels.contains("x") ;\n`;
    await assert.rejects(
      cedarWardrik({ policy: { cedar: { policies: text } } }),
      (error: unknown) =>
        error instanceof ConfigurationError && /line 3/.test(error.message) && /do not parse/.test(error.message),
    );
  });

  it('refuses a policy that does not fit the schema, naming the line and the policy', async () => {
    const text = `${POLICIES}\n@id("typo")\npermit (principal, action == Wardrik::Action::"orders/refund", resource)\nwhen { context.arguments.amout.lessThan(decimal("1.0")) };\n`;
    const line = text.split('\n').findIndex((l) => l.includes('amout')) + 1;
    await assert.rejects(cedarWardrik({ policy: { cedar: { policies: text } } }), (error: unknown) => {
      assert.ok(error instanceof ConfigurationError);
      assert.match(error.message, new RegExp(`line ${line}, policy "typo"`));
      assert.match(error.message, /amout/);
      return true;
    });
    await assert.rejects(
      cedarWardrik({
        policy: { cedar: { policies: 'permit (principal, action == Wardrik::Action::"orders/nope", resource);' } },
      }),
      /line 1, policy "policy0".*nope/s,
      'an action that is no registered tool',
    );
  });

  it('refuses two policies with the same id', async () => {
    const text = `@id("a") permit (principal, action, resource);\n@id("a") forbid (principal, action, resource);`;
    await assert.rejects(cedarWardrik({ policy: { cedar: { policies: text } } }), /@id\("a"\) is given twice/);
  });

  it("sees the agent's spend against its budget as context.budget", async () => {
    const paid = defineTool({
      name: 'paid',
      description: 'Costs ten cents.',
      annotations: { readOnly: true },
      run: (_args: unknown, ctx) => {
        ctx.cost(0.1);
        return 'done';
      },
    });
    const policies =
      '@id("under-15-cents") permit (principal, action, resource)\n' +
      'when { context has budget && context.budget.spentUsd.lessThan(decimal("0.15")) };';
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      tools: { shop: [paid] },
      policy: { cedar: { policies } },
    });
    try {
      const call = (id: string) =>
        wardrik.runner.run({ agent: 'a', run: 'r', call: { id, name: 'shop__paid', arguments: {} }, budgetUsd: 1 });
      // Spent $0, then $0.10: permitted; then $0.20: no policy permits, so a person is asked.
      assert.deepEqual(
        [(await call('c1')).status, (await call('c2')).status, (await call('c3')).status],
        ['ok', 'ok', 'parked'],
      );
    } finally {
      await wardrik.close();
    }
  });
});
