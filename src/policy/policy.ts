import { ConfigurationError } from '../errors.js';
import { numberOption } from '../options.js';
import { glob } from '../tools/glob.js';
import { CONFIDENTIAL, OUTSIDE } from '../tools/labels.js';
import type { Annotations } from '../tools/tool.js';
import { CedarPolicies, type CedarPolicyOptions } from './cedar-policies.js';
import type { CatalogEntry } from '../tools/catalog.js';
import type { Decision, PolicyAction, PolicyInput } from './decision.js';
import { ANSWERER_KEYS, answerersOf, mergeAnswerers, type AnswererOptions, type Answerers } from './answerers.js';

export type { AnswererOptions, Answerers } from './answerers.js';
export type { Decision, PolicyAction, PolicyInput } from './decision.js';
export type { CedarPolicyOptions } from './cedar-policies.js';

/**
 * A rule: for calls to tools matching `match` (a glob on `toolset/tool`, such as `orders/*`), and that
 * meet every condition in `when`, do `action`. Of all rules that match a call, the most restrictive wins
 * (deny > ask > allow).
 */
export interface PolicyRule extends AnswererOptions {
  readonly match: string;
  readonly action: PolicyAction;
  readonly when?: {
    /** The run carries every one of these labels. */
    readonly labels?: readonly string[];
    /**
     * Globs on the call's `@Resources`. For `allow`, every resource must match one (a call that also
     * touches something else is not allowed by this rule); for `ask` and `deny`, any one matching is enough.
     */
    readonly resources?: readonly string[];
    /** The tool's annotations equal these, such as `{ destructive: true }`. */
    readonly annotations?: Readonly<Record<string, unknown>>;
  };
}

/** What a `decide` hook may answer besides a bare action: an `ask` naming who may answer it. */
export interface PolicyHookDecision extends AnswererOptions {
  readonly action: PolicyAction;
}

/** A custom decision; `undefined` abstains. It counts as one more matching rule. */
export type PolicyHook = (
  input: PolicyInput,
) => PolicyAction | PolicyHookDecision | undefined | Promise<PolicyAction | PolicyHookDecision | undefined>;

export interface PolicyOptions {
  readonly rules?: readonly PolicyRule[];
  readonly decide?: PolicyHook;
  /**
   * Policies written in Cedar, validated at start-up against the schema Wardrik generates from the
   * registered toolsets (`wardrik policy schema`). A `forbid` denies, a `permit` allows, and a call no
   * policy permits asks a person. With `rules` too, see `decide` for how the two combine.
   */
  readonly cedar?: CedarPolicyOptions;
  /**
   * Once a run carries `outside` (text nobody on the agent's side wrote), every call that is not
   * read-only asks a person, whatever an allow rule says; and once it carries `outside` and a
   * confidential label, so does every call of a tool that reaches outside (see `confidential`). On
   * unless set to `false`, which is warned about.
   */
  readonly askWhenOutside?: boolean;
  /**
   * Labels that mark confidential data, besides `confidential` itself, such as `['pii']`. Every answer of
   * the app's own tools and of trusted MCP servers carries `confidential` unless its labels say `public`,
   * `outside` or `confidential`, so this is needed only to name finer labels. Once a run carries one of
   * them and `outside`, a call of a tool that reaches outside (`openWorld`, or whose
   * answers are labelled `outside`: every tool of an untrusted MCP server) asks a person, whatever an
   * allow rule says, so injected text cannot send what the run read to a URL or a query. A run that
   * only read outside text keeps browsing freely.
   */
  readonly confidential?: readonly string[];
  /**
   * What the `outside` rule follows. `'values'` (the default): in an agent's runs (`startAgent`) the model
   * sees outside text only as handles (`$outside_3`), reads typed fields of it through `wardrik__read`, and
   * a call asks only when its arguments hold outside values or the model read outside data in clear (see
   * docs/security.md, "Labels on values"); calls through other doors keep the run-level rule. `'run'`: once
   * a run has read outside text, every side effect asks, as `askWhenOutside` says, and the model reads
   * outside text in clear.
   */
  readonly labels?: 'run' | 'values';
  /**
   * How long an inbox item waits for a person: after this many milliseconds an unanswered item is
   * denied, saying so to the model. Unset: items wait until answered.
   */
  readonly approvalTtlMs?: number;
  /**
   * After this many milliseconds an unanswered item is escalated once: an `inbox.escalated` event, and
   * a webhook message where `inboxWeb` notifications are set. Unset: never.
   */
  readonly escalateAfterMs?: number;
}

