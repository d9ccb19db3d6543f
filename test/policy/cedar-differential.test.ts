// The compiled Cedar evaluator against cedar-wasm's own authorizer: thousands of generated requests over a
// corpus that uses every construct the compiler covers (and policies that fail to evaluate), each answered
// by both, with the same effect, the same determining policies and the same failed policies.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CedarResponse } from '../../src/policy/cedar-compiled.js';
import { CedarPolicies } from '../../src/policy/cedar-policies.js';
import type { CedarTool } from '../../src/policy/cedar-schema.js';
import { Unsupported } from '../../src/policy/cedar-values.js';
import type { PolicyInput } from '../../src/policy/decision.js';

const input = (properties: Record<string, object>, required: string[]) => ({
  type: 'object',
  properties: { amount: { type: 'integer' }, ...properties },
  required: ['amount', ...required],
});

const TOOLS: CedarTool[] = [
  {
    ref: 'orders/refund',
    toolset: 'orders',
    tool: {
      inputSchema: input(
        {
          orderId: { type: 'string' },
          items: { type: 'integer' },
          price: { type: 'number' },
          tags: { type: 'array', items: { type: 'string' } },
          meta: {
            type: 'object',
            properties: { level: { type: 'integer' }, note: { type: 'string' } },
            required: ['level'],
          },
        },
        ['orderId', 'items'],
      ),
      annotations: {},
    },
  },
  {
    ref: 'orders/lookup',
    toolset: 'orders',
    tool: { inputSchema: input({ orderId: { type: 'string' } }, []), annotations: {} },
  },
  {
    ref: 'files/read',
    toolset: 'files',
    tool: { inputSchema: input({}, []), annotations: { resources: (args: { path: string }) => [args.path] } },
  },
];

export const CORPUS = `
@id("eq-scope") permit (principal == Wardrik::Agent::"agent-1", action == Wardrik::Action::"orders/refund", resource)
  when { context.arguments.amount <= 100 };
@id("person") permit (principal in Wardrik::Person::"alice", action in Wardrik::Action::"orders", resource);
@id("secret-label") forbid (principal, action, resource) when { context.labels.contains("secret") };
@id("big-refund") forbid (principal, action == Wardrik::Action::"orders/refund", resource)
  unless { context.arguments.amount < 500 || context.labels.containsAny(["approved", "vip"]) };
@id("tags") permit (principal, action == Wardrik::Action::"orders/refund", resource)
  when { context.arguments has tags && context.arguments.tags.containsAll(["a"]) && !context.arguments.tags.isEmpty() };
@id("like") permit (principal, action in [Wardrik::Action::"orders/refund", Wardrik::Action::"orders/lookup"], resource)
  when { context.arguments has orderId && context.arguments.orderId like "A-*-9" };
@id("arith") permit (principal, action == Wardrik::Action::"orders/refund", resource)
  when { context.arguments.amount + context.arguments.items * 2 - 3 > 10 && -context.arguments.items < 0 };
@id("overflow") forbid (principal, action == Wardrik::Action::"orders/refund", resource)
  when { context.arguments.amount * context.arguments.amount * 4 == 36 };
@id("if") permit (principal, action == Wardrik::Action::"orders/lookup", resource)
  when { (if context.annotations.readOnly then 1 else 2) == 1 };
@id("budget") permit (principal, action == Wardrik::Action::"orders/refund", resource)
  when { context has budget && context.budget.spentUsd.lessThan(decimal("0.1500"))
         && context.budget.limitUsd.greaterThanOrEqual(context.budget.spentUsd) };
@id("price") forbid (principal, action == Wardrik::Action::"orders/refund", resource)
  when { context.arguments has price && context.arguments.price.greaterThan(decimal("99.9900"))
         && !context.arguments.price.lessThanOrEqual(decimal("-1.5")) };
@id("meta") permit (principal, action == Wardrik::Action::"orders/refund", resource)
  when { context.arguments has meta.note && context.arguments.meta.level >= 2 && context.arguments["meta"]["note"] != "" };
@id("is-in") permit (principal is Wardrik::Agent in Wardrik::Person::"bob", action == Wardrik::Action::"files/read",
  resource is Wardrik::Resource) when { resource.name like "public/*" };
@id("keys") forbid (principal, action, resource == Wardrik::Resource::"secret/keys");
@id("in-set") permit (principal, action == Wardrik::Action::"files/read", resource)
  when { resource in [Wardrik::Resource::"private/c", Wardrik::Resource::"public/b"] && principal has onBehalfOf
         && principal.onBehalfOf == "carol" };
@id("ne") permit (principal, action in Wardrik::Action::"files", resource)
  when { context.run != "run-0" && context.annotations.destructive == false && context.labels == ["x", "y"] };
@id("record") permit (principal, action, resource)
  when { {a: context.run, b: [1, 2]} == {b: [2, 1, 2], a: "run-7"} && context.annotations has gated };
@id("range") forbid (principal, action, resource)
  when { context.arguments.amount >= 3000000 && context.arguments.amount > 0 && principal != Wardrik::Agent::"agent-3" };
@id("missing") forbid (principal, action, resource) unless { context.arguments.amount < 4000000 || action == Wardrik::Action::"files/read" };
@id("group") permit (principal, action in Wardrik::Action::"files", resource) when { principal in Wardrik::Person::"dan" };
`;

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const some = <T>(items: readonly T[]): T[] => items.filter(() => next() < 0.35);
  return { next, pick, some };
}

