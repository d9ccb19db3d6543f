import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ConfigurationError,
  Unavailable,
  Wardrik,
  type AgentOptions,
  type InboxWebOptions,
  type ServeOptions,
  type WardrikOptions,
} from '../src/index.js';
import { ScriptedModel } from '../src/testing/index.js';
import { AGENT_NUMBERS, AGENTS_NUMBERS } from '../src/agent/options.js';
import { HTTP_SERVER_NUMBERS } from '../src/http/server-options.js';
import { MCP_NUMBERS } from '../src/mcp/options.js';
import type { NumberTable } from '../src/options.js';
import { RUNNER_NUMBERS } from '../src/runner/runner-options.js';
import { SERVE_NUMBERS } from '../src/serve/options.js';
import { WEB_NUMBERS, WEBHOOK_NUMBERS } from '../src/web/options.js';
import { exported, publicDeclarations, ts } from './declarations.js';

/** Node's longest timer, written out: a longer wait fires at once. */
const LONGEST_TIMER = 2_147_483_647;

/** What an option may be: `min` inclusive, `above` exclusive, `max` inclusive; `whole`; `Infinity` allowed. */
interface Range {
  readonly min?: number;
  readonly above?: number;
  readonly max?: number;
  readonly whole?: boolean;
  readonly infinity?: boolean;
}

const timer = (low: { min: number } | { above: number }, more: Partial<Range> = {}): Range => ({
  ...low,
  max: LONGEST_TIMER,
  ...more,
});

/**
 * Every number option of `Wardrik.create` and `startAgent`, by its path (`*` for any key of a record),
 * and what it may be. The test below checks this list against the published option types, so an option
 * added without a row here fails.
 */
const OPTIONS: Readonly<Record<string, Range>> = {
  'runner.timeoutMs': timer({ above: 0 }),
  'runner.retry.attempts': { min: 1, max: 100, whole: true },
  'runner.retry.baseDelayMs': timer({ min: 0 }),
  'runner.retry.maxDelayMs': timer({ min: 0 }),
  // Stored as an expiry time, never waited on by a timer.
  'runner.rememberMs': { above: 0 },
  'runner.leaseMs': timer({ above: 0 }),
  recoverMs: timer({ min: 1 }, { infinity: true }),
  // An age compared with rows' times, never waited on by a timer.
  'retention.finishedAfterMs': { min: 0, infinity: true },
  'retention.everyMs': timer({ min: 1 }, { infinity: true }),
  'audit.keepForMs': { min: 1, infinity: true },
  // An item's wait, compared with its age.
  'policy.approvalTtlMs': { above: 0 },
  'policy.escalateAfterMs': { above: 0 },
  'mcp.reconcileMs': timer({ min: 1 }, { infinity: true }),
  'mcp.waitMs': timer({ min: 0 }),
  'mcp.connectTimeoutMs': timer({ min: 1 }),
  'mcp.backoff.baseDelayMs': timer({ min: 1 }),
  'mcp.backoff.maxDelayMs': timer({ min: 1 }),
  'mcp.listDebounceMs': timer({ min: 0 }),
  'mcp.elicitationWaitMs': timer({ min: 1 }),
  'mcp.maxResultChars': { min: 1, whole: true },
  'mcp.maxMessageBytes': { min: 1_024, whole: true },
  'mcp.maxTools': { min: 1, whole: true },
  'mcp.servers.*.timeoutMs': timer({ above: 0 }, { whole: true }),
  'agents.modelRetry.attempts': { min: 1, max: 100, whole: true },
  'agents.modelRetry.baseDelayMs': timer({ min: 0 }),
  'agents.modelRetry.maxDelayMs': timer({ min: 0 }),
  'agents.resultPollMs': timer({ min: 1 }),
  'startAgent.budgetUsd': { above: 0 },
  'startAgent.maxSteps': { min: 1, max: 10_000, whole: true },
  'startAgent.historyTurns': { min: 0, max: 10_000, whole: true },
  'startAgent.maxCalls.*': { min: 1, max: 10_000, whole: true },
  'startAgent.maxOutputTokens': { min: 1, max: 10_000_000, whole: true },
  'startAgent.temperature': { min: 0 },
  'inboxWeb.pollMs': { min: 1 },
  'inboxWeb.sessionMs': { min: 1 },
  'inboxWeb.notify.webhook.retry.baseDelayMs': { min: 1 },
  'inboxWeb.notify.webhook.retry.maxDelayMs': timer({ min: 1 }),
  'mcpServer.budgetUsd': { min: 0 },
  'mcpServer.maxCalls.*': { min: 1, max: 10_000, whole: true },
  'mcpServer.approvals.waitMs': timer({ min: 0 }, { whole: true }),
  'mcpServer.approvals.progressMs': timer({ min: 1 }, { whole: true }),
  'mcpServer.approvals.checkMs': timer({ min: 1 }, { whole: true }),
  'mcpServer.http.maxBodyBytes': { min: 1, max: 2 ** 31, whole: true },
  'mcpServer.http.idleMs': timer({ min: 1 }, { whole: true }),
  'mcpServer.http.maxCallsPerSession': { min: 1, max: 1_000_000, whole: true },
  'mcpServer.http.maxSessions': { min: 1, max: 1_000_000, whole: true },
  'mcpServer.http.maxSessionsPerClient': { min: 1, max: 1_000_000, whole: true },
  'mcpServer.http.maxTasksPerClient': { min: 1, max: 1_000_000, whole: true },
  'mcpServer.http.maxListensPerClient': { min: 1, max: 1_000_000, whole: true },
  // The HTTP options both servers take (HttpServerOptions), under each.
  ...serverOptions('inboxWeb.http'),
  ...serverOptions('mcpServer.http'),
};

