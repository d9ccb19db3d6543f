import type { IncomingMessage } from 'node:http';
import {
  CLIENT_INFO_META_KEY,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type CallToolRequest,
  type CallToolResult,
  type Implementation,
  type InputRequiredResult,
  type LoggingLevel,
  type Result,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { newRunId } from '../run-ids.js';
import type { CallReporter, LogLevel, ToolCaller } from '../tools/context.js';
import type { ToolAnswer } from '../tools/result.js';
import { FAILED_INSIDE, warnFailedInside } from './failed-inside.js';
import type { SessionDeps } from './session.js';
import type { ServedTool } from './naming.js';
import { badQueryResult, searchResult } from './served-search.js';
import { SERVED_SEARCH_TOOL } from './served-search-tool.js';
import { callResult } from './results.js';
import { argumentsDigest, type Sealed, type SealedTokens } from './sealed.js';
import { CONVERSATION_META, UNKNOWN_CONVERSATION } from '../mcp/labels-meta.js';
import { storeFailureResult } from './store-failures.js';
import { servedCallSpan } from './trace-context.js';
import { PROTOCOL_VERSION_META } from './eras.js';
import { networkAttributes, timedOperation } from './operation-timing.js';
import { toolCallAttributes } from '../telemetry/mcp-metrics.js';
import { isServerTool } from '../tools/tool-origin.js';
import { declaresTasks, StatelessTasks, TASKS_EXTENSION } from './stateless-tasks.js';
import { TaskServer } from './task-server.js';
import { callAfterApproval } from './approved-call.js';
import { ANY_PARAMS, callRequest, paramsSchema } from './call-params.js';
import type { Attributes } from '@opentelemetry/api';

/** Where one 2026-07-28 server instance serves: one HTTP request, or one stdio connection. */
export interface StatelessPlace {
  /** The HTTP request, for the identify hook. */
  readonly request?: IncomingMessage;
  /** The run calls without a conversation token join: the connection's, over stdio; a new one per call over HTTP. */
  readonly run?: string;
  /** How it is reached, for the MCP metrics' and spans' `network.*` attributes. */
  readonly over?: 'http' | 'stdio';
}

type ParkedAnswer = Extract<ToolAnswer, { status: 'parked' }>;

/**
 * Serves MCP 2026-07-28 (stateless: no `initialize`, no session) with the SDK v2's low-level `Server`,
 * one instance per HTTP request or stdio connection. What a session carried is carried by the client,
 * signed by the server (see `SealedTokens`):
 * - the conversation: each result's `_meta['wardrik/conversation']` names its run; a client that sends it
 *   back in the next request's `_meta` continues that run, so its labels (`outside`) follow the calls.
 *   Without one, a call starts a new run (as a new session did), except over stdio, where the
 *   connection is the conversation.
 * - a call waiting for a person: answered `input_required` at once, whose `requestState` names the call
 *   and its inbox item. A retry with it reads the journal: the result once a person answered (the call
 *   run, by recovery, on whichever node the retry reaches), or `input_required` again. A retry never
 *   starts the call: it runs at most once, whatever the client retries.
 * - with the tasks extension declared in the request, that call (or one still running after
 *   `TASK_AFTER_MS`) answers a task instead, sealed the same way (see `StatelessTasks`).
 */
export class StatelessServing {
  private readonly tasks: StatelessTasks;

  constructor(
    private readonly deps: SessionDeps,
    private readonly tokens: SealedTokens,
  ) {
    this.tasks = new StatelessTasks(deps, tokens, (answer, run, agent, ctx) => this.result(answer, run, agent, ctx));
  }

  /** Stops the calls this node runs as tasks: the server is closing. */
  close(): Promise<void> {
    return this.tasks.close();
  }

  /** A v2 server for one request or connection. */
  server(place: StatelessPlace): Server {
    const { settings } = this.deps;
    const server = new TaskServer(
      { name: settings.name, version: settings.version },
      {
        capabilities: { tools: { listChanged: true }, logging: {}, extensions: { [TASKS_EXTENSION]: {} } },
        requestState: { verify: this.tokens.verify },
        ...(settings.instructions === undefined ? {} : { instructions: settings.instructions }),
      },
    );
    server.setRequestHandler('tools/list', (_request, ctx) =>
      timedOperation(
        () => operation(ctx, place, { 'mcp.method.name': 'tools/list' }),
        async () => ({ tools: (await this.deps.search.listingFor(await this.identity(ctx, place))) as Tool[] }),
      ),
    );
    // Any params taken as sent: TaskServer skips the SDK's parses of the request and the result, callRequest
    // checks the request by hand (-32602 naming the field), and every result is built in MCP's shape here.
    server.setRequestHandler('tools/call', { params: ANY_PARAMS }, (params, ctx) =>
      timedOperation(
        () => operation(ctx, place, callAttributes((params as { name?: unknown } | undefined)?.name)),
        () => this.call(callRequest({ method: 'tools/call', params }, '2026'), ctx, place),
      ),
    );
    // The tasks extension (SEP-2663): no `tasks/list` or `tasks/result` there (the SDK answers -32601).
    for (const [method, answer] of TASK_METHODS)
      server.setRequestHandler(method, { params: TASK_PARAMS }, async (params, ctx) => {
        StatelessTasks.requireDeclared(ctx, method);
        return answer(this.tasks, params.taskId, await this.identity(ctx, place), ctx);
      });
    return server;
  }

  private async call(
    request: CallToolRequest,
    ctx: ServerContext,
    place: StatelessPlace,
  ): Promise<CallToolResult | InputRequiredResult> {
    const { served } = this.deps;
    const name = request.params.name;
    // Found tools are called by name: without a session, nothing is listed to one caller alone.
    if (name === SERVED_SEARCH_TOOL && served.deferred().length > 0) {
      const searched = await this.deps.search.search(await this.identity(ctx, place), request.params.arguments);
      return 'badQuery' in searched ? badQueryResult(searched.badQuery) : searchResult(searched.answer);
    }
    const tool = served.get(name);
    if (tool === undefined) {
      const shown = name.slice(0, 80);
      const closest = served.closest(shown);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${shown}".${closest.length > 0 ? ` The closest: ${closest.join(', ')}.` : ' This server offers no tools.'}`,
      );
    }
    const agent = await this.identity(ctx, place);
    const args = request.params.arguments ?? {};
    const state = ctx.mcpReq.requestState<Sealed>();
    const span = await servedCallSpan(ctx.mcpReq._meta, tool.name, {
      ...operation(ctx, place, toolCallAttributes(tool.name)),
      'jsonrpc.request.id': String(ctx.mcpReq.id),
      ...(isServerTool(tool.entry.tool) ? { 'gen_ai.tool.type': 'extension' } : {}),
    });
    try {
      if (state !== undefined) return await this.retry(state, tool, args, agent, ctx);
      const run = await this.conversation(ctx, agent, place);
      const id = `call-${newRunId()}`;
      const start = (signal: AbortSignal) =>
        span.within(() =>
          this.deps.runner.run({
            agent,
            run,
            call: { id, name: tool.entry.ref, arguments: args },
            signal,
            reporter: new RequestReporter(ctx, tool.name),
            caller: caller(ctx),
            ...limits(this.deps),
          }),
        );
      // Guard (tasks-only-when-declared): a client without the extension keeps input_required; a task would be foreign to it.
      if (declaresTasks(ctx)) return (await this.tasks.start({ run, call: id, agent, start }, ctx)) as CallToolResult;
      let answer: ToolAnswer;
      try {
        answer = await start(ctx.mcpReq.signal);
      } catch (error) {
        const told = await storeFailureResult(
          this.deps.runner,
          this.deps.store,
          run,
          id,
          error,
          this.deps.confidential,
        );
        if (told === undefined) throw error;
        warnFailedInside(this.deps.warn, `A served call of ${tool.name}`, error);
        return told as CallToolResult;
      }
      span.settled(answer.status);
      if (answer.status === 'parked')
        return await this.waiting(
          answer,
          {
            kind: 'call',
            run,
            call: id,
            agent,
            tool: tool.entry.ref,
            args: argumentsDigest(args),
            ...(answer.inboxId === undefined ? {} : { inbox: answer.inboxId }),
          },
          ctx,
        );
      return await this.result(answer, run, agent, ctx);
    } catch (error) {
      span.settled('error');
      if (error instanceof ProtocolError) throw error;
      warnFailedInside(this.deps.warn, `A served call of ${tool.name}`, error);
      throw new ProtocolError(ProtocolErrorCode.InternalError, FAILED_INSIDE);
    } finally {
      span.end();
    }
  }

  /**
   * A retry of a call that waited for a person: its result once it has one, else `input_required` again.
   * It never runs the call itself; an approved call not yet run is run by this node's recovery, which
   * takes the run's lease, so two nodes retrying at once cannot both run it.
   */
  private async retry(
    state: Sealed,
    tool: ServedTool,
    args: unknown,
    agent: string,
    ctx: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    if (state.kind !== 'call' || state.agent !== agent)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'This requestState is not a waiting call of this client. Send the call again without it to start a new one.',
      );
    if (state.tool !== tool.entry.ref || state.args !== argumentsDigest(args))
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'This requestState belongs to another call: a retry sends the same tool and arguments as the call that waits. Send a different call without requestState.',
      );
    const record = await callAfterApproval(this.deps, state.run, state.call);
    if (record === undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "This requestState names a call this server's store does not have (was the store reset?). Send the call again without it.",
      );
    const answer = record.answer;
    if (answer !== undefined && (record.state === 'succeeded' || record.state === 'failed'))
      return this.result(answer, state.run, agent, ctx);
    const waiting: ParkedAnswer =
      answer?.status === 'parked'
        ? answer
        : ({
            status: 'parked',
            kind: 'approval',
            reason: 'It was approved and is running now.',
            labels: answer?.labels ?? [],
            ...(state.inbox === undefined ? {} : { inboxId: state.inbox }),
          } as ParkedAnswer);
    return this.waiting(waiting, state, ctx);
  }

  /** `input_required` with the call sealed in `requestState`: the client retries with it, now or in hours. */
  private async waiting(
    answer: ParkedAnswer,
    state: Sealed & { kind: 'call' },
    ctx: ServerContext,
  ): Promise<InputRequiredResult> {
    const requestState = await this.tokens.seal(state, ctx);
    const result = inputRequired({ requestState });
    const conversation = await this.tokens.seal({ kind: 'conversation', run: state.run, agent: state.agent }, ctx);
    return {
      ...result,
      _meta: {
        ...callResult(answer, this.deps.confidential)._meta,
        [CONVERSATION_META]: conversation,
        'wardrik/waiting': `Waiting for a person${answer.inboxId === undefined ? '' : ` (inbox item ${answer.inboxId})`}: ${answer.reason} Nothing has run yet; retry with this requestState for its result.`,
        ...(answer.inboxId === undefined ? {} : { 'wardrik/inbox': answer.inboxId }),
      },
    } as InputRequiredResult;
  }

  private async result(answer: ToolAnswer, run: string, agent: string, ctx: ServerContext): Promise<CallToolResult> {
    const result = callResult(answer, this.deps.confidential) as CallToolResult;
    const conversation = await this.tokens.seal({ kind: 'conversation', run, agent }, ctx);
    return { ...result, _meta: { ...result._meta, [CONVERSATION_META]: conversation } };
  }

  /**
   * The run a call joins: the one its conversation token names (refused when forged, expired, or
   * another client's), else the place's, else a new one.
   */
  private async conversation(ctx: ServerContext, agent: string, place: StatelessPlace): Promise<string> {
    const token = ctx.mcpReq._meta?.[CONVERSATION_META];
    if (token === undefined) return place.run ?? newRunId();
    const opened = typeof token === 'string' ? await this.tokens.open(token, ctx) : undefined;
    if (opened?.kind !== 'conversation' || opened.agent !== agent)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `_meta["${CONVERSATION_META}"] is not a conversation this server gave this client (or it expired). Send the value a result of yours carried, or leave it out to start a new conversation.`,
        { reason: UNKNOWN_CONVERSATION },
      );
    return opened.run;
  }

  private async identity(ctx: ServerContext, place: StatelessPlace): Promise<string> {
    const { identify, agent } = this.deps.settings;
    const auth = ctx.http?.authInfo;
    const client = clientInfo(ctx);
    const id =
      identify === undefined
        ? (auth?.clientId ?? agent)
        : await identify({
            ...(auth === undefined ? {} : { auth }),
            ...(place.request === undefined ? {} : { request: place.request }),
            ...(client === undefined ? {} : { client }),
          });
    if (typeof id !== 'string' || id === '')
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        'The server could not tell who this client is (its identify hook gave no agent id); fix the server.',
      );
    return id;
  }
}

