import { newRunId } from '../run-ids.js';
import type { IncomingMessage } from 'node:http';
import {
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type CreateTaskResult,
  type ElicitRequest,
  type LoggingLevel,
  type ServerContext,
  type ServerNotification,
} from '@modelcontextprotocol/server';
import type { CallRequest, ToolRunner } from '../runner/tool-runner.js';
import type { Store } from '../store/store.js';
import type { LogLevel, ToolCaller } from '../tools/context.js';
import type { ToolAnswer } from '../tools/result.js';
import { MAX_TIMER_MS, type Clock, type Timers } from '../clock.js';
import type { Inbox } from '../inbox/inbox.js';
import { FAILED_INSIDE, warnFailedInside } from './failed-inside.js';
import { awaitAnswer } from './approvals.js';
import { ANY_PARAMS, callRequest } from './call-params.js';
import { SessionServer } from './session-server.js';
import { askClientUser, canElicit, NOT_ASKED_AFTER_OUTSIDE, readOutside } from './elicitation.js';
import type { ServedTool, ServedTools } from './naming.js';
import { FoundTools } from './found-tools.js';
import { badQueryResult, searchResult, type ServedSearch } from './served-search.js';
import { SERVED_SEARCH_TOOL } from './served-search-tool.js';
import type { ServeTaskStore } from './tasks.js';
import type { ServeSettings } from './options.js';
import { callResult, waitingResult } from './results.js';
import { SameCalls, type SessionCall } from './same-calls.js';
import { storeFailureResult } from './store-failures.js';
import { servedCallSpan } from './trace-context.js';
import { SessionReporter } from './session-reporter.js';
import { networkAttributes, onInitialized, timedOperation } from './operation-timing.js';
import { toolCallAttributes } from '../telemetry/mcp-metrics.js';
import { isServerTool } from '../tools/tool-origin.js';
import type { Attributes } from '@opentelemetry/api';

/** What every session of one server shares. */
export interface SessionDeps {
  readonly runner: ToolRunner;
  readonly store: Store;
  readonly inbox: Inbox;
  /** Where a held call's wait for a person reads the time and sets its timers. */
  readonly clock: Clock;
  readonly timers: Timers;
  readonly served: ServedTools;
  readonly search: ServedSearch;
  readonly settings: ServeSettings;
  /** The labels the policy counts as confidential: results that carry one are marked `sensitive`. */
  readonly confidential: ReadonlySet<string>;
  /** Where task-augmented calls keep their tasks; absent, calls are never tasks. */
  readonly tasks?: ServeTaskStore;
  /** Reports a failure inside the server to the developer (a `warning` event); the client is not told its cause. */
  readonly warn: (message: string) => void;
}

type Extra = ServerContext;

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/**
 * One MCP session: its own SDK `Server` (the low-level one, which publishes JSON Schemas as they are),
 * its run, and its calls. Every call goes through the runner as an agent's does: the agent is the
 * client's identity, the run is this session (so labels such as `outside` stay with it and never
 * reach another), and the call id is unique in the session — except that a call repeated with the
 * same arguments while an earlier one waits for a person gets that call's id, so it joins the same
 * inbox item and gets its one result (see `SameCalls`).
 */
export class ServeSession {
  readonly server: SessionServer;
  /** The run this session's calls belong to: the MCP session id over HTTP, a fresh id otherwise. */
  run: string = newRunId();
  /** Set by the HTTP layer when the session starts: the request that opened it. */
  request: IncomingMessage | undefined;
  /** Set when the session is served over the process's stdio. */
  overStdio = false;
  /** The protocol version `initialize` agreed on. */
  private protocolVersion: string | undefined;
  /** The agent this session's calls run as, once known. */
  private agent: string | undefined;
  private identifying: Promise<string> | undefined;
  /** The server's rules and budget, the same on every call. */
  private readonly limits: Pick<CallRequest, 'policy' | 'budgetUsd' | 'maxCalls'>;
  private inFlight = 0;
  /** The call ids of this session's calls: a repeat of one waiting for a person joins it. */
  private readonly calls = new SameCalls();
  private logLevel: LoggingLevel | undefined;
  /** Deferred tools this session's searches found, listed to it from then on. */
  private readonly found = new FoundTools();
  /** Aborted when the session closes: its tasks stop with it. */
  private readonly closing = new AbortController();

