import { setMaxListeners } from 'node:events';
import { every, type Clock, type Timers } from '../clock.js';
import { newRunId } from '../run-ids.js';
import { ClosedError, ConfigurationError, ConflictError, NotFoundError, UsageError } from '../errors.js';
import type { Policy } from '../policy/policy.js';
import type { RunLeases } from '../runner/run-leases.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import type { Store, TurnRecord } from '../store/store.js';
import { requireCapability } from '../store/capabilities.js';
import type { EventBus } from '../telemetry/event-bus.js';
import type { ToolCatalog } from '../tools/catalog.js';
import { OUTSIDE } from '../tools/labels.js';
import { Agent, type SendOptions, type TurnResult } from './agent.js';
import { ConversationHistory } from './conversation-history.js';
import { DeferredTools } from './deferred-tools.js';
import { providerSearchFor } from './provider-search.js';
import { ModelCalls } from './model-calls.js';
import { isLanguageModel, modelName, type LanguageModel } from './language-model.js';
import { describe, type ModelRegistry } from './model-registry.js';
import { agentsSettings, checkAgentOptions, type AgentOptions, type AgentsOptions } from './options.js';
import { Pricing } from './pricing.js';
import { AgentTracing } from './tracing.js';
import { TurnDriver } from './turn-driver.js';
import { TurnJournal } from './turn-journal.js';
import { TurnRecovery } from './turn-recovery.js';
import { storedTurnData, type TurnData } from './turn-data.js';
import { resultOf, TERMINAL, type Runtime } from './turn-state.js';
import { TurnToolCalls } from './turn-tool-calls.js';

/**
 * Runs agent turns. A turn is journaled so that it survives a crash: the turn record first, then
 * each model response before any of its tool calls runs (in one commit with their `started` records),
 * then the step's tool answers once all are final (see `TurnToolCalls.runStep`). A turn resumes on
 * any node from that journal alone: steps already answered are never asked of the model again, and
 * tool calls go back to the runner under the same call ids, which answers them from its own journal.
 * The node driving a turn holds the run's lease.
 *
 * This class keeps the agents started here and answers `send` and `result`; the loop is `TurnDriver`,
 * taking up turns (parked ones whose calls were answered, ones a crash left) is `TurnRecovery`.
 */
export class AgentService {
  private readonly agents = new Map<string, Runtime>();
  private readonly pricing: Pricing;
  private readonly tracing = new AgentTracing();
  private readonly leases: Pick<
    RunLeases,
    'acquire' | 'takeNew' | 'release' | 'forgetLabels' | 'labelsKnown' | 'addedLabels'
  >;
  private readonly pollMs: number;
  /** Aborts every turn's model calls and waits when the service closes: one listener a turn at a time, however many turns. */
  private readonly stopping = unlimitedListeners(new AbortController());
  private readonly history: ConversationHistory;
  private readonly driver: TurnDriver;
  private readonly recovery: TurnRecovery;
  private readonly deferredTools: DeferredTools;
  /** Whether the runner tells this service of settled calls yet (from the first agent on). */
  private listening = false;
  private closed = false;

  /** @internal */
  constructor(
    private readonly store: Store,
    private readonly runner: ToolRunner,
    catalog: ToolCatalog,
    private readonly events: EventBus,
    private readonly policy: Policy,
    private readonly clock: Clock,
    /** Where the wait for another node's turn result polls. */
    private readonly timers: Timers,
    readonly models: ModelRegistry,
    options: AgentsOptions = {},
  ) {
    this.pricing = new Pricing(options.prices);
    const { resultPollMs, ...retry } = agentsSettings(options);
    this.pollMs = resultPollMs;
    this.leases = runner.leases;
    this.history = new ConversationHistory(store);
    const journal = new TurnJournal(store, events, clock);
    const deferredTools = (this.deferredTools = new DeferredTools(catalog, policy));
    this.driver = new TurnDriver({
      store,
      deferredTools,
      events,
      clock,
      leases: this.leases,
      budgets: runner.budgets,
      journals: runner,
      tracing: this.tracing,
      modelCalls: new ModelCalls(models, this.tracing, events, {
        ...retry,
        random: runner.random,
        timers: runner.timers,
      }),
      toolCalls: new TurnToolCalls(runner, this.tracing, journal, deferredTools),
      journal,
      history: this.history,
      policy,
      stopping: this.stopping.signal,
      parked: (run) => void this.recovery.resumeIfAnsweredSoon(run),
    });
    this.recovery = new TurnRecovery(
      this.agents,
      this.driver,
      this.history,
      this.tracing,
      store,
      this.leases,
      events,
      clock,
      () => this.closed,
    );
  }