/** The tasks methods' params: `taskId` is checked by `StatelessTasks` (an unknown one is -32602, as the extension asks). */
const TASK_PARAMS = paramsSchema((params) => ({ taskId: params.taskId }));

type TaskMethod = (tasks: StatelessTasks, taskId: unknown, agent: string, ctx: ServerContext) => Promise<Result>;

/** The extension's methods (SEP-2663); it has no `tasks/list` or `tasks/result`, which the SDK answers -32601. */
const TASK_METHODS: readonly (readonly [string, TaskMethod])[] = [
  ['tasks/get', (tasks, id, agent, ctx) => tasks.get(id, agent, ctx)],
  ['tasks/cancel', (tasks, id, agent, ctx) => tasks.cancel(id, agent, ctx)],
  ['tasks/update', (tasks, id, agent, ctx) => tasks.update(id, agent, ctx)],
];

function limits(deps: SessionDeps) {
  const { settings } = deps;
  return {
    ...(settings.policy === undefined ? {} : { policy: settings.policy }),
    ...(settings.budgetUsd === undefined ? {} : { budgetUsd: settings.budgetUsd }),
    ...(settings.maxCalls === undefined ? {} : { maxCalls: settings.maxCalls }),
  };
}

/** What the tool's `ctx.caller` says: the principal the HTTP auth set, and the client's own name. */
function caller(ctx: ServerContext): ToolCaller {
  const principal = ctx.http?.authInfo?.clientId;
  const client = clientInfo(ctx)?.name;
  return Object.freeze({
    door: 'mcp',
    ...(principal === undefined ? {} : { principal }),
    ...(client === undefined ? {} : { client: client.slice(0, 200) }),
  });
}

