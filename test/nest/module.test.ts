import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Inject, Injectable, Module, Scope, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { answerText, callTool, ConfigurationError, Tokens, Tool, Toolset, Wardrik } from '../../src/index.js';
import { WardrikModule } from '../../src/nest/index.js';

@Injectable()
class Counter {
  count = 0;
}

@Injectable()
@Toolset('count')
class CountTools {
  constructor(private readonly counter: Counter) {}

  @Tool({ description: 'Count one more.' })
  increment() {
    return String(++this.counter.count);
  }
}

/** A provider elsewhere in the app that needs Wardrik, without importing WardrikModule. */
@Injectable()
class Reporter {
  constructor(@Inject(Wardrik) readonly wardrik: Wardrik) {}
}

@Module({ providers: [Counter, CountTools, Reporter] })
class FeatureModule {}

const context = (module: new () => object): Promise<INestApplicationContext> =>
  NestFactory.createApplicationContext(module, { logger: false, abortOnError: false });

const catalogOf = (wardrik: Wardrik) =>
  wardrik.container
    .resolve(Tokens.Catalog)
    .entries()
    .map((entry) => entry.tool);

describe('WardrikModule', () => {
  it("forRoot({ global: true }): calls Nest's own toolset instance, and any module may inject Wardrik", async () => {
    @Module({ imports: [FeatureModule, WardrikModule.forRoot({ store: 'memory:', global: true, logEvents: false })] })
    class AppModule {}
    const app = await context(AppModule);
    try {
      const wardrik = app.get(Reporter).wardrik;
      assert.equal(wardrik, app.get(Wardrik));
      await Promise.all([1, 2, 3].map(() => callTool(catalogOf(wardrik), { name: 'increment' })));
      assert.equal(app.get(Counter).count, 3, "the tool ran on Nest's instance, with Nest's Counter");
      assert.equal(answerText(await callTool(catalogOf(wardrik), { name: 'increment' })), '4');
    } finally {
      await app.close();
    }
  });

  it('closes Wardrik when Nest closes the application', async () => {
    @Module({ imports: [FeatureModule, WardrikModule.forRoot({ store: 'memory:', global: true, logEvents: false })] })
    class AppModule {}
    const app = await context(AppModule);
    const wardrik = app.get(Wardrik);
    await app.close();
    assert.throws(() => wardrik.mcpServer({ tools: ['count/*'] }), /This Wardrik is closed/);
  });

  it('refuses a request-scoped toolset at start-up, saying why and what to do instead', async () => {
    @Injectable({ scope: Scope.REQUEST })
    @Toolset('scoped')
    class ScopedTools {
      @Tool({ description: 'Never offered.' })
      noop() {
        return 'no';
      }
    }
    @Module({
      imports: [WardrikModule.forRoot({ store: 'memory:', logEvents: false })],
      providers: [ScopedTools],
    })
    class AppModule {}
    await assert.rejects(context(AppModule), (error: Error) => {
      assert.ok(error instanceof ConfigurationError, `${error.name}: ${error.message}`);
      assert.match(error.message, /Nest provider ScopedTools\) is request-scoped/);
      assert.match(error.message, /ctx\.caller/);
      return true;
    });
  });

  it("forRootAsync: takes its options from the app's providers", async () => {
    @Injectable()
    class Settings {
      readonly store = 'memory:';
    }
    @Module({ providers: [Settings], exports: [Settings] })
    class SettingsModule {}
    @Module({
      imports: [
        FeatureModule,
        WardrikModule.forRootAsync({
          imports: [SettingsModule],
          inject: [Settings],
          useFactory: (settings: Settings) => ({ store: settings.store, logEvents: false }),
          global: true,
        }),
      ],
    })
    class AppModule {}
    const app = await context(AppModule);
    try {
      assert.deepEqual(
        app
          .get(Wardrik)
          .tools()
          .map((tool) => tool.name),
        ['count__increment'],
      );
    } finally {
      await app.close();
    }
  });
});
