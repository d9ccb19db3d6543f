import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigurationError,
  ConflictError,
  defineTool,
  MemoryStore,
  NotFoundError,
  Tokens,
  Wardrik,
  type CapabilityProvider,
  type CredentialProvider,
} from '../../src/index.js';
import { container as rootContainer } from 'tsyringe';
import { startHttpFixture } from './fixtures/http-server.js';
import { alive, FAST, harness, stdio } from './helpers.js';
import { eventually } from '../eventually.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { manualTime } from '../../src/testing/index.js';

describe('Runtime MCP servers', () => {
  it('add connects a server and offers its tools; servers() is sorted', async () => {
    const h = await harness({ servers: { zeta: { transport: stdio() } } });
    try {
      await h.hub().add('alpha', { transport: stdio(), only: ['echo'] });
      await h.toolsChanged('alpha', 1);
      assert.deepEqual(h.hub().servers(), ['alpha', 'zeta']);
      assert.deepEqual(await h.call('alpha__echo', { text: 'rt' }), {
        status: 'ok',
        output: 'echo: rt',
        labels: ['outside'],
      });
      assert.deepEqual(
        h
          .hub()
          .status()
          .map((s) => [s.name, s.runtime, s.state, s.tools]),
        [
          ['alpha', true, 'connected', 1],
          ['zeta', false, 'connected', 12],
        ],
      );
    } finally {
      await h.close();
    }
  });

  it('add takes data only: a function is refused with a clear error', async () => {
    const h = await harness({});
    try {
      await assert.rejects(
        h.hub().add('fn', { transport: stdio(), only: [(() => 'x') as unknown as string] }),
        (error: Error) => error instanceof ConfigurationError && /is a function.*data only/.test(error.message),
      );
      await assert.rejects(
        h.hub().add('map', { transport: { http: { url: 'http://x.test/' } }, extra: new Map() } as never),
        ConfigurationError,
      );
      await assert.rejects(h.hub().add('bad name!', { transport: stdio() }), /not 1 to 55/);
      await assert.rejects(
        h
          .hub()
          .add('hdr', { transport: { http: { url: 'http://x.test/', headers: { Authorization: 'Bearer leak' } } } }),
        /name a credential instead/,
      );
      assert.deepEqual(h.hub().servers(), []);
    } finally {
      await h.close();
    }
  });

  it('remove closes the connection, reaps the process and takes the tools away', async () => {
    const h = await harness({});
    try {
      await h.hub().add('tmp', { transport: stdio() });
      await h.toolsChanged('tmp', 12);
      const pid = h.hub().pid('tmp')!;
      const from = h.mark();
      await h.hub().remove('tmp');
      assert.equal(alive(pid), false);
      assert.deepEqual(h.hub().servers(), []);
      assert.equal(h.wardrik.tools(['tmp/*']).length, 0);
      await h.toolsChanged('tmp', 0, from);
    } finally {
      await h.close();
    }
  });

  it('remove throws not_found for an unknown server, and refuses a configured one', async () => {
    const h = await harness({ servers: { fixed: { transport: stdio() } } });
    try {
      await assert.rejects(
        h.hub().remove('ghost'),
        (error: Error) => error instanceof NotFoundError && (error as NotFoundError).code === 'not_found',
      );
      await assert.rejects(
        h.hub().remove('fixed'),
        (error: Error) => error instanceof ConflictError && /configured/.test(error.message),
      );
      await assert.rejects(h.hub().add('fixed', { transport: stdio() }), ConflictError);
      assert.deepEqual(h.hub().servers(), ['fixed']);
    } finally {
      await h.close();
    }
  });

  it('refuses a server name that a toolset already has', async () => {
    const tool = defineTool({ name: 'ping', description: 'Ping.', run: () => 'pong' });
    await assert.rejects(
      Wardrik.create({
        store: 'memory:',
        recoverMs: Infinity,
        tools: { orders: [tool] },
        mcp: { ...FAST, servers: { orders: { transport: stdio() } } },
      }),
      /has the name of tools\.orders/,
    );
    const h = await harness({}, { tools: { orders: [tool] } });
    try {
      await assert.rejects(h.hub().add('orders', { transport: stdio() }), /tools\.orders has that name/);
    } finally {
      await h.close();
    }
  });

  it('reaches another node that shares the store on reconcile, and leaves it on remove', async () => {
    const store = new MemoryStore();
    const a = await harness({}, { store });
    const b = await harness({}, { store });
    try {
      await a.hub().add('shared', { transport: stdio(), only: ['echo', 'add'] });
      assert.deepEqual(b.hub().servers(), []);
      await b.hub().reconcile();
      assert.deepEqual(b.hub().servers(), ['shared']);
      await b.toolsChanged('shared', 2);
      assert.deepEqual(await b.call('shared__echo', { text: 'from b' }), {
        status: 'ok',
        output: 'echo: from b',
        labels: ['outside'],
      });
      const record = (await store.listMcpServers('mcp'))[0]!;
      assert.deepEqual(record.options, { transport: stdio(), only: ['echo', 'add'] });
      const pidB = b.hub().pid('shared')!;
      await a.hub().remove('shared');
      await b.hub().reconcile();
      assert.deepEqual(b.hub().servers(), []);
      assert.equal(alive(pidB), false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reconciles on its own every reconcileMs', async () => {
    const store = new MemoryStore();
    const a = await harness({}, { store });
    const b = await harness({ reconcileMs: 30 }, { store });
    try {
      await a.hub().add('later', { transport: stdio() });
      await b.toolsChanged('later', 12);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('starts the runtime servers already in the store when it starts', async () => {
    const store = new MemoryStore();
    const a = await harness({}, { store });
    await a.hub().add('kept', { transport: stdio() });
    await a.close();
    const b = await harness({}, { store });
    try {
      assert.deepEqual(b.hub().servers(), ['kept']);
      assert.equal(b.wardrik.tools(['kept/*']).length, 12);
    } finally {
      await b.close();
    }
  });

  it('never stores the secret a credential names', async () => {
    const store = new MemoryStore();
    const fixture = await startHttpFixture();
    const seen: string[] = [];
    const credentials: CredentialProvider = {
      resolve(name, context) {
        seen.push(`${context.hub}/${context.server}/${name}`);
        return 'top-secret';
      },
    };
    const container = rootContainer.createChildContainer();
    container.register(Tokens.Credentials, { useValue: credentials });
    const h = await harness({ runtimeCredentials: ['API_TOKEN'] }, { store, container });
    try {
      await h.hub().add('api', { transport: { http: { url: fixture.url } }, credential: 'API_TOKEN' });
      await h.toolsChanged('api', 12);
      assert.deepEqual(seen, ['mcp/api/API_TOKEN']);
      assert.ok(fixture.requests.every((r) => r.authorization === 'Bearer top-secret'));
      assert.ok(!JSON.stringify(await store.listMcpServers('mcp')).includes('top-secret'));
      assert.ok(!JSON.stringify(h.events).includes('top-secret'));
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('with an egress check, a stored command from another node is not started', async () => {
    const store = new MemoryStore();
    const a = await harness({}, { store });
    const b = await harness({ check: () => ({ ok: true }) }, { store });
    try {
      await a.hub().add('cmd', { transport: stdio() });
      await b.hub().reconcile();
      assert.deepEqual(b.hub().servers(), []);
      await b.until((e) => e.type === 'warning' && /runs a command/.test(e.message));
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('Several MCP hubs, and the hub as a capability provider', () => {
  it('runs hubs side by side by name, each in the container', async () => {
    const h = await harness([
      { servers: { one: { transport: stdio() } } },
      { name: 'partners', servers: { two: { transport: stdio() } } },
    ]);
    try {
      assert.equal(h.wardrik.mcp().name, 'mcp');
      assert.deepEqual(h.wardrik.mcp('partners').servers(), ['two']);
      assert.throws(() => h.wardrik.mcp('nope'), /No MCP hub named "nope"/);
      const providers = h.wardrik.container.resolveAll(Tokens.Capabilities) as CapabilityProvider<{
        servers: string[];
      }>[];
      assert.deepEqual(providers.map((p) => p.name).sort(), ['mcp', 'partners']);
      assert.equal(h.wardrik.container.resolve(Tokens.Mcp).name, 'mcp');
      const two = h.wardrik.mcp('partners').tools({ agent: 'a' }, { servers: ['two'] });
      assert.equal(two.length, 12);
      assert.ok(two.every((entry) => entry.toolset === 'two' && entry.name.startsWith('two__')));
      assert.throws(() => h.wardrik.mcp().tools({}, { servers: 'two' }), NotFoundError);
      const toolsChanged = h.events
        .filter((e) => e.type === 'tools.changed')
        .map((e) => (e.type === 'tools.changed' ? `${e.mcp}/${e.server}` : ''))
        .sort();
      assert.deepEqual(toolsChanged, ['mcp/one', 'partners/two']);
    } finally {
      await h.close();
    }
  });

  it('refuses two hubs with one name, and one server name in two hubs', async () => {
    await assert.rejects(
      Wardrik.create({ store: 'memory:', recoverMs: Infinity, mcp: [{ servers: {} }, { servers: {} }] }),
      /Two MCP hubs are named "mcp"/,
    );
    await assert.rejects(
      Wardrik.create({
        store: 'memory:',
        recoverMs: Infinity,
        mcp: [
          { ...FAST, servers: { x: { transport: stdio() } } },
          { ...FAST, name: 'b', servers: { x: { transport: stdio() } } },
        ],
      }),
      /toolset names must be unique/,
    );
  });

  it('checks server options at create, naming the server and the fix', async () => {
    await assert.rejects(
      Wardrik.create({
        store: 'memory:',
        recoverMs: Infinity,
        mcp: { servers: { gh: { transport: { ws: {} } } as never } },
      }),
      /MCP server "gh".*transport must be/,
    );
    await assert.rejects(
      Wardrik.create({
        store: 'memory:',
        recoverMs: Infinity,
        mcp: { servers: { gh: { transport: stdio(), credential: 'not a name' } } },
      }),
      /credential names a secret/,
    );
    await assert.rejects(
      Wardrik.create({ store: 'memory:', recoverMs: Infinity, mcp: { reconcileMs: -1 } }),
      /reconcileMs/,
    );
  });

  it('close ends every hub: processes reaped and timers cleared', async () => {
    const time = manualTime(Date.now());
    const h = await harness(
      [
        { servers: { one: { transport: stdio() } }, reconcileMs: 10 },
        { name: 'b', servers: { two: { transport: stdio() } } },
      ],
      { container: manualTimeContainer(time) },
    );
    const pids = [h.wardrik.mcp().pid('one')!, h.wardrik.mcp('b').pid('two')!];
    assert.ok(time.pending > 0, 'the reconcile timer is set');
    await h.close();
    await eventually('the processes to be gone', () => pids.every((pid) => !alive(pid)));
    assert.equal(time.pending, 0, 'no timer is left set');
  });
});
