import { randomUUID } from 'node:crypto';
import { APICallError } from '@ai-sdk/provider';
import type {
  JSONSchema7,
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3GenerateResult,
  LanguageModelV3Message,
} from '@ai-sdk/provider';
import type { Subscription } from 'rxjs';
import type { Clock } from '../clock.js';
import { ConfigurationError, ConflictError, NotFoundError, WardrikError } from '../errors.js';
import { toMicroUsd, toUsd } from '../money.js';
import type { Policy } from '../policy/policy.js';
import type { RunLeases } from '../runner/run-leases.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { Store, TurnRecord, TurnStatus } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { WardrikEvent } from '../telemetry/events.js';
import { journaledArgumentsText } from '../tools/arguments.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { answerText, type ToolAnswer } from '../tools/result.js';
import { Agent, type ParkedCall, type SendOptions, type TurnOutcome, type TurnResult } from './agent.js';
import { assistantMessage, toolMessage, turnMessages, type ModelStepData, type StepData, type ToolsStepData } from './messages.js';
import { modelHold } from './model-budget.js';
import { isLanguageModelV3, describe, modelName, type ModelRegistry } from './model-registry.js';
import { AGENT_DEFAULTS, checkAgentOptions, type AgentOptions, type AgentsOptions } from './options.js';
import { Pricing, type ModelPrice, type ModelUsage } from './pricing.js';
import { AgentTracing, type TraceSpan } from './tracing.js';
import { backoffDelay, isTransient, sleep } from '../runner/transient.js';

/** An agent as the service keeps it: its checked options and how to reach its model. */
interface Runtime {
  readonly id: string;
  readonly options: AgentOptions;
  /** `provider:model` */
  readonly spec: string;
  readonly provider: string;
  readonly modelId: string;
  readonly model: () => Promise<LanguageModelV3>;
  readonly price: ModelPrice | undefined;
  readonly maxSteps: number;
  readonly historyTurns: number;
  /** Finished turns, oldest first, loaded from the store on first use and kept up to date. */
  history: Promise<HistoryEntry[]> | undefined;
}

interface HistoryEntry {
  readonly run: string;
  readonly finishedAt: number;
  readonly messages: readonly LanguageModelV3Message[];
}

/** `TurnRecord.data`: what a turn is about and where it stands. Plain JSON. */
interface TurnData {
  readonly input: string;
  readonly model: string;
  readonly text: string;
  readonly parked: readonly ParkedCall[];
  readonly spentUsd: number;
  readonly steps: number;
  readonly error?: string;
}

/** A turn being driven in this process. */
interface Drive {
  readonly rt: Runtime;
  readonly run: string;
  record: TurnRecord;
  readonly input: string;
  /** The prompt, grown in place: earlier turns, this turn's user text, then each step. Never re-scanned. */
  readonly prompt: LanguageModelV3Message[];
  readonly steps: StepData[];
  modelSteps: number;
  text: string;
  spentUsd: number;
  readonly tools: LanguageModelV3FunctionTool[];
  readonly readOnly: ReadonlySet<string>;
  readonly refs: ReadonlyMap<string, { readonly ref: string; readonly description: string }>;
  readonly signal: AbortSignal;
  readonly span: TraceSpan;
}

type ModelFailure = { readonly failed: string };

const TERMINAL: ReadonlySet<TurnStatus> = new Set(['done', 'failed', 'budget_spent']);

/**
 * Runs agent turns. A turn is journaled so that it survives a crash (D1): the turn record first, then
 * each model response (`store.appendStep`) before any of its tool calls runs, then the step's tool
 * answers once all are final. A turn resumes on any node from that journal alone: steps already
 * answered are never asked of the model again, and tool calls go back to the runner under the same
 * call ids, which answers them from its own journal. The node driving a turn holds the run's lease.
 *
 * A parked turn goes on by itself when its calls are answered in this process's inbox (it watches
 * the call events), and through `recover()` when they were answered elsewhere.
 */