/** The rows of `HttpServerOptions` under `prefix`. */
function serverOptions(prefix: string): Record<string, Range> {
  return {
    [`${prefix}.headersTimeoutMs`]: timer({ min: 1 }, { whole: true }),
    [`${prefix}.requestTimeoutMs`]: timer({ min: 1 }, { whole: true }),
    [`${prefix}.keepAliveTimeoutMs`]: timer({ min: 1 }, { whole: true }),
    [`${prefix}.maxConnections`]: { min: 1, max: 1_000_000, whole: true },
    [`${prefix}.maxUnauthenticatedBytes`]: { min: 1_024, max: 2 ** 31, whole: true },
    [`${prefix}.wrongGuesses.free`]: { min: 0, max: 1_000_000, whole: true },
    [`${prefix}.wrongGuesses.delayMs`]: timer({ min: 0 }),
    [`${prefix}.wrongGuesses.maxDelayMs`]: timer({ min: 0 }),
  };
}

/** Values the range refuses: below it, above it, between whole numbers, not a number, Infinity. */
function refused(range: Range): unknown[] {
  const values: unknown[] = [Number.NaN, '5', null];
  values.push(range.above ?? (range.min ?? 0) - 1);
  if (range.max !== undefined) values.push(range.max + 1);
  if (range.max === LONGEST_TIMER) values.push(3e9);
  if (range.whole === true) values.push((range.above ?? range.min ?? 0) + 1.5);
  if (range.infinity !== true) values.push(Infinity);
  return values;
}

/** Values the range takes: its lowest, its highest, Infinity when allowed, and past a timer when it is no timer. */
function accepted(range: Range): number[] {
  const values = [range.above === undefined ? (range.min ?? 0) : range.above + (range.whole === true ? 1 : 0.5)];
  if (range.max !== undefined) values.push(range.max);
  if (range.infinity === true) values.push(Infinity);
  if (range.max === undefined) values.push(3e9);
  return values;
}

/** `{ a: { b: value } }` for `a.b`; a record key `*` becomes one entry named `s`. */
function nested(path: readonly string[], value: unknown, parent?: string): Record<string, unknown> {
  const [head, ...rest] = path;
  // Any name where names are free (a server's), a tool pattern where they are patterns (maxCalls).
  const key = head === '*' ? (parent === 'maxCalls' ? 't/*' : 's') : head!;
  if (rest.length === 0) return { [key]: value };
  return { [key]: nested(rest, value, head) };
}

/**
 * Options one of which must not be longer than the other (a first backoff wait and the longest one): a
 * test setting one sets its partner out of the way, the longer one at its most and the shorter at its
 * least, so only the option under test can be refused.
 */
const PARTNERS: Readonly<Record<string, readonly [string, number]>> = {
  ...partners('runner.retry.baseDelayMs', 'runner.retry.maxDelayMs', 0),
  ...partners('agents.modelRetry.baseDelayMs', 'agents.modelRetry.maxDelayMs', 0),
  ...partners('mcp.backoff.baseDelayMs', 'mcp.backoff.maxDelayMs', 1),
  ...partners('inboxWeb.http.wrongGuesses.delayMs', 'inboxWeb.http.wrongGuesses.maxDelayMs', 0),
  ...partners('mcpServer.http.wrongGuesses.delayMs', 'mcpServer.http.wrongGuesses.maxDelayMs', 0),
};