/** Labels a policy decides from, for one tool (see `Policy.labelsThatGate`). */
export type LabelGate = Pick<ReadonlySet<string>, 'has'>;

/** Every label gates: for a policy that may decide from any. */
export const EVERY_LABEL: LabelGate = Object.freeze({ has: () => true });

interface CompiledRule {
  readonly rule: PolicyRule;
  /** What the rule decides when it matches, naming the rule. */
  readonly decision: Decision;
  readonly matches: (ref: string) => boolean;
  readonly resources?: readonly ((resource: string) => boolean)[];
}

/**
 * The actions there are, most restrictive last. A Map, not an object: `x in {…}` is true for every name an
 * object inherits (`'toString'`, `'constructor'` …), which let such an "action" through to the runner.
 */
const SEVERITY: ReadonlyMap<PolicyAction, number> = new Map([
  ['allow', 0],
  ['ask', 1],
  ['deny', 2],
]);
const ACTIONS = '"allow", "ask" or "deny"';

/** Whether `value` is one of the three actions, and nothing an object merely inherits. */
function isPolicyAction(value: unknown): value is PolicyAction {
  return typeof value === 'string' && SEVERITY.has(value as PolicyAction);
}
export { CONFIDENTIAL, OUTSIDE } from '../tools/labels.js';

/** Decides deny / ask / allow for each call. Rules are checked and compiled once, at start-up. */
export class Policy {
  private readonly rules: readonly CompiledRule[];
  private cedar: CedarPolicies | undefined;
  private readonly agentRules = new WeakMap<readonly PolicyRule[], readonly CompiledRule[]>();
  /** The labels that mark confidential data: `confidential` and those the options name. */
  readonly confidential: ReadonlySet<string>;

  constructor(private readonly options: PolicyOptions = {}) {
    this.rules = compileRules(options.rules ?? [], 'rule');
    if (options.decide !== undefined && typeof options.decide !== 'function') {
      throw new ConfigurationError('policy.decide must be a function (input) => "allow" | "ask" | "deny" | undefined.');
    }
    const named = options.confidential ?? [];
    if (
      !Array.isArray(named as unknown) ||
      !named.every((label) => typeof label === 'string' && label !== '' && label !== OUTSIDE)
    ) {
      throw new ConfigurationError(
        `policy.confidential must be an array of label names that mark confidential data, such as ['pii']; got ${JSON.stringify(named)}. ("${OUTSIDE}" marks where text came from, not what it holds.)`,
      );
    }
    this.confidential = new Set([CONFIDENTIAL, ...named]);
    if (options.labels !== undefined && options.labels !== 'run' && options.labels !== 'values') {
      throw new ConfigurationError(
        `policy.labels must be "values" (the default: only calls whose arguments hold outside values ask) or "run" (outside text makes every later side effect of its run ask); got ${shown(options.labels)}.`,
      );
    }
    checkWait('policy.approvalTtlMs', options.approvalTtlMs);
    checkWait('policy.escalateAfterMs', options.escalateAfterMs);
  }

  /** How long an inbox item waits before it is denied, if set. */
  get approvalTtlMs(): number | undefined {
    return this.options.approvalTtlMs;
  }

  /** How long an inbox item waits before it is escalated, if set. */
  get escalateAfterMs(): number | undefined {
    return this.options.escalateAfterMs;
  }

  get asksWhenOutside(): boolean {
    return this.options.askWhenOutside !== false;
  }

  /** Whether agents' runs hold outside values as handles and the `outside` rule follows them (unless `labels: 'run'`). */
  get followsValues(): boolean {
    // Guard (values-by-default): unset, labels follow values, which stop what the run-level rule lets through.
    return this.options.labels !== 'run' && this.asksWhenOutside;
  }

