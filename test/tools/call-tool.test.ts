import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IsString } from 'class-validator';
import {
  callTool,
  defineTool,
  park,
  ToolResult,
  Unavailable,
  type ToolContext,
  type ToolDefinition,
} from '../../src/index.js';

class EchoArgs {
  @IsString()
  text!: string;
}

const tool = (name: string, run: (args: EchoArgs, ctx: ToolContext) => unknown, labels?: string[]): ToolDefinition =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    input: EchoArgs,
    run,
    ...(labels === undefined ? {} : { annotations: { labels } }),
  });

const call = (t: ToolDefinition, ctx?: Partial<ToolContext>) =>
  callTool([t], { name: t.name, arguments: { text: 'hi' } }, ctx);

describe('callTool', () => {
  describe('when no tool has the name', () => {
    it('answers tool_not_found with the closest names', async () => {
      const tools = ['find_order', 'refund_order', 'list_users', 'send_mail', 'get_weather'].map((n) =>
        tool(n, () => null),
      );
      const answer = await callTool(tools, { name: 'find_ordr', arguments: {} });
      assert.deepEqual(answer, {
        status: 'error',
        code: 'tool_not_found',
        message: 'No tool is named "find_ordr". The closest available: find_order, refund_order, send_mail.',
        labels: [],
      });
    });

    it('says when no tools are available', async () => {
      const answer = await callTool([], { name: 'anything' });
      assert.equal(answer.status === 'error' && answer.message, 'No tool is named "anything". No tools are available.');
    });
  });

  describe('results (T5)', () => {
    it('answers a returned object as the output', async () => {
      assert.deepEqual(await call(tool('t', (a) => ({ echoed: a.text }))), {
        status: 'ok',
        output: { echoed: 'hi' },
        labels: ['confidential'],
      });
    });

    it('answers a returned string as the output', async () => {
      assert.deepEqual(await call(tool('t', (a) => a.text.toUpperCase())), {
        status: 'ok',
        output: 'HI',
        labels: ['confidential'],
      });
    });

    it('awaits an async tool', async () => {
      assert.deepEqual(await call(tool('t', async (a) => a.text)), {
        status: 'ok',
        output: 'hi',
        labels: ['confidential'],
      });
    });

    it('answers a thrown error with its message, as failed', async () => {
      const answer = await call(
        tool('t', () => {
          throw new Error('No order for pi_9; IDs look like pi_123.');
        }),
      );
      assert.deepEqual(answer, {
        status: 'error',
        code: 'failed',
        message: 'No order for pi_9; IDs look like pi_123.',
        labels: ['confidential'],
      });
    });

    it('answers a rejected promise with its message', async () => {
      const answer = await call(tool('t', () => Promise.reject(new Error('down'))));
      assert.equal(answer.status === 'error' && answer.message, 'down');
    });

    it('keeps the unavailable code of a thrown Unavailable', async () => {
      const answer = await call(
        tool('t', () => {
          throw new Unavailable('The order service is down.');
        }),
      );
      assert.equal(answer.status === 'error' && answer.code, 'unavailable');
    });

    it('names the tool when the thrown error has no message', async () => {
      const answer = await call(
        tool('quiet', () => {
          throw new Error('');
        }),
      );
      assert.equal(answer.status === 'error' && answer.message, 'Tool "quiet" failed without a message.');
    });

    it('answers a ToolResult with its output and labels', async () => {
      const answer = await call(tool('t', () => new ToolResult({ page: '<html>' }, { labels: ['outside'] })));
      assert.deepEqual(answer, { status: 'ok', output: { page: '<html>' }, labels: ['outside'] });
    });

    it("joins a ToolResult's labels with the tool's own @Labels", async () => {
      const answer = await call(
        tool('t', () => new ToolResult('x', { labels: ['outside', 'pii'] }), ['outside', 'web']),
      );
      assert.deepEqual([...answer.labels].sort(), ['outside', 'pii', 'web']);
    });

    it("labels a plain answer with the tool's own labels", async () => {
      assert.deepEqual((await call(tool('t', () => 'x', ['web']))).labels, ['web', 'confidential']);
    });

    it('answers park(reason) as parked with the reason', async () => {
      assert.deepEqual(await call(tool('t', () => park('Refunds over $500 need a manager'))), {
        status: 'parked',
        kind: 'park',
        reason: 'Refunds over $500 need a manager',
        labels: [],
      });
    });

    it('refuses park() without a reason', () => {
      assert.throws(() => park(' '), /needs a reason a person can read/);
    });

    it('freezes a ToolResult', () => {
      const result = new ToolResult('x', { labels: ['a'] });
      assert.ok(Object.isFrozen(result));
      assert.ok(Object.isFrozen(result.labels));
    });
  });

  describe('the context (T6)', () => {
    it('passes every field the caller gave', async () => {
      const signal = new AbortController().signal;
      const costs: number[] = [];
      const measures: [string, number][] = [];
      let seen: ToolContext | undefined;
      const answer = await call(
        tool('t', (_a, ctx) => {
          seen = ctx;
          ctx.cost(0.25);
          ctx.measure('tokens', 12);
          return 'ok';
        }),
        {
          agent: 'support',
          run: 'run-1',
          call: 'call-1',
          attempt: 2,
          idempotencyKey: 'key-1',
          signal,
          labels: ['outside'],
          cost: (usd) => costs.push(usd),
          measure: (unit, amount) => measures.push([unit, amount]),
        },
      );
      assert.equal(answer.status, 'ok');
      assert.equal(seen?.agent, 'support');
      assert.equal(seen?.run, 'run-1');
      assert.equal(seen?.call, 'call-1');
      assert.equal(seen?.attempt, 2);
      assert.equal(seen?.idempotencyKey, 'key-1');
      assert.equal(seen?.signal, signal);
      assert.deepEqual(seen?.labels, ['outside']);
      assert.deepEqual(costs, [0.25]);
      assert.deepEqual(measures, [['tokens', 12]]);
    });

    it('fills missing fields: agent local, a fresh run, the call id, attempt 1, key run:call, a live signal, no labels', async () => {
      let seen: ToolContext | undefined;
      await callTool([tool('t', (_a, ctx) => ((seen = ctx), null))], {
        id: 'c-7',
        name: 't',
        arguments: { text: 'hi' },
      });
      assert.equal(seen?.agent, 'local');
      assert.match(seen!.run, /^[0-9a-f-]{36}$/);
      assert.equal(seen?.call, 'c-7');
      assert.equal(seen?.attempt, 1);
      assert.equal(seen?.idempotencyKey, `${seen!.run}:c-7`);
      assert.equal(seen?.signal.aborted, false);
      assert.deepEqual(seen?.labels, []);
    });

    it('gives each bare call its own run', async () => {
      const runs: string[] = [];
      const t = tool('t', (_a, ctx) => runs.push(ctx.run));
      await call(t);
      await call(t);
      assert.notEqual(runs[0], runs[1]);
    });

    it('fails the call when the default cost() is given a negative amount', async () => {
      const answer = await call(tool('t', (_a, ctx) => ctx.cost(-1)));
      assert.equal(answer.status === 'error' && answer.code, 'failed');
      assert.match(
        answer.status === 'error' ? answer.message : '',
        /cost\(usd\) takes a finite number of at least 0; got -1/,
      );
    });
  });

  describe('when the arguments fail', () => {
    it('answers invalid_arguments and does not run the tool', async () => {
      let ran = false;
      const answer = await callTool([tool('t', () => (ran = true))], { name: 't', arguments: { text: 3 } });
      assert.equal(answer.status === 'error' && answer.code, 'invalid_arguments');
      assert.equal(ran, false);
    });

    it('treats missing arguments as an empty object', async () => {
      const answer = await callTool([tool('t', () => 'ran')], { name: 't' });
      assert.match(answer.status === 'error' ? answer.message : '', /- text: text must be a string \(it is missing\)/);
    });
  });
});
