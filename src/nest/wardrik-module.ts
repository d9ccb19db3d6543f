import { Inject, Logger, Module, type DynamicModule, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { Wardrik } from '../di/wardrik.js';
import { logEvents } from './event-log.js';
import type {
  WardrikModuleAsyncOptions,
  WardrikModuleOptions,
  WardrikModuleRootOptions,
  WardrikRoutes,
} from './options.js';
import { groupsOf, inboxBasePath, inboxController, mcpController, principals } from './routes.js';
import { WARDRIK_INBOX, WARDRIK_MCP_SERVER, WARDRIK_MODULE_OPTIONS } from './tokens.js';
import { discoverToolsets } from './toolset-discovery.js';

/**
 * Wardrik in a NestJS application. `forRoot(options)` or `forRootAsync({ imports, inject, useFactory })`
 * builds one Wardrik whose toolsets are the app's `@Toolset` providers, as Nest built them; `Wardrik`,
 * `WARDRIK_MCP_SERVER` and `WARDRIK_INBOX` are injectable; `routes` mounts the MCP endpoint and the inbox
 * as Nest routes, behind the app's guards and interceptors. Wardrik closes on Nest's shutdown hooks
 * (`app.enableShutdownHooks()` for signals).
 */
@Module({})
export class WardrikModule implements OnApplicationShutdown {
  constructor(@Inject(Wardrik) private readonly wardrik: Wardrik) {}

  static forRoot(options: WardrikModuleRootOptions = {}): DynamicModule {
    const { global, routes, ...rest } = options;
    return definition({ provide: WARDRIK_MODULE_OPTIONS, useValue: rest }, [], global, routes);
  }

  static forRootAsync(options: WardrikModuleAsyncOptions): DynamicModule {
    const provider: Provider = {
      provide: WARDRIK_MODULE_OPTIONS,
      inject: [...(options.inject ?? [])],
      useFactory: options.useFactory as (...args: unknown[]) => WardrikModuleOptions | Promise<WardrikModuleOptions>,
    };
    return definition(provider, options.imports ?? [], options.global, options.routes);
  }

  async onApplicationShutdown(signal?: string): Promise<void> {
    await this.wardrik.close();
    new Logger('Wardrik').log(`Wardrik closed${signal === undefined ? '' : ` on ${signal}`}.`);
  }
}

function definition(
  optionsProvider: Provider,
  imports: NonNullable<DynamicModule['imports']>,
  global = false,
  routes: WardrikRoutes = {},
): DynamicModule {
  return {
    module: WardrikModule,
    global,
    imports: [DiscoveryModule, ...imports],
    controllers: [
      ...(routes.mcp === undefined ? [] : [mcpController(routes.mcp, routes)]),
      ...(routes.inbox === undefined ? [] : [inboxController(routes.inbox, routes)]),
    ],
    providers: [
      optionsProvider,
      {
        provide: Wardrik,
        inject: [WARDRIK_MODULE_OPTIONS, DiscoveryService],
        useFactory: async (options: WardrikModuleOptions, discovery: DiscoveryService) => {
          const { mcpServer: _mcpServer, inbox: _inbox, logEvents: log = true, ...wardrikOptions } = options;
          const wardrik = await Wardrik.create({ ...wardrikOptions, toolsets: await discoverToolsets(discovery) });
          if (log) logEvents(wardrik);
          return wardrik;
        },
      },
      {
        provide: WARDRIK_MCP_SERVER,
        inject: [Wardrik, WARDRIK_MODULE_OPTIONS],
        useFactory: (wardrik: Wardrik, options: WardrikModuleOptions) =>
          options.mcpServer === undefined ? null : wardrik.mcpServer({ authenticate: false, ...options.mcpServer }),
      },
      {
        provide: WARDRIK_INBOX,
        inject: [Wardrik, WARDRIK_MODULE_OPTIONS],
        useFactory: (wardrik: Wardrik, options: WardrikModuleOptions) => {
          const basePath = inboxBasePath(routes);
          if (basePath === undefined) return null;
          // The guards in front of the route decide; the person is the principal they let in.
          const authenticate = (request: IncomingMessage) => {
            const id = principals.get(request);
            return id === undefined ? undefined : { id, groups: groupsOf.get(request) ?? [] };
          };
          return wardrik.inboxWeb({ ...options.inbox, authenticate, basePath });
        },
      },
    ],
    exports: [Wardrik, WARDRIK_MCP_SERVER, WARDRIK_INBOX],
  };
}