export class AgentService {
  private readonly agents = new Map<string, Runtime>();
  private readonly pricing: Pricing;
  private readonly tracing = new AgentTracing();
  private readonly leases: Pick<RunLeases, 'acquire' | 'release'>;
  private readonly attempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly pollMs: number;
  /** Turns driven here now. */
  private readonly active = new Set<string>();
  /** Runs that may resume when a call of theirs gets its final answer: parked here, or answered here. */
  private readonly watched = new Set<string>();
  /** Tool costs of watched runs, counted while they are parked (an approved call that costs). */
  private readonly parkedSpend = new Map<string, number>();
  private readonly resuming = new Map<string, Promise<boolean>>();
  private readonly waiters = new Map<string, Set<(result: TurnResult) => void>>();
  private readonly stopping = new AbortController();
  private readonly driving = new Map<string, Drive>();
  private subscription: Subscription | undefined;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly runner: ToolRunner,
    private readonly catalog: ToolCatalog,
    private readonly events: EventBus,
    private readonly policy: Policy,
    private readonly clock: Clock,
    readonly models: ModelRegistry,
    options: AgentsOptions = {},
  ) {
    this.pricing = new Pricing(options.prices);
    this.attempts = whole('agents.modelRetry.attempts', options.modelRetry?.attempts ?? AGENT_DEFAULTS.modelAttempts, 1);
    this.baseDelayMs = whole('agents.modelRetry.baseDelayMs', options.modelRetry?.baseDelayMs ?? AGENT_DEFAULTS.modelBaseDelayMs, 0);
    this.maxDelayMs = whole('agents.modelRetry.maxDelayMs', options.modelRetry?.maxDelayMs ?? AGENT_DEFAULTS.modelMaxDelayMs, 0);
    this.pollMs = whole('agents.resultPollMs', options.resultPollMs ?? AGENT_DEFAULTS.resultPollMs, 1);
    this.leases = runner.leases;
  }

  /** Checks the options and makes the agent; every mistake throws a ConfigurationError naming the fix. */
  start(options: AgentOptions): Agent {
    if (this.closed) throw new ConfigurationError('This Wardrik is closed; create a new one to start agents.');
    checkAgentOptions(options, this.policy);
    const { id } = options;
    if (this.agents.has(id)) {
      throw new ConfigurationError(`Agent "${id}" is already started on this Wardrik; keep the Agent startAgent returned, or give this one another id.`);
    }
    let spec: string;
    let model: () => Promise<LanguageModelV3>;
    if (typeof options.model === 'string') {
      spec = options.model;
      this.models.check(spec);
      model = () => this.models.resolve(spec);
    } else if (isLanguageModelV3(options.model)) {
      const instance = options.model;
      spec = modelName(instance);
      model = () => Promise.resolve(instance);
    } else {
      throw new ConfigurationError(
        `Agent "${id}": model is ${describe(options.model)}; pass "provider:model" (such as "anthropic:claude-haiku-4-5") or a LanguageModelV3 (AI SDK 6 providers, specificationVersion "v3").`,
      );
    }
    const price = options.price ?? this.pricing.priceOf(spec);
    if (options.budgetUsd !== undefined && price === undefined) {
      throw new ConfigurationError(
        `Agent "${id}": model "${spec}" has no price, so its budget could not count model spend. Pass price: { inputPerMTok, outputPerMTok } to startAgent, or agents: { prices: { "${spec}": … } } to Wardrik.create.`,
      );
    }
    const colon = spec.indexOf(':');
    const rt: Runtime = {
      id,
      options: Object.freeze({ ...options, tools: Object.freeze([...options.tools]) }),
      spec,
      provider: spec.slice(0, colon),
      modelId: spec.slice(colon + 1),
      model,
      price,
      maxSteps: options.maxSteps ?? AGENT_DEFAULTS.maxSteps,
      historyTurns: options.historyTurns ?? AGENT_DEFAULTS.historyTurns,
      history: undefined,
    };
    this.agents.set(id, rt);
    this.subscription ??= this.events.events$.subscribe((event) => this.onEvent(event));
    return new Agent(id, spec, this);
  }

  /** The agent started under `id` here, if any. */
  get(id: string): Agent | undefined {
    const rt = this.agents.get(id);
    return rt === undefined ? undefined : new Agent(id, rt.spec, this);
  }

  /** @internal Runs one turn of agent `id`; use `agent.send`. */
  async send(id: string, text: string, options: SendOptions): Promise<TurnResult> {
    const rt = this.runtime(id);
    if (typeof text !== 'string' || text === '') throw new TypeError(`agent.send(text) needs the user's text as a non-empty string.`);
    await this.tracing.ready();
    const history = await this.historyOf(rt, Infinity);
    const run = randomUUID();
    const now = this.clock.now();
    const data: TurnData = { input: text, model: rt.spec, text: '', parked: [], spentUsd: 0, steps: 0 };
    const record: TurnRecord = { run, agent: id, status: 'running', version: 1, data, createdAt: now, updatedAt: now };
    if (!(await this.leases.acquire(run))) throw new ConflictError(`Run "${run}" is leased by another node; send again.`);
    try {
      if (!(await this.store.writeTurn(record, undefined))) throw new ConflictError(`Turn "${run}" already exists; send again.`);
    } catch (error) {
      this.leases.release(run);
      throw error;
    }
    this.events.emit({ type: 'run.started', agent: id, run, model: rt.spec });
    return this.drive(this.prepare(rt, record, history, [], options.signal));
  }

  /** @internal The result of turn `run` of agent `id` at its next stop; use `agent.result`. */
  async result(id: string, run: string): Promise<TurnResult> {
    this.runtime(id);
    let seen = Infinity;
    let waiter!: (result: TurnResult) => void;
    const finished = new Promise<TurnResult>((resolve) => (waiter = resolve));
    // Registered before the store is read, so a turn finishing in between is not missed.
    const waiting = this.waiters.get(run) ?? new Set();
    waiting.add(waiter);
    this.waiters.set(run, waiting);
    const stop = (): void => {
      clearInterval(poll);
      waiting.delete(waiter);
      if (waiting.size === 0 && this.waiters.get(run) === waiting) this.waiters.delete(run);
    };
    // Another node may finish the turn: look in the store now and then.
    const poll = setInterval(() => {
      void this.store.getTurn(run).then((turn) => {
        if (turn !== undefined && (TERMINAL.has(turn.status) || (turn.status === 'parked' && turn.version > seen))) waiter(resultOf(turn));
      }, () => undefined);
    }, this.pollMs);
    poll.unref();
    try {
      const turn = await this.store.getTurn(run);
      if (turn === undefined || turn.agent !== id) throw new NotFoundError(`Agent "${id}" has no turn "${run}"; use the run of a TurnResult from this agent's send.`);
      if (TERMINAL.has(turn.status)) return resultOf(turn);
      seen = turn.version;
      return await finished;
    } finally {
      stop();
    }
  }

  /**
   * Takes up turns a crash or another node left: `running` turns of agents started here whose lease
   * this node can take resume from their journal, and parked turns whose calls have all been answered
   * go on. Returns the runs it took up; they go on in the background (`agent.result(run)` waits).
   * Call it after the runner's own recovery, so calls left in flight have their answers first.
   */
  async recover(): Promise<string[]> {
    const taken: string[] = [];
    if (this.closed || this.agents.size === 0) return taken;
    for (const turn of await this.store.listTurns({ status: 'running' })) {
      const rt = this.agents.get(turn.agent);
      if (rt === undefined || this.active.has(turn.run)) continue;
      if (!(await this.leases.acquire(turn.run))) continue;
      const next: TurnRecord = { ...turn, version: turn.version + 1, updatedAt: this.clock.now() };
      // The compare-and-set makes one node the taker, even if two got the lease one after the other.
      if (this.active.has(turn.run) || !(await this.store.writeTurn(next, turn.version))) {
        this.leases.release(turn.run);
        continue;
      }
      this.events.emit({ type: 'run.resumed', agent: turn.agent, run: turn.run, reason: 'recovered' });
      taken.push(turn.run);
      this.background(rt, next);
    }
    for (const turn of await this.store.listTurns({ status: 'parked' })) {
      if (this.agents.has(turn.agent) && (await this.tryResume(turn.run))) taken.push(turn.run);
    }
    return taken;
  }

  /** Stops: model calls in flight abort and their turns stay `running` for `recover()` on any node. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopping.abort(new WardrikError('closed', 'Wardrik was closed while the turn ran; it resumes with recover() on any node.'));
    this.subscription?.unsubscribe();
    await Promise.allSettled([...this.resuming.values()]);
  }

  private runtime(id: string): Runtime {
    const rt = this.agents.get(id);
    if (rt === undefined) throw new NotFoundError(`No agent "${id}" is started on this Wardrik; call wardrik.startAgent({ id: "${id}", … }) first.`);
    if (this.closed) throw new ConfigurationError(`This Wardrik is closed; agent "${id}" cannot run turns.`);
    return rt;
  }

  /** Builds the in-memory state of a turn from its record and journaled steps. */
  private prepare(rt: Runtime, record: TurnRecord, history: readonly LanguageModelV3Message[], steps: StepData[], signal: AbortSignal | undefined): Drive {
    const data = record.data as TurnData;
    const prompt: LanguageModelV3Message[] = [];
    if (rt.options.instructions !== undefined && rt.options.instructions !== '') prompt.push({ role: 'system', content: rt.options.instructions });
    for (const message of history) prompt.push(message);
    for (const message of turnMessages(data.input, steps)) prompt.push(message);
    const entries = this.catalog.select(rt.options.tools);
    const tools: LanguageModelV3FunctionTool[] = entries.map((entry) => ({
      type: 'function',
      name: entry.name,
      description: entry.tool.description,
      inputSchema: entry.tool.inputSchema as JSONSchema7,
    }));
    let text = data.text;
    let modelSteps = 0;
    for (const step of steps) {
      if (step.kind === 'model') {
        modelSteps++;
        if (step.text !== '') text = step.text;
      }
    }
    const extra = this.parkedSpend.get(record.run) ?? 0;
    this.parkedSpend.delete(record.run);
    return {
      rt,
      run: record.run,
      record,
      input: data.input,
      prompt,
      steps,
      modelSteps,
      text,
      spentUsd: data.spentUsd + extra,
      tools,
      readOnly: new Set(entries.filter((entry) => entry.tool.annotations.readOnly === true).map((entry) => entry.name)),
      refs: new Map(entries.map((entry) => [entry.name, { ref: entry.ref, description: entry.tool.description }])),
      signal: signal === undefined ? this.stopping.signal : AbortSignal.any([signal, this.stopping.signal]),
      span: this.tracing.turn(rt.id, record.run, rt.modelId, rt.provider),
    };
  }

  /** Drives a turn until it ends or parks; the run's lease is held throughout and given up after. */
  private async drive(d: Drive): Promise<TurnResult> {
    this.active.add(d.run);
    this.driving.set(d.run, d);
    try {
      return await this.loop(d);
    } catch (error) {
      if (d.record.status === 'running') {
        d.span.fail(error instanceof WardrikError ? error.code : 'error', (error as Error).message);
        d.span.end();
      }
      throw error;
    } finally {
      this.active.delete(d.run);
      this.driving.delete(d.run);
      this.leases.release(d.run);
    }
  }

  private async loop(d: Drive): Promise<TurnResult> {
    const { rt } = d;
    for (;;) {
      const last = d.steps[d.steps.length - 1];
      if (last?.kind === 'model' && last.calls.length > 0) {
        const parked = await this.runCalls(d, last, d.steps.length - 1);
        if (parked.length > 0) return this.settle(d, 'parked', parked);
        continue;
      }
      if (last?.kind === 'model') return this.settle(d, 'done');
      if (d.modelSteps >= rt.maxSteps) {
        return this.settle(d, 'failed', [], `Agent "${rt.id}" made ${rt.maxSteps} model calls in this turn (maxSteps) without a final answer. Raise maxSteps in startAgent, or narrow the task.`);
      }
      const budget = rt.options.budgetUsd;
      if (budget !== undefined) {
        const spent = toUsd(await this.store.getSpend(rt.id));
        if (spent >= budget) {
          return this.settle(d, 'budget_spent', [], `Agent "${rt.id}" has spent $${round(spent)} of its $${budget} budget, so no further model call started. Raise budgetUsd to go on.`);
        }
      }
      this.throwIfClosing();
      if (d.signal.aborted) return this.settle(d, 'failed', [], `The turn was stopped (the signal passed to send aborted) before model call ${d.modelSteps + 1}.`);
      const step = await this.modelStep(d, budget);
      if (step === undefined) return this.settle(d, 'budget_spent', [], `Agent "${rt.id}" has spent its $${budget} budget, so no further model call started. Raise budgetUsd to go on.`);
      if ('failed' in step) {
        this.throwIfClosing();
        return this.settle(d, 'failed', [], step.failed);
      }
    }
  }

  /** Calls the model and journals its step; under a budget, holding part of it meanwhile (`undefined`: the budget is spent). */
  private modelStep(d: Drive, budgetUsd: number | undefined): Promise<ModelStepData | ModelFailure | undefined> {
    let cost: number | undefined;
    const step = async (): Promise<ModelStepData | ModelFailure> => {
      const result = await this.callModel(d);
      if ('failed' in result) return result;
      await this.journalModelStep(d, result);
      cost = toMicroUsd(result.usd);
      return result;
    };
    if (budgetUsd === undefined) return step();
    const { rt } = d;
    const hold = modelHold({ agent: rt.id, run: d.run, step: d.modelSteps + 1, spec: rt.spec }, rt.price, rt.options.maxOutputTokens, budgetUsd, d.signal);
    const stopped = `The turn was stopped (the signal passed to send aborted) before model call ${d.modelSteps + 1}.`;
    return this.runner.budgets.within<ModelStepData | ModelFailure | undefined>(hold, step, async (why) => (why === 'spent' ? undefined : { failed: stopped }), () => cost);
  }

  /** Asks the model for the next step, retrying transient failures; a failure is described, not thrown. */
  private async callModel(d: Drive): Promise<ModelStepData | ModelFailure> {
    const { rt } = d;
    let model: LanguageModelV3;
    try {
      model = await rt.model();
    } catch (error) {
      return { failed: `Model "${rt.spec}" could not be loaded: ${(error as Error).message}` };
    }
    const options: LanguageModelV3CallOptions = {
      prompt: d.prompt,
      ...(d.tools.length === 0 ? {} : { tools: d.tools, toolChoice: { type: 'auto' as const } }),
      ...(rt.options.maxOutputTokens === undefined ? {} : { maxOutputTokens: rt.options.maxOutputTokens }),
      ...(rt.options.temperature === undefined ? {} : { temperature: rt.options.temperature }),
      abortSignal: d.signal,
    };
    const stepNumber = d.modelSteps + 1;
    for (let attempt = 1; ; attempt++) {
      const span = this.tracing.chat(d.span, rt.modelId, rt.provider, {
        ...(rt.options.maxOutputTokens === undefined ? {} : { 'gen_ai.request.max_tokens': rt.options.maxOutputTokens }),
        ...(rt.options.temperature === undefined ? {} : { 'gen_ai.request.temperature': rt.options.temperature }),
      });
      try {
        const result = await model.doGenerate(options);
        const step = modelStep(rt.spec, result, rt.price);
        span.set({
          'gen_ai.response.model': result.response?.modelId ?? rt.modelId,
          ...(result.response?.id === undefined ? {} : { 'gen_ai.response.id': result.response.id }),
          'gen_ai.response.finish_reasons': [step.finishReason],
          'gen_ai.usage.input_tokens': step.usage.inputTokens,
          'gen_ai.usage.output_tokens': step.usage.outputTokens,
          'gen_ai.usage.cache_read.input_tokens': step.usage.cacheReadTokens,
          'gen_ai.usage.cache_creation.input_tokens': step.usage.cacheWriteTokens,
        });
        span.end();
        return step;
      } catch (error) {
        const failure = modelFailure(rt.spec, this.models.keyHint(rt.spec), error, d.signal);
        span.fail(failure.type, failure.message);
        span.end();
        this.events.emit({
          type: 'model.failed',
          agent: rt.id,
          run: d.run,
          model: rt.spec,
          step: stepNumber,
          message: failure.message,
          attempt,
          ...(failure.status === undefined ? {} : { status: failure.status }),
        });
        if (!failure.retryable || attempt >= this.attempts || d.signal.aborted) return { failed: failure.message };
        if (!(await sleep(backoffDelay(attempt, this.baseDelayMs, this.maxDelayMs, Math.random), d.signal))) return { failed: failure.message };
      }
    }
  }

  /** Counts the step's cost, then journals it: both before any of its tool calls runs. */
  private async journalModelStep(d: Drive, step: ModelStepData): Promise<void> {
    const { rt } = d;
    // Spend first: a crash after it and before the journal asks the model again, which really costs again.
    if (rt.price !== undefined) {
      const totalMicroUsd = await this.store.addSpend(rt.id, toMicroUsd(step.usd));
      d.spentUsd += step.usd;
      this.events.emit({ type: 'cost', agent: rt.id, run: d.run, source: 'model', usd: step.usd, totalUsd: toUsd(totalMicroUsd), totalMicroUsd });
    }
    await this.append(d, step);
    d.prompt.push(assistantMessage(step));
    d.modelSteps++;
    if (step.text !== '') d.text = step.text;
    this.events.emit({
      type: 'model.called',
      agent: rt.id,
      run: d.run,
      model: rt.spec,
      step: d.modelSteps,
      inputTokens: step.usage.inputTokens,
      outputTokens: step.usage.outputTokens,
      usd: step.usd,
      finishReason: step.finishReason,
      toolCalls: step.calls.length,
    });
  }

  private async append(d: Drive, data: StepData): Promise<void> {
    const index = d.steps.length;
    if (!(await this.store.appendStep({ run: d.run, index, data, createdAt: this.clock.now() }))) {
      throw new ConflictError(`Turn "${d.run}" already has step ${index}: another node is driving it. This node stopped; the other one goes on.`);
    }
    d.steps.push(data);
  }

  /**
   * Runs a model step's tool calls in the model's order, except that consecutive read-only calls run
   * together (they change nothing, so their order cannot matter); any other call runs alone. Once a
   * call parks, later calls wait: they run when the turn resumes. Returns the parked calls, or none
   * after journaling every answer as the step's `tools` step.
   */
  private async runCalls(d: Drive, step: ModelStepData, index: number): Promise<ParkedCall[]> {
    const answers: ToolAnswer[] = [];
    const calls = step.calls;
    const parked: ParkedCall[] = [];
    for (let i = 0; i < calls.length && parked.length === 0; ) {
      let j = i + 1;
      if (d.readOnly.has(calls[i]!.name)) while (j < calls.length && d.readOnly.has(calls[j]!.name)) j++;
      if (j - i === 1) {
        answers[i] = await this.runCall(d, calls[i]!, index);
      } else {
        const group = await Promise.all(calls.slice(i, j).map((call) => this.runCall(d, call, index)));
        for (let k = 0; k < group.length; k++) answers[i + k] = group[k]!;
      }
      for (let k = i; k < j; k++) {
        const answer = answers[k]!;
        if (answer.status === 'parked') {
          const call = calls[k]!;
          parked.push({ inboxId: answer.inboxId ?? '', call: callId(index, call.id), tool: d.refs.get(call.name)?.ref ?? call.name, reason: answer.reason });
        }
      }
      i = j;
    }
    if (parked.length > 0) return parked;
    const tools: ToolsStepData = {
      kind: 'tools',
      results: calls.map((call, k) => ({ id: call.id, name: call.name, text: answerText(answers[k]!), error: answers[k]!.status === 'error' })),
    };
    await this.append(d, tools);
    d.prompt.push(toolMessage(tools));
    return parked;
  }

  private async runCall(d: Drive, call: ModelStepData['calls'][number], index: number): Promise<ToolAnswer> {
    const { rt } = d;
    const id = callId(index, call.id);
    const span = this.tracing.tool(d.span, call.name, id, d.refs.get(call.name)?.description);
    try {
      const answer = await this.runner.run({
        agent: rt.id,
        run: d.run,
        call: { id, name: call.name, arguments: call.input },
        ...(rt.options.budgetUsd === undefined ? {} : { budgetUsd: rt.options.budgetUsd }),
        ...(rt.options.policy === undefined ? {} : { policy: rt.options.policy }),
        tools: rt.options.tools,
        signal: d.signal,
      });
      span.set({ 'wardrik.tool.status': answer.status });
      if (answer.status === 'error') span.fail(answer.code, answer.message);
      return answer;
    } catch (error) {
      span.fail('store', (error as Error).message);
      throw error;
    } finally {
      span.end();
    }
  }

  /** Writes where the turn stands; `parked` turns are watched, ended ones join the conversation. */
  private async settle(d: Drive, status: TurnOutcome, parked: ParkedCall[] = [], error?: string): Promise<TurnResult> {
    const { rt } = d;
    const data: TurnData = {
      input: d.input,
      model: rt.spec,
      text: d.text,
      parked,
      spentUsd: d.spentUsd,
      steps: d.modelSteps,
      ...(error === undefined ? {} : { error }),
    };
    const next: TurnRecord = { ...d.record, status, version: d.record.version + 1, data, updatedAt: this.clock.now() };
    if (status === 'parked') this.watched.add(d.run);
    if (!(await this.store.writeTurn(next, d.record.version))) {
      throw new ConflictError(`Turn "${d.run}" was changed by another node while this one drove it; this node stopped.`);
    }
    d.record = next;
    const result = resultOf(next);
    d.span.set({ 'wardrik.turn.status': status, 'wardrik.turn.steps': d.modelSteps });
    if (status === 'failed' && error !== undefined) d.span.fail('turn_failed', error);
    d.span.end();
    if (status === 'parked') {
      this.events.emit({ type: 'run.parked', agent: rt.id, run: d.run, inboxIds: parked.map((call) => call.inboxId) });
      for (const waiter of this.waiters.get(d.run) ?? []) waiter(result);
      // A call may have been answered while the turn was being written.
      queueMicrotask(() => void this.tryResume(d.run));
      return result;
    }
    this.watched.delete(d.run);
    this.events.emit({
      type: 'run.finished',
      agent: rt.id,
      run: d.run,
      status,
      steps: d.modelSteps,
      spentUsd: d.spentUsd,
      ...(error === undefined ? {} : { error }),
    });
    await this.remember(rt, { run: d.run, finishedAt: next.updatedAt, messages: d.prompt.slice(d.prompt.length - turnLength(d)) });
    for (const waiter of this.waiters.get(d.run) ?? []) waiter(result);
    return result;
  }

  /** Adds a finished turn to the agent's conversation. */
  private async remember(rt: Runtime, entry: HistoryEntry): Promise<void> {
    rt.history ??= this.loadHistory(rt);
    const entries = await rt.history;
    if (rt.historyTurns === 0 || entries.some((e) => e.run === entry.run)) return;
    entries.push(entry);
    if (entries.length > rt.historyTurns * 2) entries.splice(0, entries.length - rt.historyTurns);
  }

  /**
   * The conversation before a turn: the messages of the agent's last `historyTurns` turns that ended
   * before `before`. Read from the store once per agent and process (so a new process goes on with
   * the conversation), then kept in memory.
   */
  private async historyOf(rt: Runtime, before: number): Promise<LanguageModelV3Message[]> {
    rt.history ??= this.loadHistory(rt);
    let entries: HistoryEntry[];
    try {
      entries = await rt.history;
    } catch (error) {
      rt.history = undefined;
      throw error;
    }
    if (rt.historyTurns === 0) return [];
    const earlier = before === Infinity ? entries : entries.filter((entry) => entry.finishedAt <= before);
    return earlier.slice(-rt.historyTurns).flatMap((entry) => entry.messages);
  }

  private async loadHistory(rt: Runtime): Promise<HistoryEntry[]> {
    if (rt.historyTurns === 0) return [];
    const turns = await this.store.lastFinishedTurns(rt.id, rt.historyTurns);
    const entries: HistoryEntry[] = [];
    for (const turn of turns) {
      const steps = (await this.store.listSteps(turn.run)).map((step) => step.data as StepData);
      entries.push({ run: turn.run, finishedAt: turn.updatedAt, messages: turnMessages((turn.data as TurnData).input, steps) });
    }
    return entries;
  }

  /** Resumes parked turn `run` if every call it waits on has its final answer; true if it did. */
  private tryResume(run: string): Promise<boolean> {
    const previous = this.resuming.get(run) ?? Promise.resolve(false);
    const next = previous.then(
      () => this.resumeIfAnswered(run),
      () => this.resumeIfAnswered(run),
    );
    const tail = next.catch((error: unknown) => {
      this.events.emit({ type: 'warning', message: `Could not resume turn "${run}": ${(error as Error).message}. recover() tries again.` });
      return false;
    });
    this.resuming.set(run, tail);
    void tail.then(() => {
      if (this.resuming.get(run) === tail) this.resuming.delete(run);
    });
    return tail;
  }

  private async resumeIfAnswered(run: string): Promise<boolean> {
    if (this.closed || this.active.has(run)) return false;
    const turn = await this.store.getTurn(run);
    if (turn === undefined || TERMINAL.has(turn.status)) this.watched.delete(run);
    if (turn === undefined || turn.status !== 'parked') return false;
    const rt = this.agents.get(turn.agent);
    if (rt === undefined) return false;
    for (const call of (turn.data as TurnData).parked) {
      const record = await this.store.getCall(run, call.call);
      if (record === undefined || record.state === 'parked' || record.state === 'started') return false;
    }
    if (!(await this.leases.acquire(run))) return false;
    const next: TurnRecord = { ...turn, status: 'running', version: turn.version + 1, updatedAt: this.clock.now() };
    if (this.active.has(run) || !(await this.store.writeTurn(next, turn.version))) {
      this.leases.release(run);
      return false;
    }
    this.watched.delete(run);
    this.events.emit({ type: 'run.resumed', agent: turn.agent, run, reason: 'answered' });
    this.background(rt, next);
    return true;
  }

  /** Drives a turn taken up from the store (it holds the lease already) without a caller waiting. */
  private background(rt: Runtime, record: TurnRecord): void {
    this.active.add(record.run);
    void (async () => {
      let d: Drive;
      try {
        // A turn taken up here (recovered, or resumed by an answer) is this process's first span, maybe.
        const [history, steps] = await Promise.all([this.historyOf(rt, record.createdAt), this.store.listSteps(record.run), this.tracing.ready()]);
        d = this.prepare(rt, record, history, steps.map((step) => step.data as StepData), undefined);
      } catch (error) {
        this.active.delete(record.run);
        this.leases.release(record.run);
        throw error;
      }
      await this.drive(d);
    })().catch((error: unknown) => {
      if (this.closed) return;
      this.events.emit({ type: 'warning', message: `Turn "${record.run}" of agent "${rt.id}" stopped: ${(error as Error).message}. recover() takes it up again.` });
    });
  }

  private onEvent(event: WardrikEvent): void {
    switch (event.type) {
      case 'tool.answered':
        this.watched.add(event.run);
        return;
      case 'tool.succeeded':
      case 'tool.failed':
        if (this.watched.has(event.run) && !this.active.has(event.run)) void this.tryResume(event.run);
        return;
      case 'cost':
        if (event.source === 'tool') {
          const d = this.driving.get(event.run);
          if (d !== undefined) d.spentUsd += event.usd;
          else if (this.watched.has(event.run)) this.parkedSpend.set(event.run, (this.parkedSpend.get(event.run) ?? 0) + event.usd);
        }
        return;
      default:
        return;
    }
  }

  /** Closing stops a turn without settling it, so it stays `running` for recovery. */
  private throwIfClosing(): void {
    if (this.stopping.signal.aborted) throw this.stopping.signal.reason as Error;
  }
}

