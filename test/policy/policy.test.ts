import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IsString } from 'class-validator';
import { ConfigurationError, defineTool, Policy, type PolicyInput } from '../../src/index.js';
import { counter, errorCode, errorMessage, harness } from '../runner/helpers.js';

const input = (over: Partial<PolicyInput> = {}): PolicyInput => ({
  agent: 'a',
  run: 'r',
  tool: 'orders/refund_order',
  annotations: {},
  arguments: {},
  labels: [],
  resources: [],
  ...over,
});

describe('Policy', () => {
  describe('defaults', () => {
    it('lets read-only tools run', async () => {
      assert.deepEqual(await new Policy().decide(input({ annotations: { readOnly: true } })), {
        action: 'allow',
        rule: 'default: read-only tools run',
      });
    });

    it('asks a person before any other tool, idempotent ones included', async () => {
      const decision = await new Policy().decide(input({ annotations: { idempotent: true } }));
      assert.deepEqual(decision, { action: 'ask', rule: 'default: a tool that is not read-only asks a person' });
    });
  });

  describe('gated tools', () => {
    it('asks before a gated tool even when it is read-only, and lets an ungated one run', async () => {
      const policy = new Policy();
      assert.deepEqual(await policy.decide(input({ annotations: { readOnly: true, gated: true } })), {
        action: 'ask',
        rule: 'default: the tool is gated, so it asks a person',
      });
      assert.deepEqual(await policy.decide(input({ annotations: { gated: false } })), {
        action: 'allow',
        rule: 'default: the tool is not gated',
      });
    });

    it('still applies explicit rules and the outside rule to ungated tools', async () => {
      const policy = new Policy({ rules: [{ match: 'orders/*', action: 'deny' }] });
      assert.equal((await policy.decide(input({ annotations: { gated: false } }))).action, 'deny');
      assert.equal(
        (await new Policy().decide(input({ annotations: { gated: false }, labels: ['outside'] }))).action,
        'ask',
      );
    });
  });

  describe('rules', () => {
    it('matches glob patterns on toolset/tool and names the rule that decided', async () => {
      const policy = new Policy({
        rules: [
          { match: 'orders/refund_*', action: 'allow' },
          { match: 'billing/*', action: 'deny' },
        ],
      });
      assert.deepEqual(await policy.decide(input()), { action: 'allow', rule: 'rule 1 (orders/refund_* allow)' });
      assert.equal((await policy.decide(input({ tool: 'orders/find_order' }))).action, 'ask');
      assert.equal((await policy.decide(input({ tool: 'billing/charge' }))).action, 'deny');
    });

    it('applies explicit rules to read-only tools too', async () => {
      const policy = new Policy({ rules: [{ match: 'orders/*', action: 'deny' }] });
      assert.equal((await policy.decide(input({ annotations: { readOnly: true } }))).action, 'deny');
    });

    it('picks the most restrictive matching rule: deny over ask over allow', async () => {
      const policy = new Policy({
        rules: [
          { match: '*/*', action: 'allow' },
          { match: 'orders/*', action: 'deny' },
          { match: 'orders/refund_order', action: 'ask' },
        ],
      });
      assert.deepEqual(await policy.decide(input()), { action: 'deny', rule: 'rule 2 (orders/* deny)' });
      assert.deepEqual(await policy.decide(input({ tool: 'crm/note' })), {
        action: 'allow',
        rule: 'rule 1 (*/* allow)',
      });
    });

    it("tests the run's labels: all listed must be there", async () => {
      const policy = new Policy({
        rules: [{ match: 'orders/*', action: 'deny', when: { labels: ['pii', 'outside'] } }],
      });
      assert.equal((await policy.decide(input({ labels: ['pii'] }))).action, 'ask');
      assert.equal((await policy.decide(input({ labels: ['pii', 'outside'] }))).action, 'deny');
    });

    it('tests annotations', async () => {
      const policy = new Policy({
        rules: [{ match: '*/*', action: 'deny', when: { annotations: { destructive: true } } }],
      });
      assert.equal((await policy.decide(input({ annotations: { destructive: true } }))).action, 'deny');
      assert.equal((await policy.decide(input({ annotations: { destructive: false } }))).action, 'ask');
    });

    it('allows by resources only when every resource matches', async () => {
      const policy = new Policy({
        rules: [{ match: 'files/write', action: 'allow', when: { resources: ['/tmp/**'] } }],
      });
      const decide = async (resources: string[]) =>
        (await policy.decide(input({ tool: 'files/write', resources }))).action;
      assert.equal(await decide(['/tmp/a/b.txt']), 'allow');
      assert.equal(await decide(['/tmp/a.txt', '/etc/passwd']), 'ask');
      assert.equal(await decide([]), 'ask');
    });

    it('denies by resources when any resource matches', async () => {
      const policy = new Policy({ rules: [{ match: 'files/*', action: 'deny', when: { resources: ['/etc/*'] } }] });
      assert.equal(
        (await policy.decide(input({ tool: 'files/read', resources: ['/tmp/x', '/etc/passwd'] }))).action,
        'deny',
      );
      assert.equal(
        (await policy.decide(input({ tool: 'files/read', resources: ['/etc/ssh/key'] }))).action,
        'ask',
        '* stays within one part',
      );
    });

    it("adds an agent's own rules to the global ones", async () => {
      const policy = new Policy({ rules: [{ match: 'orders/*', action: 'allow' }] });
      const decision = await policy.decide(input(), [{ match: 'orders/refund_order', action: 'ask' }]);
      assert.deepEqual(decision, { action: 'ask', rule: 'agent rule 1 (orders/refund_order ask)' });
    });

    it('refuses malformed rules at start-up with the fix', () => {
      assert.throws(
        () => new Policy({ rules: [{ match: 'refund_order', action: 'allow' }] }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigurationError);
          assert.match(
            error.message,
            /"refund_order" has no "\/"; rules name tools as "toolset\/tool", such as "refund_order\/\*" or "\*\/refund_order"/,
          );
          return true;
        },
      );
      assert.throws(
        () => new Policy({ rules: [{ match: 'a/b', action: 'permit' as 'allow' }] }),
        /action must be "allow", "ask" or "deny"/,
      );
      // A wrong `when` is refused at start-up, naming the rule, not thrown (or never matched) on calls.
      const when = (value: unknown) => () =>
        new Policy({
          rules: [
            { match: 'a/b', action: 'allow' },
            { match: 'a/*', action: 'deny', when: value as never },
          ],
        });
      assert.throws(
        when({ labels: 'outside' }),
        /Policy rule 2 \(a\/\* deny\): when.labels must be an array of label names/,
      );
      assert.throws(when({ resources: '/etc/**' }), /rule 2 .*when.resources must be an array of globs/);
      assert.throws(when({ annotations: 'destructive' }), /rule 2 .*when.annotations must be an object/);
      assert.throws(
        when({ label: ['outside'] }),
        /rule 2 .*when.label is not a condition; use labels, resources or annotations/,
      );
      assert.throws(when('outside'), /rule 2 .*when must be an object/);
    });
  });

  describe('the decide hook', () => {
    it('counts as one more rule: it can tighten but not loosen a deny', async () => {
      const policy = new Policy({
        rules: [{ match: 'billing/*', action: 'deny' }],
        decide: (i) => (i.agent === 'trusted' ? 'allow' : undefined),
      });
      assert.deepEqual(await policy.decide(input({ agent: 'trusted' })), {
        action: 'allow',
        rule: 'policy.decide hook',
      });
      assert.equal((await policy.decide(input({ agent: 'other' }))).action, 'ask');
      assert.equal((await policy.decide(input({ agent: 'trusted', tool: 'billing/x' }))).action, 'deny');
    });
  });

  describe('a decide hook that fails', () => {
    it('lets nothing run, journals the call failed, and warns naming the call and the hook', async () => {
      for (const decide of [
        () => {
          throw new Error('rules service down');
        },
        () => 'yes' as never,
      ]) {
        const ran = counter();
        const h = await harness([defineTool({ name: 'write', description: 'd', run: () => ran.calls.push(1) })], {
          policy: { decide },
        });
        const answer = await h.call('write', {}, { id: 'w1' });
        assert.equal(errorCode(answer), 'failed');
        assert.match(
          errorMessage(answer),
          /The policy could not decide on this call, so it did not run \((rules service down|policy.decide returned "yes")/,
        );
        assert.equal(ran.count, 0);
        const warning = h.events.find((e) => e.type === 'warning' && e.message.includes('"w1"'));
        assert.match(
          warning?.type === 'warning' ? warning.message : '',
          /call "w1" of t\/write .*Fix the policy's decide hook/,
        );
        assert.equal(
          (await h.wardrik.runner.run({ agent: 'a', run: 'run-1', call: { id: 'w1', name: 't__write' } })).status,
          'error',
        );
        await h.close();
      }
    });
  });

  describe('through the runner', () => {
    class PathArgs {
      @IsString()
      path!: string;
    }

    it('answers a denied call with the rule and never runs it, and reports the decision', async () => {
      const ran = counter();
      const h = await harness(
        [
          defineTool({
            name: 'write',
            description: 'd',
            input: PathArgs,
            annotations: { resources: (a: PathArgs) => [a.path] },
            run: () => ran.calls.push(1),
          }),
        ],
        {
          policy: {
            rules: [
              { match: 't/write', action: 'deny', when: { resources: ['/etc/**'] } },
              { match: 't/write', action: 'allow' },
            ],
          },
        },
      );
      const denied = await h.call('write', { path: '/etc/passwd' });
      assert.equal(errorCode(denied), 'denied');
      assert.match(errorMessage(denied), /The policy does not allow this call \(rule 1 \(t\/write deny\)\)/);
      assert.equal((await h.call('write', { path: '/tmp/x' })).status, 'ok');
      assert.equal(ran.count, 1);
      const decisions = h.events.flatMap((e) => (e.type === 'tool.decided' ? [`${e.decision}: ${e.rule}`] : []));
      assert.deepEqual(decisions, ['deny: rule 1 (t/write deny)', 'allow: rule 2 (t/write allow)']);
      await h.close();
    });

    it('fails closed when @Resources throws', async () => {
      const ran = counter();
      const h = await harness(
        [
          defineTool({
            name: 'write',
            description: 'd',
            annotations: {
              resources: () => {
                throw new Error('bad path');
              },
            },
            run: () => ran.calls.push(1),
          }),
        ],
        { policy: { rules: [{ match: 't/*', action: 'allow' }] } },
      );
      assert.match(errorMessage(await h.call('write')), /@Resources threw: bad path/);
      assert.equal(ran.count, 0);
      await h.close();
    });
  });
});
