import { type Clock, systemClock } from '../clock.js';
import { NO_LABELS } from '../tools/result.js';
import type { AuditHead, AuditListOptions, AuditRecord } from './audit-log.js';
import { MemoryAudit } from './memory-audit.js';
import { summariseRuns } from './memory-runs.js';
import {
  FINISHED_TURNS as FINISHED,
  type CallListOptions,
  type CallRecord,
  type ClaimOutcome,
  type HoldOutcome,
  type InboxRecord,
  type InboxStatus,
  type JournalWrite,
  type McpServerRecord,
  type PruneOptions,
  type PruneReport,
  type RememberedClaim,
  type RememberedRecord,
  type RunSummary,
  type SpendHold,
  type StepRecord,
  type FullStore,
  type SyncJournal,
  type TurnRecord,
  type TurnStatus,
} from './store.js';

/** A spend hold of one call, until its cost is known or the hold expires. */
type HeldSpend = {
  readonly tool: string;
  readonly microUsd: number;
  readonly known: boolean;
  readonly expiresAt: number;
};

/** Keeps everything in this process: for tests and for runs that need not survive a restart. */
export class MemoryStore implements FullStore {
  /** @param clock Lease times are read from it (the host's by default), never from a node's clock: see `JournalWrite`'s `lease`. */
  constructor(private readonly clock: Clock = systemClock) {}

  /** Calls by `run \u0000 call`, in the order first written (the ties of `listCalls`). */
  private readonly calls = new Map<string, CallRecord>();
  private readonly inbox = new Map<string, InboxRecord>();
  private readonly remembered = new Map<string, RememberedRecord>();
  private readonly claims = new Map<string, RememberedClaim>();
  private readonly spend = new Map<string, number>();
  /** Spend holds by agent, then by call. */
  private readonly holds = new Map<string, Map<string, HeldSpend>>();
  /** The most each tool has cost a call, in micro-dollars. */
  private readonly toolCosts = new Map<string, number>();
  private readonly labels = new Map<string, readonly string[]>();
  private readonly leases = new Map<string, { readonly node: string; readonly until: number }>();
  private readonly turns = new Map<string, TurnRecord>();
  private readonly steps = new Map<string, Map<number, StepRecord>>();
  private readonly mcpServers = new Map<string, McpServerRecord>();
  private readonly audit = new MemoryAudit();
  /** Each run's call ids, in the order first written: what a run's deletion and its timeline read. */
  private readonly runCalls = new Map<string, string[]>();
  /**
   * Each agent's finished turns by finish time (`updatedAt`), for its history; an entry whose turn was written
   * again or deleted since is skipped (the store's record is no longer that object) and dropped by `prune`.
   */
  private readonly finished = new Map<string, TurnRecord[]>();

  async getCall(run: string, call: string): Promise<CallRecord | undefined> {
    return this.calls.get(callKey(run, call));
  }

  readonly sync: SyncJournal = {
    writeCall: (record, expected) => {
      const key = callKey(record.run, record.call);
      const current = this.calls.get(key);
      // Guard (journal-compare-and-set): a write that finds another state than it expects loses.
      if (current?.state !== expected || !advances(current, record)) return false;
      this.calls.set(key, record);
      if (current === undefined) {
        const ids = this.runCalls.get(record.run);
        if (ids === undefined) this.runCalls.set(record.run, [record.call]);
        else ids.push(record.call);
      }
      return true;
    },
    getLabels: (run) => this.labels.get(run) ?? NO_LABELS,
    writeJournal: (writes) => writes.map((write) => this.journalWrite(write)),
  };

