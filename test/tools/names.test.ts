import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import {
  defineTool,
  ReadOnly,
  Tokens,
  Tool,
  Toolset,
  Wardrik,
  callTool,
  type JsonSchema,
  type ToolSkippedEvent,
  type WardrikOptions,
} from '../../src/index.js';
import { ToolCatalog } from '../../src/tools/catalog.js';

const noop = (name: string, input?: JsonSchema) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    run: () => `${name} ran`,
    ...(input === undefined ? {} : { input }),
  });

@Toolset('orders')
class OrderTools {
  @Tool({ description: 'Find an order.' })
  @ReadOnly()
  findOrder() {
    return 'found';
  }

  @Tool({ name: 'bad name!', description: 'A tool with an invalid name.' })
  badName() {
    return 'never';
  }

  @Tool({ name: 'find_order', description: 'A second tool with the same name.' })
  findAgain() {
    return 'never';
  }

  @Tool({ description: 'A tool whose input is not an object schema.', input: { type: 'string' } })
  stringInput() {
    return 'never';
  }
}

/** Every start-up event, which `events$` replays to a subscriber that comes after create. */
async function startupEvents(wardrik: Wardrik) {
  const all = firstValueFrom(wardrik.events$.pipe(toArray()));
  await wardrik.close(); // completes the stream
  return all;
}

async function skipped(
  options: WardrikOptions,
): Promise<{ wardrik: Wardrik; events: ToolSkippedEvent[]; names: string[] }> {
  const wardrik = await Wardrik.create({ store: 'memory:', ...options });
  const names = wardrik.tools().map((t) => t.name);
  const events = (await startupEvents(wardrik)).filter((e): e is ToolSkippedEvent => e.type === 'tool.skipped');
  return { wardrik, events, names };
}

describe('Tool names', () => {
  it('skips a tool with an invalid name with a tool.skipped event saying why', async () => {
    const { events } = await skipped({ tools: { misc: [noop('bad name!'), noop('fine')] } });
    assert.equal(events.length, 1);
    assert.equal(events[0]!.toolset, 'misc');
    assert.equal(events[0]!.tool, 'bad name!');
    assert.match(events[0]!.reason, /is not 1 to 55 letters, digits, "_" or "-"; rename it/);
  });

  it('skips a 56-character name and keeps a 55-character one', async () => {
    const long = 'a'.repeat(56);
    const ok = 'b'.repeat(55);
    const { events, names } = await skipped({ tools: { m: [noop(long), noop(ok)] } });
    assert.deepEqual(
      events.map((e) => e.tool),
      [long],
    );
    assert.deepEqual(names, [`m__${ok}`]);
  });

  it('skips the second of two tools with the same name in a toolset', async () => {
    const { events, names } = await skipped({ tools: { m: [noop('dup'), noop('dup')] } });
    assert.deepEqual(names, ['m__dup']);
    assert.equal(events.length, 1);
    assert.match(events[0]!.reason, /toolset "m" already has a tool named "dup"/);
  });

  it('skips a tool whose JSON Schema input is not an object schema', async () => {
    const { events, names } = await skipped({ tools: { m: [noop('text', { type: 'string' }), noop('ok')] } });
    assert.deepEqual(names, ['m__ok']);
    assert.match(events[0]!.reason, /input is not an object schema \(type: "string"\)/);
  });

  it('skips a tool whose model name would be longer than 64 characters', async () => {
    const { events } = await skipped({ tools: { [`t${'x'.repeat(20)}`]: [noop('y'.repeat(50))] } });
    assert.match(events[0]!.reason, /longer than 64 characters/);
  });

  it('skips bad tools of a toolset class and keeps the others working', async () => {
    const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
    assert.deepEqual(
      wardrik.tools().map((t) => t.name),
      ['orders__find_order'],
    );
    const tools = wardrik.container
      .resolve(Tokens.Catalog)
      .entries()
      .map((e) => e.tool);
    assert.deepEqual(await callTool(tools, { name: 'find_order' }), {
      status: 'ok',
      output: 'found',
      labels: ['confidential'],
    });
    const events = (await startupEvents(wardrik)).filter((e): e is ToolSkippedEvent => e.type === 'tool.skipped');
    assert.deepEqual(
      events.map((e) => [e.toolset, e.tool]),
      [
        ['orders', 'bad name!'],
        ['orders', 'find_order'],
        ['orders', 'string_input'],
      ],
    );
  });

  it('shows tools as toolset__tool', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', tools: { a: [noop('one')], b: [noop('two')] } });
    try {
      assert.deepEqual(
        wardrik.tools().map((t) => t.name),
        ['a__one', 'b__two'],
      );
    } finally {
      await wardrik.close();
    }
  });

  it('filters tools by toolset/tool patterns', async () => {
    const wardrik = await Wardrik.create({
      store: 'memory:',
      tools: { orders: [noop('find_order'), noop('refund_order')], users: [noop('find_user')] },
    });
    try {
      assert.deepEqual(
        wardrik.tools(['orders/*']).map((t) => t.name),
        ['orders__find_order', 'orders__refund_order'],
      );
      assert.deepEqual(
        wardrik.tools(['*/find_*']).map((t) => t.name),
        ['orders__find_order', 'users__find_user'],
      );
      assert.deepEqual(
        wardrik.tools(['users/find_user', 'orders/refund_order']).map((t) => t.name),
        ['orders__refund_order', 'users__find_user'],
      );
      assert.deepEqual(wardrik.tools([]), []);
    } finally {
      await wardrik.close();
    }
  });
});

describe('JSON Schema inputs that share an $id', () => {
  it('keeps both tools, each checked against its own schema', async () => {
    const schema = (property: string): JsonSchema => ({
      $id: 'https://example.com/args',
      type: 'object',
      properties: { [property]: { type: 'string' } },
      required: [property],
    });
    const { events, names } = await skipped({ tools: { m: [noop('a', schema('x')), noop('b', schema('y'))] } });
    assert.deepEqual(events, []);
    assert.deepEqual(names, ['m__a', 'm__b']);
    const b = noop('b', schema('y'));
    const answer = await callTool([b], { name: 'b', arguments: { x: 'wrong property' } });
    assert.match(answer.status === 'error' ? answer.message : '', /- y: is required/);
  });
});

describe('Model-facing names that would collide', () => {
  it('refuses a toolset name ending in "_", which could be shown as another toolset\'s tool', async () => {
    await assert.rejects(
      Wardrik.create({ store: 'memory:', tools: { srv_: [noop('x')] } }),
      /Toolset name "srv_" .*not ending in "_"/,
    );
  });

  it('skips the second of two tools the model would see under one name, with a tool.skipped event naming both', () => {
    // The catalog checks it too, whatever names reach it: a call must never run one of two tools at random.
    const catalog = new ToolCatalog();
    assert.deepEqual(catalog.set('srv_', [noop('x')]), []);
    const skipped = catalog.set('srv', [noop('_x'), noop('y')]);
    assert.deepEqual(
      skipped.map((s) => [s.toolset, s.tool]),
      [['srv', '_x']],
    );
    assert.match(skipped[0]!.reason, /"srv___x", is already that of tool "x" of toolset "srv_"/);
    assert.equal(catalog.get('srv___x')?.toolset, 'srv_');
    catalog.delete('srv');
    assert.equal(catalog.get('srv___x')?.toolset, 'srv_', "removing the other toolset leaves the first one's tool");
  });
});
