import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  SetLevelRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { argumentsDigest } from '../runner/digest.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { Store } from '../store/store.js';
import type { CallReporter, LogLevel } from '../tools/context.js';
import { awaitAnswer } from './approvals.js';
import type { ServedTools } from './naming.js';
import type { ServeSettings } from './options.js';
import { callResult, waitingResult } from './results.js';

/** What every session of one server shares. */
export interface SessionDeps {
  readonly runner: ToolRunner;
  readonly store: Store;
  readonly served: ServedTools;
  readonly settings: ServeSettings;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * One MCP session: its own SDK `Server` (the low-level one, which publishes JSON Schemas as they are),
 * its run, and its calls. Every call goes through the runner as an agent's does: the agent is the
 * client's identity, the run is this session (so labels such as `outside` stay with it and never
 * reach another), and the call id is unique in the session — except that a call repeated with the
 * same arguments while an earlier one waits for a person gets that call's id, so it joins the same
 * inbox item and gets its one result.
 */
export class ServeSession {
  readonly server: Server;
  /** The run this session's calls belong to: the MCP session id over HTTP, a fresh id otherwise. */
  run: string = randomUUID();
  /** Set by the HTTP layer when the session starts: the request that opened it. */
  request: IncomingMessage | undefined;
  private agent: Promise<string> | undefined;
  private calls = 0;
  private inFlight = 0;
  /** Calls waiting for a person, by tool and arguments digest: a repeat joins them. */
  private readonly waiting = new Map<string, string>();
  /** Calls in flight by JSON-RPC request id, so a client that goes away stops them. */
  private readonly stops = new Map<string | number, AbortController>();
  private logLevel: LoggingLevel | undefined;

  constructor(private readonly deps: SessionDeps) {
    const { settings } = deps;
    this.server = new Server(
      { name: settings.name, version: settings.version },
      { capabilities: { tools: { listChanged: true }, logging: {} }, ...(settings.instructions === undefined ? {} : { instructions: settings.instructions }) },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...deps.served.listing()] }));
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) => this.call(request, extra));
    // This session's own level (one Server per session): logs go on the stream of the call that made them.
    this.server.setRequestHandler(SetLevelRequestSchema, (request) => {
      this.logLevel = request.params.level;
      return {};
    });
  }

  /** The client went away before these requests were answered: their calls stop (their tools' signals abort). */
  stop(requestIds: readonly (string | number)[]): void {
    for (const id of requestIds) this.stops.get(id)?.abort(new Error('The MCP client went away before the call finished.'));
  }

  private async call(request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
    const { settings, served, runner, store } = this.deps;
    const name = request.params.name;
    const tool = served.get(name);
    if (tool === undefined) {
      const closest = served.closest(name);
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}".${closest.length > 0 ? ` The closest: ${closest.join(', ')}.` : ' This server offers no tools.'}`);
    }
    if (this.inFlight >= settings.maxCallsPerSession) {
      const text = `This session already has ${settings.maxCallsPerSession} calls in flight, the most it may; this call did not run. Wait for one to finish, then call again.`;
      return { content: [{ type: 'text', text }], isError: true };
    }
    this.inFlight++;
    const stop = new AbortController();
    const forward = (): void => stop.abort(extra.signal.reason);
    extra.signal.addEventListener('abort', forward, { once: true });
    this.stops.set(extra.requestId, stop);
    try {
      const args = request.params.arguments ?? {};
      const key = `${tool.entry.ref}\u0000${argumentsDigest(args)}`;
      const call = this.waiting.get(key) ?? `call-${++this.calls}`;
      const progressToken = request.params._meta?.progressToken;
      let answer = await runner.run({
        agent: await this.identity(extra),
        run: this.run,
        call: { id: call, name: tool.entry.ref, arguments: args },
        tools: settings.tools,
        signal: stop.signal,
        reporter: this.reporter(extra, progressToken, name),
        ...(settings.policy === undefined ? {} : { policy: settings.policy }),
        ...(settings.budgetUsd === undefined ? {} : { budgetUsd: settings.budgetUsd }),
      });
      if (answer.status === 'parked') {
        this.waiting.set(key, call);
        const reason = `Waiting for a person${answer.inboxId === undefined ? '' : ` (inbox item ${answer.inboxId})`}: ${answer.reason}`;
        const final = await awaitAnswer(store, this.run, call, {
          waitMs: settings.waitMs,
          checkMs: settings.checkMs,
          progressMs: settings.progressMs,
          signal: stop.signal,
          ...(answer.inboxId === undefined ? {} : { inboxId: answer.inboxId }),
          runApproved: () => runner.recover(),
          ...(progressToken === undefined ? {} : { onProgress: (count: number) => this.notify(extra, { method: 'notifications/progress', params: { progressToken, progress: count + 1, message: reason } }) }),
        });
        if (final === undefined) return waitingResult(answer);
        answer = final;
      }
      if (this.waiting.get(key) === call) this.waiting.delete(key);
      return callResult(answer);
    } finally {
      this.inFlight--;
      extra.signal.removeEventListener('abort', forward);
      this.stops.delete(extra.requestId);
    }
  }

  /** The agent this session's calls run as, decided at its first call and kept. */
  private identity(extra: Extra): Promise<string> {
    const { identify, agent } = this.deps.settings;
    return (this.agent ??= (async () => {
      const auth = extra.authInfo;
      const id = identify === undefined ? (auth?.clientId ?? agent) : await identify({ ...(auth === undefined ? {} : { auth }), ...(this.request === undefined ? {} : { request: this.request }), ...clientOf(this.server) });
      if (typeof id !== 'string' || id === '') throw new McpError(ErrorCode.InternalError, 'The server could not tell who this client is (its identify hook gave no agent id); fix the server.');
      return id;
    })());
  }

  /** Where the tool's `ctx.progress` and `ctx.log` go: this call's stream, when the client asked for them. */
  private reporter(extra: Extra, progressToken: string | number | undefined, logger: string): CallReporter {
    return {
      progress: (progress, total, message) => {
        if (progressToken === undefined) return;
        this.notify(extra, { method: 'notifications/progress', params: { progressToken, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) } });
      },
      log: (level: LogLevel, data) => {
        if (this.logLevel !== undefined && LEVELS.indexOf(level) < LEVELS.indexOf(this.logLevel)) return;
        this.notify(extra, { method: 'notifications/message', params: { level, logger, data } });
      },
    };
  }

  private notify(extra: Extra, notification: ServerNotification): void {
    // A notification that cannot be sent (the client went away) must not fail the call.
    extra.sendNotification(notification).catch(() => {});
  }
}

function clientOf(server: Server): { client?: NonNullable<ReturnType<Server['getClientVersion']>> } {
  const client = server.getClientVersion();
  return client === undefined ? {} : { client };
}