  constructor(private readonly deps: SessionDeps) {
    const { settings } = deps;
    this.limits = {
      ...(settings.policy === undefined ? {} : { policy: settings.policy }),
      ...(settings.budgetUsd === undefined ? {} : { budgetUsd: settings.budgetUsd }),
      ...(settings.maxCalls === undefined ? {} : { maxCalls: settings.maxCalls }),
    };
    this.server = new SessionServer(
      { name: settings.name, version: settings.version },
      {
        capabilities: {
          tools: { listChanged: true },
          logging: {},
          ...(deps.tasks === undefined ? {} : { tasks: { requests: { tools: { call: {} } }, list: {}, cancel: {} } }),
        },
        ...(settings.instructions === undefined ? {} : { instructions: settings.instructions }),
      },
    );
    this.server.onclose = () => this.closing.abort(new Error('The MCP session closed.'));
    this.server.setRequestHandler('tools/list', (_request, ctx) =>
      timedOperation(
        () => this.operation('tools/list'),
        async () => ({
          tools: await deps.search.listingFor(
            this.agent ?? (await this.identity(ctx)),
            this.found.current(deps.served),
          ),
        }),
      ),
    );
    onInitialized(this.server, (version) => (this.protocolVersion = version));
    // Any params taken as sent (SessionServer skips the SDK's own parse of the request and of the result:
    // every result here is built by callResult in MCP's shape, and that parse was the largest cost a served
    // call had over the SDK's own McpServer). callRequest checks them by hand and answers a malformed one -32602.
    this.server.setRequestHandler('tools/call', { params: ANY_PARAMS }, (params, ctx) =>
      timedOperation(
        () => this.operation('tools/call', (params as { name?: unknown } | undefined)?.name),
        () => this.call(callRequest({ method: 'tools/call', params }, '2025'), ctx),
      ),
    );
    // This session's own level (one Server per session): logs go on the stream of the call that made them.
    this.server.setRequestHandler('logging/setLevel', (request) => {
      this.logLevel = request.params.level;
      return {};
    });
    deps.tasks?.serve(this.server);
  }

  /** The MCP conventions' attributes of this session's requests of `method` (of `tool`, for a call). */
  private operation(method: string, tool?: unknown): Attributes {
    return {
      ...(typeof tool === 'string' ? toolCallAttributes(tool) : { 'mcp.method.name': method }),
      ...networkAttributes(this.request !== undefined ? 'http' : this.overStdio ? 'stdio' : undefined),
      ...(this.protocolVersion === undefined ? {} : { 'mcp.protocol.version': this.protocolVersion }),
    };
  }