const AMOUNTS = [
  0,
  3,
  -3,
  7,
  99,
  100,
  101,
  499,
  500,
  2999999,
  3000000,
  3999999,
  4000000,
  3037000499,
  3037000500,
  2 ** 27,
  2 ** 40,
  2 ** 53 - 1,
];

function request(r: ReturnType<typeof random>, k: number): PolicyInput {
  const tool = r.pick(['orders/refund', 'orders/lookup', 'files/read', 'mcp/other']);
  const args: Record<string, unknown> = {};
  // Arguments are checked against the tool's schema before the policy decides: required ones are there.
  args.amount = r.pick(AMOUNTS);
  if (tool === 'orders/refund' || r.next() < 0.7)
    args.orderId = r.pick(['A-1-9', 'A--9', 'A-19', 'B-1-9', 'a-1-9', 'A-\n-9']);
  if (tool === 'orders/refund' || r.next() < 0.7) args.items = r.pick([-2, 0, 1, 5, 7]);
  if (r.next() < 0.5) args.price = r.pick([0, 12.5, 99.99, 99.991, 100, -2, 1e15]);
  if (r.next() < 0.5) args.tags = r.some(['a', 'b', 'c']);
  if (r.next() < 0.5) args.meta = { level: r.pick([1, 2, 3]), ...(r.next() < 0.6 ? { note: r.pick(['', 'n']) } : {}) };
  const onBehalfOf = r.pick([undefined, 'alice', 'bob', 'carol', 'dan']);
  const budget =
    r.next() < 0.5 ? { spentUsd: r.pick([0, 0.1, 0.1499, 0.15, 0.2, 3]), limitUsd: r.pick([0.1, 1, 5]) } : undefined;
  const gated = r.next();
  return {
    agent: r.pick(['agent-1', 'agent-2', 'agent-3']),
    run: r.pick(['run-0', 'run-7', `run-${k}`]),
    tool,
    annotations: {
      readOnly: r.next() < 0.5,
      destructive: r.next() < 0.5,
      ...(gated < 0.3 ? { gated: gated < 0.15 } : {}),
    },
    arguments: args,
    labels: r.some(['secret', 'approved', 'vip', 'x', 'y']),
    resources: tool === 'files/read' ? r.some(['public/a', 'public/b', 'secret/keys', 'private/c']) : [],
    ...(onBehalfOf === undefined ? {} : { onBehalfOf }),
    ...(budget === undefined ? {} : { budget }),
  };
}

/** What must match: the effect, the determining policies and the failed ones (Cedar reports both as sets). */
const comparable = (responses: readonly CedarResponse[]) =>
  responses.map(({ decision, diagnostics }) => ({
    decision,
    reason: [...diagnostics.reason].sort(),
    errors: diagnostics.errors.map((e) => e.policyId).sort(),
  }));

