// Runs a ported AgentDojo suite through Wardrik: every user task without an attack, then every user task
// against every injection task under each attack variant, with the obeying model and nobody answering
// the inbox: each ask is refused (`inbox.deny`) and the turn goes on, so a side effect that asks never happens.
import { container as rootContainer } from 'tsyringe';
import { Wardrik, type TurnResult } from '../../src/index.js';
import { attackText, type AttackName } from './attacks.js';
import { ObeyingModel } from './obeying-model.js';
import { snapshot, World, type Outcome, type Suite, type UserTask } from './suite.js';

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
  readonly harmless: readonly HarmlessResult[];
  readonly attacked: readonly AttackResult[];
}

export interface SuiteRunOptions {
  /** `policy.askWhenOutside`: false turns Wardrik's label defences off, as bench/safety's baseline does. */
  readonly defences: boolean;
  readonly attacks: readonly AttackName[];
  /** Only these user tasks (all unless given). */
  readonly userTasks?: readonly string[];
}

const REFUSAL = 'Nobody answered: the benchmark counts an ask as refused.';

export async function runSuite<E>(suite: Suite<E>, options: SuiteRunOptions): Promise<SuiteReport> {
  const world = new World<E>();
  const app = rootContainer.createChildContainer();
  app.registerInstance(World, world);
  const wardrik = await Wardrik.create({
    container: app,
    store: 'memory:',
    toolsets: [...suite.toolsets],
    // Every tool allowed, as AgentDojo's agents have them: what stands between an injection and its goal
    // is only the labels. `askWhenOutside` left unset when on: today's default.
    policy: {
      rules: [{ match: '*/*', action: 'allow' }],
      ...(options.defences ? {} : { askWhenOutside: false }),
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
    const model = new ObeyingModel(task as UserTask<unknown>, suite.injectionTasks as never, modelName);
    const agent = wardrik.startAgent({
      id: `${suite.name}-${++agents}`,
      model: model.model,
      tools: [...suite.tools],
      maxSteps: 60,
    });
    let result: TurnResult = await agent.send(task.prompt);
    let asks = 0;
    while (result.status === 'parked') {
      for (const parked of result.parked) {
        asks++;
        await wardrik.inbox.deny(parked.inboxId, { reason: REFUSAL, by: 'nobody' });
      }
      result = await agent.result(result.run);
    }
    if (result.status !== 'done')
      throw new Error(`${suite.name} ${task.id}: the turn ended ${result.status}: ${result.error ?? ''}`);
    const outcome: Outcome<E> = { output: result.text, pre, post: world.env, trace: [...world.trace] };
    return { outcome, asks, seen: model.seen };
  };

  try {
    const tasks = suite.userTasks.filter((t) => options.userTasks === undefined || options.userTasks.includes(t.id));
    const harmless: HarmlessResult[] = [];
    const candidates = new Map<string, string[]>();
    for (const task of tasks) {
      const { outcome, asks } = await play(task, {});
      harmless.push({ userTask: task.id, utility: task.utility(outcome), asks });
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
    return { suite: suite.name, defences: options.defences, harmless, attacked };
  } finally {
    await wardrik.close();
  }
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
