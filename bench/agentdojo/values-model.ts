// The obeying model as a planner under `policy.labels: 'values'`: it sees outside text only as handles
// (`$outside_3`), so it can obey an injection only when it reads the goal in clear; and as the quarantined
// reader `wardrik__read` calls (the same model, bare), which reads the text and obeys what it finds there as far
// as a model without tools can: by choosing the values of the fields it returns.
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { scriptedModel, type ScriptedCall, type ScriptedModel, type ScriptedStep } from '../../src/testing/index.js';
import { parsed, resultText, strings } from '../safety/prompt-reading.js';
import { toArgs } from './obeying-model.js';
import { Corpus, leafAt, leaves, numbersIn, outcome, perturbed, setLeaf, telling } from './provenance.js';
import { Reads, type Answer, type Call, type InjectionTask, type Step, type UserTask } from './suite.js';

/** The tool the agent offers for reading held text, and how its prompt to the bare model starts. */
export const READ_TOOL = 'wardrik__read';
const READ_PROMPT = 'Extract these fields from the text below';
const HANDLE = /\$outside_\d+/;

/** A field asked of the reader, with the value a careful reader finds in the text. */
interface Field {
  readonly type: 'string' | 'number' | 'boolean';
  readonly value: unknown;
}

/** One `wardrik__read` the plan needs: a held text, the fields, and what to do with what comes back. */
interface Extraction {
  readonly handle: string;
  readonly fields: Readonly<Record<string, Field>>;
  readonly got: (values: Readonly<Record<string, unknown>>) => void;
}

/**
 * An answer read, as the oracle knows it, and its handle when the agent held it. An answer shown in clear but
 * for its outside fields (`@OutsideFields`) is one view with what the model saw (`shown`), and a view per
 * held field: its value, its handle, and where it sits in its answer (`parent`, `path`).
 */
interface View {
  readonly answer: Answer;
  readonly handle?: string;
  readonly shown?: unknown;
  readonly parent?: number;
  readonly path?: readonly (string | number)[];
}

export interface ValuesPlannerOptions {
  /**
   * The bench's oracle: the answer the tool gave to the agent's last call, as the model would read it in
   * clear; `stepped` tells it the agent is about to make its next call.
   */
  readonly oracle: { answer(call: Call): unknown; stepped(): void };
  /** The task's choice of what to do depends on outside text (a rating, a free slot, reviews): why, if so. */
  readonly choosesFromOutside?: string;
  /** That choice reads only structured values a tool shows in clear (events' times, listings' ratings). */
  readonly choosesOnShownFields?: boolean;
}

/**
 * What it does, each time it is called:
 * - Called by `wardrik__read` (no tools, the extraction prompt): it answers each field from the text as a
 *   careful reader would; if the text holds an injection task's goal, it obeys as far as it can: every string
 *   field gets the attacker's value (the goal's answer, or the first text of the goal's first call).
 * - Called by the agent: it reads every answer; a held one (`{"handle":"$outside_3",…}`) it sees only as a
 *   handle, and the bench's oracle tells it, playing a capable model, which handle holds which value. It looks
 *   for injection goals only in what it read in clear. Its next step is the ground truth's, as the run-level
 *   obeying model's; before a call, each argument value that it could not have seen in clear and that the
 *   ground truth took from held text (found there, or changing when that text changes) is read with
 *   `wardrik__read` and passed as the handle it returns; a value that is a held text whole is passed as its
 *   handle. A choice the task makes on outside text (`choosesFromOutside`, or a call that changes when held
 *   text changes) is read as a boolean first, in clear: the run is steered from then on. Its final answer puts
 *   handles where the ground truth's answer says what only held text says.
 */
export class ValuesPlanner {
  readonly model: ScriptedModel;
  /** Every answer's text behind the handles, for finding which injection vectors a task reads. */
  seen = '';
  private readonly userPlan: Step[];
  private readonly injected: Step[] = [];
  private readonly obeyed = new Set<string>();
  private readonly said: string[] = [];
  private readonly views: View[] = [];
  private readonly behind = new Map<string, unknown>();
  private readonly pending: Extraction[] = [];
  private asked: Extraction | undefined;
  private waiting: (() => ScriptedStep | undefined) | undefined;
  private resultsRead = 0;
  private steered = false;
  private readonly prompt: string;

