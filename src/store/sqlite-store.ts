import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { type Clock, systemClock } from '../clock.js';
import { ConfigurationError } from '../errors.js';
import { inboxJson, inboxOf, mcpServerOptionsJson } from './journal-data.js';
import {
  type CallRow,
  callOf,
  callValues,
  type McpServerRow,
  mcpServerOf,
  rememberedOf,
  type RememberedRow,
  runSummaryOf,
  type RunSummaryRow,
  type SqlValue,
  type StepRow,
  stepOf,
  turnListing,
  turnOf,
  type TurnRow,
  turnValues,
} from './sql-rows.js';
import { type BatchOutcome, GroupCommit } from './group-commit.js';
import type { SqliteDatabase } from './sqlite-connection.js';
import { defaultSqliteDriver, openSqliteDatabase } from './sqlite-driver.js';
import { SqliteCheckpoints } from './sqlite-checkpoints.js';
import { sqliteJournalCommit } from './sqlite-journal.js';
import { batchRun } from './journal-writes.js';
import { checkVersion, currentVersion, migrate } from './sqlite-migrations.js';
import { storeError } from './sqlite-errors.js';
import { sqlitePruner } from './sqlite-retention.js';
import { appendStepRow } from './sqlite-steps.js';
import { sqliteClaims, type SqliteClaims } from './sqlite-claims.js';
import { sqliteAudit, type SqliteAudit } from './sqlite-audit.js';
import type { AuditHead, AuditListOptions, AuditRecord } from './audit-log.js';
import { prepare, type SqliteStatements } from './sqlite-statements.js';
import type {
  CallListOptions,
  CallRecord,
  CallState,
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
  SyncJournal,
  TurnRecord,
  TurnStatus,
} from './store.js';

export interface SqliteStoreOptions {
  /** The database file; its directory is created when missing. `:memory:` keeps nothing. */
  readonly path: string;
  /**
   * `normal` (the default): in WAL mode a commit survives a crash of this process but the last
   * commits may be lost if the machine loses power. `full` syncs every commit to disk, for about
   * twice the cost of a write.
   */
  readonly synchronous?: 'normal' | 'full';
  /**
   * Opens the file read-only, for inspecting a journal (`listRuns`, `listCalls`, the inbox): a Wardrik on
   * it runs no recovery, a call fails at once saying the store is read-only, and any write fails with a
   * `StoreError`.
   */
  readonly readonly?: boolean;
  /** How long a write waits for another process holding the write lock: 5 s. */
  readonly busyTimeoutMs?: number;
  /** Where run leases read the time: the host's clock unless given, whatever the nodes' own (see docs/durable-runs.md). */
  readonly clock?: Clock;
  /**
   * The library that talks to SQLite: `node`, Node's built-in `node:sqlite` (the default; Node 22.16 or
   * later), or `better-sqlite3`, the package (an optional dependency, with a native module built for this
   * Node). Both read and write the same files.
   */
  readonly driver?: 'node' | 'better-sqlite3';
}

/**
 * The page size of a new file. A commit appends every page it changed to the log, whole, and the journal's
 * rows are small, so a commit's cost follows its pages' bytes more than their number: with 2 KiB pages a
 * journal commit writes about 5.5 pages (11 KiB) against 5.1 of 4 KiB (20 KiB) (schema 8's steps: 6.5 and
 * 5.5), and costs about a tenth less CPU (bench/store.bench.ts). 1 KiB pages write about 10 pages a commit and measured no cheaper than 4 KiB.
 */
const PAGE_BYTES = 2048;

/**
 * The embedded default store: one SQLite file in WAL mode, so readers never wait for the writer and
 * a commit is one append to the log. better-sqlite3 is synchronous, so every method runs to the end
 * without yielding: a compare-and-set cannot interleave with another in this process, and across
 * processes SQLite's write lock serialises them.
 */