  private async call(request: CallToolRequest, extra: Extra): Promise<CallToolResult | CreateTaskResult> {
    const { settings, served } = this.deps;
    const name = request.params.name;
    if (name === SERVED_SEARCH_TOOL && served.deferred().length > 0) return this.searchTools(request, extra);
    const tool = served.get(name);
    if (tool === undefined) {
      // Served names are at most 64 characters: a longer one is cut before it is compared or echoed.
      const shown = name.slice(0, 80);
      const closest = served.closest(shown);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown tool "${shown}".${closest.length > 0 ? ` The closest: ${closest.join(', ')}.` : ' This server offers no tools.'}`,
      );
    }
    if (this.inFlight >= settings.maxCallsPerSession) {
      const text = `This session already has ${settings.maxCallsPerSession} calls in flight, the most it may; this call did not run. Wait for one to finish, then call again.`;
      return { content: [{ type: 'text', text }], isError: true };
    }
    if (request.params.task !== undefined && this.deps.tasks !== undefined)
      return this.startTask(request, tool, extra, this.deps.tasks);
    this.inFlight++;
    try {
      // The SDK's signal aborts on notifications/cancelled and when the connection closes; the HTTP
      // layer turns a client gone mid-request into a cancel too.
      return await this.answer(request, tool, extra, { signal: extra.mcpReq.signal, waitMs: settings.waitMs });
    } catch (error) {
      // The SDK would send the message as it is: an identify hook's or a store's may name a token or a host.
      if (error instanceof ProtocolError) throw error;
      warnFailedInside(this.deps.warn, `A served call of ${tool.name}`, error);
      throw new ProtocolError(ProtocolErrorCode.InternalError, FAILED_INSIDE);
    } finally {
      this.inFlight--;
    }
  }

  /** The search tool: what it finds is listed to this session from then on, and `tools/list_changed` says so. */
  private async searchTools(request: CallToolRequest, extra: Extra): Promise<CallToolResult> {
    const searched = await this.deps.search.search(
      this.agent ?? (await this.identity(extra)),
      request.params.arguments,
    );
    if ('badQuery' in searched) return badQueryResult(searched.badQuery);
    this.found.add(searched.found);
    if (searched.found.length > 0) void this.server.sendToolListChanged().catch(() => {});
    return searchResult(searched.answer);
  }

  /**
   * A task-augmented call (MCP tasks): answered at once with a task, which completes with the call's
   * result, however long a person takes to answer it. `tasks/cancel` stops it, as closing the session does.
   */
  private async startTask(
    request: CallToolRequest,
    tool: ServedTool,
    extra: Extra,
    tasks: ServeTaskStore,
  ): Promise<CreateTaskResult> {
    const task = tasks.createTask({
      ttl: request.params.task?.ttl ?? null,
      pollInterval: this.deps.settings.checkMs,
    });
    const signal = AbortSignal.any([tasks.track(task.taskId), this.closing.signal]);
    this.inFlight++;
    const onWaiting = (message: string): void => tasks.updateTaskStatus(task.taskId, 'working', message);
    void this.answer(request, tool, extra, { signal, waitMs: MAX_TIMER_MS, onWaiting })
      .then((result) => tasks.storeTaskResult(task.taskId, 'completed', result))
      .catch((error: unknown) => {
        // Cancelled meanwhile: the task keeps that end, and nothing failed inside.
        if (tasks.getTask(task.taskId)?.status === 'cancelled') return;
        warnFailedInside(this.deps.warn, `A served task's call of ${tool.name}`, error);
        tasks.storeTaskResult(task.taskId, 'failed', {
          content: [{ type: 'text', text: FAILED_INSIDE }],
          isError: true,
        });
      })
      .finally(() => {
        this.inFlight--;
        tasks.untrack(task.taskId);
      });
    return { task };
  }

  /** Runs one call through the runner and answers it, waiting for a person when it parks. */
  private async answer(
    request: CallToolRequest,
    tool: ServedTool,
    extra: Extra,
    how: Waiting,
  ): Promise<CallToolResult> {
    const args = request.params.arguments ?? {};
    const progressToken = request.params._meta?.progressToken;
    const agent = this.agent ?? (await this.identity(extra));
    const reporter = new SessionReporter(this, extra, progressToken, tool.name);
    // The caller's trace context (SEP-414): the call's span is a child of the client's.
    const span = await servedCallSpan(request.params._meta, tool.name, {
      ...this.operation('tools/call', tool.name),
      ...(this.request === undefined ? {} : { 'mcp.session.id': this.run }),
      'jsonrpc.request.id': String(extra.mcpReq.id),
      ...(isServerTool(tool.entry.tool) ? { 'gen_ai.tool.type': 'extension' } : {}),
    });
    const call = this.calls.start(tool.entry.ref, args, how.signal, (id) =>
      span.within(() =>
        this.deps.runner.run({
          agent,
          run: this.run,
          call: { id, name: tool.entry.ref, arguments: args },
          signal: how.signal,
          reporter,
          caller: this.caller(extra),
          ...this.limits,
        }),
      ),
    );
    let answer: ToolAnswer;
    try {
      answer = await call.answer;
      span.settled(answer.status);
    } catch (error) {
      span.settled('error');
      this.calls.settled(call, undefined);
      // The client is told whether the call ran (and which inbox item settles it); the developer, the cause.
      const told = await storeFailureResult(
        this.deps.runner,
        this.deps.store,
        this.run,
        call.id,
        error,
        this.deps.confidential,
      );
      if (told === undefined) throw error;
      warnFailedInside(this.deps.warn, `A served call of ${tool.name}`, error);
      return told;
    } finally {
      span.end();
    }
    this.calls.settled(call, answer);
    if (answer.status === 'parked') return await this.waitForPerson(answer, call, progressToken, extra, how);
    return callResult(answer, this.deps.confidential);
  }

  /**
   * Holds a parked call open for up to `waitMs`, with progress notifications when the client sent a
   * token, and answers with its result once a person answered; past that, says it waits. Until its
   * result is given, the same call again in this session gets this call's id and joins it.
   */
  private async waitForPerson(
    answer: ParkedAnswer,
    call: SessionCall,
    progressToken: string | number | undefined,
    extra: Extra,
    how: Waiting,
  ): Promise<CallToolResult> {
    const { settings, store, runner } = this.deps;
    let asksClient =
      settings.viaElicitation && answer.inboxId !== undefined && canElicit(this.server.getClientCapabilities());
    const outsideRead = async (): Promise<boolean> => readOutside(await store.getLabels(this.run));
    // Text from outside may have written this call, and may answer the client's form for it: only the inbox decides.
    if (asksClient && (await outsideRead())) {
      asksClient = false;
      answer = { ...answer, reason: `${answer.reason} ${NOT_ASKED_AFTER_OUTSIDE}` };
    }
    const reason = `Waiting for a person${answer.inboxId === undefined ? '' : ` (inbox item ${answer.inboxId})`}: ${answer.reason}`;
    how.onWaiting?.(reason);
    if (asksClient) {
      const send = (elicit: ElicitRequest, signal: AbortSignal) =>
        extra.mcpReq.send(elicit, { signal, timeout: how.waitMs });
      const inboxId = answer.inboxId!;
      if (
        (await askClientUser({
          inbox: this.deps.inbox,
          inboxId,
          by: this.agent!,
          send,
          signal: how.signal,
          readOutside: outsideRead,
        })) === 'set_aside'
      ) {
        this.deps.warn(
          `The client's yes to inbox item ${inboxId} (${call.tool}) was set aside: its session read outside text while the form was open. The item waits for a person in the inbox.`,
        );
      }
    }
    const final = await awaitAnswer(store, this.run, call.id, {
      clock: this.deps.clock,
      timers: this.deps.timers,
      waitMs: how.waitMs,
      checkMs: settings.checkMs,
      progressMs: settings.progressMs,
      signal: how.signal,
      ...(answer.inboxId === undefined ? {} : { inboxId: answer.inboxId }),
      runApproved: () => runner.recover(),
      ...(progressToken === undefined
        ? {}
        : {
            onProgress: (count: number) =>
              this.notify(extra, {
                method: 'notifications/progress',
                params: { progressToken, progress: count + 1, message: reason },
              }),
          }),
    });
    if (final === undefined) return waitingResult(answer, this.deps.confidential);
    this.calls.answered(call);
    return callResult(final, this.deps.confidential);
  }

  /** What the tool's `ctx.caller` says: the principal the HTTP auth set (never the client's word), and its name. */
  private caller(extra: Extra): ToolCaller {
    const principal = extra.http?.authInfo?.clientId;
    const client = this.server.getClientVersion()?.name;
    return Object.freeze({
      door: 'mcp',
      ...(principal === undefined ? {} : { principal }),
      ...(client === undefined ? {} : { client: client.slice(0, 200) }),
    });
  }

  private identity(extra: Extra): Promise<string> {
    const { identify, agent } = this.deps.settings;
    return (this.identifying ??= (async () => {
      const auth = extra.http?.authInfo;
      const id =
        identify === undefined
          ? (auth?.clientId ?? agent)
          : await identify({
              ...(auth === undefined ? {} : { auth }),
              ...(this.request === undefined ? {} : { request: this.request }),
              ...clientOf(this.server),
            });
      if (typeof id !== 'string' || id === '')
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          'The server could not tell who this client is (its identify hook gave no agent id); fix the server.',
        );
      return (this.agent = id);
    })().catch((error: unknown) => {
      this.identifying = undefined; // a passing failure (a directory down) must not fail the session for good
      throw error;
    }));
  }

  /** Whether the client wants log messages of `level` (all until it sets a level). */
  logs(level: LogLevel): boolean {
    return this.logLevel === undefined || LEVELS.indexOf(level) >= LEVELS.indexOf(this.logLevel);
  }

  notify(extra: Extra, notification: ServerNotification): void {
    // A notification that cannot be sent (the client went away) must not fail the call.
    extra.mcpReq.notify(notification).catch(() => {});
  }
}

type ParkedAnswer = Extract<ToolAnswer, { status: 'parked' }>;

/** How a call waits for a person: until `signal` aborts or `waitMs` passes; `onWaiting` is told once it starts. */
interface Waiting {
  readonly signal: AbortSignal;
  readonly waitMs: number;
  readonly onWaiting?: (reason: string) => void;
}

function clientOf(server: SessionServer): { client?: NonNullable<ReturnType<SessionServer['getClientVersion']>> } {
  const client = server.getClientVersion();
  return client === undefined ? {} : { client };
}