  /**
   * Builds the Cedar policies, when `cedar` is set, against these tools' schema (Wardrik.create calls it
   * once its toolsets are registered): a policy that does not parse or fit the schema fails start-up.
   */
  useTools(tools: readonly CatalogEntry[]): void {
    if (this.options.cedar !== undefined) this.cedar = new CedarPolicies(this.options.cedar, tools);
  }

  /** Checks an agent's own rules; call at start-up so a typo fails then. */
  prepare(rules: readonly PolicyRule[]): void {
    this.compiled(rules);
  }

  private compiled(rules: readonly PolicyRule[]): readonly CompiledRule[] {
    let compiled = this.agentRules.get(rules);
    if (compiled === undefined) this.agentRules.set(rules, (compiled = compileRules(rules, 'agent rule')));
    return compiled;
  }

  /**
   * The decision for a call; synchronous unless a `decide` hook is set, since this runs on every call.
   * In order: the strictest of the rules, the agent's rules and the hook; then Cedar's decision, which
   * stands alone when no rule matched and otherwise joins them (deny > ask > allow: a deny from either
   * wins, and either asking asks); then the defaults when neither decided; then the `outside` labels.
   */
  decide(input: PolicyInput, agentRules?: readonly PolicyRule[]): Decision | Promise<Decision> {
    let decided = strictest(this.rules, input, undefined);
    if (agentRules !== undefined && agentRules.length > 0) {
      decided = strictest(this.compiled(agentRules), input, decided);
    }
    const hook = this.options.decide;
    if (hook === undefined) return this.conclude(input, this.withCedar(input, decided));
    return Promise.resolve(hook(input)).then((answer) => {
      if (answer !== undefined) decided = stricter(decided, hookDecision(answer));
      return this.conclude(input, this.withCedar(input, decided));
    });
  }

  private withCedar(input: PolicyInput, decided: Decision | undefined): Decision | undefined {
    if (this.options.cedar === undefined) return decided;
    // Fail closed (runner/decide.ts): Cedar policies that were never checked against the tools decide nothing.
    if (this.cedar === undefined)
      throw new ConfigurationError(
        'policy.cedar is set but its policies were not built: Wardrik.create builds them once the toolsets are registered; a Policy made by hand must call useTools(tools) first.',
      );
    return stricter(decided, this.cedar.decide(input));
  }

  /** The default when no rule matched, then the outside-label rules. */
  private conclude(input: PolicyInput, decided: Decision | undefined): Decision {
    const readOnly = input.annotations.readOnly === true;
    const gated = input.annotations.gated;
    decided ??=
      gated === true
        ? DEFAULTS.gated
        : gated === false
          ? DEFAULTS.ungated
          : readOnly
            ? DEFAULTS.readOnly
            : DEFAULTS.other;
    if (decided.action !== 'allow' || !this.asksWhenOutside || !input.labels.includes(OUTSIDE)) return decided;
    if (!readOnly) return DEFAULTS.outside;
    return reachesOutside(input.annotations) ? (this.exfiltration(input.labels) ?? decided) : decided;
  }

  /**
   * The labels whose arrival in a run can change this policy's decision on a tool, so a person's
   * approval for the rest of the run lasts while the run gains none of them: `outside`; the confidential
   * labels, only for a tool that reaches outside (reading an order does not end a refund's approval); any
   * label a rule for the tool names. With a `decide` hook, which may look at any label, every label.
   */
  labelsThatGate(tool: string, annotations: Annotations, agentRules?: readonly PolicyRule[]): LabelGate {
    if (this.options.decide !== undefined) return EVERY_LABEL;
    const gating = new Set<string>([OUTSIDE]);
    if (reachesOutside(annotations)) for (const label of this.confidential) gating.add(label);
    const rules = agentRules === undefined ? this.rules : [...this.rules, ...this.compiled(agentRules)];
    for (const { rule, matches } of rules)
      if (matches(tool)) for (const label of rule.when?.labels ?? []) gating.add(label);
    return gating;
  }