export class SqliteStore implements FullStore {
  /** The file, as given to SQLite (absolute). */
  readonly path: string;
  /** The connection's `PRAGMA synchronous`, as SQLite reports it. */
  readonly synchronous: 'normal' | 'full';
  /** Opened with `readonly: true`, for inspecting a journal. */
  readonly readOnly: boolean;
  /** The library the store talks to SQLite through. */
  readonly driver: 'node' | 'better-sqlite3';
  private readonly db: SqliteDatabase;
  private readonly sql: SqliteStatements;
  /** Claims on remembered keys and budget holds: each reads, then writes, holding the write lock. */
  private readonly claims: SqliteClaims;
  private readonly audit: SqliteAudit;
  /** Batches of different runs ready in the same tick share one transaction. */
  private readonly groups: GroupCommit<JournalWrite, boolean>;
  private readonly pruneTx: (options: PruneOptions) => PruneReport;
  private readonly checkpoints: SqliteCheckpoints;
  /** Commits batches of journal writes at once, in one transaction. */
  private readonly commitNow: (batches: readonly (readonly JournalWrite[])[]) => BatchOutcome<boolean>[];
  private readonly clock: Clock;

  constructor(options: SqliteStoreOptions) {
    this.path = options.path === ':memory:' ? options.path : resolve(options.path);
    const readonly = options.readonly === true;
    this.readOnly = readonly;
    this.clock = options.clock ?? systemClock;
    try {
      if (this.path !== ':memory:' && !readonly) mkdirSync(dirname(this.path), { recursive: true });
      this.driver = options.driver ?? defaultSqliteDriver();
      this.db = openSqliteDatabase(this.path, { readonly, timeoutMs: options.busyTimeoutMs ?? 5_000 }, this.driver);
    } catch (error) {
      if (error instanceof ConfigurationError) throw error;
      throw storeError(this.path, 'open', error);
    }
    try {
      this.db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
      // Read back, not echoed: what the connection really does (2 is FULL, 1 NORMAL).
      this.synchronous = Number(this.db.pragma('synchronous')) === 2 ? 'full' : 'normal';
      if (!readonly) {
        // Takes effect only on a new file (before its first write); an existing one keeps its pages.
        this.db.pragma(`page_size = ${PAGE_BYTES}`);
        this.db.pragma('journal_mode = WAL');
        migrate(this.db);
      } else {
        checkVersion(this.db, currentVersion(this.db));
      }
      this.sql = prepare(this.db);
      this.claims = sqliteClaims(this.db, this.sql);
      this.audit = sqliteAudit(this.db);
      const commit = sqliteJournalCommit(
        this.db,
        this.sql,
        (write) =>
          'call' in write
            ? this.writeCallRow(write.call, write.expected)
            : 'step' in write
              ? appendStepRow(this.sql, write.step)
              : this.otherRow(write),
        (error) => storeError(this.path, 'write to the journal', error),
      );
      this.commitNow = commit;
      this.checkpoints = new SqliteCheckpoints(this.db, this.path, this.synchronous);
      this.groups = new GroupCommit(
        (batches) =>
          this.run('write to the journal', () => {
            const outcomes = commit(batches);
            this.checkpoints.committed();
            return outcomes;
          }),
        1,
        batchRun,
      );
      this.pruneTx = sqlitePruner(this.db);
    } catch (error) {
      this.db.close();
      throw storeError(this.path, 'open', error);
    }
  }

  async getCall(run: string, call: string): Promise<CallRecord | undefined> {
    return this.run('read a call', () => {
      const row = this.sql.getCall.get(run, call) as CallRow | undefined;
      return row === undefined ? undefined : callOf(row);
    });
  }

  /**
   * No `writeJournal` here on purpose: a batch committed at once could not share its commit with the
   * other runs' batches of the same tick (group commit), so callers go through `writeJournal`.
   */
  readonly sync: SyncJournal = {
    writeCall: (record, expected) =>
      this.run('write a call', () => {
        // Through the journal's commit, which keeps the count of the run's started calls with it.
        const written = this.commitNow([[{ call: record, expected }]])[0]!;
        this.checkpoints.committed();
        return 'results' in written && written.results[0]!;
      }),
    getLabels: (run) =>
      this.run('read labels', () => (this.sql.getLabels.all(run) as { label: string }[]).map((row) => row.label)),
  };

  async writeJournal(writes: readonly JournalWrite[]): Promise<boolean[]> {
    return this.groups.add(writes);
  }

  async listCalls(options: CallListOptions): Promise<CallRecord[]> {
    return this.run('list calls', () => {
      const limit = options.limit ?? -1;
      const rows =
        options.run === undefined
          ? (options.state === 'started' || options.state === 'parked'
              ? this.sql.listWaitingCalls
              : this.sql.listCalls
            ).all(options.state ?? null, limit)
          : options.state === undefined
            ? this.sql.listRunCalls.all(options.run, limit)
            : this.sql.listRunCallsInState.all(options.run, options.state, limit);
      return (rows as CallRow[]).map(callOf);
    });
  }

