import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import {
  ConfigurationError,
  defineTool,
  MemoryStore,
  Tool,
  Toolset,
  Unavailable,
  Wardrik,
  type CallRecord,
  type ToolAnswer,
  type ToolContext,
  type WardrikEvent,
  type WardrikOptions,
} from '../../src/index.js';
import { manualTime, scriptedModel } from '../../src/testing/index.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { serving, text } from '../serve/helpers.js';
import { eventually } from '../eventually.js';
import { writeCall } from '../../src/store/journal-writes.js';

/** The page's data helper: orders by payment intent. */
const orders = {
  byPaymentIntent: (payment_intent: string) => ({ id: 'ord_1234', payment_intent, status: 'shipped' }),
};

const findOrder = {
  name: 'find_order',
  description: 'Find the order associated with a Stripe payment intent, including items, address, and dates.',
  input: z.object({ payment_intent: z.string().describe('Stripe payment intent ID, such as pi_123') }),
  readOnly: true,
  run: ({ payment_intent }: { payment_intent: string }) => orders.byPaymentIntent(payment_intent),
};

async function started(options: WardrikOptions = {}) {
  const wardrik = await Wardrik.create({
    store: 'memory:',
    recoverMs: Infinity,
    ...options,
    runner: { ...options.runner, retry: { baseDelayMs: 1, maxDelayMs: 2, ...options.runner?.retry } },
  });
  const events: WardrikEvent[] = [];
  wardrik.events$.subscribe((event) => events.push(event));
  let next = 0;
  return {
    wardrik,
    events,
    call(name: string, args: unknown, extra: { signal?: AbortSignal } = {}): Promise<ToolAnswer> {
      return wardrik.runner.run({
        agent: 'a',
        run: 'run-1',
        call: { id: `c${++next}`, name, arguments: args },
        ...extra,
      });
    },
    of<T extends WardrikEvent['type']>(type: T) {
      return events.filter((event): event is Extract<WardrikEvent, { type: T }> => event.type === type);
    },
    close: () => wardrik.close(),
  };
}

const errorOf = (answer: ToolAnswer): { code: string; message: string } | undefined =>
  answer.status === 'error' ? { code: answer.code, message: answer.message } : undefined;

