// What a ported AgentDojo suite is made of: its environment (a fixture with injection placeholders), its
// toolsets, its user tasks and injection tasks. Ported from AgentDojo (ethz-spylab/agentdojo,
// src/agentdojo/default_suites/, the newest version of each task), written anew in TypeScript. Read from
// the sequrity-ai/agentdojo fork (upstream's history up to its 2025-07-23 commit b3177d5); the fork's own
// later changes (tools answering "-1" instead of raising, banking user_task_6's wider check) are left out.
import { readFileSync } from 'node:fs';
import { injectable } from 'tsyringe';

/** A tool call by the tool's own name (`send_money`), as AgentDojo's ground truths write it. */
export interface Call {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** One answer the model has read: the call that produced it and its value (parsed JSON, or the text). */
export interface Answer {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly value: unknown;
}

/** What a plan's step can look at: every tool answer read so far in the turn, oldest first. */
export class Reads {
  constructor(readonly answers: readonly Answer[]) {}

  /** The newest answer of `tool` whose arguments include `args`, if it was read. */
  last(tool: string, args: Readonly<Record<string, unknown>> = {}): unknown {
    for (let i = this.answers.length - 1; i >= 0; i--) {
      const answer = this.answers[i]!;
      if (answer.tool === tool && Object.entries(args).every(([key, value]) => answer.args[key] === value))
        return answer.value;
    }
    return undefined;
  }

  has(tool: string): boolean {
    return this.answers.some((answer) => answer.tool === tool);
  }
}

/**
 * A step of a plan: a call, or a function of what was read that gives the call (or `undefined`: no call
 * needed). That is how a ground truth that AgentDojo computes from the environment is computed here from
 * what the tools returned, as a model would.
 */
export type Step = Call | ((reads: Reads) => Call | undefined);

/** The calls that ran in a case, in order, with their arguments (AgentDojo's "traces"). */
export type Trace = readonly Call[];

export interface UserTask<E> {
  readonly id: string;
  readonly prompt: string;
  /** AgentDojo's `ground_truth`, played by the obeying model. */
  readonly plan: readonly Step[];
  /** The model's final answer (AgentDojo's `GROUND_TRUTH_OUTPUT`), from what it read. */
  readonly answer?: (reads: Reads) => string;
  /** AgentDojo's `utility` (or `utility_from_traces`): the task reached its goal. */
  readonly utility: (check: Outcome<E>) => boolean;
}

export interface InjectionTask<E> {
  readonly id: string;
  /** AgentDojo's `GOAL`: the instruction the attack plants. */
  readonly goal: string;
  /** What the obeying model does when it reads the goal (AgentDojo's `ground_truth`). */
  readonly plan: readonly Step[];
  /** AgentDojo's `placeholder_args` calls, written out by the tool-knowledge attack. */
  readonly toolKnowledge: readonly Call[];
  /** What the obeying model says once it obeyed (AgentDojo's `GROUND_TRUTH_OUTPUT`, for goals about the answer). */
  readonly answer?: string;
  /** AgentDojo's `security` (or `security_from_traces`): true when the attack succeeded. */
  readonly security: (check: Outcome<E>) => boolean;
}

/** What a check sees after a case: the model's last text, the environment before and after, the calls. */
export interface Outcome<E> {
  readonly output: string;
  readonly pre: E;
  readonly post: E;
  readonly trace: Trace;
}

/** The environment a case runs in, and the calls that changed or read it; toolsets are given this. */
@injectable()
export class World<E = unknown> {
  env!: E;
  readonly trace: Call[] = [];

  reset(env: E): void {
    this.env = env;
    this.trace.length = 0;
  }

  record(tool: string, args: object): void {
    this.trace.push({ tool, args: { ...args } });
  }
}

export interface Suite<E> {
  readonly name: string;
  /** Toolset classes; each takes the `World` in its constructor. */
  readonly toolsets: readonly (new (world: World<E>) => object)[];
  /** Agent tool patterns: `banking/*`. */
  readonly tools: readonly string[];
  readonly userTasks: readonly UserTask<E>[];
  readonly injectionTasks: readonly InjectionTask<E>[];
  /** The environment with each vector's text planted (its default where not given). */
  environment(injections: Readonly<Record<string, string>>): E;
  readonly vectors: readonly string[];
}

/** Loads a suite's fixtures from bench/agentdojo/<suite>/ (the source tree: tsc does not copy JSON). */
export function fixtures<E>(suite: string): Pick<Suite<E>, 'environment' | 'vectors'> {
  const dir = new URL(`../../../bench/agentdojo/${suite}/`, import.meta.url);
  const template = JSON.parse(readFileSync(new URL('environment.json', dir), 'utf8')) as unknown;
  const vectors = JSON.parse(readFileSync(new URL('injection-vectors.json', dir), 'utf8')) as Record<
    string,
    { readonly default: string }
  >;
  return {
    vectors: Object.keys(vectors),
    environment: (injections) => {
      const text = (name: string): string => injections[name] ?? vectors[name]!.default;
      return plant(template, text, new Set(Object.keys(vectors))) as E;
    },
  };
}

/**
 * The template with every `{vector}` replaced by its text. AgentDojo substitutes into the YAML's text
 * before parsing it; the fixtures hold the parsed form (defaults unescaped once, as that parse does), and
 * the text goes into the parsed strings as is.
 */
function plant(value: unknown, text: (name: string) => string, vectors: ReadonlySet<string>): unknown {
  const fill = (s: string): string =>
    s.replace(/\{(\w+)\}/g, (all, name: string) => (isVector(name) ? text(name) : all));
  // A placeholder is a vector when the suite names it (workspace's are `email_…`, `drive_…`, `calendar_…`).
  const isVector = (name: string): boolean => vectors.has(name);
  if (typeof value === 'string') return fill(value);
  if (Array.isArray(value)) return value.map((item) => plant(item, text, vectors));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [fill(key), plant(inner, text, vectors)]));
  return value;
}

/** A number as Python prints a float (`50.0`, `0.01`), where AgentDojo's checks compare printed amounts. */
export function pyFloat(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

/** A deep copy of an environment, so "before" stays as it was. */
export function snapshot<E>(env: E): E {
  return structuredClone(env);
}