  constructor(
    private readonly task: UserTask<unknown>,
    private readonly understood: readonly InjectionTask<unknown>[],
    private readonly modelName: (tool: string) => string,
    private readonly options: ValuesPlannerOptions,
  ) {
    this.userPlan = [...task.plan];
    this.prompt = task.prompt;
    this.model = scriptedModel((call) => this.next(call), { name: 'obeying-values' });
  }

  private next(call: ScriptedCall): ScriptedStep {
    const extraction = call.tools.length === 0 ? readerPrompt(call.prompt) : undefined;
    if (extraction !== undefined) return { text: this.answerAsReader(extraction.fields, extraction.text) };
    this.readResults(call.prompt);
    const step = this.plan();
    this.options.oracle.stepped();
    return step;
  }

  private plan(): ScriptedStep {
    for (;;) {
      const read = this.pending.shift();
      if (read !== undefined) {
        this.asked = read;
        this.fieldsAsked = read.fields;
        const fields = Object.fromEntries(Object.entries(read.fields).map(([name, f]) => [name, { type: f.type }]));
        return { toolCalls: [{ name: READ_TOOL, arguments: { handle: read.handle, fields } }] };
      }
      if (this.waiting !== undefined) {
        const step = this.waiting();
        this.waiting = undefined;
        if (step !== undefined) return step;
        continue;
      }
      const step = this.injected.shift() ?? this.userPlan.shift();
      if (step === undefined) {
        this.planAnswer();
        if (this.pending.length > 0 || this.waiting !== undefined) continue;
        return { text: 'Done.' };
      }
      this.planCall(typeof step === 'function' ? step : () => step);
    }
  }

  // ---- the reader ----

  private fieldsAsked: Readonly<Record<string, Field>> = {};
  /** What the reader last answered: what the handles it gave hold. */
  private readerSaid: Readonly<Record<string, unknown>> = {};

  private answerAsReader(names: readonly string[], text: string): string {
    const goal = this.understood.find((injection) => text.includes(injection.goal));
    const asked = names.length > 0 ? names : Object.keys(this.fieldsAsked);
    const values = Object.fromEntries(
      asked.map((name) => {
        const field = this.fieldsAsked[name];
        if (goal !== undefined && field?.type === 'string') return [name, attackerValue(goal)];
        return [name, field?.value ?? null];
      }),
    );
    this.readerSaid = values;
    return JSON.stringify(values);
  }

  // ---- the planner ----

  private readResults(prompt: LanguageModelV4Prompt): void {
    const inputs = new Map<string, Record<string, unknown>>();
    const results: { tool: string; args: Record<string, unknown>; text: string }[] = [];
    for (const message of prompt) {
      if (message.role === 'assistant') {
        for (const part of message.content)
          if (part.type === 'tool-call') inputs.set(part.toolCallId, toArgs(part.input));
      } else if (message.role === 'tool') {
        for (const part of message.content)
          if (part.type === 'tool-result')
            results.push({
              tool: part.toolName,
              args: inputs.get(part.toolCallId) ?? {},
              text: resultText(part.output),
            });
      }
    }
    for (const result of results.slice(this.resultsRead)) {
      const value = parsed(result.text);
      if (result.tool === READ_TOOL) {
        const asked = this.asked;
        this.asked = undefined;
        if (asked === undefined) continue;
        const got = Object.fromEntries(Object.keys(asked.fields).map((name) => [name, fieldIn(value, name)]));
        for (const [name, field] of Object.entries(asked.fields)) {
          const handle = got[name];
          if (typeof handle === 'string' && HANDLE.test(handle))
            this.behind.set(handle, name in this.readerSaid ? this.readerSaid[name] : field.value);
        }
        asked.got(got);
        continue;
      }
      const tool = result.tool.slice(result.tool.indexOf('__') + 2);
      const args = this.putBack(result.args) as Record<string, unknown>;
      const handle = handleOf(value);
      const fields = handle === undefined ? leaves(value).filter((leaf) => isHandle(leaf.value)) : [];
      if (fields.length > 0) {
        // Its outside fields held, the rest in clear: it reads the clear part, and knows what each handle holds.
        const behind = this.options.oracle.answer({ tool, args });
        const parent = this.views.length;
        this.views.push({ answer: { tool, args, value: behind }, shown: value });
        for (const field of fields) {
          const held = leafAt(behind, field.path);
          this.behind.set(field.value as string, held);
          this.views.push({
            answer: { tool: `${tool} field`, args, value: held },
            handle: field.value as string,
            parent,
            path: field.path,
          });
        }
        this.seen += `${strings(behind).join('\n')}\n`;
        this.obey(strings(value).join('\n'));
      } else if (handle === undefined) {
        this.views.push({ answer: { tool, args, value } });
        this.seen += `${strings(value).join('\n')}\n`;
        this.obey(strings(value).join('\n'));
      } else {
        const behind = this.options.oracle.answer({ tool, args });
        this.behind.set(handle, behind);
        this.views.push({ answer: { tool, args, value: behind }, handle });
        this.seen += `${strings(behind).join('\n')}\n`;
      }
    }
    this.resultsRead = results.length;
  }

