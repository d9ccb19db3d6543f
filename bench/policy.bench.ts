// The cost of one policy decision: today's rules (100 of them) against 100 Cedar policies and one, each
// decided by the compiled JavaScript evaluator (Wardrik's path) and by @cedar-policy/cedar-wasm (parsed
// and cached once, one statefulIsAuthorized per call: the fallback). Target: ≤ 20 µs a decision.
import 'reflect-metadata';
import { loadavg } from 'node:os';
import { defineTool, Policy, type PolicyInput, type PolicyRule } from '../src/index.js';
import { ToolCatalog } from '../src/tools/catalog.js';
import { format, measureInTurns } from './lib.js';

const TOOLS = 10;
const POLICIES = 100;
const TARGET_NS = 20_000;

const tools = Array.from({ length: TOOLS }, (_, k) =>
  defineTool({
    name: `tool_${k}`,
    description: `Tool ${k}.`,
    input: {
      type: 'object',
      properties: { amount: { type: 'integer' }, note: { type: 'string' } },
      required: ['amount'],
    },
    run: () => 'ok',
  }),
);
const catalog = new ToolCatalog();
catalog.set('orders', tools);
const entries = catalog.entries();

const cedarText = (count: number) =>
  Array.from(
    { length: count },
    (_, i) =>
      `@id("p${i}")\n${i % 10 === 0 ? 'forbid' : 'permit'} (principal == Wardrik::Agent::"agent-${i % 20}", action == Wardrik::Action::"orders/tool_${i % TOOLS}", resource)\n` +
      `when { context.arguments.amount < ${i * 10} && !context.labels.contains("label-${i}") };`,
  ).join('\n');

const rules: PolicyRule[] = Array.from({ length: POLICIES }, (_, i) => ({
  match: `orders/tool_${i % TOOLS}`,
  action: i % 10 === 0 ? 'deny' : 'allow',
  when: { labels: [`label-${i}`] },
}));

function built(options: ConstructorParameters<typeof Policy>[0]): Policy {
  const policy = new Policy(options);
  policy.useTools(entries);
  return policy;
}
const byRules = built({ rules });
const byCedar = built({ cedar: { policies: cedarText(POLICIES) } });
const byOneCedar = built({ cedar: { policies: cedarText(1) } });

/** The same policies, with the compiled evaluator switched off: every decision through cedar-wasm. */
function wasmOnly(policy: Policy): Policy {
  const cedar = (policy as unknown as { cedar: object }).cedar;
  if ((cedar as { compiled?: unknown }).compiled === undefined) throw new Error('the bench policies must compile');
  const twin = Object.create(cedar) as object;
  Object.defineProperty(twin, 'compiled', { value: undefined });
  const copy = Object.create(policy) as Policy;
  Object.defineProperty(copy, 'cedar', { value: twin });
  return copy;
}
const byCedarWasm = wasmOnly(byCedar);
const byOneCedarWasm = wasmOnly(byOneCedar);

const input: PolicyInput = {
  agent: 'agent-5',
  run: 'run-1',
  tool: 'orders/tool_5',
  annotations: { idempotent: true },
  arguments: { amount: 120, note: 'refund' },
  labels: ['label-3'],
  resources: [],
};

for (const [name, policy] of [
  ['rules', byRules],
  ['cedar compiled', byCedar],
  ['cedar-wasm', byCedarWasm],
] as const) {
  const decision = policy.decide(input);
  if (decision instanceof Promise) throw new Error('no hook: decisions are synchronous');
  console.log(`  ${name} decides ${decision.action} by ${decision.rule}`);
}

const timings = await measureInTurns(
  [
    { name: `(a) today's rules, ${POLICIES} rules`, op: () => byRules.decide(input) },
    { name: `(b) Cedar compiled, ${POLICIES} policies`, op: () => byCedar.decide(input) },
    { name: '(c) Cedar compiled, 1 policy', op: () => byOneCedar.decide(input) },
    { name: `(d) cedar-wasm, ${POLICIES} policies`, op: () => byCedarWasm.decide(input) },
    { name: '(e) cedar-wasm, 1 policy', op: () => byOneCedarWasm.decide(input) },
  ],
  { rounds: 7, perRound: 300 },
);

console.log(`\nOne policy decision (median of rounds; load average ${loadavg()[0]!.toFixed(1)}: figures grow with it)`);
for (const [i, timing] of timings.entries()) {
  // (d) and (e), cedar-wasm, are what a policy set outside the compiled subset falls back to: shown, not held.
  const verdict =
    i >= 3 ? 'the fallback, for reference' : timing.ns <= TARGET_NS ? 'target ≤ 20 µs: met' : 'target ≤ 20 µs: MISSED';
  console.log(`  ${timing.name.padEnd(40)} ${format(timing.ns).padStart(10)}   ${verdict}`);
}
const [rulesTiming, compiled, , wasm] = timings;
console.log(`  ratio (b)/(a): ${(compiled!.ns / rulesTiming!.ns).toFixed(2)}x`);
console.log(`  ratio (d)/(b): ${(wasm!.ns / compiled!.ns).toFixed(1)}x (what compiling saves)`);