  async writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]> {
    return this.sync.writeJournal!(writes);
  }

  async listCalls(options: CallListOptions): Promise<CallRecord[]> {
    if (options.run !== undefined) {
      const run = options.run;
      const calls = (this.runCalls.get(run) ?? [])
        .map((call) => this.calls.get(callKey(run, call))!)
        .filter((record) => options.state === undefined || record.state === options.state);
      return options.limit === undefined ? calls : calls.slice(0, options.limit);
    }
    // Map order is first-insertion order and the sort is stable, so ties keep the order calls were first written.
    const matching = [...this.calls.values()].filter(
      (record) =>
        (options.state === undefined || record.state === options.state) &&
        (options.run === undefined || record.run === options.run),
    );
    // A run's calls come in the order first written (its timeline); calls by state, oldest update first.
    const calls = options.run === undefined ? matching.sort((a, b) => a.updatedAt - b.updatedAt) : matching;
    return options.limit === undefined ? calls : calls.slice(0, options.limit);
  }

  async listRuns(options: { readonly agent?: string; readonly limit?: number } = {}): Promise<RunSummary[]> {
    return summariseRuns(this.calls.values(), this.turns.values(), options);
  }

  async getInboxItem(id: string): Promise<InboxRecord | undefined> {
    return this.inbox.get(id);
  }

  async listInbox(options: { readonly all?: boolean } = {}): Promise<InboxRecord[]> {
    return [...this.inbox.values()]
      .filter((item) => options.all === true || item.status === 'pending')
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async putInboxItem(item: InboxRecord): Promise<void> {
    this.inbox.set(item.id, item);
  }

  async updateInboxItem(item: InboxRecord, expected: InboxStatus, expectedRevision?: number): Promise<boolean> {
    const now = this.inbox.get(item.id);
    if (now?.status !== expected) return false;
    if (expectedRevision !== undefined && (now.revision ?? 0) !== expectedRevision) return false;
    this.inbox.set(item.id, item);
    return true;
  }

  async getRemembered(key: string, now: number): Promise<RememberedRecord | undefined> {
    const record = this.remembered.get(key);
    if (record !== undefined && record.expiresAt <= now) {
      this.remembered.delete(key);
      return undefined;
    }
    return record;
  }

  async putRemembered(record: RememberedRecord): Promise<void> {
    this.remembered.set(record.key, record);
    this.claims.delete(record.key);
  }

  async claimRemembered(claim: RememberedClaim, now: number): Promise<ClaimOutcome> {
    const remembered = await this.getRemembered(claim.key, now);
    if (remembered !== undefined) return { claimed: false, remembered };
    const held = this.claims.get(claim.key);
    if (held !== undefined && held.expiresAt > now && held.owner !== claim.owner)
      return { claimed: false, heldBy: held.owner, digest: held.digest };
    this.claims.set(claim.key, claim);
    return { claimed: true };
  }

  async releaseRemembered(key: string, owner: string): Promise<void> {
    if (this.claims.get(key)?.owner === owner) this.claims.delete(key);
  }

  async pruneRemembered(now: number): Promise<number> {
    for (const [key, claim] of this.claims) if (claim.expiresAt <= now) this.claims.delete(key);
    let pruned = 0;
    for (const [key, record] of this.remembered) {
      if (record.expiresAt <= now && this.remembered.delete(key)) pruned++;
    }
    return pruned;
  }

  private journalWrite(write: JournalWrite): boolean {
    if ('call' in write) return this.sync.writeCall(write.call, write.expected);
    if ('step' in write) return this.appendStepNow(write.step);
    if ('turn' in write) return this.writeTurnNow(write.turn, write.expectedVersion);
    if ('lease' in write)
      return this.leaseRunNow(write.lease.run, write.lease.node, write.lease.ttlMs, write.lease.whileStarted);
    if ('spend' in write) this.addSpendNow(write.spend.agent, write.spend.microUsd);
    else if ('labels' in write) this.addLabelsNow(write.labels.run, write.labels.labels);
    else this.releaseRunNow(write.release.run, write.release.node);
    return true;
  }

  private addSpendNow(agent: string, microUsd: number): number {
    const total = (this.spend.get(agent) ?? 0) + microUsd;
    this.spend.set(agent, total);
    return total;
  }

  async getSpend(agent: string): Promise<number> {
    return this.spend.get(agent) ?? 0;
  }

  async holdSpend(hold: SpendHold, now: number): Promise<HoldOutcome> {
    let holds = this.holds.get(hold.agent);
    if (holds === undefined) this.holds.set(hold.agent, (holds = new Map<string, HeldSpend>()));
    let held = this.spend.get(hold.agent) ?? 0;
    let busy = false;
    for (const [id, other] of holds) {
      if (other.expiresAt <= now) holds.delete(id);
      else {
        held += other.microUsd;
        busy ||= other.tool === hold.tool && !other.known;
      }
    }
    if (held >= hold.budgetMicroUsd) return 'spent';
    const microUsd = hold.maxMicroUsd ?? this.toolCosts.get(hold.tool);
    if (microUsd === undefined && busy) return 'busy';
    holds.set(hold.id, {
      tool: hold.tool,
      microUsd: microUsd ?? 0,
      known: microUsd !== undefined,
      expiresAt: hold.expiresAt,
    });
    return 'held';
  }

  async releaseSpend(agent: string, id: string, tool: string, costMicroUsd: number | undefined): Promise<void> {
    this.holds.get(agent)?.delete(id);
    if (costMicroUsd !== undefined) this.toolCosts.set(tool, Math.max(this.toolCosts.get(tool) ?? 0, costMicroUsd));
  }

  private addLabelsNow(run: string, labels: readonly string[]): readonly string[] {
    const current = this.labels.get(run) ?? NO_LABELS;
    // Most answers carry labels the run already has (`outside` on every MCP answer): no copies then.
    if (labels.every((label) => current.includes(label))) return NO_LABELS;
    const added = [...new Set(labels)].filter((label) => !current.includes(label));
    if (added.length > 0) this.labels.set(run, Object.freeze([...current, ...added]));
    return added;
  }

  async getLabels(run: string): Promise<readonly string[]> {
    return this.sync.getLabels(run);
  }

  private leaseRunNow(run: string, node: string, ttlMs: number, whileStarted: string | undefined): boolean {
    if (whileStarted !== undefined && this.calls.get(callKey(run, whileStarted))?.state !== 'started') return false;
    const now = this.clock.now();
    const lease = this.leases.get(run);
    if (lease !== undefined && lease.node !== node && lease.until >= now) return false;
    this.leases.set(run, { node, until: now + ttlMs });
    return true;
  }

  private releaseRunNow(run: string, node: string): void {
    if (this.leases.get(run)?.node === node) this.leases.delete(run);
  }

  async getTurn(run: string): Promise<TurnRecord | undefined> {
    return this.turns.get(run);
  }

  private writeTurnNow(record: TurnRecord, expected: number | undefined): boolean {
    if (this.turns.get(record.run)?.version !== expected) return false;
    this.turns.set(record.run, record);
    if (FINISHED.has(record.status)) {
      const turns = this.finished.get(record.agent);
      if (turns === undefined) this.finished.set(record.agent, [record]);
      else {
        // Kept in finish-time order; a turn finishing now goes at the end, so this rarely looks back.
        let at = turns.length;
        while (at > 0 && turns[at - 1]!.updatedAt > record.updatedAt) at--;
        turns.splice(at, 0, record);
      }
    }
    return true;
  }

  async lastFinishedTurns(agent: string, limit: number): Promise<TurnRecord[]> {
    const turns = this.finished.get(agent) ?? [];
    const last: TurnRecord[] = [];
    for (let i = turns.length - 1; i >= 0 && last.length < limit; i--) {
      if (this.turns.get(turns[i]!.run) === turns[i]) last.push(turns[i]!);
    }
    return last.reverse();
  }

  async listTurns(options: {
    readonly agent?: string;
    readonly status?: TurnStatus;
    readonly limit?: number;
  }): Promise<TurnRecord[]> {
    return [...this.turns.values()]
      .filter(
        (turn) =>
          (options.agent === undefined || turn.agent === options.agent) &&
          (options.status === undefined || turn.status === options.status),
      )
      .sort((a, b) => a.createdAt - b.createdAt)
      .slice(0, options.limit ?? Infinity);
  }

  private appendStepNow(step: StepRecord): boolean {
    let steps = this.steps.get(step.run);
    if (steps === undefined) this.steps.set(step.run, (steps = new Map<number, StepRecord>()));
    if (steps.has(step.index)) return false;
    steps.set(step.index, step);
    return true;
  }

  async listSteps(run: string): Promise<StepRecord[]> {
    return [...(this.steps.get(run)?.values() ?? [])].sort((a, b) => a.index - b.index);
  }

  async listMcpServers(hub: string): Promise<McpServerRecord[]> {
    return [...this.mcpServers.values()]
      .filter((server) => server.hub === hub)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async putMcpServer(record: McpServerRecord): Promise<void> {
    this.mcpServers.set(`${record.hub}\u0000${record.name}`, record);
  }

  async deleteMcpServer(hub: string, name: string): Promise<boolean> {
    return this.mcpServers.delete(`${hub}\u0000${name}`);
  }

  async prune(options: PruneOptions): Promise<PruneReport> {
    const { before } = options;
    const limit = options.limit ?? Infinity;
    const waiting = (run: string, call: string) => {
      const state = this.calls.get(callKey(run, call))?.state;
      return state === 'parked' || state === 'started';
    };
    // Nothing in it waits, and nothing was written to it since the cutoff.
    const quiet = (run: string) =>
      (this.runCalls.get(run) ?? []).every(
        (call) => !waiting(run, call) && this.calls.get(callKey(run, call))!.updatedAt < before,
      );
    const runs: string[] = [];
    for (const turn of this.turns.values()) {
      if (runs.length >= limit) break;
      if (FINISHED.has(turn.status) && turn.updatedAt < before && quiet(turn.run)) runs.push(turn.run);
    }
    for (const run of this.runCalls.keys()) {
      if (runs.length >= limit) break;
      if (!this.turns.has(run) && quiet(run)) runs.push(run);
    }
    const keep = options.dryRun === true;
    const report = { runs: runs.length, turns: 0, steps: 0, calls: 0, inbox: 0, labels: 0, leases: 0, holds: 0 };
    for (const run of runs) {
      const calls = this.runCalls.get(run) ?? [];
      report.calls += calls.length;
      report.steps += this.steps.get(run)?.size ?? 0;
      report.labels += this.labels.get(run)?.length ?? 0;
      if (this.turns.has(run)) report.turns++;
      if (this.leases.has(run)) report.leases++;
      if (keep) continue;
      for (const call of calls) this.calls.delete(callKey(run, call));
      for (const map of [this.runCalls, this.steps, this.labels, this.turns, this.leases]) map.delete(run);
    }
    const deleted = new Set(runs);
    for (const [id, item] of this.inbox) {
      if (item.status === 'pending' || !deleted.has(item.run)) continue;
      report.inbox++;
      if (!keep) this.inbox.delete(id);
    }
    for (const [run, lease] of this.leases) {
      // On a dry run the leases of the runs above are still there, and counted already.
      if (lease.until >= before || deleted.has(run)) continue;
      report.leases++;
      if (!keep) this.leases.delete(run);
    }
    for (const holds of this.holds.values()) {
      for (const [id, hold] of holds) {
        if (hold.expiresAt >= before) continue;
        report.holds++;
        if (!keep) holds.delete(id);
      }
    }
    if (!keep) {
      // Drop the history entries of turns deleted or written again since they finished.
      for (const [agent, turns] of this.finished) {
        const live = turns.filter((turn) => this.turns.get(turn.run) === turn);
        if (live.length === 0) this.finished.delete(agent);
        else this.finished.set(agent, live);
      }
    }
    return report;
  }

  async appendAudit(seal: (head: AuditHead) => readonly AuditRecord[]): Promise<readonly AuditRecord[]> {
    return this.audit.append(seal);
  }

  async listAudit(options?: AuditListOptions): Promise<AuditRecord[]> {
    return this.audit.list(options);
  }

  async pruneAudit(
    before: number,
    checkpoint: (head: AuditHead, last: AuditRecord, removed: number) => AuditRecord,
  ): Promise<number> {
    return this.audit.prune(before, checkpoint);
  }

  async close(): Promise<void> {}
}

/** Started again only with a higher attempt: two takers of one started call cannot both win (see `JournalWrite`'s `call`). */
function advances(current: CallRecord | undefined, next: CallRecord): boolean {
  return current?.state !== 'started' || next.state !== 'started' || next.attempt > current.attempt;
}

function callKey(run: string, call: string): string {
  return `${run}\u0000${call}`;
}
