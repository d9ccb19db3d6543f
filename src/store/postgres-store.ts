import type { AuditHead, AuditListOptions, AuditRecord } from './audit-log.js';
import { auditOf, type AuditRow } from './audit-rows.js';
import { appendAuditLocked, AUDIT_LOCK, auditListValues, pruneAuditLocked } from './postgres-audit.js';
import type { Pool, QueryResultRow } from 'pg';
import { ConfigurationError, StoreError } from '../errors.js';
import { answerJson, inboxJson, inboxOf, mcpServerOptionsJson } from './journal-data.js';
import { addressOf, postgresStoreError } from './postgres-errors.js';
import { PostgresJournal, type TookRow } from './postgres-journal.js';
import { connectPool, type PostgresStoreOptions } from './postgres-connect.js';

export type { PostgresStoreOptions } from './postgres-connect.js';
import { STATEMENTS } from './postgres-statements.js';
import { journalInOrder, lockedTransaction, type RunStatement } from './postgres-transactions.js';
import {
  type CallRow,
  callOf,
  type McpServerRow,
  mcpServerOf,
  rememberedOf,
  type RememberedRow,
  runSummaryOf,
  type RunSummaryRow,
  type StepRow,
  stepOf,
  turnListing,
  turnOf,
  type TurnRow,
} from './sql-rows.js';
import type {
  CallListOptions,
  CallRecord,
  ClaimOutcome,
  HoldOutcome,
  InboxRecord,
  InboxStatus,
  JournalWrite,
  McpServerRecord,
  PruneOptions,
  PruneReport,
  RememberedClaim,
  RememberedRecord,
  RunSummary,
  SpendHold,
  StepRecord,
  FullStore,
  TurnRecord,
  TurnStatus,
} from './store.js';

/**
 * Journal statements (`writeJournal`) running at once. Batches handed in while they run wait and go
 * together in the next, so under load a statement carries many runs' writes.
 */
const JOURNAL_STATEMENTS_IN_FLIGHT = 2;

/**
 * The store for many nodes: PostgreSQL through a `pg` pool, loaded only when this store starts. Every
 * operation is one statement, so one round trip; every journal write, alone or in a batch, goes through
 * the one journal function (`writeJournal`, migration 10), whose compare-and-sets are in their WHERE
 * clauses (or an `ON CONFLICT DO NOTHING`): PostgreSQL's row locks make exactly one of racing writers win.
 *
 * Lifecycle: `start()` connects and migrates (the first operation starts it too); `close()` ends the pool.
 */
export class PostgresStore implements FullStore {
  readonly schema: string;
  /** `host:port`, for messages: never the password. */
  readonly address: string;
  private readonly options: PostgresStoreOptions;
  private starting: Promise<Pool> | undefined;
  private pool: Pool | undefined;
  private closed = false;
  private readonly q: Record<keyof typeof STATEMENTS, string>;
  private readonly journal: PostgresJournal;