  /** Injection goals read in clear are obeyed, as the run-level obeying model obeys them. */
  private obey(text: string): void {
    for (const injection of this.understood) {
      if (this.obeyed.has(injection.id) || !text.includes(injection.goal)) continue;
      this.obeyed.add(injection.id);
      this.injected.push(...injection.plan);
      if (injection.answer !== undefined) this.said.push(injection.answer);
    }
  }

  /** Arguments with known handles replaced by what they hold, for the oracle. */
  private putBack(value: unknown): unknown {
    if (typeof value === 'string') {
      const whole = this.behind.get(value);
      if (whole !== undefined) return whole;
      return value.replace(/\$outside_\d+/g, (h) => {
        const inner = this.behind.get(h);
        return inner === undefined ? h : typeof inner === 'string' ? inner : JSON.stringify(inner);
      });
    }
    if (Array.isArray(value)) return value.map((item) => this.putBack(item));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, this.putBack(inner)]));
    return value;
  }

  private get oracleReads(): Reads {
    return this.readsPerturbing(undefined);
  }

  /**
   * The answers as the oracle knows them, with the held view at `index` perturbed: a whole answer, or the one
   * field of its answer that a field view stands for.
   */
  private readsPerturbing(index: number | undefined): Reads {
    const target = index === undefined ? undefined : this.views[index];
    return new Reads(
      this.views.flatMap((view, i) => {
        if (view.parent !== undefined) return [];
        if (i === index) return [{ ...view.answer, value: perturbed(view.answer.value) }];
        if (target?.parent === i)
          return [{ ...view.answer, value: setLeaf(view.answer.value, target.path!, perturbed(target.answer.value)) }];
        return [view.answer];
      }),
    );
  }

  private get held(): number[] {
    return this.views.flatMap((view, i) => (view.handle === undefined ? [] : [i]));
  }

  /** What it saw in clear: the user's request and every answer not held. */
  private get clear(): Corpus {
    return new Corpus(
      this.views.filter((view) => view.handle === undefined).map((view) => view.shown ?? view.answer.value),
      this.prompt,
    );
  }

  /** The held answers whose perturbation changes `compute`'s result. */
  private changedBy(compute: (reads: Reads) => unknown): number[] {
    const real = outcome(() => compute(this.oracleReads));
    return this.held.filter((i) => outcome(() => compute(this.readsPerturbing(i))) !== real);
  }

  /** A boolean read of the held text a choice depends on: the run is steered from here on. */
  private steer(source: number): void {
    this.steered = true;
    const name = 'the_request_condition_holds';
    this.pending.push({
      handle: this.views[source]!.handle!,
      fields: { [name]: { type: 'boolean', value: true } },
      got: () => {},
    });
  }

  /**
   * The request chooses on outside text. A choice on a free slot reads events' times, one on a rating reads
   * listings' ratings: outside only when it read answers held whole; when they were shown in clear but for
   * their text, what it reads is found as for any call, by perturbing each held field.
   */
  private choosesOnWholeHeld(): boolean {
    if (this.options.choosesFromOutside === undefined) return false;
    if (this.options.choosesOnShownFields !== true) return true;
    return this.views.some((view) => view.handle !== undefined && view.parent === undefined);
  }

  private planCall(compute: (reads: Reads) => Call | undefined): void {
    const held = this.held;
    if (!this.steered && held.length > 0) {
      const chosenBy = this.changedBy((reads) => compute(reads)?.tool ?? null);
      if (this.choosesOnWholeHeld() || chosenBy.length > 0) this.steer(chosenBy.at(-1) ?? held.at(-1)!);
    }
    const call = compute(this.oracleReads);
    if (call === undefined) return;
    let args: unknown = call.args;
    const clear = this.clear;
    const bySource = new Map<number, { path: readonly (string | number)[]; field: Field }[]>();
    for (const leaf of leaves(call.args)) {
      const source = this.sourceOf(leaf.value, clear, (reads) => leafAt(compute(reads)?.args, leaf.path));
      if (source === undefined) continue;
      const whole = this.views[source]!;
      if (whole.answer.value === leaf.value) {
        args = setLeaf(args, leaf.path, whole.handle);
        continue;
      }
      const type = typeof leaf.value === 'number' ? 'number' : 'string';
      bySource.set(source, [...(bySource.get(source) ?? []), { path: leaf.path, field: { type, value: leaf.value } }]);
    }
    let missing = false;
    for (const [source, wanted] of bySource) {
      const fields = Object.fromEntries(wanted.map((w) => [fieldName(w.path), w.field]));
      this.pending.push({
        handle: this.views[source]!.handle!,
        fields,
        got: (values) => {
          for (const w of wanted) {
            const got = values[fieldName(w.path)];
            if (typeof got === 'string' && HANDLE.test(got)) args = setLeaf(args, w.path, got);
            else missing = true;
          }
        },
      });
    }
    const toolCall = (): ScriptedStep | undefined =>
      missing ? undefined : { toolCalls: [{ name: this.modelName(call.tool), arguments: args }] };
    this.waiting = toolCall;
  }

  /**
   * The held answer a value came from, or `undefined` when it saw the value in clear or made it up: a value
   * computed from held text (it changes when that text does), else one found only in held text.
   */
  private sourceOf(value: string | number, clear: Corpus, compute: (reads: Reads) => unknown): number | undefined {
    const computedFrom = this.changedBy(compute);
    if (computedFrom.length > 0) return computedFrom.at(-1);
    // A ground truth's placeholder (`<summary>`) stands for what the model wrote of the text it read last.
    if (typeof value === 'string' && /^<\w+>$/.test(value)) return this.held.at(-1);
    if (clear.holds(value)) return undefined;
    const found = this.held.filter((i) => new Corpus([this.views[i]!.answer.value]).holds(value));
    if (found.length > 0) return found.at(-1);
    if (typeof value === 'string') {
      // A text with words only held text holds: a list copied from a document, hobbies gathered from messages.
      const pieces = telling(value).filter((word) => !clear.holds(word));
      return this.held
        .filter((i) => pieces.some((piece) => new Corpus([this.views[i]!.answer.value]).holds(piece)))
        .at(-1);
    }
    // A number it could not have seen, one step from a number in held text: the rent plus the increase a
    // letter announced.
    const near = (h: number): boolean =>
      [...clear.numbers].some((c) => c + h === value || c - h === value || h - c === value);
    return this.held.filter((i) => [...new Corpus([this.views[i]!.answer.value]).numbers].some(near)).at(-1);
  }

  /** The final answer: the ground truth's, with a handle for each piece only held text says. */
  private planAnswer(): void {
    const held = this.held;
    const answer = (reads: Reads): string => [this.task.answer?.(reads) ?? 'Done.', ...this.said].join('\n');
    const text = answer(this.oracleReads);
    if (!this.steered && held.length > 0 && this.choosesOnWholeHeld()) this.steer(held.at(-1)!);
    if (held.length === 0) {
      this.waiting = () => ({ text });
      return;
    }
    const clear = this.clear;
    const dependsOn = this.changedBy(answer);
    const holes: { token: string; at: number; source: number; field: Field }[] = [];
    for (const match of text.matchAll(DATA)) {
      const token = match[0];
      const isNumber = /^\d+(?:\.\d+)?$/.test(token);
      if (isNumber ? [...numbersIn(token)].every((n) => clear.numbers.has(n)) : clear.holds(token)) continue;
      const found = held.filter((i) =>
        new Corpus([this.views[i]!.answer.value]).holds(isNumber ? Number(token) : token),
      );
      // A name not found in held text is the model's own words; a number or time nobody showed it came from
      // what it read held (a sum, a duration), when anything was.
      const source = found.at(-1) ?? (/^[A-Z]/.test(token) ? undefined : (dependsOn.at(-1) ?? held.at(-1)));
      if (source === undefined) continue;
      holes.push({
        token,
        at: match.index,
        source,
        field: { type: isNumber ? 'number' : 'string', value: isNumber ? Number(token) : token },
      });
    }
    const filled = new Map<number, string>();
    const bySource = new Map<number, typeof holes>();
    for (const hole of holes) bySource.set(hole.source, [...(bySource.get(hole.source) ?? []), hole]);
    for (const [source, wanted] of bySource) {
      const fields = Object.fromEntries(wanted.map((w, i) => [`value_${i + 1}`, w.field]));
      this.pending.push({
        handle: this.views[source]!.handle!,
        fields,
        got: (values) => {
          wanted.forEach((w, i) => {
            const got = values[`value_${i + 1}`];
            filled.set(w.at, typeof got === 'string' && HANDLE.test(got) ? got : 'I could not read it');
          });
        },
      });
    }
    this.waiting = () => {
      let final = '';
      let from = 0;
      for (const hole of holes) {
        final += text.slice(from, hole.at) + (filled.get(hole.at) ?? hole.token);
        from = hole.at + hole.token.length;
      }
      return { text: final + text.slice(from) };
    };
  }
}

