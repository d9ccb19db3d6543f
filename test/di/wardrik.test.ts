import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { firstValueFrom, toArray } from 'rxjs';
import { container as rootContainer, inject, injectable } from 'tsyringe';
import {
  callTool,
  ConfigurationError,
  EventBus,
  MemoryStore,
  Policy,
  Tokens,
  Tool,
  Toolset,
  Wardrik,
  type Clock,
  type ToolDefinition,
} from '../../src/index.js';
// Built by Wardrik, exported as types only: the classes, for instanceof.
import { Inbox } from '../../src/inbox/inbox.js';
import { ToolRunner } from '../../src/runner/tool-runner.js';
import { ToolCatalog } from '../../src/tools/catalog.js';

/** The app's own service, which a toolset needs. */
@injectable()
class Greeter {
  greeting = 'Hello';
}

const greeter = (greeting: string): Greeter => Object.assign(new Greeter(), { greeting });

class Counter {
  count = 0;
}

@Toolset('greet')
class GreetTools {
  constructor(
    private readonly greeter: Greeter,
    @inject('Counter') private readonly counter: Counter,
  ) {}

  @Tool({ description: 'Greet.' })
  hello() {
    this.counter.count++;
    return `${this.greeter.greeting} #${this.counter.count}`;
  }
}

interface Mailer {
  send(to: string): void;
}

@Toolset('mail')
class MailTools {
  constructor(@inject('Mailer') private readonly mailer: Mailer) {}

  @Tool({ description: 'Send mail.' })
  send() {
    this.mailer.send('a@example.com');
    return 'sent';
  }
}

class NotDecorated {
  @Tool({ description: 'Never offered.' })
  noop() {
    return null;
  }
}

const toolsOf = (wardrik: Wardrik): ToolDefinition[] =>
  wardrik.container
    .resolve(Tokens.Catalog)
    .entries()
    .map((e) => e.tool);