  constructor(options: PostgresStoreOptions) {
    const schema = options.schema ?? 'wardrik';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
      throw new ConfigurationError(
        `PostgreSQL store schema "${schema}" is not a plain lowercase identifier. Use letters, digits and "_" (at most 63), starting with a letter or "_", such as "wardrik".`,
      );
    }
    this.schema = schema;
    this.address = addressOf(options.url);
    this.options = options;
    this.q = Object.fromEntries(
      Object.entries(STATEMENTS).map(([name, text]) => [name, text.replaceAll('{s}', `"${schema}"`)]),
    ) as Record<keyof typeof STATEMENTS, string>;
    this.journal = new PostgresJournal(
      async (columns) =>
        (
          await (
            await this.ready()
          ).query<TookRow>({ name: 'wardrik_writeJournal', text: this.q.writeJournal, values: columns })
        ).rows,
      async (statements) => journalInOrder(await this.ready(), this.q.writeJournal, statements),
      (error) => this.storeError('write to the journal', error),
      JOURNAL_STATEMENTS_IN_FLIGHT,
    );
  }

  /** Connects and applies missing migrations; resolves to this store. Safe to call more than once. */
  async start(): Promise<this> {
    await this.ready();
    return this;
  }

  async getCall(run: string, call: string): Promise<CallRecord | undefined> {
    const rows = await this.query<CallRow>('read a call', 'getCall', [run, call]);
    return rows[0] === undefined ? undefined : callOf(rows[0]);
  }

  async listCalls(options: CallListOptions): Promise<CallRecord[]> {
    const limit = options.limit ?? null;
    const rows =
      options.run === undefined
        ? await this.query<CallRow>('list calls', 'listCalls', [options.state, limit])
        : options.state === undefined
          ? await this.query<CallRow>('list calls', 'listRunCalls', [options.run, limit])
          : await this.query<CallRow>('list calls', 'listRunCallsInState', [options.run, options.state, limit]);
    return rows.map(callOf);
  }

  async listRuns(options: { readonly agent?: string; readonly limit?: number } = {}): Promise<RunSummary[]> {
    const rows = await this.query<RunSummaryRow>('list runs', 'listRuns', [
      options.agent ?? null,
      options.limit ?? null,
    ]);
    return rows.map(runSummaryOf);
  }

  async getInboxItem(id: string): Promise<InboxRecord | undefined> {
    const rows = await this.query<{ item: string }>('read an inbox item', 'getInbox', [id]);
    return rows[0] === undefined ? undefined : inboxOf(rows[0].item);
  }

  async listInbox(options: { readonly all?: boolean } = {}): Promise<InboxRecord[]> {
    const rows = await this.query<{ item: string }>(
      'list the inbox',
      options.all === true ? 'listInboxAll' : 'listInboxPending',
      [],
    );
    return rows.map((row) => inboxOf(row.item));
  }

  async putInboxItem(item: InboxRecord): Promise<void> {
    await this.query('write an inbox item', 'putInbox', [
      item.id,
      item.status,
      item.createdAt,
      inboxJson(item),
      item.run,
    ]);
  }

  async updateInboxItem(item: InboxRecord, expected: InboxStatus, expectedRevision?: number): Promise<boolean> {
    const values = [item.id, item.status, item.createdAt, inboxJson(item), expected];
    if (expectedRevision !== undefined)
      return (await this.count('update an inbox item', 'updateInboxRevision', [...values, expectedRevision])) === 1;
    return (await this.count('update an inbox item', 'updateInbox', values)) === 1;
  }

  async claimRemembered(claim: RememberedClaim, now: number): Promise<ClaimOutcome> {
    return this.locked('claim a remembered key', `remember:${claim.key}`, async (run) => {
      const [row] = await run<RememberedRow>('getRemembered', [claim.key, now]);
      if (row !== undefined) return { claimed: false, remembered: rememberedOf(claim.key, row) };
      const [held] = await run<{ owner: string; digest: string }>('getClaim', [claim.key, now, claim.owner]);
      if (held !== undefined) return { claimed: false, heldBy: held.owner, digest: held.digest };
      await run('putClaim', [claim.key, claim.digest, claim.owner, claim.expiresAt]);
      return { claimed: true };
    });
  }

  async releaseRemembered(key: string, owner: string): Promise<void> {
    await this.query('release a remembered key', 'releaseClaim', [key, owner]);
  }

  async holdSpend(hold: SpendHold, now: number): Promise<HoldOutcome> {
    return this.locked('hold part of a budget', `spend:${hold.agent}`, async (run) => {
      await run('pruneHolds', [hold.agent, now]);
      const [sums] = await run<{ held: string; busy: string }>('sumHolds', [hold.agent, hold.tool]);
      if (Number(sums!.held) >= hold.budgetMicroUsd) return 'spent';
      const [cost] =
        hold.maxMicroUsd === undefined ? await run<{ max_micro_usd: string }>('getToolCost', [hold.tool]) : [];
      const microUsd = hold.maxMicroUsd ?? (cost === undefined ? undefined : Number(cost.max_micro_usd));
      if (microUsd === undefined && Number(sums!.busy) > 0) return 'busy';
      await run('putHold', [hold.agent, hold.id, hold.tool, microUsd ?? 0, microUsd !== undefined, hold.expiresAt]);
      return 'held';
    });
  }

  async releaseSpend(agent: string, id: string, tool: string, costMicroUsd: number | undefined): Promise<void> {
    await this.query('release a budget hold', 'deleteHold', [agent, id]);
    if (costMicroUsd !== undefined) await this.query("record a tool's cost", 'putToolCost', [tool, costMicroUsd]);
  }

  async getRemembered(key: string, now: number): Promise<RememberedRecord | undefined> {
    const [row] = await this.query<RememberedRow>('read a remembered result', 'getRemembered', [key, now]);
    return row === undefined ? undefined : rememberedOf(key, row);
  }

  async putRemembered(record: RememberedRecord): Promise<void> {
    // Under the key's lock: a claimer never sees the claim gone before the result is there.
    await this.locked('remember a result', `remember:${record.key}`, async (run) => {
      await run('putRemembered', [record.key, record.digest, answerJson(record.answer), record.expiresAt]);
      await run('deleteClaim', [record.key]);
    });
  }

  async pruneRemembered(now: number): Promise<number> {
    await this.count('prune remembered keys', 'pruneClaims', [now]);
    return this.count('prune remembered results', 'pruneRemembered', [now]);
  }

  async getSpend(agent: string): Promise<number> {
    const rows = await this.query<{ micro_usd: string }>('read spend', 'getSpend', [agent]);
    return Number(rows[0]?.micro_usd ?? 0);
  }

  async getLabels(run: string): Promise<readonly string[]> {
    const rows = await this.query<{ label: string }>('read labels', 'getLabels', [run]);
    return rows.map((row) => row.label);
  }

  async getTurn(run: string): Promise<TurnRecord | undefined> {
    const rows = await this.query<TurnRow>('read a turn', 'getTurn', [run]);
    return rows[0] === undefined ? undefined : turnOf(rows[0]);
  }

  async listTurns(options: {
    readonly agent?: string;
    readonly status?: TurnStatus;
    readonly limit?: number;
  }): Promise<TurnRecord[]> {
    const filters = [options.agent, options.status].filter((value) => value !== undefined);
    const rows = await this.query<TurnRow>('list turns', turnListing(options), [...filters, options.limit ?? null]);
    return rows.map(turnOf);
  }

  async listSteps(run: string): Promise<StepRecord[]> {
    return (await this.query<StepRow>('list steps', 'listSteps', [run])).map(stepOf);
  }

  async lastFinishedTurns(agent: string, limit: number): Promise<TurnRecord[]> {
    return (await this.query<TurnRow>('read the last turns', 'lastFinishedTurns', [agent, limit]))
      .map(turnOf)
      .reverse();
  }

  async writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]> {
    return this.journal.write(writes);
  }

  async prune(options: PruneOptions): Promise<PruneReport> {
    const values = [options.before, options.limit ?? null];
    type Counts = Record<keyof PruneReport, string>;
    // A dry run deletes in a transaction it rolls back: the counts are exactly what a pass would remove.
    const [row] =
      options.dryRun === true
        ? await this.locked(
            'count what pruning would remove',
            undefined,
            (run) => run<Counts>('prune', values),
            'ROLLBACK',
          )
        : await this.query<Counts>('prune finished runs', 'prune', values);
    // count(*) is bigint, which pg returns as text.
    return Object.fromEntries(
      Object.entries(row!).map(([key, count]) => [key, Number(count)]),
    ) as unknown as PruneReport;
  }

  async listMcpServers(hub: string): Promise<McpServerRecord[]> {
    return (await this.query<McpServerRow>('list MCP servers', 'listMcpServers', [hub])).map(mcpServerOf);
  }

  async putMcpServer(record: McpServerRecord): Promise<void> {
    await this.count('write an MCP server', 'putMcpServer', [
      record.hub,
      record.name,
      mcpServerOptionsJson(record.options),
      record.updatedAt,
    ]);
  }

  async deleteMcpServer(hub: string, name: string): Promise<boolean> {
    return (await this.count('delete an MCP server', 'deleteMcpServer', [hub, name])) === 1;
  }

  async appendAudit(seal: (head: AuditHead) => readonly AuditRecord[]): Promise<readonly AuditRecord[]> {
    // Guard (audit-one-appender): appends on every node take turns, so each reads the head the last one wrote.
    return this.locked('append to the audit trail', AUDIT_LOCK, (run) => appendAuditLocked(run, seal));
  }

  async listAudit(options: AuditListOptions = {}): Promise<AuditRecord[]> {
    return (await this.query<AuditRow>('read the audit trail', 'auditList', auditListValues(options))).map(auditOf);
  }

  async pruneAudit(
    before: number,
    checkpoint: (head: AuditHead, last: AuditRecord, removed: number) => AuditRecord,
  ): Promise<number> {
    return this.locked('prune the audit trail', AUDIT_LOCK, (run) => pruneAuditLocked(run, before, checkpoint));
  }

  async close(): Promise<void> {
    // Batches handed in before closing are answered first, never dropped.
    await this.journal.drained();
    this.closed = true;
    const pool = this.pool ?? (await this.starting?.catch(() => undefined));
    this.pool = undefined;
    if (pool !== undefined && !pool.ended) await pool.end();
  }

  private ready(): Promise<Pool> {
    if (this.pool !== undefined) return Promise.resolve(this.pool);
    if (this.closed)
      return Promise.reject(
        new StoreError(
          `PostgreSQL store (schema "${this.schema}" at ${this.address}) is closed. Open a new store to use it again.`,
        ),
      );
    // A failed start is not cached: the next operation tries again (the database may be back).
    this.starting ??= connectPool(this.options, this.schema, (error) => this.storeError('start', error)).then(
      (pool) => (this.pool = pool),
      (error: unknown) => {
        this.starting = undefined;
        throw error;
      },
    );
    return this.starting;
  }

  /**
   * Runs `work` in one transaction holding an advisory lock on `name` (a remembered key, an agent), so
   * steps that read then write (a claim, a budget hold) are atomic: racing nodes take turns. Ends with
   * `end`: a ROLLBACK keeps nothing of what `work` did.
   */
  private async locked<T>(
    action: string,
    name: string | undefined,
    work: (run: RunStatement<keyof typeof STATEMENTS>) => Promise<T>,
    end: 'COMMIT' | 'ROLLBACK' = 'COMMIT',
  ): Promise<T> {
    const lock = name === undefined ? undefined : `${this.schema}:${name}`;
    return lockedTransaction(await this.ready(), lock, this.q, work, end, (error) => this.storeError(action, error));
  }

  private async query<R extends QueryResultRow>(
    action: string,
    statement: keyof typeof STATEMENTS,
    values: unknown[],
  ): Promise<R[]> {
    return (await this.execute<R>(action, statement, values)).rows;
  }

  private async count(action: string, statement: keyof typeof STATEMENTS, values: unknown[]): Promise<number> {
    return (await this.execute(action, statement, values)).rowCount ?? 0;
  }

  private async execute<R extends QueryResultRow>(
    action: string,
    statement: keyof typeof STATEMENTS,
    values: unknown[],
  ) {
    const pool = await this.ready();
    try {
      // Named: each connection parses and plans the statement once, then only binds values.
      return await pool.query<R>({ name: `wardrik_${statement}`, text: this.q[statement], values });
    } catch (error) {
      throw this.storeError(action, error);
    }
  }

  private storeError(action: string, error: unknown): StoreError {
    return postgresStoreError(
      `PostgreSQL store (schema "${this.schema}" at ${this.address})`,
      this.options.url,
      action,
      error,
    );
  }
}
