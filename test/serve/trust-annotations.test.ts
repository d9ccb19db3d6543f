import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, Tokens, Wardrik } from '../../src/index.js';
import { startRawServer } from '../mcp/fixtures/raw-http-server.js';
import { harness } from '../mcp/helpers.js';
import { modernClient, serving } from './helpers.js';

const KEY = 'io.modelcontextprotocol/trust-annotations';

/** A tool whose answers hold customer data, labelled `pii` (confidential where the policy names it). */
const customer = defineTool({
  name: 'customer',
  description: 'Reads a customer.',
  annotations: { readOnly: true, labels: ['pii'] },
  run: () => ({ name: 'Ada', email: 'ada@example.com' }),
});

/** A tool whose answers are public: no claim either way. */
const hours = defineTool({
  name: 'opening_hours',
  description: 'Says when the shop is open.',
  annotations: { readOnly: true, labels: ['public'] },
  run: () => '9 to 5',
});

describe('Labels on the wire as the draft MCP trust annotations', () => {
  it('the server marks outside results untrusted and confidential ones sensitive, to clients of both eras', async () => {
    const s = await serving({ tools: ['orders/*', 'crm/*'] }, { policy: { confidential: ['pii'] } });
    s.wardrik.container.resolve(Tokens.Catalog).set('crm', [customer, hours]);
    try {
      const legacy = await s.client();
      const modern = await modernClient(s.url);
      const calls = [
        ['orders__read_web', {}],
        ['crm__customer', {}],
        ['orders__find_order', { id: 'o-1' }],
        ['crm__opening_hours', {}],
      ] as const;
      for (const era of ['2025-11-25', '2026-07-28']) {
        const metas = [];
        for (const [name, args] of calls) {
          const result =
            era === '2025-11-25'
              ? await legacy.callTool({ name, arguments: args })
              : await modern.call(name, args as Record<string, unknown>);
          metas.push(result._meta as Record<string, unknown>);
        }
        assert.deepEqual(
          metas.map((meta) => meta[KEY]),
          // The app's own data is confidential unless its tool says public (the defaults).
          [{ untrusted: true }, { sensitive: true }, { sensitive: true }, undefined],
          era,
        );
        // Wardrik's own labels still go beside them, every one.
        assert.deepEqual(
          metas.map((meta) => meta['wardrik/labels']),
          [['outside'], ['pii', 'confidential'], ['confidential'], ['public']],
          era,
        );
      }
      await modern.close();
    } finally {
      await s.close();
    }
  });

  it("a Wardrik hub reads a Wardrik server's: outside arrives as outside, its confidential data as confidential", async () => {
    const s = await serving({ tools: ['orders/*', 'crm/*'] }, { policy: { confidential: ['pii'] } });
    s.wardrik.container.resolve(Tokens.Catalog).set('crm', [customer]);
    // The hub's own policy does not name `pii`: only the annotation tells it the data is confidential.
    const hub = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      mcp: { servers: { svc: { transport: { http: { url: s.url } }, trusted: true } }, reconcileMs: Infinity },
      policy: { rules: [{ match: 'svc/*', action: 'allow' }] },
    });
    try {
      const run = (id: string, name: string, args: unknown) =>
        hub.runner.run({ agent: 'a', run: `r-${id}`, call: { id, name, arguments: args } });
      assert.deepEqual((await run('c1', 'svc__orders__read_web', {})).labels, ['outside']);
      assert.deepEqual([...(await run('c2', 'svc__crm__customer', {})).labels].sort(), ['confidential', 'pii']);
      assert.deepEqual((await run('c3', 'svc__orders__find_order', { id: 'o-1' })).labels, ['confidential']);
    } finally {
      await hub.close();
      await s.close();
    }
  });

  it('the hub honours them from any server, trusted or not; bounded, unknown values ignored, no label removed', async () => {
    const metas: Record<string, { result?: unknown; block?: unknown }> = {
      untrusted: { result: { [KEY]: { untrusted: true } } },
      sensitive_block: { block: { [KEY]: { sensitive: true } } },
      both: { result: { [KEY]: { sensitive: true, untrusted: true, evidenceRef: { type: 'x', digest: 'sha256:0' } } } },
      junk: { result: { [KEY]: { untrusted: 'yes', sensitive: 1, outside: true } }, block: { [KEY]: [true] } },
      not_object: { result: { [KEY]: 'untrusted' }, block: { [KEY]: null } },
      no_removal: { result: { 'wardrik/labels': ['outside'], [KEY]: { untrusted: false, sensitive: false } } },
    };
    const server = await startRawServer({
      tools: Object.keys(metas).map((name) => ({
        name,
        description: `The ${name} tool.`,
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
      })),
      onCall(call, res) {
        const { result, block } = metas[call.name]!;
        const content = [{ type: 'text', text: 'fine', ...(block === undefined ? {} : { _meta: block }) }];
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(
            JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { content, ...(result ? { _meta: result } : {}) } }),
          );
      },
    });
    try {
      for (const trusted of [true, false]) {
        const h = await harness(
          { servers: { raw: { transport: { http: { url: server.url } }, trusted } } },
          {
            policy: { rules: [{ match: 'raw/*', action: 'allow' }] },
          },
        );
        try {
          await h.toolsChanged('raw', Object.keys(metas).length);
          const labels: Record<string, string[]> = {};
          for (const name of Object.keys(metas)) {
            const answer = await h.call(`raw__${name}`, {}, { run: `r-${name}` });
            assert.equal(answer.status, 'ok', JSON.stringify(answer));
            labels[name] = [...answer.labels].sort();
          }
          // An untrusted server's results carry `outside` whatever they say; a trusted one's are the app's own
          // data, `confidential`, unless they say `outside`.
          const own = trusted ? ['confidential'] : ['outside'];
          const sorted = (list: string[]) => [...new Set(list)].sort();
          assert.deepEqual(
            labels,
            {
              untrusted: ['outside'],
              sensitive_block: sorted(['confidential', ...own]),
              both: ['confidential', 'outside'],
              junk: own,
              not_object: own,
              no_removal: ['outside'],
            },
            `trusted: ${trusted}`,
          );
        } finally {
          await h.wardrik.close();
        }
      }
    } finally {
      await server.close();
    }
  });
});
