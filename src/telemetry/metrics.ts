import type { Attributes, BatchObservableCallback, Counter, Histogram, Meter } from '@opentelemetry/api';
import type { Clock } from '../clock.js';
import { loadOtelApi } from './otel-api.js';
import type { InboxKind, InboxRecord } from '../store/store.js';
import type { EventBus } from './event-bus.js';
import type { WardrikEvent } from './events.js';

/**
 * OpenTelemetry metrics, fed by the events Wardrik emits (docs/events.md lists every name, unit and
 * attribute): the GenAI conventions' model-call metrics, and Wardrik's own: tool calls by outcome and
 * their duration, calls waiting for a person and in doubt, the time to a person's answer, budgets, and
 * recovery passes. Through `@opentelemetry/api`, only when the app registered a MeterProvider before
 * `Wardrik.create` (see `registeredMeterProvider`); otherwise nothing subscribes to the events, so the
 * call path does not even build them.
 */

/** What the gauges read when the app's exporter collects: the store's inbox, across every node. */
export interface MetricSources {
  readonly bus: EventBus;
  readonly clock: Clock;
  /** Items waiting for a person, on every node that shares the store. */
  readonly waiting: () => Promise<readonly Pick<InboxRecord, 'kind' | 'createdAt'>[]>;
}

/** The outcome attribute of `wardrik.tool.calls`. */
type Outcome = 'ok' | 'failed' | 'denied' | 'parked' | 'in_doubt';

/** The API's global registry, kept by `@opentelemetry/api` 1.x under this symbol. */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether the app registered a MeterProvider (`metrics.setGlobalMeterProvider`, which every OpenTelemetry
 * SDK's start does): read from the API's global registry without loading the API, so that a Wardrik in an
 * app without OpenTelemetry loads nothing for metrics.
 */
export function registeredMeterProvider(): boolean {
  const registry = (globalThis as Record<symbol, { metrics?: unknown } | undefined>)[OTEL_GLOBAL];
  return registry?.metrics !== undefined;
}

/** Starts the metrics when the app has a MeterProvider; returns how to stop them, or `undefined`. */
export async function startMetrics(sources: MetricSources): Promise<(() => void) | undefined> {
  if (!registeredMeterProvider()) return undefined;
  const api = await loadOtelApi();
  if (api === undefined) return undefined; // a registry without the package: an SDK of its own; nothing to report to
  return new WardrikMetrics(api.metrics.getMeter('wardrik'), sources).stop;
}

const INBOX_KINDS: readonly InboxKind[] = ['approval', 'park', 'in_doubt', 'tool_change', 'question', 'authorize'];

/** Bucket boundaries (the API's advice; an app's views override them): OpenTelemetry's for durations in seconds. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** The GenAI conventions' for model calls, and for tokens. */
const MODEL_SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** A person answers in seconds to days. */
const PERSON_SECONDS = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 14400, 43200, 86400, 259200];

/** Calls that started here and have not ended, for their duration; bounded so a flood cannot grow it. */
const MAX_STARTED = 10_000;

class WardrikMetrics {
  private readonly toolCalls: Counter;
  private readonly toolDuration: Histogram;
  private readonly answerTime: Histogram;
  private readonly modelDuration: Histogram;
  private readonly tokens: Histogram;
  private readonly recoveries: Counter;
  private readonly recoveryDuration: Histogram;
  /** When each call in flight here started: `run \0 call` → ms. */
  private readonly started = new Map<string, number>();
  /** When each item waiting here was parked: inbox id → ms. */
  private readonly parkedAt = new Map<string, number>();
  /** Each agent's latest total spend and budget. */
  private readonly budgets = new Map<string, { spentUsd: number; budgetUsd: number | undefined }>();
  private lastRecovery: number | undefined;
  readonly stop: () => void;

