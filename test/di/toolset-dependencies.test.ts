import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container as rootContainer, inject, injectable } from 'tsyringe';
import {
  answerText,
  callTool,
  ConfigurationError,
  Tokens,
  Tool,
  Toolset,
  Wardrik,
  type ToolDefinition,
} from '../../src/index.js';

/** The app's configuration: the app's instance knows the limit; one tsyringe builds itself does not. */
@injectable()
class ConfigService {
  values: Record<string, number> = {};

  get(key: string): number | undefined {
    return this.values[key];
  }
}

const config = (values: Record<string, number>): ConfigService => Object.assign(new ConfigService(), { values });

@Toolset('orders')
class OrderTools {
  constructor(private readonly config: ConfigService) {}

  @Tool({ description: 'The largest order allowed.' })
  limit() {
    return String(this.config.get('limit'));
  }
}

@Toolset('reports', { buildDependencies: true })
class ReportTools {
  constructor(private readonly config: ConfigService) {}

  @Tool({ description: 'The configured limit, from a ConfigService of its own.' })
  limit() {
    return String(this.config.get('limit'));
  }
}

@Toolset('stock')
class StockTools {
  constructor(
    @inject(Tokens.Clock) private readonly clock: { now(): number },
    @inject('Warehouse') private readonly warehouse: string,
  ) {}

  @Tool({ description: 'Where stock is, and when asked.' })
  where() {
    return `${this.warehouse} at ${this.clock.now() > 0}`;
  }
}

const catalogOf = (wardrik: Wardrik): ToolDefinition[] =>
  wardrik.container
    .resolve(Tokens.Catalog)
    .entries()
    .map((entry) => entry.tool);

describe('Toolset dependencies nobody registered', () => {
  it('refuses a dependency tsyringe would silently build a second copy of, naming the class and the dependency', async () => {
    const app = rootContainer.createChildContainer();
    await assert.rejects(
      Wardrik.create({ container: app, toolsets: [OrderTools], store: 'memory:' }),
      (error: Error) => {
        assert.ok(error instanceof ConfigurationError, `got ${error.name}: ${error.message}`);
        assert.match(error.message, /Toolset "orders" \(class OrderTools\)/);
        assert.match(error.message, /constructor parameter 1 \(ConfigService\) is registered nowhere/);
        assert.match(error.message, /register\(ConfigService, \{ useValue/);
        assert.match(error.message, /@Toolset\('orders', \{ buildDependencies: true \}\)/);
        return true;
      },
    );
  });

  it("gives the toolset the app's registered instance, so it sees the app's configuration", async () => {
    const app = rootContainer.createChildContainer();
    app.register(ConfigService, { useValue: config({ limit: 20_000 }) });
    const wardrik = await Wardrik.create({ container: app, toolsets: [OrderTools], store: 'memory:' });
    try {
      assert.equal(answerText(await callTool(catalogOf(wardrik), { name: 'limit' })), '20000');
    } finally {
      await wardrik.close();
    }
  });

  it('lets tsyringe build the dependency for a toolset that opted in', async () => {
    const wardrik = await Wardrik.create({
      container: rootContainer.createChildContainer(),
      toolsets: [ReportTools],
      store: 'memory:',
    });
    try {
      assert.equal(answerText(await callTool(catalogOf(wardrik), { name: 'limit' })), 'undefined');
    } finally {
      await wardrik.close();
    }
  });

  it("accepts dependencies injected by token from Wardrik's services and the app", async () => {
    const app = rootContainer.createChildContainer();
    app.register('Warehouse', { useValue: 'north' });
    const wardrik = await Wardrik.create({ container: app, toolsets: [StockTools], store: 'memory:' });
    try {
      assert.equal(answerText(await callTool(catalogOf(wardrik), { name: 'where' })), 'north at true');
    } finally {
      await wardrik.close();
    }
  });
});

describe('A toolset instance the app made or registered', () => {
  it('uses the instance registered for the toolset class rather than building another', async () => {
    const app = rootContainer.createChildContainer();
    const registered = new OrderTools(config({ limit: 7 }));
    app.register(OrderTools, { useValue: registered });
    const wardrik = await Wardrik.create({ container: app, toolsets: [OrderTools], store: 'memory:' });
    try {
      assert.equal(answerText(await callTool(catalogOf(wardrik), { name: 'limit' })), '7');
      assert.equal(wardrik.container.resolve(OrderTools), registered);
    } finally {
      await wardrik.close();
    }
  });

  it('takes an instance in toolsets and calls it', async () => {
    const instance = new OrderTools(config({ limit: 9 }));
    const wardrik = await Wardrik.create({ toolsets: [instance], store: 'memory:' });
    try {
      assert.deepEqual(
        wardrik.tools().map((tool) => tool.name),
        ['orders__limit'],
      );
      assert.equal(answerText(await callTool(catalogOf(wardrik), { name: 'limit' })), '9');
    } finally {
      await wardrik.close();
    }
  });

  it('refuses an object whose class has no @Toolset, naming the class', async () => {
    class Plain {}
    await assert.rejects(
      Wardrik.create({ toolsets: [new Plain()], store: 'memory:' }),
      (error: Error) => error instanceof ConfigurationError && /Class "Plain"/.test(error.message),
    );
  });
});