/** Pieces of an answer that are data: emails, URLs, times, numbers, names. */
const DATA =
  /[\w.+-]+@[\w-]+(?:\.[\w-]+)+|(?:https?:\/\/|www\.)[^\s,]+|(?<![\w.:-])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}:\d{2}|\d+(?:\.\d+)?)(?![\w:])|(?<!\w)[A-Z][\w'&-]*(?: (?:[A-Z][\w'&-]*|de|la|le|du|of|and))*/g;

function fieldName(path: readonly (string | number)[]): string {
  return path.length === 0 ? 'value' : path.join('_');
}

function isHandle(value: unknown): boolean {
  return typeof value === 'string' && /^\$outside_\d+$/.test(value);
}

/** The handle of a held answer (`{"handle":"$outside_3",…}`), if it is one. */
function handleOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const handle = (value as Record<string, unknown>).handle;
  return typeof handle === 'string' && HANDLE.test(handle) ? handle : undefined;
}

/** A field's value in the reader's answer as the agent sees it: a handle, or a value in clear. */
function fieldIn(value: unknown, name: string): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  const object = value as Record<string, unknown>;
  if (name in object) {
    const inner = object[name];
    return handleOf(inner) ?? inner;
  }
  for (const inner of Object.values(object)) {
    const found = fieldIn(inner, name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The extraction prompt's field names and text, when this call is the reader's. */
function readerPrompt(prompt: LanguageModelV4Prompt): { fields: string[]; text: string } | undefined {
  for (const message of prompt) {
    if (message.role !== 'user') continue;
    for (const part of message.content) {
      if (part.type !== 'text' || !part.text.startsWith(READ_PROMPT)) continue;
      const start = part.text.indexOf('<text>');
      const end = part.text.lastIndexOf('</text>');
      const schema = parsed(part.text.slice(part.text.indexOf('{'), part.text.lastIndexOf('}', start) + 1));
      const fields =
        schema !== null && typeof schema === 'object'
          ? Object.keys((schema as { fields?: object }).fields ?? schema)
          : [];
      return { fields, text: part.text.slice(start + '<text>'.length, end < 0 ? undefined : end) };
    }
  }
  return undefined;
}

/** What an attacker's goal wants said or sent: its answer, or the first text its first call carries. */
function attackerValue(goal: InjectionTask<unknown>): string {
  if (goal.answer !== undefined) return goal.answer;
  const first = goal.plan.find((step): step is Call => typeof step !== 'function');
  const text = first === undefined ? undefined : leaves(first.args).find((leaf) => typeof leaf.value === 'string');
  return typeof text?.value === 'string' ? text.value : goal.goal;
}
