import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError, MemoryStore, type ToolSkippedEvent, type WardrikEvent } from '../../src/index.js';
import { startRawServer, type RawServer } from './fixtures/raw-http-server.js';
import { harness, stdio } from './helpers.js';

const CATASTROPHIC = '^(a+)+$';

/** A raw server whose tools/call answers `ok` for any tool. */
function rawServer(tools: readonly object[]): Promise<RawServer> {
  return startRawServer({
    tools,
    onCall(call, res) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: call.id,
          result: { content: [{ type: 'text', text: `ran ${call.name}` }] },
        }),
      );
    },
  });
}

function tool(name: string, properties: object = {}, extra: object = {}): object {
  return {
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties },
    annotations: { readOnlyHint: true },
    ...extra,
  };
}

const skipped = (events: readonly WardrikEvent[]): ToolSkippedEvent[] =>
  events.filter((e): e is ToolSkippedEvent => e.type === 'tool.skipped');
const warnings = (events: readonly WardrikEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'warning' ? [e.message] : []));

describe('A server with schemas that would stall the event loop', () => {
  it('skips a tool whose input pattern can backtrack without bound, naming the tool, and offers the rest', async () => {
    const server = await rawServer([
      tool('evil', { name: { type: 'string', pattern: CATASTROPHIC } }),
      tool('nested', { tags: { type: 'object', patternProperties: { '^(a|ab)*$': { type: 'string' } } } }),
      tool('fine', { name: { type: 'string', pattern: '^[a-z]+$' } }),
    ]);
    const h = await harness({ servers: { raw: { transport: { http: { url: server.url } } } } });
    try {
      await h.toolsChanged('raw', 1);
      assert.deepEqual(
        skipped(h.events).map((e) => [e.toolset, e.tool]),
        [
          ['raw', 'evil'],
          ['raw', 'nested'],
        ],
      );
      assert.match(
        skipped(h.events)[0]!.reason,
        /pattern "\^\(a\+\)\+\$" is refused: it repeats a group that holds a repeat/,
      );
      assert.match(skipped(h.events)[1]!.reason, /patternProperties key "\^\(a\|ab\)\*\$" is refused/);
      // The 30-character argument that froze the process for seconds never meets the pattern.
      const answer = await h.call('raw__evil', { name: `${'a'.repeat(30)}!` });
      assert.equal(answer.status === 'error' && answer.code, 'tool_not_found');
      assert.deepEqual(await h.call('raw__fine', { name: 'abc' }), {
        status: 'ok',
        output: 'ran fine',
        labels: ['outside'],
      });
      const refused = await h.call('raw__fine', { name: 'ABC' });
      assert.match(refused.status === 'error' ? refused.message : '', /name: must match pattern/);
    } finally {
      await h.close();
      await server.close();
    }
  });

  it('skips a tool whose output schema has an unsafe pattern, since the SDK would run it on each result', async () => {
    const server = await rawServer([
      tool('out', {}, { outputSchema: { type: 'object', properties: { id: { type: 'string', pattern: '(x*)*y' } } } }),
      tool('fine'),
    ]);
    const h = await harness({ servers: { raw: { transport: { http: { url: server.url } } } } });
    try {
      await h.toolsChanged('raw', 1);
      assert.deepEqual(
        skipped(h.events).map((e) => [e.tool, /output schema's pattern "\(x\*\)\*y" is refused/.test(e.reason)]),
        [['out', true]],
      );
    } finally {
      await h.close();
      await server.close();
    }
  });

  it('checks structured results against the output schema on the first result, and refuses ones that do not match', async () => {
    const outputSchema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const answers: Record<string, object> = {
      good: { structuredContent: { n: 1 } },
      bad: { structuredContent: { n: 'one' } },
      none: {},
    };
    const server = await startRawServer({
      tools: ['good', 'bad', 'none'].map((name) => tool(name, {}, { outputSchema })),
      onCall(call, res) {
        const result = { content: [{ type: 'text', text: 'x' }], ...answers[call.name] };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result }));
      },
    });
    const h = await harness({ servers: { raw: { transport: { http: { url: server.url } } } } });
    try {
      await h.toolsChanged('raw', 3);
      assert.deepEqual(await h.call('raw__good'), { status: 'ok', output: { n: 1 }, labels: ['outside'] });
      const bad = await h.call('raw__bad');
      assert.match(
        bad.status === 'error' ? bad.message : '',
        /structured content that does not match its output schema \(data\/n must be integer\)/,
      );
      const none = await h.call('raw__none');
      assert.match(
        none.status === 'error' ? none.message : '',
        /has an output schema but answered without structured content/,
      );
    } finally {
      await h.close();
      await server.close();
    }
  });

  it('fails the connection on a listing that is not valid MCP, saying why', async () => {
    const server = await rawServer([{ description: 'no name' }]);
    const h = await harness({ servers: { raw: { transport: { http: { url: server.url } } } } });
    try {
      await h.until(
        (e) =>
          e.type === 'warning' &&
          /tools\/list answer is not valid MCP: tools\[0\] is not an object with a "name"/.test(e.message),
      );
    } finally {
      await h.close();
      await server.close();
    }
  });

  it('offers at most maxTools of a server listing 20,000 tools, with a warning naming the server', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) =>
      tool(`t${i}`, { q: { type: 'string', maxLength: 10 + (i % 50) } }),
    );
    const server = await rawServer(many);
    const h = await harness({ servers: { raw: { transport: { http: { url: server.url } } } } });
    try {
      await h.toolsChanged('raw', 1_000);
      assert.equal(h.wardrik.tools(['raw/*']).length, 1_000);
      assert.match(
        warnings(h.events).join('\n'),
        /MCP server "raw" of hub "mcp" lists 20000 tools, more than maxTools \(1000\); only the first 1000 are offered/,
      );
      assert.deepEqual(await h.call('raw__t999', { q: 'x' }), {
        status: 'ok',
        output: 'ran t999',
        labels: ['outside'],
      });
      assert.equal((await h.call('raw__t1000', { q: 'x' })).status, 'error');
    } finally {
      await h.close();
      await server.close();
    }
  });

  it('offers all 20,000 when maxTools allows, compiling a schema only for the tool called', async () => {
    const many = Array.from({ length: 20_000 }, (_, i) => tool(`t${i}`, { q: { type: 'string', maxLength: i + 1 } }));
    const server = await rawServer(many);
    const h = await harness({ servers: { raw: { transport: { http: { url: server.url } } } }, maxTools: 20_000 });
    try {
      await h.toolsChanged('raw', 20_000);
      const refused = await h.call('raw__t2', { q: 'four' });
      assert.match(refused.status === 'error' ? refused.message : '', /q: must NOT have more than 3 characters/);
      assert.equal((await h.call('raw__t19999', { q: 'four' })).status, 'ok');
    } finally {
      await h.close();
      await server.close();
    }
  });

  it('keeps the definitions of tools listed the same again (no rework on list_changed)', async () => {
    const h = await harness({ servers: { fx: { transport: stdio(), gated: false } } });
    try {
      await h.toolsChanged('fx', 12);
      const echo = () =>
        h
          .hub()
          .tools({} as never, { servers: 'fx' })
          .find((entry) => entry.name === 'fx__echo')!.tool;
      const before = echo();
      const from = h.mark();
      await h.call('fx__bump_tools');
      await h.toolsChanged('fx', 13, from);
      assert.equal(echo(), before, 'echo was listed the same, so it is the same definition');
    } finally {
      await h.close();
    }
  });
});