  /** Checks the options and makes the agent; every mistake throws a ConfigurationError naming the fix. */
  start(options: AgentOptions): Agent {
    if (this.closed) throw new ConfigurationError('This Wardrik is closed; create a new one to start agents.');
    const numbers = checkAgentOptions(options, this.policy);
    const { id } = options;
    // A budget by period is counted like budgetUsd, in the period's account (see BudgetHolds.plan).
    if (options.budget !== undefined) options = { ...options, budgetUsd: options.budget.usd };
    if (this.agents.has(id)) {
      throw new ConfigurationError(
        `Agent "${id}" is already started on this Wardrik; keep the Agent startAgent returned, or give this one another id.`,
      );
    }
    let spec: string;
    let model: () => Promise<LanguageModel>;
    if (typeof options.model === 'string') {
      spec = options.model;
      this.models.check(spec);
      model = () => this.models.resolve(spec);
    } else if (isLanguageModel(options.model)) {
      const instance = options.model;
      spec = modelName(instance);
      model = () => Promise.resolve(instance);
    } else {
      throw new ConfigurationError(
        `Agent "${id}": model is ${describe(options.model)}; pass "provider:model" (such as "anthropic:claude-haiku-4-5") or a language model of an AI SDK 7 or 6 provider (specificationVersion "v4" or "v3").`,
      );
    }
    const price = options.price ?? this.pricing.priceOf(spec);
    if (options.budgetUsd !== undefined && price === undefined) {
      throw new ConfigurationError(
        `Agent "${id}": model "${spec}" has no price, so its budget could not count model spend. Pass price: { inputPerMTok, outputPerMTok } to startAgent, or agents: { prices: { "${spec}": … } } to Wardrik.create.`,
      );
    }
    if (options.budgetUsd !== undefined)
      requireCapability(this.store, 'SpendHolds', `Agent "${id}"'s budget (budgetUsd)`, 'leave budgetUsd out');
    if (options.maxCalls !== undefined)
      requireCapability(this.store, 'RememberedResults', `Agent "${id}"'s maxCalls`, 'leave maxCalls out');
    if (numbers.budget?.warnAt !== undefined)
      requireCapability(this.store, 'RememberedResults', `Agent "${id}"'s budget.warnAt`, 'leave warnAt out');
    const colon = spec.indexOf(':');
    const provider = spec.slice(0, colon);
    const rt: Runtime = {
      id,
      options: Object.freeze({ ...options, tools: Object.freeze([...options.tools]) }),
      spec,
      provider,
      modelId: spec.slice(colon + 1),
      model,
      price,
      maxSteps: numbers.maxSteps,
      historyTurns: numbers.historyTurns,
      search:
        options.toolSearch === 'provider'
          ? // A model instance names its API (openai.chat or openai.responses); a spec only the vendor.
            providerSearchFor(`Agent "${id}"`, typeof options.model === 'string' ? provider : options.model.provider)
          : undefined,
      history: undefined,
    };
    this.agents.set(id, rt);
    if (numbers.budget !== undefined) this.runner.budgets.plan(id, numbers.budget);
    if (!this.listening) {
      this.runner.listen(this.recovery);
      this.listening = true;
    }
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
    if (typeof text !== 'string' || text === '')
      throw new UsageError(
        `agent.send(text) of agent "${id}" needs the user's text as a non-empty string; got ${text === '' ? 'an empty string' : typeof text}. Pass what the user wrote, such as agent.send('Where is my order?').`,
      );
    await this.tracing.ready();
    const { messages: history, earlier, values } = await this.history.before(rt, Infinity);
    const run = newRunId();
    const now = this.clock.now();
    const data: TurnData = {
      input: text,
      model: rt.spec,
      text: '',
      parked: [],
      spentUsd: 0,
      steps: 0,
      ...(earlier.length === 0 ? {} : { earlier }),
    };
    // The labels of the earlier turns whose text this turn's model reads: with the turn's record, so a
    // turn recovered after a crash has them too.
    const labels = [...new Set(earlier.flatMap((turn) => turn.labels))];
    // Guard (outside-tools-label): under the run-level rule, a turn whose model reads an untrusted server's tools carries `outside` from its start.
    const toolsOutside = !this.policy.followsValues && this.deferredTools.outsideServers(rt).length > 0;
    if (toolsOutside && !labels.includes(OUTSIDE)) labels.push(OUTSIDE);
    const record: TurnRecord = {
      run,
      agent: id,
      status: 'running',
      version: 1,
      data: storedTurnData(data),
      createdAt: now,
      updatedAt: now,
    };
    // The run's lease, its labels and the turn's record: one commit.
    const written = await this.leases.takeNew(run, [
      ...(labels.length === 0 ? [] : [{ labels: { run, labels } }]),
      { turn: record, expectedVersion: undefined },
    ]);
    if (written === undefined)
      throw new ConflictError('busy', { run }, `Run "${run}" is leased by another node; send again.`);
    if (written[written.length - 1] !== true) {
      this.leases.release(run);
      throw new ConflictError('run_exists', { run }, `Turn "${run}" already exists; send again.`);
    }
    // A run made just now has no labels but those: its calls need not read them.
    this.leases.labelsKnown(run, labels);
    this.events.emit({ type: 'run.started', agent: id, run, model: rt.spec });
    return this.driver.drive(this.driver.prepare(rt, record, history, [], options.signal, values));
  }

