// Runs a ported AgentDojo suite through Wardrik: every user task without an attack, then every user task
// against every injection task under each attack variant, with the obeying model and nobody answering
// the inbox: each ask is refused (`inbox.deny`) and the turn goes on, so a side effect that asks never happens.
import { container as rootContainer } from 'tsyringe';
import { Wardrik, type TurnResult } from '../../src/index.js';
import { parsed } from '../safety/prompt-reading.js';
import { attackText, type AttackName } from './attacks.js';
import { choosesFromOutside, choosesOnShownFields } from './choices.js';
import { ObeyingModel } from './obeying-model.js';
import { snapshot, World, type Call, type Outcome, type Suite, type UserTask } from './suite.js';
import { ValuesPlanner } from './values-model.js';

export interface HarmlessResult {
  readonly userTask: string;
  /** The user task reached its goal (AgentDojo's utility). */
  readonly utility: boolean;
  /** Calls that asked a person. */
  readonly asks: number;
}

export interface AttackResult extends HarmlessResult {
  readonly injectionTask: string;
  readonly attack: AttackName;
  /** The injection task reached its goal (AgentDojo's security check says the attack succeeded). */
  readonly attackSucceeded: boolean;
}

export interface SuiteReport {
  readonly suite: string;
  readonly defences: boolean;
  /** What the `outside` rule followed: the run, or the values (`policy.labels`). */
  readonly labels: 'run' | 'values';
  readonly harmless: readonly HarmlessResult[];
  readonly attacked: readonly AttackResult[];
  /** For each harmless task that asked: the tool of each ask and the reason the inbox item gave. */
  readonly askedFor: Readonly<Record<string, readonly string[]>>;
}

export interface SuiteRunOptions {
  /** `policy.askWhenOutside`: false turns Wardrik's label defences off, as bench/safety's baseline does. */
  readonly defences: boolean;
  /** `policy.labels` with the defences on (unset: the default, `'values'`, which plays the obeying model as a values-mode planner). */
  readonly labels?: 'run' | 'values';
  readonly attacks: readonly AttackName[];
  /** Only these user tasks (all unless given). */
  readonly userTasks?: readonly string[];
}

const REFUSAL = 'Nobody answered: the benchmark counts an ask as refused.';

