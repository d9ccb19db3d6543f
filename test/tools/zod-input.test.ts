import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import { type } from 'arktype';
import { z } from 'zod';
import {
  callTool,
  ConfigurationError,
  defineTool,
  ReadOnly,
  Tool,
  Toolset,
  Wardrik,
  type StandardSchema,
  type ToolAnswer,
  type ToolSkippedEvent,
} from '../../src/index.js';

const message = (answer: ToolAnswer): string =>
  answer.status === 'error' ? answer.message : `(not an error: ${answer.status})`;

describe('defineTool with a Zod object input (issue 28)', () => {
  // As a new user writes it from the "Write tools" page, with defineTool: untyped, so it ran (and was
  // silently wrong) before Wardrik knew Zod.
  const options: Record<string, unknown> = {
    name: 'find_order',
    description: 'Find the order associated with a Stripe payment intent, including items, address, and dates.',
    input: z.object({ payment_intent: z.string().describe('Stripe payment intent ID, such as pi_123') }),
    readOnly: true,
    run: ({ payment_intent }: { payment_intent: string }) => ({ id: 'ord_1', payment_intent }),
  };

  it("shows the model Zod's own JSON Schema, with each .describe() text", () => {
    const tool = defineTool(options as never);
    assert.deepEqual(tool.inputSchema, {
      type: 'object',
      properties: { payment_intent: { type: 'string', description: 'Stripe payment intent ID, such as pi_123' } },
      required: ['payment_intent'],
    });
  });

  it('takes readOnly at the top level: the read-only lookup runs without approval', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', tools: { workers: [defineTool(options as never)] } });
    try {
      const answer = await wardrik.runner.run({
        agent: 'a',
        run: 'r1',
        call: { id: 'c1', name: 'workers__find_order', arguments: { payment_intent: 'pi_123' } },
      });
      assert.deepEqual(answer, {
        status: 'ok',
        output: { id: 'ord_1', payment_intent: 'pi_123' },
        labels: ['confidential'],
      });
    } finally {
      await wardrik.close();
    }
  });
});