  /** @internal The result of turn `run` of agent `id` at its next stop; use `agent.result`. */
  async result(id: string, run: string): Promise<TurnResult> {
    this.runtime(id);
    let seen = Infinity;
    let waiter!: (result: TurnResult) => void;
    const finished = new Promise<TurnResult>((resolve) => (waiter = resolve));
    // Registered before the store is read, so a turn finishing in between is not missed.
    const waiting = this.driver.waiters.get(run) ?? new Set();
    waiting.add(waiter);
    this.driver.waiters.set(run, waiting);
    const stop = (): void => {
      poll.cancel();
      waiting.delete(waiter);
      if (waiting.size === 0 && this.driver.waiters.get(run) === waiting) this.driver.waiters.delete(run);
    };
    // Another node may finish the turn: look in the store now and then.
    const poll = every(
      this.timers,
      this.pollMs,
      () => {
        void this.store.getTurn(run).then(
          (turn) => {
            if (turn !== undefined && (TERMINAL.has(turn.status) || (turn.status === 'parked' && turn.version > seen)))
              waiter(resultOf(turn));
          },
          () => undefined,
        );
      },
      { background: true },
    );
    try {
      const turn = await this.store.getTurn(run);
      if (turn === undefined || turn.agent !== id)
        throw new NotFoundError(
          `Agent "${id}" has no turn "${run}"; use the run of a TurnResult from this agent's send.`,
        );
      if (TERMINAL.has(turn.status)) return resultOf(turn);
      seen = turn.version;
      return await finished;
    } finally {
      stop();
    }
  }

  /**
   * Takes up turns a crash or another node left: `running` turns of agents started here, and parked
   * turns whose calls have all been answered (see `TurnRecovery.recover`). Returns the runs it took up.
   */
  recover(): Promise<string[]> {
    return this.recovery.recover();
  }

  /** @internal Stops: model calls in flight abort and their turns stay `running` for `recover()` on any node. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopping.abort(
      new ClosedError('Wardrik was closed while the turn ran; it resumes with recover() on any node.'),
    );
    if (this.listening) this.runner.listen(undefined);
    await this.recovery.close();
  }

  private runtime(id: string): Runtime {
    const rt = this.agents.get(id);
    if (rt === undefined)
      throw new NotFoundError(
        `No agent "${id}" is started on this Wardrik; call wardrik.startAgent({ id: "${id}", … }) first.`,
      );
    if (this.closed) throw new ConfigurationError(`This Wardrik is closed; agent "${id}" cannot run turns.`);
    return rt;
  }
}

/** A controller whose signal takes any number of listeners: Node warns of a leak past 10, and every turn running listens. */
function unlimitedListeners(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