describe('Wardrik.create and dependency injection', () => {
  it("builds a toolset with dependencies from the app's container", async () => {
    const app = rootContainer.createChildContainer();
    app.register(Greeter, { useValue: greeter('Hi') });
    app.register('Counter', { useValue: new Counter() });
    const wardrik = await Wardrik.create({ container: app, toolsets: [GreetTools], store: 'memory:' });
    try {
      assert.deepEqual(await callTool(toolsOf(wardrik), { name: 'hello' }), {
        status: 'ok',
        output: 'Hi #1',
        labels: ['confidential'],
      });
    } finally {
      await wardrik.close();
    }
  });

  it('builds a dependency that is a registered class', async () => {
    const app = rootContainer.createChildContainer();
    app.registerSingleton(Greeter);
    app.registerSingleton('Counter', Counter);
    const wardrik = await Wardrik.create({ container: app, toolsets: [GreetTools], store: 'memory:' });
    try {
      assert.equal((await callTool(toolsOf(wardrik), { name: 'hello' })).status, 'ok');
      assert.equal(app.resolve<Counter>('Counter').count, 1, "the app's singleton was used");
    } finally {
      await wardrik.close();
    }
  });

  it('gives two Wardriks from one app container their own toolset instances and catalogs', async () => {
    const app = rootContainer.createChildContainer();
    app.registerSingleton(Greeter); // Registered: tsyringe no longer builds a toolset's unregistered class dependency
    app.register('Counter', { useFactory: () => new Counter() });
    const one = await Wardrik.create({ container: app, toolsets: [GreetTools], store: 'memory:' });
    const two = await Wardrik.create({ container: app, store: 'memory:' });
    const three = await Wardrik.create({ container: app, toolsets: [GreetTools], store: 'memory:' });
    try {
      assert.notEqual(one.container.resolve(Tokens.Catalog), three.container.resolve(Tokens.Catalog));
      assert.deepEqual(two.tools(), []);
      assert.notEqual(one.container.resolve(GreetTools), three.container.resolve(GreetTools));
      assert.equal(one.container.resolve(GreetTools), one.container.resolve(GreetTools), 'one instance per Wardrik');
      await callTool(toolsOf(one), { name: 'hello' });
      const answer = await callTool(toolsOf(three), { name: 'hello' });
      assert.equal(answer.status === 'ok' && answer.output, 'Hello #1');
      assert.equal(app.isRegistered(GreetTools), false, "nothing was registered in the app's container");
    } finally {
      await Promise.all([one.close(), two.close(), three.close()]);
    }
  });

  it('resolves its services by Tokens from wardrik.container', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:' });
    try {
      const c = wardrik.container;
      assert.equal(typeof c.resolve(Tokens.Clock).now(), 'number');
      assert.ok(c.resolve(Tokens.Events) instanceof EventBus);
      assert.ok(c.resolve(Tokens.Store) instanceof MemoryStore);
      assert.ok(c.resolve(Tokens.Catalog) instanceof ToolCatalog);
      assert.ok(c.resolve(Tokens.Policy) instanceof Policy);
      assert.ok(c.resolve(Tokens.Runner) instanceof ToolRunner);
      assert.ok(c.resolve(Tokens.Inbox) instanceof Inbox);
      assert.equal(wardrik.runner, c.resolve(Tokens.Runner));
      assert.equal(wardrik.inbox, c.resolve(Tokens.Inbox));
    } finally {
      await wardrik.close();
    }
  });

  it("uses a service the app registered under a token instead of the default: a fixed Clock stamps every event's time", async () => {
    const app = rootContainer.createChildContainer();
    const clock: Clock = { now: () => 1_700_000_000_000 };
    app.register(Tokens.Clock, { useValue: clock });
    const wardrik = await Wardrik.create({ container: app, store: 'memory:', policy: { askWhenOutside: false } });
    assert.equal(wardrik.container.resolve(Tokens.Clock), clock);
    const events = firstValueFrom(wardrik.events$.pipe(toArray()));
    await wardrik.close();
    const all = await events;
    assert.equal(all.length, 1);
    assert.equal(all[0]!.time, 1_700_000_000_000);
  });

  it('refuses a store option when the container already holds a Store, naming both', async () => {
    const app = rootContainer.createChildContainer();
    app.register(Tokens.Store, { useValue: new MemoryStore() });
    await assert.rejects(
      Wardrik.create({ container: app, store: 'postgres://app:secret@db.internal/wardrik' }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        error.message.includes('store ("postgres://app:***@db.internal/wardrik")') &&
        error.message.includes('a MemoryStore, registered under Tokens.Store') &&
        !error.message.includes('secret'),
    );
    const given = new MemoryStore();
    await assert.rejects(
      Wardrik.create({ container: app, store: given }),
      /both store \(a MemoryStore\) and a container that already holds a Store \(a MemoryStore/,
    );
    // Nothing was opened or closed on either side: the app's store still works, and so does the one given.
    assert.equal((await given.listRuns()).length, 0);
    assert.equal((await app.resolve(Tokens.Store).listRuns()).length, 0);
  });

  it('uses a Store the app registered under Tokens.Store', async () => {
    const app = rootContainer.createChildContainer();
    const store = new MemoryStore();
    app.register(Tokens.Store, { useValue: store });
    const wardrik = await Wardrik.create({ container: app });
    try {
      assert.equal(wardrik.container.resolve(Tokens.Store), store);
    } finally {
      await wardrik.close();
    }
  });

  it('closes safely twice', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:' });
    await wardrik.close();
    await assert.doesNotReject(wardrik.close());
  });

  it('refuses a toolset whose dependency is missing, naming the toolset and the fix', async () => {
    await assert.rejects(
      Wardrik.create({ container: rootContainer.createChildContainer(), toolsets: [MailTools], store: 'memory:' }),
      (error: Error) => {
        assert.ok(error instanceof ConfigurationError);
        assert.match(error.message, /Toolset "mail" \(class MailTools\) could not be built/);
        assert.match(error.message, /Mailer/);
        assert.match(
          error.message,
          /Register its constructor dependencies in the container you pass to Wardrik\.create/,
        );
        return true;
      },
    );
  });

  it('refuses a class without @Toolset, saying to add it', async () => {
    await assert.rejects(
      Wardrik.create({ toolsets: [NotDecorated], store: 'memory:' }),
      (error: Error) =>
        error instanceof ConfigurationError &&
        /Class "NotDecorated" was given as a toolset but has no @Toolset decorator\. Add @Toolset\('not_decorated'\)/.test(
          error.message,
        ),
    );
  });

  it('refuses an invalid toolset name', async () => {
    @Toolset('bad name')
    class BadNameTools {}
    await assert.rejects(
      Wardrik.create({ toolsets: [BadNameTools], store: 'memory:' }),
      /Toolset name "bad name" \(class BadNameTools\) is not 1 to 55/,
    );
  });

  it('refuses a toolset name with "__", which separates toolset and tool for the model', async () => {
    await assert.rejects(
      Wardrik.create({ tools: { a__b: [] }, store: 'memory:' }),
      /Toolset name "a__b" \(tools\.a__b\)/,
    );
  });

  it('refuses the same toolset name twice', async () => {
    @Toolset('greet')
    class OtherGreetTools {}
    const app = rootContainer.createChildContainer();
    app.registerSingleton(Greeter);
    app.register('Counter', { useValue: new Counter() });
    await assert.rejects(
      Wardrik.create({ container: app, toolsets: [GreetTools, OtherGreetTools], store: 'memory:' }),
      /Toolset "greet" is given twice \(class GreetTools and class OtherGreetTools\)/,
    );
    await assert.rejects(
      Wardrik.create({ container: app, toolsets: [GreetTools], tools: { greet: [] }, store: 'memory:' }),
      /Toolset "greet" is given twice/,
    );
    await assert.rejects(
      Wardrik.create({ container: app, toolsets: [GreetTools, GreetTools], store: 'memory:' }),
      /Toolset "greet" is given twice \(class GreetTools and class GreetTools\)/,
    );
  });

  it('refuses a duration a timer cannot keep (Node would fire it at once, or every millisecond)', async () => {
    for (const recoverMs of [0, 3e9, Number.NaN]) {
      await assert.rejects(
        Wardrik.create({ store: 'memory:', recoverMs }),
        /recoverMs must be a number of at least 1 and at most 2147483647, or Infinity for never/,
      );
    }
    await assert.rejects(
      Wardrik.create({ store: 'memory:', recoverMs: Infinity, mcp: { servers: {}, reconcileMs: 3e9 } }),
      /reconcileMs must be a number of at least 1 and at most 2147483647, or Infinity for never; got 3000000000/,
    );
    // Every other duration a timer waits on, too.
    for (const [mcp, field] of [
      [{ connectTimeoutMs: 3e9 }, 'connectTimeoutMs'],
      [{ waitMs: 3e9 }, 'waitMs'],
      [{ listDebounceMs: 3e9 }, 'listDebounceMs'],
    ] as const) {
      await assert.rejects(
        Wardrik.create({ store: 'memory:', recoverMs: Infinity, mcp: { servers: {}, ...mcp } }),
        new RegExp(`${field} must be a number of at least [01] and at most 2147483647; got 3000000000`),
      );
    }
    for (const [runner, field] of [
      [{ leaseMs: 3e9 }, 'runner.leaseMs'],
      [{ retry: { maxDelayMs: 3e9 } }, 'runner.retry.maxDelayMs'],
    ] as const) {
      await assert.rejects(
        Wardrik.create({ store: 'memory:', runner }),
        new RegExp(
          `${field.replace(/\./g, '\\.')} must be a number (above|of at least) 0 and at most 2147483647; got 3000000000`,
        ),
      );
    }
  });

  it('closes the store when create fails, whatever option it refuses', async () => {
    for (const refused of [{ toolsets: [NotDecorated] }, { recoverMs: -1 }, { runner: { timeoutMs: -1 } }] as const) {
      const store = new MemoryStore();
      let closed = 0;
      const original = store.close.bind(store);
      store.close = async () => {
        closed++;
        await original();
      };
      await assert.rejects(Wardrik.create({ ...refused, store }));
      assert.equal(closed, 1, JSON.stringify(refused));
    }
  });
});