/** The runner's call id for a model's tool call: unique in the run even if a model reuses ids across steps. */
function callId(stepIndex: number, modelCallId: string): string {
  return `${stepIndex}.${modelCallId}`;
}

/** How many prompt messages belong to the turn itself (its user text and its steps). */
function turnLength(d: Drive): number {
  return 1 + d.steps.length;
}

function resultOf(turn: TurnRecord): TurnResult {
  const data = turn.data as TurnData;
  const status: TurnOutcome = turn.status === 'running' ? 'failed' : turn.status;
  return {
    run: turn.run,
    agent: turn.agent,
    status,
    text: data.text,
    parked: data.parked,
    spentUsd: data.spentUsd,
    steps: data.steps,
    ...(data.error === undefined ? {} : { error: data.error }),
  };
}

/** A model response as the journal keeps it. */
function modelStep(spec: string, result: LanguageModelV3GenerateResult, price: ModelPrice | undefined): ModelStepData {
  let text = '';
  const calls: { id: string; name: string; input: string }[] = [];
  for (const part of result.content) {
    if (part.type === 'text') text += part.text;
    // Arguments too long to be within the limits are journaled (and run) as a note that is refused as too large.
    else if (part.type === 'tool-call' && part.providerExecuted !== true) calls.push({ id: part.toolCallId, name: part.toolName, input: journaledArgumentsText(part.input) });
  }
  const input = result.usage.inputTokens;
  const cacheRead = input.cacheRead ?? 0;
  const cacheWrite = input.cacheWrite ?? 0;
  const usage: ModelUsage = {
    inputTokens: input.total ?? (input.noCache ?? 0) + cacheRead + cacheWrite,
    outputTokens: result.usage.outputTokens.total ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
  return {
    kind: 'model',
    model: spec,
    text,
    calls,
    finishReason: result.finishReason.unified,
    usage,
    usd: price === undefined ? 0 : Pricing.usd(price, usage),
  };
}

/** What went wrong with a model call, in words that say what to do, and whether trying again may help. */
function modelFailure(
  spec: string,
  keyHint: string | undefined,
  error: unknown,
  signal: AbortSignal,
): { readonly message: string; readonly type: string; readonly retryable: boolean; readonly status?: number } {
  if (signal.aborted) return { message: `The turn was stopped during a call to model "${spec}".`, type: 'aborted', retryable: false };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const hint =
      status === 401 || status === 403
        ? `Check the API key${keyHint === undefined ? '' : ` (${keyHint})`}.`
        : status === 404
          ? 'Check the model id and the base URL.'
          : status === 429
            ? 'The provider is limiting requests or the account is out of credit: wait and try again, send less, or raise the limit.'
            : status !== undefined && status >= 500
              ? 'The provider had an error: try again later.'
              : status === undefined
                ? `Could not reach ${error.url}: check the network and the base URL.`
                : 'The provider refused the request.';
    const what = status === undefined ? '' : ` with HTTP ${status}`;
    return {
      message: `Model "${spec}" failed${what}: ${error.message.replace(/[.\s]+$/, '')}. ${hint}`,
      type: status === undefined ? 'connection' : String(status),
      retryable: error.isRetryable,
      ...(status === undefined ? {} : { status }),
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: `Model "${spec}" failed: ${message}`, type: error instanceof Error ? error.name : 'error', retryable: isTransient(error) };
}

function round(usd: number): string {
  return usd.toFixed(usd < 1 ? 4 : 2);
}

function whole(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new ConfigurationError(`${name} must be a whole number of at least ${min}; got ${String(value)}.`);
  return value;
}
