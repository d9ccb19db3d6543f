import type { LanguageModelV3Message } from '@ai-sdk/provider';
import type { Store } from '../store/store.js';
import { OUTSIDE } from '../tools/labels.js';
import { ValueTable, type ValueTableSnapshot } from '../tools/value-table.js';
import { turnMessages, type StepData } from './messages.js';
import { stepDataOf, turnDataOf, type EarlierTurn } from './turn-data.js';
import type { HistoryEntry, Runtime } from './turn-state.js';

/**
 * Each agent's conversation: the messages of its last finished turns, which the next turn's model sees
 * before the user's new text, and the labels of what each of them read, which the next turn starts with:
 * outside text read in one turn is in the next turn's prompt, so it counts there as if read again. A
 * turn's labels are those it read and those it started with, since its replies may repeat what its
 * prompt held; they leave with its text, once it falls out of the last `historyTurns`. Read from the
 * store once per agent and process, then kept up to date here.
 */
export class ConversationHistory {
  constructor(private readonly store: Store) {}

  /**
   * Adds a finished turn to the agent's conversation. `labels`: those its calls' answers carried, when the
   * caller saw them all; otherwise they are read from the journal. `started`: the earlier turns whose
   * labels it started with. `values`: the outside values it held (`labels: 'values'`), whose handles its
   * messages hold.
   */
  async add(
    rt: Runtime,
    run: string,
    finishedAt: number,
    messages: readonly LanguageModelV3Message[],
    labels: ReadonlySet<string> | undefined,
    started: readonly EarlierTurn[] = [],
    values?: ValueTableSnapshot,
  ): Promise<void> {
    rt.history ??= this.load(rt);
    const entries = await rt.history;
    if (rt.historyTurns === 0 || entries.some((e) => e.run === run)) return;
    const entry: HistoryEntry = {
      run,
      finishedAt,
      messages,
      labels: withStarted(labels === undefined ? await this.labelsRead(run) : [...labels], started),
      values,
    };
    if (entries.some((e) => e.run === run)) return;
    entries.push(entry);
    if (entries.length > rt.historyTurns * 2) entries.splice(0, entries.length - rt.historyTurns);
  }

  /**
   * The conversation before a turn: the messages of the agent's last `historyTurns` turns that ended
   * before `before`, those of them that read labelled text, and the outside values they held (their
   * handles are in the messages; a turn that read outside text in clear counts as steering). Read from the store once per agent and process (so a new process goes
   * on with the conversation), then kept in memory.
   */
  async before(
    rt: Runtime,
    before: number,
  ): Promise<{ messages: LanguageModelV3Message[]; earlier: EarlierTurn[]; values: ValueTableSnapshot[] }> {
    rt.history ??= this.load(rt);
    let entries: HistoryEntry[];
    try {
      entries = await rt.history;
    } catch (error) {
      rt.history = undefined;
      throw error;
    }
    if (rt.historyTurns === 0) return { messages: [], earlier: [], values: [] };
    const window = (before === Infinity ? entries : entries.filter((entry) => entry.finishedAt <= before)).slice(
      -rt.historyTurns,
    );
    return {
      messages: window.flatMap((entry) => entry.messages),
      earlier: window
        .filter((entry) => entry.labels.length > 0)
        .map((entry) => ({ run: entry.run, labels: entry.labels })),
      values: window.flatMap((entry) =>
        entry.values !== undefined ? [entry.values] : entry.labels.includes(OUTSIDE) ? [READ_IN_CLEAR] : [],
      ),
    };
  }

  /**
   * The labels of what a turn read: those its calls' answers carried, from the journal, and those its run
   * carries (the tools its model read: an untrusted server's under the run-level rule bring `outside`).
   */
  private async labelsRead(run: string): Promise<readonly string[]> {
    const [calls, carried] = await Promise.all([this.store.listCalls({ run }), this.store.getLabels(run)]);
    const labels = new Set<string>(carried);
    for (const call of calls) for (const label of call.answer?.labels ?? []) labels.add(label);
    return [...labels].sort();
  }

  private async load(rt: Runtime): Promise<HistoryEntry[]> {
    if (rt.historyTurns === 0) return [];
    const turns = await this.store.lastFinishedTurns(rt.id, rt.historyTurns);
    const entries: HistoryEntry[] = [];
    for (const turn of turns) {
      const steps = (await this.store.listSteps(turn.run)).map(stepDataOf);
      entries.push({
        run: turn.run,
        finishedAt: turn.updatedAt,
        messages: turnMessages(turnDataOf(turn).input, steps),
        labels: withStarted(await this.labelsRead(turn.run), turnDataOf(turn).earlier ?? []),
        values: turnDataOf(turn).values === true ? heldValues(steps) : undefined,
      });
    }
    return entries;
  }
}

/** The outside values a turn's steps held (`labels: 'values'`). */
function heldValues(steps: readonly StepData[]): ValueTableSnapshot {
  return ValueTable.merged(
    steps.flatMap((step) => (step.kind === 'tools' && step.values !== undefined ? [step.values] : [])),
  );
}

/**
 * What an earlier turn that read outside text in clear (it ran under `labels: 'run'`) leaves a turn with
 * labels on values: its text is in the prompt, so outside text may have steered every choice from here on.
 */
const READ_IN_CLEAR: ValueTableSnapshot = Object.freeze({ next: 1, held: [], steered: [OUTSIDE] });

/**
 * A turn's labels: what it read, and what it started with. Its model saw the earlier turns' text and its
 * replies may repeat it ("repeat this note in every reply"), so their labels stay while its text does.
 */
function withStarted(read: readonly string[], started: readonly EarlierTurn[]): readonly string[] {
  // Guard (reply-carries-labels): a turn's labels outlive the earlier turns whose text its replies may hold.
  return [...new Set([...read, ...started.flatMap((turn) => turn.labels)])].sort();
}