describe('wardrik.tool', () => {
  describe('registering', () => {
    it("adds the tool to toolset workers with Zod's schema and its hints, and emits tools.changed", async () => {
      const h = await started();
      try {
        assert.deepEqual(h.wardrik.tools(), []);
        h.wardrik.tool(findOrder);
        assert.deepEqual(h.wardrik.tools(['workers/*']), [
          {
            name: 'workers__find_order',
            description: findOrder.description,
            inputSchema: {
              type: 'object',
              properties: {
                payment_intent: { type: 'string', description: 'Stripe payment intent ID, such as pi_123' },
              },
              required: ['payment_intent'],
            },
            annotations: { readOnly: true },
          },
        ]);
        assert.deepEqual(
          h.of('tools.changed').map(({ toolset, count, mcp }) => ({ toolset, count, mcp })),
          [{ toolset: 'workers', count: 1, mcp: undefined }],
        );
        // Read-only: no approval needed.
        assert.deepEqual(await h.call('workers__find_order', { payment_intent: 'pi_123' }), {
          status: 'ok',
          output: orders.byPaymentIntent('pi_123'),
          labels: ['confidential'],
        });
      } finally {
        await h.close();
      }
    });

    it('keeps the default approval for a tool that is not read-only, and explicit policy rules for one that is', async () => {
      const h = await started({ policy: { rules: [{ match: 'workers/find_order', action: 'deny' }] } });
      try {
        h.wardrik.tool(findOrder);
        h.wardrik.tool({
          name: 'cancel_order',
          description: 'Cancel an order.',
          input: z.object({ orderId: z.string() }),
          run: () => 'cancelled',
        });
        assert.equal(errorOf(await h.call('workers__find_order', { payment_intent: 'pi_1' }))?.code, 'denied');
        const parked = await h.call('workers__cancel_order', { orderId: 'ord_1' });
        assert.equal(parked.status, 'parked');
      } finally {
        await h.close();
      }
    });

    it('adds to the toolset named by `toolset`, and to one given to Wardrik.create({ tools })', async () => {
      const ping = defineTool({ name: 'ping', description: 'Pings.', readOnly: true, run: () => 'pong' });
      const h = await started({ tools: { workers: [ping] } });
      try {
        h.wardrik.tool(findOrder);
        h.wardrik.tool({ ...findOrder, toolset: 'billing' });
        assert.deepEqual(
          h.wardrik.tools().map((t) => t.name),
          ['workers__ping', 'workers__find_order', 'billing__find_order'],
        );
        assert.deepEqual(
          h.of('tools.changed').map(({ toolset, count }) => [toolset, count]),
          [
            ['workers', 2],
            ['billing', 1],
          ],
        );
      } finally {
        await h.close();
      }
    });

    it('refuses a toolset of classes, and a toolset name that is not one, saying what to do', async () => {
      @Toolset('orders')
      class OrderTools {
        @Tool({ description: 'Lists orders.' })
        list() {
          return [];
        }
      }
      const h = await started({ toolsets: [OrderTools] });
      try {
        assert.throws(
          () => h.wardrik.tool({ ...findOrder, toolset: 'orders' }),
          (error: unknown) =>
            error instanceof ConfigurationError &&
            /toolset "orders" is class OrderTools's, and wardrik\.tool adds only to toolsets of functional tools/.test(
              error.message,
            ),
        );
        assert.throws(() => h.wardrik.tool({ ...findOrder, toolset: 'a__b' }), /toolset "a__b" is not 1 to 55 letters/);
        assert.deepEqual(
          h.wardrik.tools().map((t) => t.name),
          ['orders__list'],
        );
      } finally {
        await h.close();
      }
    });

    it('refuses an unknown key at once, naming it and the nearest key', async () => {
      const h = await started();
      try {
        assert.throws(
          () => h.wardrik.tool({ ...findOrder, readonly: true } as never),
          (error: unknown) =>
            error instanceof ConfigurationError &&
            /^Tool "find_order": wardrik\.tool does not take the key "readonly"\. Did you mean "readOnly"\? It takes .*, run, toolset\.$/.test(
              error.message,
            ),
        );
        assert.throws(
          () => h.wardrik.tool({ ...findOrder, toolSet: 'x' } as never),
          /the key "toolSet"\. Did you mean "toolset"\?/,
        );
        assert.throws(() => h.wardrik.tool({ ...findOrder, description: '' }), /has no description/);
        assert.throws(() => h.wardrik.tool(null as never), /wardrik\.tool takes a definition object/);
        assert.deepEqual(h.wardrik.tools(), []);
        assert.deepEqual(h.of('tools.changed'), []);
      } finally {
        await h.close();
      }
    });

    it('skips a tool with an invalid name, an input that is not an object schema, or a name its toolset has, with tool.skipped', async () => {
      const h = await started();
      try {
        h.wardrik.tool(findOrder);
        h.wardrik.tool({ ...findOrder, name: 'find order!' });
        h.wardrik.tool({ ...findOrder, name: 'lookup', input: z.string(), run: () => null });
        h.wardrik.tool({ ...findOrder, description: 'Another find_order.' });
        assert.deepEqual(
          h.of('tool.skipped').map(({ toolset, tool, reason }) => [toolset, tool, reason.slice(0, 40)]),
          [
            ['workers', 'find order!', 'its name "find order!" is not 1 to 55 le'],
            ['workers', 'lookup', 'its input is not an object schema (type:'],
            ['workers', 'find_order', 'toolset "workers" already has a tool nam'],
          ],
        );
        assert.deepEqual(
          h.wardrik.tools().map((t) => [t.name, t.description]),
          [['workers__find_order', findOrder.description]],
        );
        assert.equal(h.of('tools.changed').length, 1, 'a skipped tool changes nothing');
      } finally {
        await h.close();
      }
    });
  });

  describe('under way', () => {
    it('leaves calls in flight to the toolset running while a tool joins it', async () => {
      const h = await started();
      try {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let entered!: () => void;
        const inside = new Promise<void>((resolve) => (entered = resolve));
        h.wardrik.tool({
          ...findOrder,
          run: async ({ payment_intent }) => {
            entered();
            await gate;
            return orders.byPaymentIntent(payment_intent);
          },
        });
        const calls = [
          h.call('workers__find_order', { payment_intent: 'pi_1' }),
          h.call('workers__find_order', { payment_intent: 'pi_2' }),
        ];
        await inside;
        h.wardrik.tool({ ...findOrder, name: 'find_refund' });
        const other = await h.call('workers__find_refund', { payment_intent: 'pi_3' });
        release();
        assert.deepEqual(
          (await Promise.all(calls)).map((answer) => answer.status),
          ['ok', 'ok'],
        );
        assert.deepEqual(other, { status: 'ok', output: orders.byPaymentIntent('pi_3'), labels: ['confidential'] });
      } finally {
        await h.close();
      }
    });

    it('finishes a call a crash left in flight once the tool is registered again and recovery runs', async () => {
      const store = new MemoryStore();
      const record: CallRecord = {
        run: 'run-1',
        call: 'c1',
        agent: 'a',
        tool: 'workers/find_order',
        arguments: { payment_intent: 'pi_7' },
        idempotencyKey: 'run-1:c1',
        state: 'started',
        attempt: 1,
        updatedAt: 1,
      };
      await writeCall(store, record, undefined);
      const wardrik = await Wardrik.create({ store, recoverMs: Infinity });
      try {
        assert.equal((await store.getCall('run-1', 'c1'))?.state, 'started', 'not offered at start-up: left for later');
        const keys: [string, number][] = [];
        wardrik.tool({
          ...findOrder,
          run: ({ payment_intent }, { idempotencyKey, attempt }) => {
            keys.push([idempotencyKey, attempt]);
            return orders.byPaymentIntent(payment_intent);
          },
        });
        assert.equal((await wardrik.recover()).rerun, 1);
        assert.deepEqual(keys, [['run-1:c1', 2]]);
        assert.equal((await store.getCall('run-1', 'c1'))?.state, 'succeeded');
      } finally {
        await wardrik.close();
      }
    });
  });

  describe('seen by agents', () => {
    it('from their next step: the model sees workers__find_order, calls it, and reads its answer', async () => {
      const h = await started();
      try {
        const contexts: ToolContext[] = [];
        const model = scriptedModel([
          { text: 'I have no tools yet.' },
          { toolCalls: [{ name: 'workers__find_order', arguments: { payment_intent: 'pi_123' } }] },
          { text: 'Found it.' },
        ]);
        const agent = h.wardrik.startAgent({ id: 'triage', model, tools: ['workers/*'] });
        await agent.send('Hello');
        // No tool of its own yet: only the reader the defaults (labels on values) send every agent.
        const names = (index: number) =>
          (model.calls[index]!.tools ?? []).map((t) => (t.type === 'function' ? t.name : t.type));
        assert.deepEqual(names(0), ['wardrik__read']);
        h.wardrik.tool({
          ...findOrder,
          run: ({ payment_intent }, ctx) => {
            contexts.push(ctx);
            return orders.byPaymentIntent(payment_intent);
          },
        });
        const turn = await agent.send('Where is the order for pi_123?');
        assert.equal(turn.status, 'done');
        assert.deepEqual(names(1), ['workers__find_order', 'wardrik__read']);
        const offered = model.calls[1]!.tools!.map((t) => (t.type === 'function' ? [t.name, t.inputSchema] : [t.type]));
        assert.deepEqual(offered[0], ['workers__find_order', h.wardrik.tools()[0]!.inputSchema]);
        const answerToModel = model.calls[2]!.prompt.at(-1)!;
        assert.deepEqual((answerToModel.content[0] as { output: unknown }).output, {
          type: 'text',
          value: JSON.stringify(orders.byPaymentIntent('pi_123')),
        });
        // The context: the calling agent, set by Wardrik, and the turn's id, as in its events.
        assert.equal(contexts.length, 1);
        assert.equal(contexts[0]!.agent, 'triage');
        assert.equal(contexts[0]!.run, turn.run);
        assert.ok(h.of('tool.succeeded').some((e) => e.run === turn.run && e.tool === 'workers/find_order'));
      } finally {
        await h.close();
      }
    });
  });

  describe('seen by MCP clients', () => {
    it('are told the list changed, list it with its schema, and call it', async () => {
      const s = await serving({ tools: ['workers/*'] });
      try {
        const client = await s.client();
        assert.deepEqual((await client.listTools()).tools, []);
        s.wardrik.tool(findOrder);
        await eventually('the client to hear tools/list_changed', () => client.changes.count === 1);
        const [listed, ...others] = (await client.listTools()).tools;
        assert.deepEqual(others, []);
        assert.equal(listed!.name, 'workers__find_order');
        assert.deepEqual(listed!.inputSchema, s.wardrik.tools(['workers/*'])[0]!.inputSchema);
        assert.equal(listed!.annotations?.readOnlyHint, true);
        const result = await client.callTool({ name: 'workers__find_order', arguments: { payment_intent: 'pi_9' } });
        assert.equal(result.isError, undefined);
        assert.deepEqual(JSON.parse(text(result)), orders.byPaymentIntent('pi_9'));
        const refused = await client.callTool({ name: 'workers__find_order', arguments: { payment_intent: 9 } });
        assert.equal(refused.isError, true);
        assert.match(
          text(refused),
          /Invalid arguments for tool "workers__find_order".*\n- payment_intent: .*\(got 9\)/s,
        );
      } finally {
        await s.close();
      }
    });
  });

  describe("the page's promises", () => {
    it('adds both amounts when cost is called twice', async () => {
      const h = await started();
      try {
        h.wardrik.tool({
          name: 'enrich',
          description: 'Enrich a contact.',
          input: z.object({ email: z.email() }),
          readOnly: true,
          run: async ({ email }, { cost }) => {
            cost(0.01);
            cost(0.02);
            return { email, company: 'Acme' };
          },
        });
        assert.deepEqual(await h.call('workers__enrich', { email: 'ada@example.com' }), {
          status: 'ok',
          output: { email: 'ada@example.com', company: 'Acme' },
          labels: ['confidential'],
        });
        assert.deepEqual(
          h.of('cost').map((e) => [e.agent, e.source, e.usd, e.totalMicroUsd]),
          [
            ['a', 'tool', 0.01, 10_000],
            ['a', 'tool', 0.02, 30_000],
          ],
        );
      } finally {
        await h.close();
      }
    });

    it("lets a tool take every function of its context apart, as the page's { cost } does", async () => {
      const h = await started();
      try {
        h.wardrik.tool({
          name: 'summarise',
          description: 'Summarise a text.',
          input: z.object({ text: z.string() }),
          readOnly: true,
          run: ({ text }, { measure, progress, log }) => {
            progress(1, 2);
            log('info', 'summarising');
            measure('tokens', text.length);
            return text.slice(0, 3);
          },
        });
        assert.deepEqual(await h.call('workers__summarise', { text: 'abcdef' }), {
          status: 'ok',
          output: 'abc',
          labels: ['confidential'],
        });
        assert.deepEqual(h.of('tool.succeeded')[0]!.measures, [{ unit: 'tokens', amount: 6 }]);
        assert.deepEqual(
          h.of('tool.progress').map((e) => [e.progress, e.total]),
          [[1, 2]],
        );
      } finally {
        await h.close();
      }
    });

    it("gives the model a thrown error's message", async () => {
      const h = await started();
      try {
        h.wardrik.tool({
          name: 'order_status',
          description: 'Say where an order is.',
          input: z.object({ order_id: z.string() }),
          readOnly: true,
          run: async ({ order_id }) => {
            await Promise.resolve();
            throw new Error(`No order ${order_id}. Order IDs look like ord_1234.`);
          },
        });
        const model = scriptedModel([
          { toolCalls: [{ name: 'workers__order_status', arguments: { order_id: 'x1' } }] },
          (call) => ({ text: `saw: ${call.lastToolResult ?? ''}` }),
        ]);
        const turn = await h.wardrik.startAgent({ id: 'support', model, tools: ['workers/*'] }).send('Where is x1?');
        assert.match(turn.text, /saw: .*No order x1\. Order IDs look like ord_1234\./);
      } finally {
        await h.close();
      }
    });

    it('retries only idempotent or read-only tools, with the same idempotency key', async () => {
      const h = await started({ policy: { rules: [{ match: 'workers/*', action: 'allow' }] } });
      try {
        const seen: Record<string, [number, string][]> = { refund_order: [], find_order: [], charge: [] };
        const flaky =
          (name: string) =>
          async ({ orderId }: { orderId: string }, ctx: ToolContext) => {
            seen[name]!.push([ctx.attempt, ctx.idempotencyKey]);
            if (ctx.attempt === 1) throw new Unavailable('the payment API is down');
            return `${name} ${orderId}`;
          };
        const input = z.object({ orderId: z.string() });
        h.wardrik.tool({
          name: 'refund_order',
          description: 'Refund an order in full.',
          input,
          idempotent: true,
          run: flaky('refund_order'),
        });
        h.wardrik.tool({
          name: 'find_order',
          description: 'Find an order.',
          input,
          readOnly: true,
          run: flaky('find_order'),
        });
        h.wardrik.tool({ name: 'charge', description: 'Charge a card.', input, run: flaky('charge') });
        assert.deepEqual(await h.call('workers__refund_order', { orderId: 'ord_1' }), {
          status: 'ok',
          output: 'refund_order ord_1',
          labels: ['confidential'],
        });
        assert.deepEqual(await h.call('workers__find_order', { orderId: 'ord_1' }), {
          status: 'ok',
          output: 'find_order ord_1',
          labels: ['confidential'],
        });
        assert.deepEqual(errorOf(await h.call('workers__charge', { orderId: 'ord_1' })), {
          code: 'unavailable',
          message: 'the payment API is down',
        });
        for (const name of ['refund_order', 'find_order']) {
          assert.deepEqual(
            seen[name]!.map(([attempt]) => attempt),
            [1, 2],
          );
          assert.equal(seen[name]![0]![1], seen[name]![1]![1], `${name}: the same key on both attempts`);
        }
        assert.deepEqual(
          seen.charge!.map(([attempt]) => attempt),
          [1],
          'neither: not retried',
        );
      } finally {
        await h.close();
      }
    });

    it("times a call out after 60 seconds, aborting its signal (on the test's time)", async () => {
      const time = manualTime(Date.now());
      const h = await started({
        container: manualTimeContainer(time),
        policy: { rules: [{ match: 'workers/*', action: 'allow' }] },
      });
      try {
        let running!: () => void;
        const started = new Promise<void>((resolve) => (running = resolve));
        const aborted: { reason?: unknown } = {};
        h.wardrik.tool({
          name: 'slow_report',
          description: 'Build a report.',
          input: z.object({ month: z.string() }),
          run: (_args, { signal }) =>
            new Promise(() => {
              signal.addEventListener('abort', () => (aborted.reason = signal.reason));
              running();
            }),
        });
        let answer: ToolAnswer | undefined;
        const answering = h.call('workers__slow_report', { month: '2026-11' }).then((a) => (answer = a));
        await started;
        await time.advance(59_999);
        assert.equal(answer, undefined, 'not yet at 59.999 s');
        assert.ok(aborted.reason === undefined);
        await time.advance(1);
        await answering;
        assert.equal(errorOf(answer!)?.code, 'timeout');
        assert.equal((aborted.reason as unknown as Error).name, 'ToolTimeoutError');
      } finally {
        await h.close();
      }
    });

    it('aborts the signal when the caller stops the call', async () => {
      const h = await started();
      try {
        let running!: () => void;
        const started = new Promise<void>((resolve) => (running = resolve));
        let reason: unknown;
        h.wardrik.tool({
          name: 'export',
          description: 'Export every order.',
          input: z.object({ format: z.enum(['csv', 'json']) }),
          readOnly: true,
          run: (_args, { signal }) =>
            new Promise((resolve) => {
              signal.addEventListener('abort', () => {
                reason = signal.reason;
                resolve('stopped');
              });
              running();
            }),
        });
        const stop = new AbortController();
        const answer = h.call('workers__export', { format: 'csv' }, { signal: stop.signal });
        await started;
        stop.abort(new Error('the user left'));
        assert.equal(errorOf(await answer)?.code, 'aborted');
        assert.equal((reason as Error).message, 'the user left');
      } finally {
        await h.close();
      }
    });
  });
});
