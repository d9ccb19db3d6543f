import type { RunContext } from '@openai/agents';
import { ConflictError, UsageError } from '../errors.js';
import { newRunId } from '../run-ids.js';
import type { CallRequest } from '../runner/prepared-call.js';
import { answerText, type ToolAnswer } from '../tools/result.js';
import type { OpenAiAgentsToolsOptions, WardrikForOpenAiAgents } from './options.js';

/** The Wardrik run of each SDK run whose tools' options give none, shared by every adapter (an agent's handoffs). */
const defaultRuns = new WeakMap<RunContext<unknown>, string>();

/** What the model reads when the app rejected a call with `state.reject(item)` and gave no message. */
const REJECTED_IN_APP = 'Rejected in the app (state.reject()).';

/**
 * The calls an `@openai/agents` run makes to Wardrik's tools, and the app's answers to them. The SDK asks
 * `needsApproval` before a call and `execute` to run it; both send the call to Wardrik's runner under the
 * SDK's call id in the run, so the runner's journal makes it run once whatever the SDK asks again:
 *
 * - `needsApproval` sends the call: the runner checks it, applies the policy, labels and budget, and runs it
 *   (then `execute` gets its recorded answer) or parks it in the inbox (then the SDK interrupts the run).
 * - `execute` after `state.approve(item)`: the parked call is approved in the inbox (`by`), which runs it once
 *   (`alwaysApprove` approves the tool's later calls in the run as they park).
 * - `state.reject(item)` calls no code of a tool, so the rejection is recorded in the inbox when the run next
 *   lists its tools (`isEnabled`, before each model call): the item is denied with the app's message.
 *
 * An answer given in Wardrik's inbox first counts: on resume the call comes back answered, never again.
 */
export class SdkCalls<TContext> {
  /** The calls `execute` answers now, by run and call id. */
  private readonly executing = new Map<string, Promise<string>>();
  /** Per SDK run: the rejected calls already looked at. */
  private readonly rejectionsSeen = new WeakMap<RunContext<TContext>, Set<string>>();

  constructor(
    private readonly wardrik: WardrikForOpenAiAgents,
    private readonly options: OpenAiAgentsToolsOptions<TContext>,
    /** The SDK names of the tools given, `toolset__tool`. */
    private readonly names: readonly string[],
  ) {}

  /** Whether the SDK must interrupt the run for the call: Wardrik parked it for a person's approval. */
  async needsApproval(
    runContext: RunContext<TContext>,
    name: string,
    input: unknown,
    callId?: string,
  ): Promise<boolean> {
    return waitsForApproval(await this.send(runContext, name, input, callId));
  }

  /** The model-visible answer of a call the SDK lets go: run here only if `state.approve()` let it go. */
  execute(runContext: RunContext<TContext>, name: string, input: unknown, callId?: string): Promise<string> {
    // Two resumes of one approved state in this process: the second joins the first, whose approval runs
    // the call (the runner would tell the second only that it is running, when a lookup overlapped it).
    const key = `${this.runOf(runContext)}\u0000${String(callId)}`;
    const running = this.executing.get(key);
    if (running !== undefined) return running;
    const answer = this.answer(runContext, name, input, callId);
    this.executing.set(key, answer);
    const done = (): void => void this.executing.delete(key);
    void answer.then(done, done);
    return answer;
  }

  private async answer(
    runContext: RunContext<TContext>,
    name: string,
    input: unknown,
    callId?: string,
  ): Promise<string> {
    const again = (): Promise<ToolAnswer> => this.send(runContext, name, input, callId);
    if (typeof callId !== 'string' || runContext.isToolApproved({ toolName: name, callId }) !== true)
      return answerText(await again());
    // The app approved: the item it saw waits in this run. A call that parks only now (a RunState restored
    // into another Wardrik run) is not the one the app approved, unless it approved the tool for the whole run.
    const run = this.runOf(runContext);
    const waiting = (await this.wardrik.inbox.list()).find((item) => item.run === run && item.call === callId);
    if (waiting !== undefined) return answerText(await this.approve(runContext, waiting.id, again));
    const answer = await again();
    if (waitsForApproval(answer) && runContext.toJSON().approvals[name]?.approved === true)
      return answerText(await this.approve(runContext, answer.inboxId, again));
    return answerText(answer);
  }

