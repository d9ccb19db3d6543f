import 'reflect-metadata';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { container as rootContainer, type DependencyContainer, type InjectionToken } from 'tsyringe';
import {
  ConfigurationError,
  defineTool,
  EventBus,
  MemoryStore,
  ModelRegistry,
  Policy,
  Tokens,
  Wardrik,
  type Clock,
  type CredentialProvider,
  type Decision,
  type EventInput,
  type WardrikOptions,
} from '../../src/index.js';
import { manualTime, scriptedModel } from '../../src/testing/index.js';
import { eventually } from '../eventually.js';
import { startHttpFixture } from '../mcp/fixtures/http-server.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-seams-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A tool that only reads, so every policy's defaults allow it; counts its runs. */
function lookup() {
  const ran = { count: 0 };
  const tool = defineTool({
    name: 'lookup',
    description: 'Looks something up.',
    annotations: { readOnly: true },
    run: () => {
      ran.count++;
      return 'found';
    },
  });
  return { ran, tool };
}

/** An app's container holding `value` under `token`. */
function holding<T>(token: InjectionToken<T>, value: T): DependencyContainer {
  const app = rootContainer.createChildContainer();
  app.register(token, { useValue: value });
  return app;
}

/** A Wardrik on the memory store (unless `options` say) with tool `t/lookup`, started from `container`. */
async function withTool(container: DependencyContainer, options: Omit<WardrikOptions, 'container'> = {}) {
  const { ran, tool } = lookup();
  const wardrik = await Wardrik.create({
    store: 'memory:',
    recoverMs: Infinity,
    ...options,
    container,
    tools: { t: [tool] },
  });
  const call = (id: string) =>
    wardrik.runner.run({ agent: 'a', run: 'r1', call: { id, name: 't__lookup', arguments: {} } });
  return { wardrik, ran, call };
}

describe('The seams: a service the app registers under its token is the one Wardrik uses', () => {
  it('Tokens.Clock: every time Wardrik writes or stamps comes from the app clock', async () => {
    const clock: Clock = { now: () => 1_700_000_000_000 };
    const { wardrik, call } = await withTool(holding(Tokens.Clock, clock));
    try {
      const times: number[] = [];
      const subscription = wardrik.events$.subscribe((event) => times.push(event.time));
      assert.equal((await call('c1')).status, 'ok');
      subscription.unsubscribe();
      assert.ok(times.length > 0);
      assert.ok(
        times.every((time) => time === 1_700_000_000_000),
        JSON.stringify(times),
      );
      const record = await wardrik.container.resolve(Tokens.Store).getCall('r1', 'c1');
      assert.equal(record?.updatedAt, 1_700_000_000_000);
      assert.equal(wardrik.container.resolve(Tokens.Clock), clock);
    } finally {
      await wardrik.close();
    }
  });

  it("Tokens.Timers: Wardrik's retention passes run when the app's timers fire, and not before", async () => {
    const time = manualTime(Date.UTC(2026, 0, 1));
    const app = rootContainer.createChildContainer();
    app.register(Tokens.Clock, { useValue: time });
    app.register(Tokens.Timers, { useValue: time });
    const store = new MemoryStore();
    const { wardrik, call } = await withTool(app, { store, retention: { finishedAfterMs: 1_000, everyMs: 60_000 } });
    try {
      assert.equal((await call('c1')).status, 'ok');
      await time.advance(59_999);
      assert.equal((await store.listCalls({ run: 'r1' })).length, 1, 'no pass before everyMs has passed');
      await time.advance(1);
      await eventually('the retention pass that the manual timer fired to delete the finished run', async () =>
        (await store.listCalls({ run: 'r1' })).length === 0 ? true : undefined,
      );
      assert.equal(wardrik.container.resolve(Tokens.Timers), time);
    } finally {
      await wardrik.close();
    }
  });

  it('Tokens.Events: every event goes to the app bus, and events$ is its stream', async () => {
    class RecordingBus extends EventBus {
      readonly types: string[] = [];

      override emit(input: EventInput): void {
        this.types.push(input.type);
        super.emit(input);
      }
    }
    const bus = new RecordingBus({ now: () => 7 });
    const { wardrik, call } = await withTool(holding(Tokens.Events, bus));
    try {
      const seen: string[] = [];
      const subscription = wardrik.events$.subscribe((event) => seen.push(event.type));
      await call('c1');
      subscription.unsubscribe();
      assert.deepEqual(bus.types, [
        'recovery.finished',
        'tool.called',
        'tool.decided',
        'label.added',
        'tool.succeeded',
      ]);
      // The start-up recovery pass's report went to those listening then (the metrics), not replayed later.
      assert.deepEqual(seen, bus.types.slice(1));
      assert.equal(wardrik.container.resolve(Tokens.Events), bus);
    } finally {
      await wardrik.close();
    }
  });

  it("Tokens.Store: calls are journaled in the app's store, which stays open after close", async () => {
    const store = new MemoryStore();
    const { wardrik, call } = await withTool(holding(Tokens.Store, store), { store: undefined });
    await call('c1');
    await wardrik.close();
    assert.equal((await store.getCall('r1', 'c1'))?.state, 'succeeded');
    assert.equal((await store.listCalls({ run: 'r1' })).length, 1, 'the store is still open: it is the app’s');
  });

  it("Tokens.Policy: the app's policy decides every call", async () => {
    class NothingRuns extends Policy {
      override decide(): Decision {
        return { action: 'deny', rule: 'the app policy' };
      }
    }
    const policy = new NothingRuns();
    const { wardrik, ran, call } = await withTool(holding(Tokens.Policy, policy));
    try {
      const answer = await call('c1');
      assert.equal(answer.status === 'error' && answer.code, 'denied');
      assert.equal(ran.count, 0, 'the read-only tool, which the default policy allows, did not run');
      assert.equal(wardrik.container.resolve(Tokens.Policy), policy);
    } finally {
      await wardrik.close();
    }
  });

  it("Tokens.Credentials: an MCP server's credential is resolved by the app's provider", async () => {
    const fixture = await startHttpFixture();
    const asked: string[] = [];
    const credentials: CredentialProvider = {
      resolve(name, context) {
        asked.push(`${context.hub}/${context.server}/${name}`);
        return 'from-the-app';
      },
    };
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      container: holding(Tokens.Credentials, credentials),
      mcp: { servers: { api: { transport: { http: { url: fixture.url } }, credential: 'API_TOKEN' } } },
    });
    try {
      assert.deepEqual(asked, ['mcp/api/API_TOKEN']);
      assert.ok(fixture.requests.length > 0);
      assert.ok(fixture.requests.every((request) => request.authorization === 'Bearer from-the-app'));
    } finally {
      await wardrik.close();
      await fixture.close();
    }
  });

  it("Tokens.Models: an agent's 'provider:model' is resolved by the app's registry", async () => {
    const models = new ModelRegistry();
    models.register('house', () => scriptedModel([{ text: 'Answered in house.' }]));
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      container: holding(Tokens.Models, models),
    });
    try {
      assert.equal(wardrik.models, models);
      const turn = await wardrik.startAgent({ id: 'a', model: 'house:one', tools: [] }).send('Hello');
      assert.equal(turn.status, 'done');
      assert.match(turn.text, /Answered in house\./);
    } finally {
      await wardrik.close();
    }
  });
});

