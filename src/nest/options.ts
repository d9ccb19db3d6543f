import type { CanActivate, ModuleMetadata, NestInterceptor, Type } from '@nestjs/common';
import type { WardrikOptions } from '../di/wardrik.js';
import type { ServeOptions } from '../serve/options.js';
import type { InboxWebOptions } from '../web/options.js';

/** What `WardrikModule.forRoot` (or `forRootAsync`'s factory) gives Wardrik. */
export interface WardrikModuleOptions extends Omit<WardrikOptions, 'toolsets' | 'container'> {
  /**
   * The MCP server's options, when `routes.mcp` mounts it: which tools it serves, its policy, budget and
   * approvals. Its `authenticate` is `false` unless given: the route's Nest guards decide who gets in.
   */
  readonly mcpServer?: ServeOptions | Omit<ServeOptions, 'authenticate'>;
  /** The inbox's options, when `routes.inbox` mounts it. Its people are those the route's guards let in. */
  readonly inbox?: Omit<InboxWebOptions, 'authenticate' | 'basePath'>;
  /** Log events through Nest's `Logger` (context `Wardrik`): warnings and failures as warnings, the rest as debug. On unless false. */
  readonly logEvents?: boolean;
}

/** A door mounted as a Nest route: its path, and the guards and interceptors in front of it besides the app's global ones. */
export interface WardrikRoute {
  readonly path: string;
  readonly guards?: readonly (Type<CanActivate> | CanActivate)[];
  readonly interceptors?: readonly (Type<NestInterceptor> | NestInterceptor)[];
}

/**
 * The doors `WardrikModule` mounts as Nest routes. Known when the module is defined, since Nest reads
 * routes then; so they are given beside `forRootAsync`'s factory, not by it.
 */
export interface WardrikRoutes {
  /** The MCP endpoint (Streamable HTTP), such as `'mcp'`; needs `mcpServer` in the options. */
  readonly mcp?: string | WardrikRoute;
  /** The inbox page and its API, such as `'inbox'`. */
  readonly inbox?: string | WardrikRoute;
  /**
   * Who the guards let in, from the Nest request: the inbox's person (recorded as `by`) and the MCP
   * caller's identity (`ctx.caller.principal`, and the agent id its calls run as). By default
   * `request.user`: a string, or its `username`, `name`, `email`, `sub` or `id`.
   */
  readonly principal?: (request: unknown) => string | undefined;
  /**
   * The inbox person's groups, checked against policy rules' `approvers`. By default `request.user.groups`
   * (or `roles`) when it is a list of strings.
   */
  readonly groups?: (request: unknown) => readonly string[] | undefined;
  /**
   * The app's global prefix (`app.setGlobalPrefix('api')` → `'/api'`): the inbox builds its links from
   * the path it is mounted under.
   */
  readonly globalPrefix?: string;
}

/** What `WardrikModule.forRoot` takes. */
export interface WardrikModuleRootOptions extends WardrikModuleOptions {
  /** Make `Wardrik` injectable in every module without importing WardrikModule there. */
  readonly global?: boolean;
  readonly routes?: WardrikRoutes;
}

/** What `WardrikModule.forRootAsync` takes: the options from a factory, with the app's providers injected. */
export interface WardrikModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  readonly inject?: readonly (string | symbol | Type<unknown> | Function)[];
  readonly useFactory: (...args: never[]) => WardrikModuleOptions | Promise<WardrikModuleOptions>;
  readonly global?: boolean;
  readonly routes?: WardrikRoutes;
}