  /**
   * Records in the inbox the calls the app rejected with `state.reject(item)` that still wait there. Every
   * tool's `isEnabled` asks before each model request; the inbox is read only when a rejection is new.
   */
  recordRejections(runContext: RunContext<TContext>): Promise<void> {
    this.runOf(runContext); // a new SDK run lists its tools before its first model request: its Wardrik run starts
    let seen = this.rejectionsSeen.get(runContext);
    if (seen === undefined) this.rejectionsSeen.set(runContext, (seen = new Set()));
    const approvals = runContext.toJSON().approvals;
    const rejected: { call: string; name: string }[] = [];
    for (const name of this.names) {
      const calls = approvals[name]?.rejected;
      if (Array.isArray(calls))
        for (const call of calls)
          if (!seen.has(call)) {
            seen.add(call);
            rejected.push({ call, name });
          }
    }
    return rejected.length === 0 ? Promise.resolve() : this.deny(runContext, rejected, seen);
  }

  private async deny(runContext: RunContext<TContext>, rejected: { call: string; name: string }[], seen: Set<string>) {
    try {
      const run = this.runOf(runContext);
      const pending = await this.wardrik.inbox.list();
      const by = this.byOf(runContext);
      for (const { call, name } of rejected) {
        const item = pending.find((i) => i.run === run && i.call === call);
        if (item === undefined) continue;
        const reason = runContext.getRejectionMessage(name, call) ?? REJECTED_IN_APP;
        try {
          await this.wardrik.inbox.deny(item.id, { reason, ...(by === undefined ? {} : { by }) });
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error; // answered in the inbox meanwhile: that answer counts
        }
      }
    } catch (error) {
      for (const { call } of rejected) seen.delete(call); // looked at again before the next model request
      throw error;
    }
  }

  /**
   * Approves the parked call in the inbox, which runs it once. When two resumes approve at once, or a person
   * answered in the inbox meanwhile, the item is no longer pending: the call's own answer comes back instead.
   */
  private async approve(
    runContext: RunContext<TContext>,
    inboxId: string,
    again: () => Promise<ToolAnswer>,
  ): Promise<ToolAnswer> {
    const by = this.byOf(runContext);
    try {
      return await this.wardrik.inbox.approve(inboxId, by === undefined ? {} : { by });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      return again();
    }
  }

  private send(runContext: RunContext<TContext>, name: string, input: unknown, callId?: string): Promise<ToolAnswer> {
    if (typeof callId !== 'string' || callId === '')
      throw new UsageError(
        `Tool "${name}" was called without the SDK's call id, so Wardrik could not make the call once; call it through the @openai/agents runner (run(agent, input)), which gives one.`,
      );
    const { agent, budgetUsd, policy, tools } = this.options;
    const request: CallRequest = {
      agent: agent ?? 'openai-agents',
      run: this.runOf(runContext),
      call: { id: callId, name, arguments: input },
      tools,
      ...(budgetUsd === undefined ? {} : { budgetUsd }),
      ...(policy === undefined ? {} : { policy }),
    };
    return this.wardrik.runner.run(request);
  }

  private runOf(runContext: RunContext<TContext>): string {
    const { run } = this.options;
    if (typeof run === 'string') return run;
    if (run !== undefined) {
      const id = run(runContext);
      if (typeof id !== 'string' || id === '')
        throw new UsageError(
          `openAiAgentsTools option run returned ${JSON.stringify(id)}; it must return the run id, a non-empty string kept with your run (such as in its context).`,
        );
      return id;
    }
    let id = defaultRuns.get(runContext);
    if (id !== undefined) return id;
    // A run first seen after its first model request was restored from a saved RunState (or reached by a
    // handoff): a fresh Wardrik run would park its calls anew, and an approval the state carries would run one again.
    // Guard (restored-run-named): a restored run without `run` is refused, never parked or run anew.
    if (runContext.usage.requests > 0)
      throw new UsageError(
        'openAiAgentsTools: this @openai/agents run did not start with Wardrik tools in this process (a RunState restored from a string, or a handoff to an agent with Wardrik tools), so Wardrik cannot tell which of its runs it is. Pass openAiAgentsTools(wardrik, { run: (runContext) => id }) returning an id kept with the run, such as in its context.',
      );
    defaultRuns.set(runContext, (id = newRunId()));
    return id;
  }

  private byOf(runContext: RunContext<TContext>): string | undefined {
    const { by } = this.options;
    return typeof by === 'function' ? by(runContext) : by;
  }
}

/** A parked call the SDK's approval can let go: a policy asked, or an MCP tool's definition changed. */
function waitsForApproval(
  answer: ToolAnswer,
): answer is Extract<ToolAnswer, { status: 'parked' }> & { readonly inboxId: string } {
  return (
    answer.status === 'parked' &&
    answer.inboxId !== undefined &&
    (answer.kind === 'approval' || answer.kind === 'tool_change')
  );
}