  async listRuns(options: { readonly agent?: string; readonly limit?: number } = {}): Promise<RunSummary[]> {
    return this.run('list runs', () => {
      const agent = options.agent ?? null;
      return (this.sql.listRuns.all(agent, agent, agent, agent, options.limit ?? -1) as RunSummaryRow[]).map(
        runSummaryOf,
      );
    });
  }

  async getInboxItem(id: string): Promise<InboxRecord | undefined> {
    return this.run('read an inbox item', () => {
      const row = this.sql.getInbox.get(id) as { item: string } | undefined;
      return row === undefined ? undefined : inboxOf(row.item);
    });
  }

  async listInbox(options: { readonly all?: boolean } = {}): Promise<InboxRecord[]> {
    return this.run('list the inbox', () => {
      const rows = (options.all === true ? this.sql.listInboxAll.all() : this.sql.listInboxPending.all()) as {
        item: string;
      }[];
      return rows.map((row) => inboxOf(row.item));
    });
  }

  async putInboxItem(item: InboxRecord): Promise<void> {
    this.run('write an inbox item', () => {
      this.sql.putInbox.run(item.id, item.status, item.createdAt, inboxJson(item));
    });
  }

  async updateInboxItem(item: InboxRecord, expected: InboxStatus, expectedRevision?: number): Promise<boolean> {
    return this.run('update an inbox item', () =>
      expectedRevision === undefined
        ? this.sql.updateInbox.run(item.status, item.createdAt, inboxJson(item), item.id, expected).changes === 1
        : this.sql.updateInboxRevision.run(
            item.status,
            item.createdAt,
            inboxJson(item),
            item.id,
            expected,
            expectedRevision,
          ).changes === 1,
    );
  }

  async getRemembered(key: string, now: number): Promise<RememberedRecord | undefined> {
    return this.run('read a remembered result', () => {
      const row = this.sql.getRemembered.get(key, now) as RememberedRow | undefined;
      return row === undefined ? undefined : rememberedOf(key, row);
    });
  }

  async putRemembered(record: RememberedRecord): Promise<void> {
    this.run('remember a result', () => this.claims.putRemembered(record));
  }

  async claimRemembered(claim: RememberedClaim, now: number): Promise<ClaimOutcome> {
    return this.run('claim a remembered key', () => this.claims.claim(claim, now));
  }

  async releaseRemembered(key: string, owner: string): Promise<void> {
    this.run('release a remembered key', () => {
      this.sql.releaseClaim.run(key, owner);
    });
  }

  async pruneRemembered(now: number): Promise<number> {
    return this.run('prune remembered results', () => {
      this.sql.pruneClaims.run(now);
      return this.sql.pruneRemembered.run(now).changes;
    });
  }

  async getSpend(agent: string): Promise<number> {
    return this.run(
      'read spend',
      () => (this.sql.getSpend.get(agent) as { micro_usd: number } | undefined)?.micro_usd ?? 0,
    );
  }

  async holdSpend(hold: SpendHold, now: number): Promise<HoldOutcome> {
    return this.run('hold part of a budget', () => this.claims.hold(hold, now));
  }

  async releaseSpend(agent: string, id: string, tool: string, costMicroUsd: number | undefined): Promise<void> {
    this.run('release a budget hold', () => this.claims.releaseHold(agent, id, tool, costMicroUsd));
  }

  async getLabels(run: string): Promise<readonly string[]> {
    return this.sync.getLabels(run);
  }

  async getTurn(run: string): Promise<TurnRecord | undefined> {
    return this.run('read a turn', () => {
      const row = this.sql.getTurn.get(run) as TurnRow | undefined;
      return row === undefined ? undefined : turnOf(row);
    });
  }

  async listTurns(options: {
    readonly agent?: string;
    readonly status?: TurnStatus;
    readonly limit?: number;
  }): Promise<TurnRecord[]> {
    return this.run('list turns', () => {
      const filters = [options.agent, options.status].filter((value) => value !== undefined);
      return (this.sql[turnListing(options)].all(...filters, options.limit ?? -1) as TurnRow[]).map(turnOf);
    });
  }

  async listSteps(run: string): Promise<StepRecord[]> {
    return this.run('list steps', () => (this.sql.listSteps.all(run) as StepRow[]).map(stepOf));
  }