describe('Zod input', () => {
  const Ship = z.object({
    orderId: z.string().regex(/^ord_/).describe('The order, such as ord_1234'),
    speed: z.enum(['standard', 'express']).default('standard'),
    lines: z.array(z.object({ sku: z.string(), qty: z.number().int().min(1) })).min(1),
    note: z.string().optional(),
  });
  const seen: unknown[] = [];
  const ship = defineTool({
    name: 'ship',
    description: 'Ship an order.',
    input: Ship,
    idempotent: true,
    // Typed from the schema: `speed` is the output type, never undefined.
    run: ({ orderId, speed, lines }) => {
      seen.push({ orderId, speed, lines });
      return `${orderId} ${speed.toUpperCase()} ${lines.length}`;
    },
  });

  it('types run from the schema', () => {
    defineTool({
      name: 'typed',
      description: 'Typed.',
      input: z.object({ id: z.string() }),
      // @ts-expect-error -- `nope` is not a field of the schema
      run: ({ nope }) => nope,
    });
  });

  it("gives the model Zod's JSON Schema of the input: optional and defaulted fields not required, nested arrays, bounds", () => {
    assert.deepEqual(ship.inputSchema.required, ['orderId', 'lines']);
    assert.deepEqual(ship.inputSchema.properties?.orderId, {
      type: 'string',
      pattern: '^ord_',
      description: 'The order, such as ord_1234',
    });
    assert.deepEqual(ship.inputSchema.properties?.lines?.items?.required, ['sku', 'qty']);
    assert.equal(ship.inputSchema.$schema, undefined, 'no $schema: DTO schemas have none either');
    assert.ok(Object.isFrozen(ship.inputSchema.properties));
    assert.deepEqual(ship.annotations, { idempotent: true });
  });

  it("runs the tool with the schema's output: defaults applied", async () => {
    const answer = await callTool([ship], {
      name: 'ship',
      arguments: { orderId: 'ord_1', lines: [{ sku: 'a', qty: 2 }] },
    });
    assert.deepEqual(answer, { status: 'ok', output: 'ord_1 STANDARD 1', labels: ['confidential'] });
  });

  it('answers the model with every failing field, in the words DTO answers use, and does not run', async () => {
    const before = seen.length;
    const answer = await callTool([ship], {
      name: 'ship',
      arguments: JSON.stringify({ orderId: 'o-1', lines: [{ sku: 'a', qty: 0 }], speed: 'slow' }),
    });
    assert.equal(answer.status === 'error' && answer.code, 'invalid_arguments');
    const text = message(answer);
    assert.match(text, /^Invalid arguments for tool "ship"; the tool did not run\. Fix these and call it again:\n/);
    assert.match(text, /\n- orderId: .*\(got "o-1"\)/);
    assert.match(text, /\n- lines\[0\]\.qty: .*\(got 0\)/);
    assert.match(text, /\n- speed: .*\(got "slow"\)/);
    assert.equal(seen.length, before);
  });

  it('says a missing field is missing', async () => {
    const answer = await callTool([ship], { name: 'ship', arguments: { lines: [{ sku: 'a', qty: 1 }] } });
    assert.match(message(answer), /\n- orderId: .*\(it is missing\)$/);
  });

  it('applies the argument limits before the schema: prototype keys and oversized arguments are refused', async () => {
    const proto = await callTool([ship], {
      name: 'ship',
      arguments: '{"orderId":"ord_1","lines":[{"sku":"a","qty":1}],"__proto__":{"x":1}}',
    });
    assert.match(message(proto), /__proto__.*not allowed as an argument name/);
    const huge = await callTool([ship], {
      name: 'ship',
      arguments: { orderId: 'ord_1', lines: Array.from({ length: 20_000 }, () => ({ sku: 'a', qty: 1 })) },
    });
    assert.match(message(huge), /are too large/);
  });

  it('checks with async refinements too', async () => {
    const tool = defineTool({
      name: 'async_check',
      description: 'Refined asynchronously.',
      input: z.object({ code: z.string().refine(async (code) => code === 'ok', 'is not a known code') }),
      run: ({ code }) => code,
    });
    assert.deepEqual(await callTool([tool], { name: 'async_check', arguments: { code: 'ok' } }), {
      status: 'ok',
      output: 'ok',
      labels: ['confidential'],
    });
    assert.match(
      message(await callTool([tool], { name: 'async_check', arguments: { code: 'no' } })),
      /- code: is not a known code \(got "no"\)/,
    );
  });

  it('refuses unknown arguments when the schema is strict, as the schema says', async () => {
    const tool = defineTool({
      name: 'strict',
      description: 'Strict.',
      input: z.strictObject({ a: z.string() }),
      run: ({ a }) => a,
    });
    assert.equal(tool.inputSchema.additionalProperties, false);
    assert.match(
      message(await callTool([tool], { name: 'strict', arguments: { a: 'x', b: 1 } })),
      /- \(arguments\): .*"b"/,
    );
  });

  it('throws a ConfigurationError naming the tool when Zod cannot make the JSON Schema', () => {
    assert.throws(
      () => defineTool({ name: 'when', description: 'A date.', input: z.object({ at: z.date() }), run: () => null }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /^Tool "when": zod could not make the JSON Schema of its input: .*Date/.test(error.message),
    );
  });

  it('is taken by @Tool({ input }) as well', async () => {
    @Toolset('lookup')
    class LookupTools {
      @Tool({ description: 'Find a customer.', input: z.object({ email: z.email() }) })
      @ReadOnly()
      find(args: { email: string }) {
        return args.email;
      }
    }
    const wardrik = await Wardrik.create({ store: 'memory:', toolsets: [LookupTools] });
    try {
      assert.equal(wardrik.tools()[0]!.inputSchema.properties?.email?.format, 'email');
      const answer = await wardrik.runner.run({
        agent: 'a',
        run: 'r',
        call: { id: 'c', name: 'lookup__find', arguments: { email: 'nope' } },
      });
      assert.match(message(answer), /- email: .*\(got "nope"\)/);
    } finally {
      await wardrik.close();
    }
  });
});

describe('other Standard Schemas', () => {
  it('takes an ArkType schema (a function with ~standard): its JSON Schema, its own checks', async () => {
    const tool = defineTool({
      name: 'invite',
      description: 'Invite someone.',
      input: type({ email: 'string.email', 'count?': 'number.integer >= 1' }),
      run: ({ email, count }) => `${email} x${count ?? 1}`,
    });
    assert.deepEqual(tool.inputSchema.required, ['email']);
    assert.deepEqual(tool.inputSchema.properties?.count, { type: 'integer', minimum: 1 });
    assert.deepEqual(await callTool([tool], { name: 'invite', arguments: { email: 'a@b.co' } }), {
      status: 'ok',
      output: 'a@b.co x1',
      labels: ['confidential'],
    });
    const refused = message(await callTool([tool], { name: 'invite', arguments: { email: 'x', count: 0 } }));
    assert.match(refused, /- email: .*\(got "x"\)/);
    assert.match(refused, /- count: .*\(got 0\)/);
  });

  it('checks a schema that only describes (Standard JSON Schema, no validate) against its JSON Schema', async () => {
    const described: StandardSchema<{ id: string }> = {
      '~standard': {
        version: 1,
        vendor: 'describe-only',
        jsonSchema: {
          input: () => ({ type: 'object', properties: { id: { type: 'string', minLength: 2 } }, required: ['id'] }),
        },
      },
    };
    const tool = defineTool({
      name: 'describe_only',
      description: 'Described.',
      input: described,
      run: ({ id }) => id,
    });
    assert.equal(tool.input, undefined);
    assert.deepEqual(await callTool([tool], { name: 'describe_only', arguments: { id: 'ab' } }), {
      status: 'ok',
      output: 'ab',
      labels: ['confidential'],
    });
    assert.match(
      message(await callTool([tool], { name: 'describe_only', arguments: { id: 'a' } })),
      /- id: must NOT have fewer than 2 characters/,
    );
  });

  it('asks for 2020-12 when the library refuses draft-07', () => {
    const targets: string[] = [];
    const tool = defineTool({
      name: 'late',
      description: 'Only 2020-12.',
      input: {
        '~standard': {
          version: 1,
          vendor: 'late',
          validate: (value: unknown) => ({ value }),
          jsonSchema: {
            input: ({ target }: { target: string }) => {
              targets.push(target);
              if (target !== 'draft-2020-12') throw new Error(`no ${target}`);
              return { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: {} };
            },
          },
        },
      } satisfies StandardSchema,
      run: () => null,
    });
    assert.deepEqual(targets, ['draft-07', 'draft-2020-12']);
    assert.deepEqual(tool.inputSchema, { type: 'object', properties: {} });
  });

  it("cuts a library's long issue message, and skips a tool whose JSON Schema nests too deeply", async () => {
    const wordy = defineTool({
      name: 'wordy',
      description: 'Long messages.',
      input: {
        '~standard': {
          version: 1,
          vendor: 'wordy',
          validate: () => ({ issues: [{ message: 'x'.repeat(10_000), path: ['a'] }] }),
          jsonSchema: { input: () => ({ type: 'object', properties: { a: { type: 'string' } } }) },
        },
      } satisfies StandardSchema,
      run: () => null,
    });
    const line = message(await callTool([wordy], { name: 'wordy', arguments: { a: 'v' } })).split('\n')[1]!;
    assert.equal(line, `- a: ${'x'.repeat(300)} (got "v")`);

    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 70; i++) deep = { type: 'object', properties: { n: deep } };
    const nested: StandardSchema = {
      '~standard': {
        version: 1,
        vendor: 'deep',
        validate: (value: unknown) => ({ value }),
        jsonSchema: { input: () => deep },
      },
    };
    const wardrik = await Wardrik.create({
      store: 'memory:',
      tools: { workers: [defineTool({ name: 'deep', description: 'Deep.', input: nested, run: () => null })] },
    });
    const events = firstValueFrom(wardrik.events$.pipe(toArray()));
    assert.deepEqual(wardrik.tools(), []);
    await wardrik.close();
    const [skipped] = (await events).filter((e): e is ToolSkippedEvent => e.type === 'tool.skipped');
    assert.match(skipped!.reason, /nested deeper than 64 levels/);
  });

  it('refuses a Standard Schema that cannot give a JSON Schema, saying why', () => {
    const checkOnly = {
      '~standard': { version: 1 as const, vendor: 'checker', validate: (value: unknown) => ({ value }) },
    };
    assert.throws(
      () => defineTool({ name: 'opaque', description: 'No JSON Schema.', input: checkOnly, run: () => null }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /^Tool "opaque": its input is a Standard Schema of "checker" that cannot give a JSON Schema/.test(
          error.message,
        ),
    );
  });

  it('reads a JSON Schema that merely has a "~standard" key (no functions: JSON from an MCP server) as a JSON Schema', async () => {
    const schema = {
      type: 'object',
      properties: { q: { type: 'string' } },
      '~standard': { version: 1, vendor: 'x', validate: 'nope' },
    };
    const tool = defineTool({ name: 'json', description: 'JSON.', input: schema, run: () => 'ran' });
    assert.equal(tool.input, undefined);
    assert.deepEqual(tool.inputSchema, schema);
    assert.equal((await callTool([tool], { name: 'json', arguments: { q: 'x' } })).status, 'ok');
  });
});

describe('an input that is not an object schema', () => {
  it('is skipped at registration with a tool.skipped event; the other tools still work', async () => {
    const wardrik = await Wardrik.create({
      store: 'memory:',
      tools: {
        workers: [
          defineTool({ name: 'scalar', description: 'Takes a string.', input: z.string(), run: () => null }),
          defineTool({ name: 'fine', description: 'Fine.', input: z.object({}), run: () => null }),
        ],
      },
    });
    const names = wardrik.tools().map((t) => t.name);
    const events = firstValueFrom(wardrik.events$.pipe(toArray()));
    await wardrik.close();
    const skipped = (await events).filter((e): e is ToolSkippedEvent => e.type === 'tool.skipped');
    assert.deepEqual(names, ['workers__fine']);
    assert.deepEqual(
      skipped.map((e) => [e.toolset, e.tool]),
      [['workers', 'scalar']],
    );
    assert.match(skipped[0]!.reason, /not an object schema \(type: "string"\).*z\.object/);
  });
});

describe('definition keys', () => {
  const base = { name: 'noop', description: 'Does nothing.', run: () => null };

  it('refuses an unknown key at once, naming it and the nearest key', () => {
    assert.throws(
      () => defineTool({ ...base, readonly: true } as never),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        error.message.startsWith(
          'Tool "noop": defineTool does not take the key "readonly". Did you mean "readOnly"? It takes name, description, title, input, readOnly, idempotent, annotations, run.',
        ),
    );
  });

  it('names no nearest key when none is near', () => {
    assert.throws(
      () => defineTool({ ...base, colour: 'blue' } as never),
      (error: Error) => /the key "colour"\. It takes/.test(error.message),
    );
  });

  it('puts top-level readOnly and idempotent into the annotations, and still takes them as annotations', () => {
    assert.deepEqual(defineTool({ ...base, readOnly: true, idempotent: false }).annotations, {
      readOnly: true,
      idempotent: false,
    });
    assert.deepEqual(defineTool({ ...base, annotations: { readOnly: true } }).annotations, { readOnly: true });
  });

  it('refuses a hint given twice with different values, and one that is not a boolean', () => {
    assert.throws(
      () => defineTool({ ...base, readOnly: true, annotations: { readOnly: false } }),
      /readOnly is true but annotations\.readOnly is false; give it once/,
    );
    assert.throws(() => defineTool({ ...base, idempotent: 'yes' as never }), /idempotent is true or false; got string/);
  });
});