function partners(shorter: string, longer: string, least: number): Record<string, readonly [string, number]> {
  return { [shorter]: [longer, LONGEST_TIMER], [longer]: [shorter, least] };
}

/** `options` with `value` set at `path` (parts, `*` as `s`), objects on the way kept. */
function setAt(options: Record<string, unknown>, path: readonly string[], value: unknown): void {
  const [head, ...rest] = path;
  const key = head === '*' ? 's' : head!;
  if (rest.length === 0) {
    options[key] = value;
    return;
  }
  const inner = (options[key] ?? {}) as Record<string, unknown>;
  options[key] = inner;
  setAt(inner, rest, value);
}

/** The partner of `path` set out of its way, under `options` whose paths start after `skip` parts. */
function withPartner(path: string, options: Record<string, unknown>, skip = 0): Record<string, unknown> {
  const partner = PARTNERS[path];
  if (partner !== undefined) setAt(options, partner[0].split('.').slice(skip), partner[1]);
  return options;
}

/** Wardrik.create options setting one option; other options keep the test quiet (no recovery timer, no waiting). */
function createOptions(path: string, value: unknown): WardrikOptions {
  const parts = path.split('.');
  const options: Record<string, unknown> = withPartner(path, {
    store: 'memory:',
    recoverMs: Infinity,
    ...nested(parts, value),
  });
  if (parts[0] === 'mcp') {
    const mcp = options.mcp as Record<string, unknown>;
    const servers = (mcp.servers ?? {}) as Record<string, Record<string, unknown>>;
    // A server that refuses connections: it keeps trying in the background, and nothing waits for it.
    for (const server of Object.values(servers)) server.transport = { http: { url: 'http://127.0.0.1:1/mcp' } };
    options.mcp = { waitMs: 0, ...mcp, servers };
  }
  return options as WardrikOptions;
}

/** How the option is named in a message: under its area's label (`mcp "mcp": waitMs`, `Agent "a": maxSteps`, `inboxWeb: pollMs`). */
function named(path: string): string {
  return path.replace(/^(startAgent|inboxWeb|mcpServer|mcp(\.servers\.\*)?)\./, '');
}

/**
 * `inboxWeb` or `mcpServer` options setting one option (`inboxWeb.http.maxConnections`), with what it
 * needs beside it: a webhook's url and secret; a request time-out no shorter than the headers' one.
 */
function serverCallOptions(path: string, value: unknown): Record<string, unknown> {
  const parts = path.split('.').slice(1);
  const options = withPartner(path, nested(parts, value), 1);
  if (parts[0] === 'notify')
    Object.assign((options.notify as { webhook: object }).webhook, {
      url: 'http://127.0.0.1:9/hook',
      secret: 'a-secret-of-sixteen-or-more',
    });
  const http = options.http as Record<string, unknown> | undefined;
  if (http !== undefined && 'headersTimeoutMs' in http) http.requestTimeoutMs = LONGEST_TIMER;
  else if (http !== undefined && 'requestTimeoutMs' in http) http.headersTimeoutMs = 1;
  return path.startsWith('mcpServer.')
    ? { tools: ['**'], ...options }
    : { token: 'a-token-of-sixteen-or-more', ...options };
}

function isRefusal(path: string, value: unknown): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof ConfigurationError, `${path} = ${String(value)}: ${String(error)}`);
    assert.ok(
      error.message.includes(named(path)),
      `${path} = ${String(value)}: the message names it: ${error.message}`,
    );
    assert.match(error.message, / must be | is .*; got /, error.message);
    return true;
  };
}