  /** The decision for a call that reaches outside from a run carrying `outside`: ask, if the run also holds confidential data. */
  private exfiltration(labels: readonly string[]): Decision | undefined {
    const held = labels.filter((label) => this.confidential.has(label));
    if (held.length === 0) return undefined;
    const named = held.map((label) => `"${label}"`).join(', ');
    return decision(
      'ask',
      `labels: the run carries "${OUTSIDE}" and confidential data (labelled ${named}), so a tool that reaches outside asks a person`,
    );
  }
}

/**
 * Whether a call of the tool can carry data out: it reaches the open world (`openWorld`), or its answers
 * are labelled `outside`, as every tool of an MCP server that is not trusted is (the server itself is
 * outside, whatever its hints say).
 */
export function reachesOutside(annotations: Annotations): boolean {
  return annotations.openWorld === true || (annotations.labels?.includes(OUTSIDE) ?? false);
}

/** An item's wait, compared with its age (never a timer's delay): above 0 when given; absent means never. */
function checkWait(name: string, value: number | undefined): void {
  numberOption(
    name,
    value,
    0,
    { above: 0, unit: 'milliseconds' },
    'Such as 3_600_000 for an hour; leave it out for never.',
  );
}

/**
 * The hook's answer as a decision. Anything but an action or `{ action, approvers?, separateFrom?, quorum? }`
 * is refused, so the call is denied (see `decide` in runner/decide.ts): never taken for an action.
 */
function hookDecision(answer: unknown): Decision {
  const rule = 'policy.decide hook';
  if (isPolicyAction(answer)) return decision(answer, rule);
  const action = (answer as { action?: unknown } | null)?.action;
  if (answer === null || typeof answer !== 'object' || !isPolicyAction(action))
    throw new ConfigurationError(
      `policy.decide returned ${shown(answer)}, which is not an action; return "allow", "ask", "deny" or undefined, or an object such as { action: "ask", approvers: ["finance-leads"] }.`,
    );
  const unknown = Object.keys(answer).filter(
    (key) => key !== 'action' && !(ANSWERER_KEYS as readonly string[]).includes(key),
  );
  if (unknown.length > 0)
    throw new ConfigurationError(
      `policy.decide returned ${shown(answer)}: ${unknown.join(', ')} is not part of a decision; it has action, approvers, separateFrom and quorum.`,
    );
  return decision(action, rule, answerersOf(answer as AnswererOptions, action, rule));
}

const RULE_KEYS = new Set(['match', 'action', 'when', ...ANSWERER_KEYS]);

function compileRules(rules: readonly PolicyRule[], kind: string): readonly CompiledRule[] {
  if (!Array.isArray(rules as unknown))
    throw new ConfigurationError(`Policy rules must be an array of { match, action, when? }.`);
  return rules.map((rule, index) => {
    const label = `${kind} ${index + 1} (${String(rule?.match)} ${String(rule?.action)})`;
    if (rule === null || typeof rule !== 'object' || typeof rule.match !== 'string' || rule.match === '') {
      throw new ConfigurationError(`Policy ${label}: match must be a glob on "toolset/tool", such as "orders/*".`);
    }
    if (!isPolicyAction(rule.action)) {
      throw new ConfigurationError(`Policy ${label}: action must be ${ACTIONS}; got ${shown(rule.action)}.`);
    }
    if (!rule.match.includes('/') && rule.match !== '*' && rule.match !== '**') {
      throw new ConfigurationError(
        `Policy ${label}: "${rule.match}" has no "/"; rules name tools as "toolset/tool", such as "${rule.match}/*" or "*/${rule.match}".`,
      );
    }
    // Refused, not ignored: a misspelt `approver` would otherwise let anyone answer.
    const unknown = Object.keys(rule).filter((key) => !RULE_KEYS.has(key));
    if (unknown.length > 0)
      throw new ConfigurationError(
        `Policy ${label}: ${unknown.map((key) => JSON.stringify(key)).join(', ')} is not part of a rule; a rule has match, action, when, approvers, separateFrom and quorum.`,
      );
    checkWhen(rule.when, label);
    const matchRef = glob(rule.match);
    return {
      rule,
      decision: decision(rule.action, label, answerersOf(rule, rule.action, label)),
      matches: rule.match === '*' || rule.match === '**' ? () => true : matchRef,
      ...(rule.when?.resources === undefined ? {} : { resources: rule.when.resources.map(glob) }),
    };
  });
}

