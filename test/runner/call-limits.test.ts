import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, defineTool, openStore, Wardrik, type ToolAnswer } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { limitFor } from '../../src/runner/call-limits.js';
import { scratchStores } from '../crash/scratch-stores.js';
import { eventually } from '../eventually.js';

/** Calls per tool per run (issue 33, point 6: `maxCalls`), under calls at once on two nodes. */
const { stores } = scratchStores('max-calls');

async function twoNodes(url: string) {
  const ran: string[] = [];
  const make = async () =>
    Wardrik.create({
      store: await openStore(url),
      recoverMs: Infinity,
      tools: {
        t: [
          defineTool({
            name: 'send',
            description: 'Send a message.',
            run: async (_a, ctx) => {
              ran.push(ctx.call);
              await new Promise((resolve) => setImmediate(resolve));
              return 'sent';
            },
          }),
          defineTool({
            name: 'look',
            description: 'Look something up.',
            annotations: { readOnly: true },
            run: () => 'found',
          }),
        ],
      },
      policy: { rules: [{ match: 't/*', action: 'allow' }] },
    });
  return { ran, nodes: [await make(), await make()] as const };
}

for (const [name, url] of stores) {
  describe(`maxCalls on two nodes sharing ${name}`, () => {
    it('runs exactly maxCalls of 100 calls made at once over two nodes; the rest do not run', async () => {
      const { ran, nodes } = await twoNodes(url());
      try {
        const answers = await burst(nodes, 'run-1', 100, (i) => nodes[i % 2]!);
        assert.equal(ran.length, 10);
        assert.equal(answers.filter((answer) => answer.status === 'ok').length, 10);
        // The others were denied by the limit, or found the run busy on the other node (and left their place).
        const codes = new Set(answers.flatMap((answer) => (answer.status === 'error' ? [answer.code] : [])));
        assert.ok(
          [...codes].every((code) => code === 'denied' || code === 'conflict'),
          [...codes].join(),
        );
        const denied = answers.find((answer) => answer.status === 'error' && answer.code === 'denied');
        assert.match(
          denied?.status === 'error' ? denied.message : '',
          /made 10 calls of t\/send, the most maxCalls allows/,
        );
      } finally {
        await Promise.all(nodes.map((node) => node.close()));
      }
    });

    it("counts one node's calls of a run on the other node that takes the run up next", async () => {
      const { ran, nodes } = await twoNodes(url());
      try {
        await burst(nodes, 'run-2', 6, () => nodes[0]);
        assert.equal(ran.length, 6);
        // Node B takes the run up once node A lets its lease go (after it has been idle a moment).
        await eventually('node B to take run-2 up', async () => {
          const probe = await nodes[1].runner.run({
            agent: 'a',
            run: 'run-2',
            call: { id: `look-${Date.now()}`, name: 't__look' },
          });
          return probe.status === 'ok';
        });
        const answers = await burst(nodes, 'run-2', 50, () => nodes[1], 'b');
        assert.equal(answers.filter((answer) => answer.status === 'ok').length, 4);
        assert.equal(answers.filter((answer) => answer.status === 'error' && answer.code === 'denied').length, 46);
        assert.equal(ran.length, 10);
        // A call sent again keeps its answer; another run counts on its own.
        const again = await nodes[1].runner.run({
          agent: 'a',
          run: 'run-2',
          call: { id: ran[0]!, name: 't__send' },
          maxCalls: LIMITS,
        });
        assert.equal(again.status, 'ok');
        assert.equal((await burst(nodes, 'run-3', 1, () => nodes[1]))[0]!.status, 'ok');
        assert.equal(ran.length, 11);
      } finally {
        await Promise.all(nodes.map((node) => node.close()));
      }
    });
  });
}

const LIMITS = { 't/send': 10 };

/** `count` calls of t/send at once in `run`, call i on `on(i)`. */
function burst(
  nodes: readonly Wardrik[],
  run: string,
  count: number,
  on: (i: number) => Wardrik,
  prefix = 'c',
): Promise<ToolAnswer[]> {
  void nodes;
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      on(i).runner.run({ agent: 'a', run, call: { id: `${prefix}${i}`, name: 't__send' }, maxCalls: LIMITS }),
    ),
  );
}

describe('maxCalls', () => {
  it('takes the smallest limit of the patterns that match the tool', () => {
    const limits = { 'orders/*': 5, 'orders/refund_order': 2, '*': 50 };
    assert.equal(limitFor(limits, 'orders/refund_order'), 2);
    assert.equal(limitFor(limits, 'orders/find_order'), 5);
    assert.equal(limitFor(limits, 'github/search'), 50);
    assert.equal(limitFor({ 'orders/*': 5 }, 'github/search'), undefined);
  });

  it("denies an agent's calls past its limit in a turn, telling the model why", async () => {
    const { ran, nodes } = await twoNodes('memory:');
    try {
      const agent = nodes[0].startAgent({
        id: 'mailer',
        model: scriptedModel([
          { toolCalls: [1, 2, 3].map(() => ({ name: 't__send', arguments: {} })) },
          { text: 'Sent what I could.' },
        ]),
        tools: ['t/*'],
        maxCalls: { 't/send': 2 },
      });
      const turn = await agent.send('Send three messages.');
      assert.equal(turn.status, 'done');
      assert.equal(ran.length, 2);
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });

  it('refuses limits that are not whole counts on tool patterns, at start-up', async () => {
    const { nodes } = await twoNodes('memory:');
    try {
      for (const [maxCalls, message] of [
        [{ 't/send': 0 }, /whole number from 1 to 10000/],
        [{ 't/send': 1.5 }, /whole number from 1 to 10000/],
        [{ send: 3 }, /is not a pattern on "toolset\/tool"/],
        [[3], /maps tool patterns to the most calls per run/],
      ] as const)
        assert.throws(
          () => nodes[0].startAgent({ id: 'x', model: scriptedModel([]), tools: ['t/*'], maxCalls: maxCalls as never }),
          (error: unknown) => error instanceof ConfigurationError && message.test(error.message),
        );
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  });
});