describe('Number options', () => {
  const created = Object.keys(OPTIONS).filter((path) => !/^(startAgent|inboxWeb|mcpServer)\./.test(path));
  const agentOnes = Object.keys(OPTIONS).filter((path) => path.startsWith('startAgent.'));

  it('cover every number option of Wardrik.create, startAgent, inboxWeb and mcpServer, as the published types declare them', () => {
    const { checker } = publicDeclarations();
    const found = new Set<string>();
    const visit = (type: ts.Type, path: string, depth: number): void => {
      if (depth > 8) return;
      if (type.isUnion()) {
        for (const member of type.types) visit(member, path, depth);
        return;
      }
      if (type.flags & ts.TypeFlags.NumberLike) {
        found.add(path);
        return;
      }
      if (!(type.flags & ts.TypeFlags.Object) || type.getCallSignatures().length > 0) return;
      if (checker.isArrayType(type)) {
        const [element] = checker.getTypeArguments(type as ts.TypeReference);
        if (element !== undefined) visit(element, path, depth + 1);
        return;
      }
      // Option objects only: a Store, a container, a model or a price table is a value, not settings.
      const name = type.aliasSymbol?.name ?? type.getSymbol()?.name ?? '';
      if (!(name === '__type' || name === 'Readonly' || name === 'Record' || name.endsWith('Options'))) return;
      for (const info of checker.getIndexInfosOfType(type)) visit(info.type, `${path}.*`, depth + 1);
      for (const property of checker.getPropertiesOfType(type)) {
        const declaration = property.valueDeclaration ?? property.declarations?.[0];
        if (declaration === undefined) continue;
        visit(
          checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, declaration)),
          path === '' ? property.name : `${path}.${property.name}`,
          depth + 1,
        );
      }
    };
    visit(checker.getDeclaredTypeOfSymbol(exported('WardrikOptions')), '', 0);
    const agent = new Set<string>();
    visit(checker.getDeclaredTypeOfSymbol(exported('AgentOptions')), 'startAgent', 0);
    visit(checker.getDeclaredTypeOfSymbol(exported('InboxWebOptions')), 'inboxWeb', 0);
    visit(checker.getDeclaredTypeOfSymbol(exported('ServeOptions')), 'mcpServer', 0);
    for (const path of found) if (path.startsWith('startAgent.')) agent.add(path);
    assert.deepEqual([...found].sort(), Object.keys(OPTIONS).sort());
    assert.ok(agent.size > 0);
  });

  it('refuses, when Wardrik.create starts, each value out of range of every option it takes, naming the option', async () => {
    for (const path of created) {
      for (const value of refused(OPTIONS[path]!)) {
        await assert.rejects(
          Wardrik.create(createOptions(path, value)),
          isRefusal(path, value),
          `${path} = ${String(value)}`,
        );
      }
    }
  });

  it('takes the ends of each range of every option of Wardrik.create', async () => {
    for (const path of created) {
      for (const value of accepted(OPTIONS[path]!)) {
        const wardrik = await Wardrik.create(createOptions(path, value)).catch((error: unknown) =>
          assert.fail(`${path} = ${value}: ${String(error)}`),
        );
        await wardrik.close();
      }
    }
  });

  it('refuses a model retry wait and a result poll longer than a timer can wait (3e9 ms)', async () => {
    for (const agents of [
      { modelRetry: { maxDelayMs: 3e9 } },
      { modelRetry: { baseDelayMs: 3e9 } },
      { resultPollMs: 3e9 },
    ]) {
      await assert.rejects(
        Wardrik.create({ store: 'memory:', agents }),
        /agents\.(modelRetry\.(max|base)DelayMs|resultPollMs) must be a number of at least [01] and at most 2147483647; got 3000000000/,
      );
    }
  });

  it('refuses each value out of range of every number option of startAgent, and takes the ends of each range', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
    try {
      let n = 0;
      const start = (path: string, value: unknown) => {
        const options = {
          id: `agent-${n++}`,
          model: new ScriptedModel([]),
          tools: [],
          ...nested(path.split('.').slice(1), value),
        };
        return wardrik.startAgent(options as AgentOptions);
      };
      for (const path of agentOnes) {
        for (const value of refused(OPTIONS[path]!))
          assert.throws(() => start(path, value), isRefusal(path, value), `${path} = ${String(value)}`);
        for (const value of accepted(OPTIONS[path]!))
          assert.doesNotThrow(() => start(path, value), `${path} = ${value}`);
      }
    } finally {
      await wardrik.close();
    }
  });
});

