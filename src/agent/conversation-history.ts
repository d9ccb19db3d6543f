import type { LanguageModelV3Message } from '@ai-sdk/provider';
import type { Store } from '../store/store.js';
import { turnMessages, type StepData } from './messages.js';
import { TERMINAL, type HistoryEntry, type Runtime, type TurnData } from './turn-state.js';

/**
 * Each agent's conversation: the messages of its last finished turns, which the next turn's model sees
 * before the user's new text. Read from the store once per agent and process, then kept up to date here.
 */
export class ConversationHistory {
  constructor(private readonly store: Store) {}

  /** Adds a finished turn to the agent's conversation. */
  async add(rt: Runtime, entry: HistoryEntry): Promise<void> {
    rt.history ??= this.load(rt);
    const entries = await rt.history;
    if (rt.historyTurns === 0 || entries.some((e) => e.run === entry.run)) return;
    entries.push(entry);
    if (entries.length > rt.historyTurns * 2) entries.splice(0, entries.length - rt.historyTurns);
  }

  /**
   * The conversation before a turn: the messages of the agent's last `historyTurns` turns that ended
   * before `before`. Read from the store once per agent and process (so a new process goes on with
   * the conversation), then kept in memory.
   */
  async before(rt: Runtime, before: number): Promise<LanguageModelV3Message[]> {
    rt.history ??= this.load(rt);
    let entries: HistoryEntry[];
    try {
      entries = await rt.history;
    } catch (error) {
      rt.history = undefined;
      throw error;
    }
    if (rt.historyTurns === 0) return [];
    const earlier = before === Infinity ? entries : entries.filter((entry) => entry.finishedAt <= before);
    return earlier.slice(-rt.historyTurns).flatMap((entry) => entry.messages);
  }

  private async load(rt: Runtime): Promise<HistoryEntry[]> {
    if (rt.historyTurns === 0) return [];
    const turns = (await this.store.listTurns({ agent: rt.id }))
      .filter((turn) => TERMINAL.has(turn.status))
      .sort((a, b) => a.updatedAt - b.updatedAt)
      .slice(-rt.historyTurns);
    const entries: HistoryEntry[] = [];
    for (const turn of turns) {
      const steps = (await this.store.listSteps(turn.run)).map((step) => step.data as StepData);
      entries.push({ run: turn.run, finishedAt: turn.updatedAt, messages: turnMessages((turn.data as TurnData).input, steps) });
    }
    return entries;
  }
}