/** What the client says it is (the envelope's `clientInfo`): its word, never proof. */
function clientInfo(ctx: ServerContext): Implementation | undefined {
  const info = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_INFO_META_KEY] as
    Implementation | undefined;
  return typeof info?.name === 'string' && typeof info.version === 'string' ? info : undefined;
}

/** Where a call's `ctx.progress` and `ctx.log` go: its own request's stream (logs only at the level the request asks). */
class RequestReporter implements CallReporter {
  constructor(
    private readonly ctx: ServerContext,
    private readonly logger: string,
  ) {}

  progress(progress: number, total: number | undefined, message: string | undefined): void {
    const progressToken = this.ctx.mcpReq._meta?.progressToken;
    if (progressToken === undefined) return;
    this.ctx.mcpReq
      .notify({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      })
      .catch(() => {});
  }

  log(level: LogLevel, data: unknown): void {
    this.ctx.mcpReq.log(level as LoggingLevel, data, this.logger).catch(() => {});
  }
}

/** A `tools/call`'s attributes: its tool's, when its params name one. */
function callAttributes(tool: unknown): Attributes {
  return typeof tool === 'string' ? toolCallAttributes(tool) : { 'mcp.method.name': 'tools/call' };
}

/** The MCP conventions' attributes of a request: `method`'s, the protocol version its envelope names, the transport. */
function operation(ctx: ServerContext, place: StatelessPlace, method: Attributes): Attributes {
  // The SDK lifts the envelope's keys out of `_meta` into `envelope`.
  const version = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META];
  return {
    ...method,
    ...networkAttributes(place.over),
    ...(typeof version === 'string' ? { 'mcp.protocol.version': version } : {}),
  };
}