describe('Number options of the HTTP servers', () => {
  const serverOnes = Object.keys(OPTIONS).filter((path) => /^(inboxWeb|mcpServer)\./.test(path));

  it('refuses each value out of range of every number option of inboxWeb and mcpServer, naming it, and takes the ends of each range', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
    try {
      const make = (path: string, value: unknown) => {
        const options = serverCallOptions(path, value);
        return path.startsWith('mcpServer.')
          ? wardrik.mcpServer(options as unknown as ServeOptions)
          : wardrik.inboxWeb(options as InboxWebOptions);
      };
      for (const path of serverOnes) {
        for (const value of refused(OPTIONS[path]!))
          assert.throws(() => make(path, value), isRefusal(path, value), `${path} = ${String(value)}`);
        for (const value of accepted(OPTIONS[path]!))
          assert.doesNotThrow(() => make(path, value), `${path} = ${value}`);
      }
    } finally {
      await wardrik.close();
    }
  });

  it('refuses a headersTimeoutMs longer than requestTimeoutMs, saying which to change', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
    try {
      assert.throws(
        () => wardrik.inboxWeb({ http: { headersTimeoutMs: 40_000 } }),
        /inboxWeb: http\.headersTimeoutMs \(40000\) is longer than requestTimeoutMs \(30000\)/,
      );
      assert.throws(
        () => wardrik.mcpServer({ tools: ['**'], http: { headersTimeoutMs: 5_000, requestTimeoutMs: 4_000 } }),
        /mcpServer: http\.headersTimeoutMs \(5000\) is longer than requestTimeoutMs \(4000\)/,
      );
    } finally {
      await wardrik.close();
    }
  });
});

describe('Model retries', () => {
  it("take their jitter from the runner's random option, as tool retries do", async () => {
    let draws = 0;
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      runner: {
        random: () => {
          draws++;
          return 0.5;
        },
      },
      agents: { modelRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 } },
    });
    try {
      const model = new ScriptedModel([
        { error: new Unavailable('The provider is down for a moment.') },
        { error: new Unavailable('Still down.') },
        { text: 'Back.' },
      ]);
      const result = await wardrik.startAgent({ id: 'retrying', model, tools: [] }).send('Hello?');
      assert.equal(result.status, 'done');
      assert.equal(model.calls.length, 3);
      // One draw per wait between two model calls; no tool ran, so none came from a tool retry.
      assert.equal(draws, 2);
    } finally {
      await wardrik.close();
    }
  });
});

describe('Options that must not pass each other', () => {
  /** `make` builds with the options; `message` is what the refusal must say, naming both and the fix. */
  const cases: readonly {
    readonly what: string;
    readonly make: (wardrik: Wardrik) => unknown;
    readonly message: RegExp;
  }[] = [
    {
      what: "the runner's first retry wait and its longest",
      make: () => Wardrik.create({ store: 'memory:', runner: { retry: { baseDelayMs: 5_000, maxDelayMs: 100 } } }),
      message:
        /^runner\.retry\.baseDelayMs \(5000\) is longer than maxDelayMs \(100\); no retry waits longer than maxDelayMs, so give a baseDelayMs no longer than it, or a longer maxDelayMs\.$/,
    },
    {
      what: "the runner's first retry wait and the default longest",
      make: () => Wardrik.create({ store: 'memory:', runner: { retry: { baseDelayMs: 20_000 } } }),
      message:
        /^runner\.retry\.baseDelayMs \(20000\) is longer than maxDelayMs \(10000\); .* or a maxDelayMs of your own \(it was left at its default\)\.$/,
    },
    {
      what: "a model call's first retry wait and its longest",
      make: () => Wardrik.create({ store: 'memory:', agents: { modelRetry: { baseDelayMs: 5_000, maxDelayMs: 100 } } }),
      message: /^agents\.modelRetry\.baseDelayMs \(5000\) is longer than maxDelayMs \(100\);.* a longer maxDelayMs\.$/,
    },
    {
      what: "an MCP hub's first reconnection wait and its longest",
      make: () => Wardrik.create({ store: 'memory:', mcp: { backoff: { baseDelayMs: 5_000, maxDelayMs: 100 } } }),
      message: /^mcp "mcp": backoff\.baseDelayMs \(5000\) is longer than maxDelayMs \(100\);.* a longer maxDelayMs\.$/,
    },
    {
      what: "an MCP hub's longest reconnection wait and the default first",
      make: () => Wardrik.create({ store: 'memory:', mcp: { backoff: { maxDelayMs: 100 } } }),
      message:
        /^mcp "mcp": backoff\.baseDelayMs \(500, its default\) is longer than maxDelayMs \(100\);.* give a maxDelayMs of at least 500, or a baseDelayMs of your own no longer than it\.$/,
    },
    {
      what: "the inbox page's first hold on a wrong token and its longest",
      make: (wardrik) =>
        wardrik.inboxWeb({
          token: 'a-token-of-sixteen-or-more',
          http: { wrongGuesses: { delayMs: 5_000, maxDelayMs: 100 } },
        }),
      message:
        /^inboxWeb: http\.wrongGuesses\.delayMs \(5000\) is longer than maxDelayMs \(100\); no hold is longer than maxDelayMs, so give a delayMs no longer than it, or a longer maxDelayMs\.$/,
    },
    {
      what: "the MCP server's first hold on a wrong token and the default longest",
      make: (wardrik) => wardrik.mcpServer({ tools: ['**'], http: { wrongGuesses: { delayMs: 600_000 } } }),
      message: /^mcpServer: http\.wrongGuesses\.delayMs \(600000\) is longer than maxDelayMs \(10000\);.* of your own/,
    },
  ];

  for (const { what, make, message } of cases) {
    it(`refuses ${what} the wrong way round, naming both and the fix`, async () => {
      const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
      try {
        await assert.rejects(
          Promise.resolve().then(() => make(wardrik)),
          (error: unknown) => error instanceof ConfigurationError && message.test(error.message),
        );
      } finally {
        await wardrik.close();
      }
    });
  }

  it('takes a first wait as long as the longest', async () => {
    const wardrik = await Wardrik.create({
      store: 'memory:',
      recoverMs: Infinity,
      runner: { retry: { baseDelayMs: 100, maxDelayMs: 100 } },
      agents: { modelRetry: { baseDelayMs: 100, maxDelayMs: 100 } },
      mcp: { backoff: { baseDelayMs: 100, maxDelayMs: 100 } },
    });
    try {
      assert.doesNotThrow(() =>
        wardrik.mcpServer({ tools: ['**'], http: { wrongGuesses: { delayMs: 100, maxDelayMs: 100 } } }),
      );
    } finally {
      await wardrik.close();
    }
  });
});

