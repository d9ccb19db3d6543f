import type { ToolCaller } from '../tools/context.js';
import type { ToolRunner } from '../runner/tool-runner.js';
import { answerText, NO_LABELS, type ToolAnswer } from '../tools/result.js';
import type { ParkedCall } from './agent.js';
import { toolMessage, type ModelStepData, type ToolsStepData } from './messages.js';
import type { AgentTracing, TraceSpan } from './tracing.js';
import type { TurnJournal } from './turn-journal.js';
import { notLoadedAnswer, type DeferredTools } from './deferred-tools.js';
import { SEARCH_TOOL } from './tool-search.js';
import { callId, type LiveTurn } from './turn-state.js';
import { READ_TOOL, readerAnswer, resolveCall, shownText, type ResolvedCall } from './turn-values.js';

/** What a tool's `ctx.caller` says of an agent's call. */
const AGENT_CALLER: ToolCaller = Object.freeze({ door: 'agent' });

/** The tool calls of a turn's model steps, sent through the runner under stable call ids. */
export class TurnToolCalls {
  constructor(
    private readonly runner: ToolRunner,
    private readonly tracing: AgentTracing,
    private readonly journal: TurnJournal,
    private readonly deferredTools: DeferredTools,
  ) {}

  /**
   * Runs a model step's tool calls in the model's order, except that consecutive read-only calls run
   * together (they change nothing, so their order cannot matter); any other call runs alone. Once a
   * call parks, later calls wait: they run when the turn resumes. Returns the parked calls, or none
   * after journaling every answer as the step's `tools` step.
   *
   * Commits: calls that start together start in one commit, with what the turn holds (the
   * model step). Their answers are held; one that is not safe to repeat is committed before anything
   * else happens, the last one with the step's `tools` step, before the model sees it. Answers of
   * repeatable calls, and a `tools` step of only those, ride with the next model step's commit: a crash
   * in between only repeats them.
   */
  async runStep(d: LiveTurn, step: ModelStepData, index: number): Promise<ParkedCall[]> {
    this.deferredTools.loadFound(d.rt, d, step);
    const answers: ToolAnswer[] = [];
    const calls = step.calls;
    const values = d.values;
    const mark = values?.size ?? 0;
    // Guard (handles-resolved-first): a call's handles are put back, and their labels known, before the policy decides.
    const resolved = calls.map((call) => (values === undefined ? undefined : resolveCall(values, call.input)));
    const parked: ParkedCall[] = [];
    for (let i = 0; i < calls.length && parked.length === 0;) {
      let j = i + 1;
      if (d.readOnly.has(calls[i]!.name)) while (j < calls.length && d.readOnly.has(calls[j]!.name)) j++;
      if (j - i === 1) {
        answers[i] = await this.runOne(d, calls[i]!, index, resolved[i]);
      } else {
        d.journal.expect(j - i);
        const group = await Promise.all(
          calls.slice(i, j).map((call, k) => this.runOne(d, call, index, resolved[i + k])),
        );
        d.journal.expect(0);
        for (let k = 0; k < group.length; k++) answers[i + k] = group[k]!;
      }
      // More calls follow: an answer not safe to repeat is made durable before they start.
      if (j < calls.length && d.journal.mustCommit) await d.journal.flush();
      for (let k = i; k < j; k++) {
        const answer = answers[k]!;
        if (answer.status === 'parked') {
          const call = calls[k]!;
          parked.push({
            inboxId: answer.inboxId ?? '',
            call: callId(index, call.id),
            tool: d.refs.get(call.name)?.ref ?? call.name,
            reason: answer.reason,
          });
        }
      }
      i = j;
    }
    if (parked.length > 0) return parked;
    const tools: ToolsStepData = {
      kind: 'tools',
      results: calls.map((call, k) => ({
        id: call.id,
        name: call.name,
        // In call order, so the handles the answers are held under do not depend on which finished first.
        text:
          values === undefined || call.name === READ_TOOL
            ? answerText(answers[k]!)
            : shownText(
                values,
                d.refs.get(call.name) ?? { ref: call.name, description: '', extension: false },
                answers[k]!,
                argumentLabels(resolved[k]),
                call.input,
              ),
        error: answers[k]!.status === 'error',
      })),
    };
    // Guard (values-journaled): the values behind the handles the model reads are committed with the step.
    const held = values?.since(mark);
    this.journal.holdStep(d, held === undefined ? tools : { ...tools, values: held });
    if (d.journal.mustCommit) await d.journal.flush();
    d.prompt.push(toolMessage(tools));
    return parked;
  }