  async lastFinishedTurns(agent: string, limit: number): Promise<TurnRecord[]> {
    return this.run('read the last turns', () =>
      (this.sql.lastFinishedTurns.all(agent, limit) as TurnRow[]).map(turnOf).reverse(),
    );
  }

  async prune(options: PruneOptions): Promise<PruneReport> {
    return this.run('prune finished runs', () => this.pruneTx(options));
  }

  async listMcpServers(hub: string): Promise<McpServerRecord[]> {
    return this.run('list MCP servers', () => (this.sql.listMcpServers.all(hub) as McpServerRow[]).map(mcpServerOf));
  }

  async putMcpServer(record: McpServerRecord): Promise<void> {
    this.run('write an MCP server', () => {
      this.sql.putMcpServer.run(record.hub, record.name, mcpServerOptionsJson(record.options), record.updatedAt);
    });
  }

  async deleteMcpServer(hub: string, name: string): Promise<boolean> {
    return this.run('delete an MCP server', () => this.sql.deleteMcpServer.run(hub, name).changes === 1);
  }

  async appendAudit(seal: (head: AuditHead) => readonly AuditRecord[]): Promise<readonly AuditRecord[]> {
    return this.run('append to the audit trail', () => this.audit.append(seal));
  }

  async listAudit(options: AuditListOptions = {}): Promise<AuditRecord[]> {
    return this.run('read the audit trail', () => this.audit.list(options));
  }

  async pruneAudit(
    before: number,
    checkpoint: (head: AuditHead, last: AuditRecord, removed: number) => AuditRecord,
  ): Promise<number> {
    return this.run('prune the audit trail', () => this.audit.prune(before, checkpoint));
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    // Batches handed in this turn are committed (or refused) before the file closes, never dropped.
    this.groups.flush();
    await this.checkpoints.stop();
    if (this.db.open) this.db.close();
  }

  private writeCallRow(record: CallRecord, expected: CallState | undefined): boolean {
    // Positional values: bound faster than named ones, and this is the hot path.
    const values = callValues(record);
    if (expected === undefined) return this.sql.insertCall.run(...values).changes === 1;
    const [run, call, ...rest] = values as [SqlValue, SqlValue, ...SqlValue[]];
    return this.sql.updateCall.run(...rest, run, call, expected, record.state, record.attempt).changes === 1;
  }

  private writeTurnRow(record: TurnRecord, expected: number | undefined): boolean {
    const values = turnValues(record);
    if (expected === undefined) return this.sql.insertTurn.run(...values).changes === 1;
    const [run, agent, status, version, data, createdAt, updatedAt] = values as [
      SqlValue,
      SqlValue,
      SqlValue,
      SqlValue,
      SqlValue,
      SqlValue,
      SqlValue,
    ];
    return (
      this.sql.updateTurn.run(status, version, data, updatedAt, run, expected, agent, createdAt).changes === 1 ||
      this.sql.updateTurnWhole.run(agent, status, version, data, createdAt, updatedAt, run, expected).changes === 1
    );
  }

  /** The host's clock (or the `clock` option), read in the write's transaction. */
  private leaseRunRow(run: string, node: string, ttlMs: number, whileStarted: string | undefined): boolean {
    const now = this.clock.now();
    if (whileStarted === undefined) return this.sql.leaseRun.run(run, node, now + ttlMs, now).changes === 1;
    return this.sql.leaseRunWhileStarted.run(run, node, now + ttlMs, run, whileStarted, now).changes === 1;
  }

  /** A batch's write other than a call's or a step's, in the batch's transaction. */
  private otherRow(write: Exclude<JournalWrite, { call: unknown } | { step: unknown }>): boolean {
    if ('turn' in write) return this.writeTurnRow(write.turn, write.expectedVersion);
    if ('lease' in write) {
      const { run, node, ttlMs, whileStarted } = write.lease;
      return this.leaseRunRow(run, node, ttlMs, whileStarted);
    }
    if ('spend' in write) this.sql.addSpend.get(write.spend.agent, write.spend.microUsd);
    else if ('labels' in write) {
      const { run, labels } = write.labels;
      for (const label of labels) this.sql.addLabel.run(run, label, run);
    } else this.sql.releaseRun.run(write.release.run, write.release.node);
    return true;
  }

  private run<T>(action: string, work: () => T): T {
    try {
      return work();
    } catch (error) {
      throw storeError(this.path, action, error);
    }
  }
}
