import type { CallRecord, CallState, InboxRecord, InboxStatus, McpServerRecord, RememberedRecord, StepRecord, Store, TurnRecord, TurnStatus } from './store.js';

/** Keeps everything in this process: for tests and for runs that need not survive a restart. */
export class MemoryStore implements Store {
  private readonly calls = new Map<string, CallRecord>();
  private readonly inbox = new Map<string, InboxRecord>();
  private readonly remembered = new Map<string, RememberedRecord>();
  private readonly spend = new Map<string, number>();
  private readonly labels = new Map<string, readonly string[]>();
  private readonly leases = new Map<string, { readonly node: string; readonly until: number }>();
  private readonly turns = new Map<string, TurnRecord>();
  private readonly steps = new Map<string, Map<number, StepRecord>>();
  private readonly mcpServers = new Map<string, McpServerRecord>();

  async getCall(run: string, call: string): Promise<CallRecord | undefined> {
    return this.calls.get(callKey(run, call));
  }

  async writeCall(record: CallRecord, expected: CallState | undefined): Promise<boolean> {
    const key = callKey(record.run, record.call);
    if (this.calls.get(key)?.state !== expected) return false;
    this.calls.set(key, record);
    return true;
  }

  async listCalls(options: { readonly state: CallState; readonly limit?: number }): Promise<CallRecord[]> {
    // Map order is first-insertion order and the sort is stable, so ties keep the order calls were first written.
    const calls = [...this.calls.values()].filter((record) => record.state === options.state).sort((a, b) => a.updatedAt - b.updatedAt);
    return options.limit === undefined ? calls : calls.slice(0, options.limit);
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

  async updateInboxItem(item: InboxRecord, expected: InboxStatus): Promise<boolean> {
    if (this.inbox.get(item.id)?.status !== expected) return false;
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
  }

  async pruneRemembered(now: number): Promise<number> {
    let pruned = 0;
    for (const [key, record] of this.remembered) {
      if (record.expiresAt <= now && this.remembered.delete(key)) pruned++;
    }
    return pruned;
  }

  async addSpend(agent: string, usd: number): Promise<number> {
    const total = (this.spend.get(agent) ?? 0) + usd;
    this.spend.set(agent, total);
    return total;
  }

  async getSpend(agent: string): Promise<number> {
    return this.spend.get(agent) ?? 0;
  }

  async addLabels(run: string, labels: readonly string[]): Promise<readonly string[]> {
    const current = this.labels.get(run) ?? NO_LABELS;
    const added = [...new Set(labels)].filter((label) => !current.includes(label));
    if (added.length > 0) this.labels.set(run, Object.freeze([...current, ...added]));
    return added;
  }

  async getLabels(run: string): Promise<readonly string[]> {
    return this.labels.get(run) ?? NO_LABELS;
  }

  async leaseRun(run: string, node: string, now: number, ttlMs: number): Promise<boolean> {
    const lease = this.leases.get(run);
    if (lease !== undefined && lease.node !== node && lease.until >= now) return false;
    this.leases.set(run, { node, until: now + ttlMs });
    return true;
  }

  async releaseRun(run: string, node: string): Promise<void> {
    if (this.leases.get(run)?.node === node) this.leases.delete(run);
  }

  async getTurn(run: string): Promise<TurnRecord | undefined> {
    return this.turns.get(run);
  }

  async writeTurn(record: TurnRecord, expected: number | undefined): Promise<boolean> {
    if (this.turns.get(record.run)?.version !== expected) return false;
    this.turns.set(record.run, record);
    return true;
  }

  async listTurns(options: { readonly agent?: string; readonly status?: TurnStatus; readonly limit?: number }): Promise<TurnRecord[]> {
    return [...this.turns.values()]
      .filter((turn) => (options.agent === undefined || turn.agent === options.agent) && (options.status === undefined || turn.status === options.status))
      .sort((a, b) => a.createdAt - b.createdAt)
      .slice(0, options.limit ?? Infinity);
  }

  async appendStep(step: StepRecord): Promise<boolean> {
    let steps = this.steps.get(step.run);
    if (steps === undefined) this.steps.set(step.run, (steps = new Map()));
    if (steps.has(step.index)) return false;
    steps.set(step.index, step);
    return true;
  }

  async listSteps(run: string): Promise<StepRecord[]> {
    return [...(this.steps.get(run)?.values() ?? [])].sort((a, b) => a.index - b.index);
  }

  async listMcpServers(hub: string): Promise<McpServerRecord[]> {
    return [...this.mcpServers.values()].filter((server) => server.hub === hub).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async putMcpServer(record: McpServerRecord): Promise<void> {
    this.mcpServers.set(`${record.hub}\u0000${record.name}`, record);
  }

  async deleteMcpServer(hub: string, name: string): Promise<boolean> {
    return this.mcpServers.delete(`${hub}\u0000${name}`);
  }

  async close(): Promise<void> {}
}

const NO_LABELS: readonly string[] = Object.freeze([]);

function callKey(run: string, call: string): string {
  return `${run}\u0000${call}`;
}
