import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Wardrik } from '../../src/index.js';
import { cedarSchema } from '../../src/policy/cedar-schema.js';
import { ToolCatalog } from '../../src/tools/catalog.js';
import { describeToolset } from '../../src/tools/toolset.js';
import { wardrik } from '../cli/helpers.js';
import { OrderTools, POLICIES } from './cedar-toolset.js';

const MODULE = fileURLToPath(new URL('./cedar-toolset.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wardrik-cedar-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const policies = join(dir, 'orders.cedar');
writeFileSync(policies, POLICIES);

const CONTEXT = (args: unknown) => ({
  type: 'Record',
  attributes: {
    run: { type: 'String' },
    labels: { type: 'Set', element: { type: 'String' } },
    annotations: {
      type: 'Record',
      attributes: {
        readOnly: { type: 'Boolean' },
        destructive: { type: 'Boolean' },
        idempotent: { type: 'Boolean' },
        openWorld: { type: 'Boolean' },
        gated: { type: 'Boolean', required: false },
      },
    },
    arguments: args,
    budget: {
      type: 'Record',
      attributes: {
        spentUsd: { type: 'Extension', name: 'decimal' },
        limitUsd: { type: 'Extension', name: 'decimal' },
      },
      required: false,
    },
  },
});

/** The schema of OrderTools, written out by hand. */
const EXPECTED = {
  Wardrik: {
    entityTypes: {
      Person: {},
      Agent: {
        memberOfTypes: ['Person'],
        shape: { type: 'Record', attributes: { onBehalfOf: { type: 'String', required: false } } },
      },
      Resource: { shape: { type: 'Record', attributes: { name: { type: 'String' } } } },
      Tool: {},
    },
    actions: {
      orders: {},
      'orders/find': {
        memberOf: [{ id: 'orders' }],
        appliesTo: {
          principalTypes: ['Agent'],
          resourceTypes: ['Tool'],
          context: CONTEXT({ type: 'Record', attributes: { orderId: { type: 'String' } } }),
        },
      },
      'orders/refund': {
        memberOf: [{ id: 'orders' }],
        appliesTo: {
          principalTypes: ['Agent'],
          resourceTypes: ['Resource'],
          context: CONTEXT({
            type: 'Record',
            attributes: {
              amount: { type: 'Extension', name: 'decimal' },
              items: { type: 'Long' },
              orderId: { type: 'String' },
              rush: { type: 'Boolean', required: false },
              tags: { type: 'Set', element: { type: 'String' }, required: false },
            },
          }),
        },
      },
    },
  },
};

describe('The Cedar schema of a toolset', () => {
  it("types each tool's arguments, resources and context", () => {
    const described = describeToolset(OrderTools);
    const catalog = new ToolCatalog();
    catalog.set(described.name, described.tools);
    assert.deepEqual(JSON.parse(JSON.stringify(cedarSchema(catalog.entries()).json)), EXPECTED);
  });

  it('leaves out what Cedar cannot type, and nesting past its depth', () => {
    const tool = {
      inputSchema: {
        type: 'object',
        properties: {
          anything: {},
          either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          __entity: { type: 'string' },
          nested: { type: 'object', properties: { ok: { type: 'string' } }, required: ['ok'] },
        },
        required: ['nested'],
      },
      annotations: {},
    };
    const { argumentTypes } = cedarSchema([{ ref: 'x/y', toolset: 'x', tool }]);
    assert.deepEqual(argumentTypes.get('x/y'), {
      type: 'Record',
      attributes: { nested: { type: 'Record', attributes: { ok: { type: 'String' } } } },
    });
  });
});

describe('wardrik policy, as a child process', () => {
  it("policy schema prints the schema of the module's toolsets", async () => {
    const result = await wardrik(['policy', 'schema', MODULE, '--json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), EXPECTED);
  });

  it('policy test prints pass or fail per row and exits 7 on a mismatch', async () => {
    const rows = [
      {
        tool: 'orders/refund',
        arguments: { orderId: 'o-1', amount: 50, items: 1 },
        agent: 'support',
        expected: 'allow',
      },
      {
        tool: 'orders/refund',
        arguments: { orderId: 'o-1', amount: 900, items: 1 },
        agent: 'support',
        expected: 'deny',
      },
      { tool: 'orders/find', arguments: { orderId: 'o-1' }, agent: 'reports', onBehalfOf: 'dana', expected: 'allow' },
    ];
    const table = join(dir, 'ok.jsonl');
    writeFileSync(table, rows.map((row) => JSON.stringify(row)).join('\n'));
    const passing = await wardrik(['policy', 'test', table, '--module', MODULE, '--policies', policies]);
    assert.equal(passing.code, 0, passing.stderr);
    assert.match(passing.stdout, /pass {2}row 1 {2}orders\/refund: allow {2}by cedar policy "support-small-refunds"/);
    assert.match(passing.stdout, /pass {2}row 3 {2}orders\/find: allow {2}by cedar policy "dana-reads"/);
    assert.match(passing.stdout, /3 passed, 0 failed/);

    const wrong = join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify([rows[0], { ...rows[0], labels: ['outside'] }]));
    const failing = await wardrik(['policy', 'test', wrong, '--module', MODULE, '--policies', policies]);
    assert.equal(failing.code, 7);
    assert.match(
      failing.stdout,
      /FAIL {2}row 2 {2}orders\/refund: ask \(expected allow\) {2}by cedar: no policy permits/,
    );
    assert.match(failing.stderr, /1 of 2 rows/);
  });

  it('policy test refuses an invalid policy, naming the line', async () => {
    const bad = join(dir, 'bad.cedar');
    writeFileSync(
      bad,
      'permit (principal, action, resource);\npermit (principal, action, resource) when { context.nope };\n',
    );
    const table = join(dir, 'one.jsonl');
    writeFileSync(table, JSON.stringify({ tool: 'orders/find', arguments: { orderId: 'o' }, expected: 'allow' }));
    const result = await wardrik(['policy', 'test', table, '--module', MODULE, '--policies', bad]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /line 2, policy "policy1"/);
  });

  it('wardrik inbox shows the policy that asked', async () => {
    const file = join(dir, 'inbox.db');
    const app = await Wardrik.create({
      store: `sqlite:${file}`,
      recoverMs: Infinity,
      toolsets: [OrderTools],
      policy: { cedar: { policies }, rules: [{ match: 'orders/find', action: 'ask', approvers: ['leads'] }] },
    });
    try {
      const run = (id: string, name: string, args: unknown) =>
        app.runner.run({ agent: 'support', run: 'r', call: { id, name, arguments: args } });
      assert.equal((await run('a', 'orders__refund', { orderId: 'o-1', amount: 200, items: 1 })).status, 'parked');
      assert.equal((await run('b', 'orders__find', { orderId: 'o-1' })).status, 'parked');
    } finally {
      await app.close();
    }
    const listed = await wardrik(['inbox', '--store', `sqlite:${file}`]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /decided by: cedar: no policy permits this call, so it asks a person/);
    assert.match(listed.stdout, /decided by: rule 1 \(orders\/find ask\)/);
    const json = await wardrik(['inbox', '--store', `sqlite:${file}`, '--json']);
    const items = (JSON.parse(json.stdout) as { items: { call: string; decidedBy?: string }[] }).items;
    assert.deepEqual(items.map((item) => [item.call, item.decidedBy]).sort(), [
      ['a', 'cedar: no policy permits this call, so it asks a person'],
      ['b', 'rule 1 (orders/find ask)'],
    ]);
  });
});