  constructor(meter: Meter, sources: MetricSources) {
    this.toolCalls = meter.createCounter('wardrik.tool.calls', {
      description: 'Tool calls that ended or stopped for a person, by outcome.',
      unit: '{call}',
    });
    this.toolDuration = meter.createHistogram('wardrik.tool.duration', {
      description: 'From a tool call reaching the runner to its answer, on the node that ran it.',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS },
    });
    this.answerTime = meter.createHistogram('wardrik.inbox.answer.duration', {
      description: 'From a call parking for a person to their answer.',
      unit: 's',
      advice: { explicitBucketBoundaries: PERSON_SECONDS },
    });
    this.modelDuration = meter.createHistogram('gen_ai.client.operation.duration', {
      description: 'GenAI operation duration.',
      unit: 's',
      advice: { explicitBucketBoundaries: MODEL_SECONDS },
    });
    this.tokens = meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Measures number of input and output tokens used.',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKENS },
    });
    this.recoveries = meter.createCounter('wardrik.recovery.passes', {
      description: 'Recovery passes, by outcome.',
      unit: '{pass}',
    });
    this.recoveryDuration = meter.createHistogram('wardrik.recovery.duration', {
      description: 'How long a recovery pass took.',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS },
    });
    const waiting = meter.createObservableGauge('wardrik.inbox.waiting', {
      description: 'Items waiting for a person, on every node that shares the store, by kind.',
      unit: '{item}',
    });
    const oldest = meter.createObservableGauge('wardrik.inbox.oldest_age', {
      description: 'How long the oldest item has waited for a person.',
      unit: 's',
    });
    const spent = meter.createObservableGauge('wardrik.budget.spent', {
      description: "An agent's spend so far, in US dollars.",
      unit: 'USD',
    });
    const limit = meter.createObservableGauge('wardrik.budget.limit', {
      description: "An agent's budget, in US dollars, for agents that have one.",
      unit: 'USD',
    });
    const lag = meter.createObservableGauge('wardrik.recovery.lag', {
      description: 'Time since the last recovery pass ended on this node: alert when it passes a few recoverMs.',
      unit: 's',
    });
    // One read of the inbox a collection, for both of its gauges.
    const observe: BatchObservableCallback = async (result) => {
      const items = await sources.waiting();
      const now = sources.clock.now();
      const byKind = new Map<string, number>();
      let first = now;
      for (const item of items) {
        byKind.set(item.kind, (byKind.get(item.kind) ?? 0) + 1);
        first = Math.min(first, item.createdAt);
      }
      for (const kind of INBOX_KINDS) result.observe(waiting, byKind.get(kind) ?? 0, { 'wardrik.inbox.kind': kind });
      result.observe(oldest, (now - first) / 1000);
      for (const [agent, budget] of this.budgets) {
        result.observe(spent, budget.spentUsd, { 'gen_ai.agent.name': agent });
        if (budget.budgetUsd !== undefined) result.observe(limit, budget.budgetUsd, { 'gen_ai.agent.name': agent });
      }
      if (this.lastRecovery !== undefined) result.observe(lag, (sources.clock.now() - this.lastRecovery) / 1000);
    };
    const observables = [waiting, oldest, spent, limit, lag];
    meter.addBatchObservableCallback(observe, observables);
    const subscription = sources.bus.events$.subscribe((event) => this.record(event));
    this.stop = () => {
      subscription.unsubscribe();
      meter.removeBatchObservableCallback(observe, observables);
    };
  }

  private record(event: WardrikEvent): void {
    switch (event.type) {
      case 'tool.called':
        if (this.started.size < MAX_STARTED) this.started.set(`${event.run}\0${event.call}`, event.time);
        return;
      case 'tool.succeeded':
        return this.ended(event, 'ok');
      case 'tool.failed':
        // Denied by the policy or by a person: the call's answer is the error `denied`.
        return this.ended(event, event.code === 'denied' ? 'denied' : 'failed');
      case 'tool.parked':
        if (this.parkedAt.size < MAX_STARTED) this.parkedAt.set(event.inboxId, event.time);
        return this.ended(event, event.kind === 'in_doubt' ? 'in_doubt' : 'parked');
      case 'tool.answered': {
        const parked = this.parkedAt.get(event.inboxId);
        this.parkedAt.delete(event.inboxId);
        if (parked !== undefined)
          this.answerTime.record((event.time - parked) / 1000, {
            'gen_ai.tool.name': event.tool,
            'wardrik.answer': event.answer,
          });
        return;
      }
      case 'model.called':
      case 'model.failed': {
        const [provider = '', model = event.model] = splitModel(event.model);
        const attributes: Attributes = {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': provider,
          'gen_ai.request.model': model,
          ...(event.type === 'model.failed'
            ? { 'error.type': event.status === undefined ? '_OTHER' : String(event.status) }
            : {}),
        };
        if (event.durationMs !== undefined) this.modelDuration.record(event.durationMs / 1000, attributes);
        if (event.type === 'model.called') {
          this.tokens.record(event.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
          this.tokens.record(event.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
        }
        return;
      }
      case 'cost':
        this.budgets.set(event.agent, { spentUsd: event.totalUsd, budgetUsd: event.budgetUsd });
        return;
      case 'recovery.finished':
        this.lastRecovery = event.time;
        this.recoveries.add(1, { 'wardrik.outcome': event.error === undefined ? 'ok' : 'failed' });
        this.recoveryDuration.record(event.durationMs / 1000);
        return;
      default:
        return;
    }
  }

  private ended(
    event: { agent: string; run: string; call: string; tool: string; time: number },
    outcome: Outcome,
  ): void {
    const attributes = { 'gen_ai.tool.name': event.tool, 'gen_ai.agent.name': event.agent, 'wardrik.outcome': outcome };
    this.toolCalls.add(1, attributes);
    const key = `${event.run}\0${event.call}`;
    const started = this.started.get(key);
    if (started === undefined) return;
    this.started.delete(key);
    this.toolDuration.record((event.time - started) / 1000, attributes);
  }
}

/** `provider:model` as the two attributes; a spec without a provider keeps it whole as the model. */
function splitModel(spec: string): [string, string] | [] {
  const colon = spec.indexOf(':');
  return colon < 0 ? [] : [spec.slice(0, colon), spec.slice(colon + 1)];
}