/** A rule's `when`, checked at start-up: a wrong shape would otherwise throw, or never match, on calls. */
function checkWhen(when: PolicyRule['when'], label: string): void {
  if (when === undefined) return;
  const strings = (value: unknown) =>
    Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '');
  if (when === null || typeof when !== 'object' || Array.isArray(when)) {
    throw new ConfigurationError(
      `Policy ${label}: when must be an object such as { labels: ['outside'] }; got ${JSON.stringify(when)}.`,
    );
  }
  for (const key of Object.keys(when)) {
    if (key !== 'labels' && key !== 'resources' && key !== 'annotations') {
      throw new ConfigurationError(
        `Policy ${label}: when.${key} is not a condition; use labels, resources or annotations.`,
      );
    }
  }
  if (when.labels !== undefined && !strings(when.labels)) {
    throw new ConfigurationError(
      `Policy ${label}: when.labels must be an array of label names, such as ['outside']; got ${JSON.stringify(when.labels)}.`,
    );
  }
  if (when.resources !== undefined && !strings(when.resources)) {
    throw new ConfigurationError(
      `Policy ${label}: when.resources must be an array of globs, such as ['/srv/data/**']; got ${JSON.stringify(when.resources)}.`,
    );
  }
  if (
    when.annotations !== undefined &&
    (when.annotations === null || typeof when.annotations !== 'object' || Array.isArray(when.annotations))
  ) {
    throw new ConfigurationError(
      `Policy ${label}: when.annotations must be an object such as { destructive: true }; got ${JSON.stringify(when.annotations)}.`,
    );
  }
}

/** The decisions made when no rule matched, made once: this runs on every call. */
const DEFAULTS = Object.freeze({
  gated: decision('ask', 'default: the tool is gated, so it asks a person'),
  ungated: decision('allow', 'default: the tool is not gated'),
  readOnly: decision('allow', 'default: read-only tools run'),
  other: decision('ask', 'default: a tool that is not read-only asks a person'),
  outside: decision('ask', `labels: the run carries "${OUTSIDE}", so a tool that is not read-only asks a person`),
});

function decision(action: PolicyAction, rule: string, answerers?: Answerers): Decision {
  return Object.freeze({ action, rule, ...(answerers === undefined ? {} : { answerers }) });
}

/** The most restrictive of `decided` and the matching rules among `rules` (deny > ask > allow). */
function strictest(
  rules: readonly CompiledRule[],
  input: PolicyInput,
  decided: Decision | undefined,
): Decision | undefined {
  for (let i = 0; i < rules.length; i++)
    if (ruleMatches(rules[i]!, input)) decided = stricter(decided, rules[i]!.decision);
  return decided;
}

/**
 * The more restrictive decision. Two asks that each name who may answer both hold: the person must
 * satisfy every rule's groups, and the larger quorum counts.
 */
function stricter(current: Decision | undefined, next: Decision): Decision {
  if (current === undefined || SEVERITY.get(next.action)! > SEVERITY.get(current.action)!) return next;
  if (current.action !== 'ask' || next.action !== 'ask' || next.answerers === undefined) return current;
  if (current.answerers === undefined) return next;
  return decision('ask', `${current.rule} and ${next.rule}`, mergeAnswerers(current.answerers, next.answerers));
}

/** A value a developer gave, for a message: JSON, cut short (a hook may return anything). */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function ruleMatches(compiled: CompiledRule, input: PolicyInput): boolean {
  if (!compiled.matches(input.tool)) return false;
  const when = compiled.rule.when;
  if (when === undefined) return true;
  if (when.labels !== undefined && !when.labels.every((label) => input.labels.includes(label))) return false;
  if (when.annotations !== undefined) {
    for (const [key, value] of Object.entries(when.annotations)) if (input.annotations[key] !== value) return false;
  }
  if (compiled.resources !== undefined) {
    const matchesAny = (resource: string): boolean => compiled.resources!.some((matches) => matches(resource));
    const ok =
      compiled.rule.action === 'allow'
        ? input.resources.length > 0 && input.resources.every(matchesAny)
        : input.resources.some(matchesAny);
    if (!ok) return false;
  }
  return true;
}