describe('Option tables', () => {
  /** Each table of defaults and ranges, beside the published options type its paths are in. */
  const tables: readonly (readonly [string, NumberTable])[] = [
    ['RunnerOptions', RUNNER_NUMBERS],
    ['AgentOptions', AGENT_NUMBERS],
    ['AgentsOptions', AGENTS_NUMBERS],
    ['McpHubOptions', MCP_NUMBERS],
    ['HttpServerOptions', HTTP_SERVER_NUMBERS],
    ['ServeOptions', SERVE_NUMBERS],
    ['InboxWebOptions', WEB_NUMBERS],
    ['WebhookOptions', WEBHOOK_NUMBERS],
  ];

  /** How a doc comment may say a default: `60 000`, `24 hours`, `30 minutes`, `1 MiB`. */
  function said(value: number): RegExp[] {
    const spaced = String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
    const ways = [new RegExp(`(?<![\\d.])(?<!\\d )${spaced}(?!\\d|\\.\\d| \\d{3})`)];
    const hours = value / 3_600_000;
    const minutes = value / 60_000;
    const mebibytes = value / 1024 / 1024;
    if (Number.isInteger(hours) && hours > 0) ways.push(new RegExp(`\\b${hours} hours?\\b`));
    if (Number.isInteger(minutes) && minutes > 0) ways.push(new RegExp(`\\b${minutes} minutes?\\b`));
    if (Number.isInteger(mebibytes) && mebibytes > 0) ways.push(new RegExp(`\\b${mebibytes} MiB\\b`));
    return ways;
  }

  /** The doc comment of the option at `path`, or of the nearest option above it that has one. */
  function docAt(checker: ts.TypeChecker, type: ts.Type, path: readonly string[]): string {
    let doc = '';
    let current = type;
    for (const part of path) {
      const property = checker.getPropertyOfType(current, part);
      assert.ok(property !== undefined, `${part} of ${path.join('.')} is in the published type`);
      const text = ts.displayPartsToString(property.getDocumentationComment(checker));
      if (text !== '') doc = text;
      const declaration = property.valueDeclaration ?? property.declarations![0]!;
      current = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, declaration));
    }
    return doc;
  }

  it("say each default in the option's published doc comment, so the table and the docs cannot drift", () => {
    const { checker } = publicDeclarations();
    for (const [name, table] of tables) {
      const type = checker.getDeclaredTypeOfSymbol(exported(name));
      for (const spec of Object.values(table)) {
        if (spec.default === undefined) continue;
        const doc = docAt(checker, type, spec.path.split('.'));
        assert.ok(
          said(spec.default).some((way) => way.test(doc)),
          `${name}.${spec.path}: its doc comment does not say its default, ${spec.default}: ${JSON.stringify(doc)}`,
        );
      }
    }
  });
});