describe('The services Wardrik builds: registering one in the app container is refused at start-up', () => {
  const built: readonly [keyof typeof Tokens, RegExp][] = [
    ['Catalog', /fills its catalog from the toolsets, tools and mcp options.*give tools with the toolsets or tools/],
    ['Runner', /call members of the runner that are not in its published type.*with the runner option/],
    ['Inbox', /call members of the inbox that are not in its published type.*through wardrik\.inbox/],
    ['Agents', /calls members of the agent service that are not in its published type.*with the agents option/],
    ['Capabilities', /one capability provider for each MCP hub.*give MCP servers with the mcp option/],
    ['Mcp', /the default MCP hub it makes from its mcp option.*give MCP servers with the mcp option/],
  ];
  for (const [name, causeAndFix] of built) {
    it(`refuses Tokens.${name} with a ConfigurationError naming the token, the cause and the fix`, async () => {
      // Registered in the app's parent container: Wardrik looks up the whole chain, as it does for seams.
      const app = holding(Tokens[name] as InjectionToken<unknown>, {}).createChildContainer();
      const path = join(dir, `${name}.db`);
      await assert.rejects(
        Wardrik.create({ container: app, store: `sqlite:${path}` }),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          error.message.startsWith(`Tokens.${name} is registered in the container given to Wardrik.create, but`) &&
          causeAndFix.test(error.message) &&
          error.message.includes('Remove the registration') &&
          error.message.includes('Tokens.Clock, Tokens.Timers, Tokens.Events, Tokens.Store, Tokens.Policy'),
      );
      assert.equal(existsSync(path), false, 'refused before the store was opened');
    });
  }

  it('still lets every one of them be resolved from wardrik.container', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity, mcp: { servers: {} } });
    try {
      assert.equal(wardrik.container.resolve(Tokens.Runner), wardrik.runner);
      assert.equal(wardrik.container.resolve(Tokens.Inbox), wardrik.inbox);
      assert.equal(wardrik.container.resolve(Tokens.Agents), wardrik.agents);
      assert.equal(wardrik.container.resolve(Tokens.Mcp), wardrik.mcp());
      assert.deepEqual(wardrik.container.resolveAll(Tokens.Capabilities), [wardrik.mcp()]);
      assert.deepEqual(wardrik.container.resolve(Tokens.Catalog).entries(), []);
    } finally {
      await wardrik.close();
    }
  });
});