describe('Credentials of runtime servers', () => {
  it('refuses at add a runtime server naming a credential not in runtimeCredentials (none by default)', async () => {
    const h = await harness({}, { store: new MemoryStore() });
    try {
      await assert.rejects(
        h.hub().add('api', { transport: { http: { url: 'http://127.0.0.1:9/mcp' } }, credential: 'DATABASE_PASSWORD' }),
        (error: Error) =>
          error instanceof ConfigurationError &&
          /names the credential "DATABASE_PASSWORD", which servers added at runtime may not use \(allowed: none\)/.test(
            error.message,
          ),
      );
      assert.deepEqual(h.hub().servers(), []);
    } finally {
      await h.close();
    }
  });

  it('lets a runtime server use an allowed credential, and refuses others by name', async () => {
    const server = await rawServer([tool('fine')]);
    const h = await harness({ runtimeCredentials: ['LINEAR_TOKEN'] }, { store: new MemoryStore() });
    process.env.LINEAR_TOKEN = 'linear-secret';
    try {
      await h.hub().add('linear', { transport: { http: { url: server.url } }, credential: 'LINEAR_TOKEN' });
      await h.toolsChanged('linear', 1);
      await assert.rejects(
        h.hub().add('other', { transport: { http: { url: server.url } }, credential: 'HOME' }),
        /"HOME".*\(allowed: LINEAR_TOKEN\)/,
      );
    } finally {
      delete process.env.LINEAR_TOKEN;
      await h.close();
      await server.close();
    }
  });

  it('does not start a stored runtime server whose credential this hub does not allow', async () => {
    const store = new MemoryStore();
    await store.putMcpServer({
      hub: 'mcp',
      name: 'sneaky',
      options: { transport: { http: { url: 'http://127.0.0.1:9/mcp' } }, credential: 'DATABASE_PASSWORD' },
      updatedAt: 1,
    });
    const h = await harness({}, { store });
    try {
      assert.deepEqual(h.hub().servers(), []);
      assert.match(
        warnings(h.events).join('\n'),
        /stored MCP server "sneaky" is not started here: .*"DATABASE_PASSWORD"/,
      );
    } finally {
      await h.close();
    }
  });

  it('still lets a configured server name any credential', async () => {
    const h = await harness({ servers: { fx: { transport: stdio(), credential: 'HOME' } } });
    try {
      await h.toolsChanged('fx', 12);
    } finally {
      await h.close();
    }
  });
});

describe('Server names that would collide', () => {
  it('refuses a server name ending in "_", whose tools would be shown under the names of another\'s', async () => {
    await assert.rejects(
      harness({ servers: { srv_: { transport: stdio() } } }),
      (error: Error) =>
        error instanceof ConfigurationError && /MCP server name "srv_" .*not ending in "_"/.test(error.message),
    );
  });

  it("offers server srv's tool _x as srv___x, which no other server can be shown as", async () => {
    const server = await rawServer([tool('_x')]);
    const h = await harness({ servers: { srv: { transport: { http: { url: server.url } } } } });
    try {
      await h.toolsChanged('srv', 1);
      await assert.rejects(h.hub().add('srv_', { transport: { http: { url: server.url } } }), /not ending in "_"/);
      assert.deepEqual(await h.call('srv___x'), { status: 'ok', output: 'ran _x', labels: ['outside'] });
    } finally {
      await h.close();
      await server.close();
    }
  });
});
