import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container as rootContainer } from 'tsyringe';
import {
  ConfigurationError,
  defineTool,
  Policy,
  Tokens,
  Wardrik,
  type Decision,
  type PolicyAction,
  type PolicyInput,
  type PolicyRule,
} from '../../src/index.js';
import { counter, errorCode, errorMessage, harness } from '../runner/helpers.js';

/**
 * Names every plain object answers `in` for: a check such as `action in SEVERITY` took them for actions,
 * and the runner then ran a destructive tool without asking (issue 27, point 8).
 */
const INHERITED = [
  'toString',
  'constructor',
  'valueOf',
  '__proto__',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
];

const destructive = (ran: ReturnType<typeof counter>) =>
  defineTool({
    name: 'wipe',
    description: 'Deletes everything.',
    annotations: { destructive: true },
    run: () => ran.calls.push(1),
  });

const input: PolicyInput = {
  agent: 'a',
  run: 'r',
  tool: 't/wipe',
  annotations: { destructive: true },
  arguments: {},
  labels: [],
  resources: [],
};

describe('The policy fails closed', () => {
  describe('a rule whose action is not allow, ask or deny', () => {
    it('is refused at start-up, naming the rule and the actions there are', () => {
      for (const action of [...INHERITED, 'permit', '', 'ALLOW']) {
        assert.throws(
          () =>
            new Policy({
              rules: [
                { match: 't/read', action: 'allow' },
                { match: 't/*', action: action as PolicyAction },
              ],
            }),
          (error: unknown) => {
            assert.ok(error instanceof ConfigurationError, action);
            assert.match(error.message, /^Policy rule 2 \(t\/\* /, action);
            assert.match(error.message, /action must be "allow", "ask" or "deny"/, action);
            assert.ok(error.message.includes(`got ${JSON.stringify(action)}`), error.message);
            return true;
          },
        );
      }
    });

    it("is refused in an agent's own rules and a served MCP server's rules too, before any call", async () => {
      const rules: PolicyRule[] = [{ match: 't/*', action: 'toString' as PolicyAction }];
      assert.throws(
        () => new Policy().prepare(rules),
        /Policy agent rule 1 \(t\/\* toString\): action must be "allow", "ask" or "deny"/,
      );
      await assert.rejects(
        Wardrik.create({ store: 'memory:', policy: { rules } }),
        /Policy rule 1 \(t\/\* toString\): action must be/,
      );
      const wardrik = await Wardrik.create({ store: 'memory:', tools: { t: [destructive(counter())] } });
      try {
        assert.throws(
          () => wardrik.mcpServer({ tools: ['t/*'], authenticate: false, policy: rules }),
          (error: unknown) =>
            error instanceof ConfigurationError && /agent rule 1 \(t\/\* toString\)/.test(error.message),
        );
      } finally {
        await wardrik.close();
      }
    });
  });

  describe('a decide hook that answers with something other than an action', () => {
    it('denies the call naming the hook, and the destructive tool never runs', async () => {
      for (const action of [...INHERITED, 'yes', 0, null, {}]) {
        const ran = counter();
        const h = await harness([destructive(ran)], { policy: { decide: () => action as PolicyAction } });
        try {
          const answer = await h.call('wipe', {}, { id: 'w1' });
          assert.equal(answer.status, 'error', JSON.stringify(action));
          assert.equal(errorCode(answer), 'failed');
          assert.match(
            errorMessage(answer),
            /so it did not run \(policy\.decide returned .*; return "allow", "ask", "deny" or undefined/,
          );
          assert.equal(ran.count, 0, `decide returned ${JSON.stringify(action)} and the tool ran`);
          const warning = h.events.find((e) => e.type === 'warning' && e.message.includes('"w1"'));
          assert.match(warning?.type === 'warning' ? warning.message : '', /Fix the policy's decide hook/);
        } finally {
          await h.close();
        }
      }
    });

    it('decides as the other rules do when the hook abstains or answers an action', async () => {
      const abstains = new Policy({ decide: () => undefined });
      assert.equal((await abstains.decide(input)).action, 'ask');
      const denies = new Policy({ rules: [{ match: 't/*', action: 'allow' }], decide: () => 'deny' });
      assert.deepEqual(await denies.decide(input), { action: 'deny', rule: 'policy.decide hook' });
    });
  });

  describe("the runner's handling of a decision", () => {
    it('runs nothing when a policy throws or rejects, and tells the developer', async () => {
      class Broken extends Policy {
        constructor(private readonly rejects: boolean) {
          super();
        }

        override decide(): Decision | Promise<Decision> {
          if (this.rejects) return Promise.reject(new Error('rules service down'));
          throw new Error('rules service down');
        }
      }
      for (const rejects of [false, true]) {
        const app = rootContainer.createChildContainer();
        app.register(Tokens.Policy, { useValue: new Broken(rejects) });
        const ran = counter();
        const h = await harness([destructive(ran)], { container: app });
        try {
          const answer = await h.call('wipe');
          assert.equal(errorCode(answer), 'failed', `rejects: ${rejects}`);
          assert.match(errorMessage(answer), /could not decide on this call, so it did not run \(rules service down\)/);
          assert.equal(ran.count, 0, `a policy that ${rejects ? 'rejected' : 'threw'} let the tool run`);
          assert.ok(h.events.some((e) => e.type === 'warning' && /Fix the policy's decide hook/.test(e.message)));
        } finally {
          await h.close();
        }
      }
    });

    it('runs the tool only on allow: a decision of any other action is denied', async () => {
      // An app may register its own Policy under Tokens.Policy; one that answers nonsense must not open the gate.
      class LooseDecisions extends Policy {
        constructor(private readonly action: string) {
          super();
        }

        override decide(): Decision {
          return { action: this.action as PolicyAction, rule: 'a loose policy' };
        }
      }
      for (const action of [...INHERITED, 'Allow', 'allow ']) {
        const app = rootContainer.createChildContainer();
        app.register(Tokens.Policy, { useValue: new LooseDecisions(action) });
        const ran = counter();
        const h = await harness([destructive(ran)], { container: app });
        try {
          const answer = await h.call('wipe');
          assert.equal(errorCode(answer), 'denied', action);
          assert.ok(
            errorMessage(answer).includes(
              `decided ${JSON.stringify(action)} (a loose policy), which is not an action; it did not run`,
            ),
            errorMessage(answer),
          );
          assert.equal(ran.count, 0, `a decision of ${action} ran the tool`);
        } finally {
          await h.close();
        }
      }
    });
  });
});
