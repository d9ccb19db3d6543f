// docs/durable-runs.md: a store of the core alone, and the Store contract run on it.
import type {
  CallListOptions,
  CallRecord,
  InboxRecord,
  InboxStatus,
  JournalWrite,
  RunSummary,
  StepRecord,
  Store,
  TurnRecord,
  TurnStatus,
} from '../../src/index.js';
import { MemoryStore } from '../../src/index.js';

/**
 * A store that implements `Store` and no capability: one write (`writeJournal`) and the reads. Here each
 * method hands over to a memory store kept inside, which a real store would replace with its own
 * database; none of the memory store's capability methods (remembered results, spend holds, pruning,
 * MCP records) is offered, so Wardrik refuses at start-up the features that need them.
 */
export class CoreStore implements Store {
  private readonly rows: MemoryStore;

  constructor(clock?: { now(): number }) {
    this.rows = new MemoryStore(clock);
  }

  writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]> {
    return this.rows.writeJournal(writes);
  }

  getCall(run: string, call: string): Promise<CallRecord | undefined> {
    return this.rows.getCall(run, call);
  }

  listCalls(options: CallListOptions): Promise<CallRecord[]> {
    return this.rows.listCalls(options);
  }

  listRuns(options?: { readonly agent?: string; readonly limit?: number }): Promise<RunSummary[]> {
    return this.rows.listRuns(options);
  }

  getInboxItem(id: string): Promise<InboxRecord | undefined> {
    return this.rows.getInboxItem(id);
  }

  listInbox(options?: { readonly all?: boolean }): Promise<InboxRecord[]> {
    return this.rows.listInbox(options);
  }

  putInboxItem(item: InboxRecord): Promise<void> {
    return this.rows.putInboxItem(item);
  }

  updateInboxItem(item: InboxRecord, expected: InboxStatus, expectedRevision?: number): Promise<boolean> {
    return this.rows.updateInboxItem(item, expected, expectedRevision);
  }

  getSpend(agent: string): Promise<number> {
    return this.rows.getSpend(agent);
  }

  getLabels(run: string): Promise<readonly string[]> {
    return this.rows.getLabels(run);
  }

  getTurn(run: string): Promise<TurnRecord | undefined> {
    return this.rows.getTurn(run);
  }

  listTurns(options: {
    readonly agent?: string;
    readonly status?: TurnStatus;
    readonly limit?: number;
  }): Promise<TurnRecord[]> {
    return this.rows.listTurns(options);
  }

  listSteps(run: string): Promise<StepRecord[]> {
    return this.rows.listSteps(run);
  }

  lastFinishedTurns(agent: string, limit: number): Promise<TurnRecord[]> {
    return this.rows.lastFinishedTurns(agent, limit);
  }

  close(): Promise<void> {
    return this.rows.close();
  }
}
