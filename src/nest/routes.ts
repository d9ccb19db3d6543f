import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, Inject, Req, Res, UseGuards, UseInterceptors, type Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants.js';
import { HttpAdapterHost } from '@nestjs/core';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { WardrikMcpServer } from '../serve/mcp-server.js';
import type { InboxWeb } from '../web/inbox-web.js';
import type { WardrikRoute, WardrikRoutes } from './options.js';
import { WARDRIK_INBOX, WARDRIK_MCP_SERVER } from './tokens.js';

/** The person or client each raw request was let in as, by the route's guards: read by the inbox's `authenticate`. */
export const principals = new WeakMap<IncomingMessage, string>();
/** The groups of the person each raw inbox request was let in as. */
export const groupsOf = new WeakMap<IncomingMessage, readonly string[]>();

/** `request.user.groups`, else `request.user.roles`, when a list of strings. */
export function defaultGroups(request: unknown): readonly string[] | undefined {
  const user = (request as NestRequest | undefined)?.user;
  if (user === null || typeof user !== 'object') return undefined;
  for (const key of ['groups', 'roles'] as const) {
    const value = (user as Record<string, unknown>)[key];
    if (Array.isArray(value) && value.every((group) => typeof group === 'string')) return value as string[];
  }
  return undefined;
}

/** A Nest request or reply on Express (the Node objects themselves) or Fastify (`raw` holds them). */
interface NestRequest {
  readonly raw?: IncomingMessage;
  readonly body?: unknown;
  readonly user?: unknown;
}
interface NestReply {
  readonly raw?: ServerResponse;
  hijack?(): void;
}

/** `request.user` as a name: a string, or its `username`, `name`, `email`, `sub` or `id`. */
export function defaultPrincipal(request: unknown): string | undefined {
  const user = (request as NestRequest | undefined)?.user;
  if (typeof user === 'string') return user;
  if (user === null || typeof user !== 'object') return undefined;
  for (const key of ['username', 'name', 'email', 'sub', 'id'] as const) {
    const value = (user as Record<string, unknown>)[key];
    if (typeof value === 'string' || typeof value === 'number') return String(value);
  }
  return undefined;
}

/**
 * The Node request and response under a Nest one, with what Nest already did carried over: the parsed
 * body (Fastify keeps it off the raw request) and the principal the guards let in.
 */
function handOver(
  request: NestRequest & IncomingMessage,
  reply: NestReply & ServerResponse,
  principalOf: (request: unknown) => string | undefined,
): { raw: IncomingMessage; res: ServerResponse; principal: string | undefined } {
  const raw = request.raw ?? request;
  const res = reply.raw ?? reply;
  if (request.raw !== undefined) {
    reply.hijack?.(); // Fastify: the handler answers on the raw response itself
    if (request.body !== undefined) (raw as IncomingMessage & { body?: unknown }).body = request.body;
  }
  const principal = principalOf(request);
  if (principal !== undefined) principals.set(raw, principal);
  return { raw, res, principal };
}

function routeOf(route: string | WardrikRoute): WardrikRoute {
  return typeof route === 'string' ? { path: route } : route;
}

function guarded(target: Type<unknown>, route: WardrikRoute): Type<unknown> {
  if (route.guards !== undefined && route.guards.length > 0) UseGuards(...route.guards)(target);
  if (route.interceptors !== undefined && route.interceptors.length > 0) UseInterceptors(...route.interceptors)(target);
  return target;
}

/** The MCP endpoint as a Nest controller: every method at the path goes to the MCP server's handler. */
export function mcpController(route: string | WardrikRoute, routes: WardrikRoutes): Type<unknown> {
  const { path } = routeOf(route);
  const principalOf = routes.principal ?? defaultPrincipal;
  @Controller(path)
  class WardrikMcpController {
    private readonly handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;

    constructor(@Inject(WARDRIK_MCP_SERVER) server: WardrikMcpServer | null) {
      if (server === null) {
        throw new Error(
          `WardrikModule mounts MCP at "${path}" but was given no mcpServer options; add mcpServer: { tools: [...] }.`,
        );
      }
      this.handle = server.handler();
    }

    @All()
    async serve(@Req() request: NestRequest & IncomingMessage, @Res() reply: NestReply & ServerResponse) {
      const { raw, res, principal } = handOver(request, reply, principalOf);
      // The MCP SDK reads a verified caller from req.auth: the guard's principal is that caller.
      if (principal !== undefined) {
        const auth: AuthInfo = { token: '', clientId: principal, scopes: [], extra: { via: 'nest' } };
        (raw as IncomingMessage & { auth?: AuthInfo }).auth = auth;
      }
      await this.handle(raw, res);
    }
  }
  return guarded(WardrikMcpController, routeOf(route));
}

/** The inbox page and its API as a Nest controller, under its path. */
export function inboxController(route: string | WardrikRoute, routes: WardrikRoutes): Type<unknown> {
  const { path } = routeOf(route);
  const principalOf = routes.principal ?? defaultPrincipal;
  const groupsFrom = routes.groups ?? defaultGroups;
  @Controller(path)
  class WardrikInboxController {
    constructor(
      @Inject(WARDRIK_INBOX) private readonly inbox: InboxWeb | null,
      @Inject(HttpAdapterHost) host: HttpAdapterHost,
    ) {
      // Every path under the inbox: Express 5 reads "{*path}", Fastify's router only a bare "*". Nest reads
      // the route's path after building controllers, so the adapter's own syntax is set here.
      const everything = host.httpAdapter?.getType() === 'fastify' ? '*' : '{*path}';
      const serve = Object.getOwnPropertyDescriptor(WardrikInboxController.prototype, 'serve')!.value as object;
      Reflect.defineMetadata(PATH_METADATA, everything, serve);
    }

    @All('{*path}')
    serve(@Req() request: NestRequest & IncomingMessage, @Res() reply: NestReply & ServerResponse) {
      const { raw, res } = handOver(request, reply, principalOf);
      const groups = groupsFrom(request);
      if (groups !== undefined) groupsOf.set(raw, groups);
      this.inbox!.handler(raw, res);
    }
  }
  return guarded(WardrikInboxController, routeOf(route));
}

/** The inbox's base path: the route's, under the app's global prefix. */
export function inboxBasePath(routes: WardrikRoutes): string | undefined {
  if (routes.inbox === undefined) return undefined;
  const parts = [routes.globalPrefix ?? '', routeOf(routes.inbox).path].map((part) => part.replace(/^\/+|\/+$/g, ''));
  return `/${parts.filter((part) => part !== '').join('/')}`;
}