describe('the compiled Cedar evaluator', () => {
  it('decides 4000 generated requests exactly as cedar-wasm does, over every construct it compiles', () => {
    const policies = new CedarPolicies({ policies: CORPUS }, TOOLS);
    assert.equal(policies.notCompiled, undefined);
    const compiled = policies.compiled!;
    const r = random(34);
    const determined = new Set<string>();
    const failed = new Set<string>();
    let fellBack = 0;
    const effects = { allow: 0, deny: 0 };
    for (let k = 0; k < 4000; k++) {
      const call = request(r, k);
      let ours: CedarResponse[];
      try {
        ours = policies.compiledResponses(call, compiled);
      } catch (error) {
        assert.ok(error instanceof Unsupported, String(error));
        fellBack++;
        continue;
      }
      const theirs = policies.wasmResponses(call);
      assert.deepEqual(comparable(ours), comparable(theirs), `request ${k}: ${JSON.stringify(call)}`);
      // The error's wording is the engine's own; the policy named and the action must be the same.
      assert.deepEqual(
        withoutWording(policies.decide(call)),
        withoutWording(decideFrom(policies, call)),
        `request ${k}`,
      );
      for (const one of theirs) {
        effects[one.decision]++;
        for (const id of one.diagnostics.reason) determined.add(id);
        for (const e of one.diagnostics.errors) failed.add(e.policyId);
      }
    }
    // Every policy decided some request, and the error-raising ones (overflow; a missing attribute, on a tool the schema does not know) failed.
    assert.equal(determined.size, 20, `determined: ${[...determined].sort().join(', ')}`);
    assert.deepEqual([...failed].sort(), ['policy17', 'policy18', 'policy7']);
    assert.ok(effects.allow > 300 && effects.deny > 300, JSON.stringify(effects));
    // Only products between 2^53 and 2^63 (amount² of 2^27 and 3037000499) go to cedar-wasm.
    assert.ok(fellBack > 0 && fellBack < 400, `fell back ${fellBack} times`);
  });

  it('sends a product beyond 2^53 to cedar-wasm, which decides it', () => {
    const policies = new CedarPolicies({ policies: CORPUS }, TOOLS);
    const call: PolicyInput = {
      agent: 'agent-1',
      run: 'run-1',
      tool: 'orders/refund',
      annotations: {},
      arguments: { amount: 2 ** 27, orderId: 'o', items: 1 },
      labels: ['approved'],
      resources: [],
    };
    assert.throws(() => policies.compiledResponses(call, policies.compiled!), Unsupported);
    assert.deepEqual(comparable(policies.responses(call)), comparable(policies.wasmResponses(call)));
  });

  it('leaves a policy set it cannot compile (an ip() call) to cedar-wasm, with the same decisions', () => {
    const text = `@id("local") permit (principal, action, resource) when { ip("127.0.0.1").isLoopback() };\n@id("no-secret") forbid (principal, action, resource) when { context.labels.contains("secret") };`;
    const policies = new CedarPolicies({ policies: text }, TOOLS);
    assert.equal(policies.compiled, undefined);
    assert.match(policies.notCompiled!, /isLoopback/);
    const call = (labels: string[]): PolicyInput => ({
      agent: 'a',
      run: 'r',
      tool: 'orders/lookup',
      annotations: {},
      arguments: { amount: 1 },
      labels,
      resources: [],
    });
    assert.deepEqual(policies.decide(call([])), { action: 'allow', rule: 'cedar policy "local"' });
    assert.deepEqual(policies.decide(call(['secret'])), { action: 'deny', rule: 'cedar policy "no-secret"' });
  });
});

/** Wardrik's decision as cedar-wasm's answers give it, by forcing the wasm path on a twin policy set. */
function decideFrom(policies: CedarPolicies, call: PolicyInput) {
  const twin = Object.create(policies) as CedarPolicies;
  Object.defineProperty(twin, 'compiled', { value: undefined });
  return twin.decide(call);
}

const withoutWording = (decision: { action: string; rule: string }) => ({
  action: decision.action,
  rule: decision.rule.replace(/ could not be evaluated \(.*\)/s, ' could not be evaluated (…)'),
});
