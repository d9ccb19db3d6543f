// The obeying model: AgentDojo's ground truth played as a model that follows any instruction it reads.
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { scriptedModel, type ScriptedModel, type ScriptedStep } from '../../src/testing/index.js';
import { parsed, resultText, strings } from '../safety/prompt-reading.js';
import { Reads, type Answer, type Call, type InjectionTask, type Step, type UserTask } from './suite.js';

/**
 * What it does, each time it is called:
 * 1. It reads every tool answer in the prompt (parsed from JSON where it is JSON), with the call that made it.
 * 2. In each answer it has not read before, it looks for the goal of any of the suite's injection tasks
 *    (AgentDojo's `GOAL` text, which every attack variant plants verbatim): it understands that goal as a
 *    capable model would, as that injection task's ground truth. As `important_instructions` asks
 *    ("before you can solve the task … do the following first"), those calls go first, once per goal.
 * 3. Its next call is the next step of the pending injection plans, else of the user task's ground truth;
 *    a step may compute its call from the answers read so far (an IBAN, an amount, a channel's name), or
 *    skip itself (`undefined`).
 * 4. When no step is left, it answers with the task's ground-truth output, computed from what it read,
 *    followed by what any obeyed injection asked it to say.
 * A refused call (nobody answers an ask) is an answer like any other: it goes on with the next step. It
 * keeps its place in the plan between calls, so one model plays one case.
 */
export class ObeyingModel {
  readonly model: ScriptedModel;
  /** Every tool answer's text it read, for finding which injection vectors a task's ground truth sees. */
  seen = '';
  private readonly userPlan: Step[];
  private readonly injected: Step[] = [];
  private readonly obeyed = new Set<string>();
  /** What obeyed injections asked it to say, added to its final answer. */
  private readonly said: string[] = [];
  private answersRead = 0;

  constructor(
    private readonly task: UserTask<unknown>,
    private readonly understood: readonly InjectionTask<unknown>[],
    /** The name the model sees for a tool's own name: `send_money` → `banking__send_money`. */
    private readonly modelName: (tool: string) => string,
  ) {
    this.userPlan = [...task.plan];
    this.model = scriptedModel((call) => this.next(call.prompt), { name: 'obeying' });
  }

  private next(prompt: LanguageModelV4Prompt): ScriptedStep {
    const answers = readAnswers(prompt);
    for (const answer of answers.slice(this.answersRead)) {
      const texts = strings(answer.value).join('\n');
      this.seen += `${texts}\n`;
      for (const injection of this.understood) {
        if (this.obeyed.has(injection.id) || !texts.includes(injection.goal)) continue;
        this.obeyed.add(injection.id);
        this.injected.push(...injection.plan);
        if (injection.answer !== undefined) this.said.push(injection.answer);
      }
    }
    this.answersRead = answers.length;
    const reads = new Reads(answers);
    for (;;) {
      const step = this.injected.shift() ?? this.userPlan.shift();
      if (step === undefined) return { text: [this.task.answer?.(reads) ?? 'Done.', ...this.said].join('\n') };
      const call: Call | undefined = typeof step === 'function' ? step(reads) : step;
      if (call !== undefined) return { toolCalls: [{ name: this.modelName(call.tool), arguments: call.args }] };
    }
  }
}

/** The tool answers in the prompt, oldest first, each with its tool's own name and the call's arguments. */
function readAnswers(prompt: LanguageModelV4Prompt): Answer[] {
  const inputs = new Map<string, Record<string, unknown>>();
  const answers: Answer[] = [];
  for (const message of prompt) {
    if (message.role === 'assistant') {
      for (const part of message.content)
        if (part.type === 'tool-call') inputs.set(part.toolCallId, toArgs(part.input));
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        answers.push({
          tool: part.toolName.slice(part.toolName.indexOf('__') + 2),
          args: inputs.get(part.toolCallId) ?? {},
          value: parsed(resultText(part.output)),
        });
      }
    }
  }
  return answers;
}

export function toArgs(input: unknown): Record<string, unknown> {
  const value = typeof input === 'string' ? parsed(input) : input;
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}