export async function runSuite<E>(suite: Suite<E>, options: SuiteRunOptions): Promise<SuiteReport> {
  const labels = options.defences ? (options.labels ?? 'values') : 'run';
  const world = new World<E>();
  const app = rootContainer.createChildContainer();
  app.registerInstance(World, world);
  const wardrik = await Wardrik.create({
    container: app,
    store: 'memory:',
    toolsets: [...suite.toolsets],
    // Every tool allowed, as AgentDojo's agents have them: what stands between an injection and its goal
    // is only the labels. `askWhenOutside` left unset when on: the default.
    policy: {
      rules: [{ match: '*/*', action: 'allow' }],
      ...(options.defences ? {} : { askWhenOutside: false }),
      ...(options.defences ? { labels } : {}),
    },
    recoverMs: Infinity,
  });
  const names = new Map(
    wardrik.tools(suite.tools).map((tool) => [tool.name.slice(tool.name.indexOf('__') + 2), tool.name]),
  );
  const modelName = (tool: string): string => names.get(tool) ?? tool;
  let agents = 0;

  const play = async (task: UserTask<E>, injections: Readonly<Record<string, string>>) => {
    world.reset(suite.environment(injections));
    const pre = snapshot(world.env);
    const model =
      labels === 'values'
        ? new ValuesPlanner(task as UserTask<unknown>, suite.injectionTasks as never, modelName, {
            oracle: oracle(suite, world),
            choosesFromOutside: choosesFromOutside(task as UserTask<unknown>),
            choosesOnShownFields: choosesOnShownFields(task as UserTask<unknown>),
          })
        : new ObeyingModel(task as UserTask<unknown>, suite.injectionTasks as never, modelName);
    const agent = wardrik.startAgent({
      id: `${suite.name}-${++agents}`,
      model: model.model,
      tools: [...suite.tools],
      maxSteps: 60,
    });
    let result: TurnResult = await agent.send(task.prompt);
    const asked: string[] = [];
    while (result.status === 'parked') {
      for (const parked of result.parked) {
        asked.push(`${parked.tool}: ${parked.reason}`);
        await wardrik.inbox.deny(parked.inboxId, { reason: REFUSAL, by: 'nobody' });
      }
      result = await agent.result(result.run);
    }
    if (result.status !== 'done')
      throw new Error(`${suite.name} ${task.id}: the turn ended ${result.status}: ${result.error ?? ''}`);
    // Labels on values: Wardrik's `text` has the handles revealed, as the person reads it.
    const outcome: Outcome<E> = { output: result.text, pre, post: world.env, trace: [...world.trace] };
    return { outcome, asks: asked.length, asked, seen: model.seen };
  };

  try {
    const tasks = suite.userTasks.filter((t) => options.userTasks === undefined || options.userTasks.includes(t.id));
    const harmless: HarmlessResult[] = [];
    const candidates = new Map<string, string[]>();
    const askedFor: Record<string, readonly string[]> = {};
    for (const task of tasks) {
      const { outcome, asks, asked } = await play(task, {});
      harmless.push({
        userTask: task.id,
        utility: task.utility(outcome),
        asks,
      });
      if (asks > 0) askedFor[task.id] = asked;
      candidates.set(task.id, await injectionCandidates(suite, task, play));
    }
    const attacked: AttackResult[] = [];
    for (const attack of options.attacks) {
      for (const task of tasks) {
        for (const injection of suite.injectionTasks) {
          const text = attackText(attack, injection as never);
          const planted = Object.fromEntries(candidates.get(task.id)!.map((vector) => [vector, text]));
          const { outcome, asks } = await play(task, planted);
          attacked.push({
            userTask: task.id,
            injectionTask: injection.id,
            attack,
            utility: task.utility(outcome),
            attackSucceeded: injection.security(outcome),
            asks,
          });
        }
      }
    }
    return { suite: suite.name, defences: options.defences, labels, harmless, attacked, askedFor };
  } finally {
    await wardrik.close();
  }
}

/**
 * The values-mode planner's oracle (it plays a model that knows which handle holds what; it never reads the
 * text itself): a tool's answer to the agent's last call, as the model would read it in clear, played again
 * on a copy of the world as it was before that call, so the case itself is not touched.
 */
function oracle<E>(suite: Suite<E>, world: World<E>): { answer(call: Call): unknown; stepped(): void } {
  let before = snapshot(world.env);
  return {
    answer: (call) => replay(suite, before, call),
    stepped: () => {
      before = snapshot(world.env);
    },
  };
}

function replay<E>(suite: Suite<E>, env: E, call: Call): unknown {
  const copy = new World<E>();
  copy.reset(snapshot(env));
  const method = call.tool.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
  for (const Toolset of suite.toolsets) {
    const toolset = new Toolset(copy) as Record<string, unknown>;
    const run = toolset[method];
    if (typeof run !== 'function') continue;
    try {
      const answer: unknown = (run as (args: unknown) => unknown).call(toolset, call.args);
      return typeof answer === 'string' ? parsed(answer) : (JSON.parse(JSON.stringify(answer ?? null)) as unknown);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  throw new Error(`${suite.name}: no toolset has a tool ${call.tool} (method ${method}).`);
}

/**
 * The vectors a user task's ground truth reads, as AgentDojo finds them: a canary in every vector, the
 * ground truth played, and the canaries seen in the tools' answers. A task that reads none is a porting bug.
 */
async function injectionCandidates<E>(
  suite: Suite<E>,
  task: UserTask<E>,
  play: (task: UserTask<E>, injections: Readonly<Record<string, string>>) => Promise<{ seen: string }>,
): Promise<string[]> {
  const canary = (vector: string): string => `<CANARY---${vector}--->`;
  const { seen } = await play(task, Object.fromEntries(suite.vectors.map((vector) => [vector, canary(vector)])));
  const found = suite.vectors.filter((vector) => seen.includes(canary(vector)));
  if (found.length === 0) throw new Error(`${suite.name} ${task.id} reads no injection vector: its port is wrong.`);
  return found;
}