  /**
   * The call's answer, or a parked answer as soon as its tool waits for a person (an MCP server asked a
   * question): the call runs on in the runner, and the turn parks on the question like on an approval.
   * The runner tells the agent service when the call settles, which resumes the turn.
   */
  private untilAnsweredOrAsking(d: LiveTurn, id: string, answer: Promise<ToolAnswer>): Promise<ToolAnswer> {
    return new Promise<ToolAnswer>((resolve, reject) => {
      d.waitingForPerson.set(id, (inboxId, reason) =>
        resolve({ status: 'parked', kind: 'park', inboxId, reason, labels: NO_LABELS }),
      );
      answer.then(resolve, reject).finally(() => d.waitingForPerson.delete(id));
    });
  }

  /** The search tool's or the reader's answer, a refusal of a deferred tool not loaded or of a handle, or the runner's answer. */
  private answer(
    d: LiveTurn,
    call: ModelStepData['calls'][number],
    id: string,
    span: TraceSpan,
    resolved: ResolvedCall,
  ): Promise<ToolAnswer> {
    if (d.deferred.size > 0 && d.rt.search === undefined && call.name === SEARCH_TOOL)
      return this.deferredTools.search(d, parseArguments(call.input));
    if (d.values !== undefined && call.name === READ_TOOL)
      return readerAnswer(d, d.values, call.input).then(({ answer, usd }) => {
        this.journal.holdSpend(d, usd);
        return answer;
      });
    if (resolved !== undefined && 'refused' in resolved) return Promise.resolve(resolved.refused);
    if (d.deferred.has(call.name) && !d.refs.has(call.name)) return Promise.resolve(notLoadedAnswer(call.name));
    const { rt } = d;
    return this.untilAnsweredOrAsking(
      d,
      id,
      // The tool span is current while the call runs: a call to an MCP server carries it as its traceparent.
      this.tracing.within(span, () =>
        this.runner.run({
          agent: rt.id,
          run: d.run,
          call: { id, name: call.name, arguments: resolved === undefined ? call.input : resolved.resolved.args },
          ...(rt.options.budgetUsd === undefined ? {} : { budgetUsd: rt.options.budgetUsd }),
          ...(rt.options.policy === undefined ? {} : { policy: rt.options.policy }),
          tools: d.callable,
          signal: d.signal,
          caller: AGENT_CALLER,
          ...(rt.options.onBehalfOf === undefined ? {} : { onBehalfOf: rt.options.onBehalfOf }),
          ...(rt.options.maxCalls === undefined ? {} : { maxCalls: rt.options.maxCalls }),
          ...(d.earlier.length === 0 ? {} : { earlierTurns: d.earlier }),
          ...(d.values !== undefined || d.outsideServers.length === 0 ? {} : { outsideTools: d.outsideServers }),
          ...(resolved === undefined || d.values === undefined
            ? {}
            : { values: { resolved: resolved.resolved, steered: d.values.steered() } }),
        }),
      ),
    );
  }

  private async runOne(
    d: LiveTurn,
    call: ModelStepData['calls'][number],
    index: number,
    resolved: ResolvedCall,
  ): Promise<ToolAnswer> {
    const id = callId(index, call.id);
    const span = this.tracing.tool(d.span, call.name, id, d.refs.get(call.name));
    try {
      const answer = await this.answer(d, call, id, span, resolved);
      for (const label of answer.labels) d.labelsRead?.add(label);
      span.set({ 'wardrik.tool.status': answer.status });
      if (answer.status === 'error') span.fail(answer.code, answer.message);
      return answer;
    } catch (error) {
      span.fail('store', (error as Error).message);
      throw error;
    } finally {
      span.end();
    }
  }
}

/** The labels of the held values a call's arguments held. */
function argumentLabels(resolved: ResolvedCall): readonly string[] {
  return resolved !== undefined && 'resolved' in resolved ? resolved.resolved.labels : [];
}

/** The model's arguments text as a value; text that is not JSON stays text, which the search refuses. */
function parseArguments(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
