import { toMicroUsd, toUsd } from '../money.js';
import { answerJson, answerOf, mcpServerOptionsOf } from './journal-data.js';
import type {
  CallRecord,
  CallState,
  McpServerRecord,
  RememberedRecord,
  RunSummary,
  StepRecord,
  TurnRecord,
  TurnStatus,
} from './store.js';

/** A value bound to a statement's parameter. */
export type SqlValue = string | number | null;

/**
 * How the SQL stores lay out a call. JSON values are kept as text: SQL NULL stands for `undefined`
 * and the text `null` for `null`, so both come back as they went in (a call's arguments may be either).
 * Wardrik's own values (answers, inbox items, MCP server options) carry their journal format and are
 * checked when read (journal-data.ts); a call's arguments are the caller's, kept as given.
 */
export interface CallRow {
  run: string;
  call: string;
  agent: string;
  tool: string;
  arguments: string | null;
  idempotency_key: string;
  state: CallState;
  attempt: number;
  answer: string | null;
  inbox_id: string | null;
  updated_at: number;
  /** Micro-dollars (migration 4; dollars in migration 3); NULL when the call reported no cost. PostgreSQL's bigint comes as text. */
  cost_micro_usd: number | string | null;
  /** `CallRecord.decidedBy` (SQLite migration 15, PostgreSQL 12); NULL when unknown. */
  decided_by: string | null;
}

/** A record's columns in `CallRow` order (run, call, agent, tool, arguments … updated_at, cost_micro_usd, decided_by), for positional binding. */
export function callValues(record: CallRecord): SqlValue[] {
  return [
    record.run,
    record.call,
    record.agent,
    record.tool,
    encodeJson(record.arguments),
    record.idempotencyKey,
    record.state,
    record.attempt,
    record.answer === undefined ? null : answerJson(record.answer),
    record.inboxId ?? null,
    record.updatedAt,
    record.costUsd === undefined ? null : toMicroUsd(record.costUsd),
    record.decidedBy ?? null,
  ];
}

/** The record a row holds; optional fields that were not set stay absent, as in `MemoryStore`. */
export function callOf(row: CallRow): CallRecord {
  return {
    run: row.run,
    call: row.call,
    agent: row.agent,
    tool: row.tool,
    arguments: decodeJson(row.arguments),
    idempotencyKey: row.idempotency_key,
    state: row.state,
    attempt: row.attempt,
    ...(row.answer === null
      ? {}
      : { answer: answerOf(row.answer, `the answer of call "${row.call}" of run "${row.run}"`) }),
    ...(row.inbox_id === null ? {} : { inboxId: row.inbox_id }),
    ...(row.cost_micro_usd === null || row.cost_micro_usd === undefined
      ? {}
      : { costUsd: toUsd(Number(row.cost_micro_usd)) }),
    ...(row.decided_by === null || row.decided_by === undefined ? {} : { decidedBy: row.decided_by }),
    updatedAt: row.updated_at,
  };
}

export function encodeJson(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export function decodeJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}

/** How the SQL stores return a remembered result; `answer` is JSON text. */
export interface RememberedRow {
  digest: string;
  answer: string;
  expires_at: number;
}

export function rememberedOf(key: string, row: RememberedRow): RememberedRecord {
  return {
    key,
    digest: row.digest,
    answer: answerOf(row.answer, `the result remembered under key "${key}"`),
    expiresAt: row.expires_at,
  };
}

/** How the SQL stores lay out a turn; `data` is JSON text (NULL for `undefined`). */
export interface TurnRow {
  run: string;
  agent: string;
  status: TurnStatus;
  version: number;
  data: string | null;
  created_at: number;
  updated_at: number;
}

/** A turn's columns in `TurnRow` order (run, agent, status, version, data, created_at, updated_at). */
export function turnValues(record: TurnRecord): SqlValue[] {
  return [
    record.run,
    record.agent,
    record.status,
    record.version,
    encodeJson(record.data),
    record.createdAt,
    record.updatedAt,
  ];
}

export function turnOf(row: TurnRow): TurnRecord {
  return {
    run: row.run,
    agent: row.agent,
    status: row.status,
    version: row.version,
    data: decodeJson(row.data),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface StepRow {
  run: string;
  idx: number;
  data: string | null;
  created_at: number;
}

export function stepOf(row: StepRow): StepRecord {
  return { run: row.run, index: row.idx, data: decodeJson(row.data), createdAt: row.created_at };
}

export interface McpServerRow {
  hub: string;
  name: string;
  options: string | null;
  updated_at: number;
}

export function mcpServerOf(row: McpServerRow): McpServerRecord {
  return {
    hub: row.hub,
    name: row.name,
    options: mcpServerOptionsOf(row.options, row.hub, row.name),
    updatedAt: row.updated_at,
  };
}

/** Which `listTurns` statement answers `options`: one per filter combination, so each can use its index. */
export function turnListing(options: {
  readonly agent?: string;
  readonly status?: TurnStatus;
}): 'listTurns' | 'listTurnsByAgent' | 'listTurnsByStatus' | 'listTurnsByAgentStatus' {
  if (options.agent === undefined) return options.status === undefined ? 'listTurns' : 'listTurnsByStatus';
  return options.status === undefined ? 'listTurnsByAgent' : 'listTurnsByAgentStatus';
}

/** How the SQL stores return a run summary (`listRuns`). */
export interface RunSummaryRow {
  run: string;
  agent: string;
  status: TurnStatus | null;
  calls: number | string;
  parked: number | string;
  cost_micro_usd: number | string | null;
  first_at: number;
  last_at: number;
}

export function runSummaryOf(row: RunSummaryRow): RunSummary {
  return {
    run: row.run,
    agent: row.agent,
    ...(row.status === null ? {} : { status: row.status }),
    // PostgreSQL's count and sum of integers are bigint, which pg returns as text.
    calls: Number(row.calls),
    parked: Number(row.parked),
    costUsd: toUsd(Number(row.cost_micro_usd ?? 0)),
    firstAt: row.first_at,
    lastAt: row.last_at,
  };
}

/**
 * A store whose schema this Wardrik cannot use as it is. Its `code` carries the fix each store's
 * error names (`SCHEMA_FIXES`): the cause is the same for SQLite and PostgreSQL.
 */
export function schemaVersionError(version: number, known: number): Error {
  const newer = version > known;
  const error = new Error(
    `its schema is version ${version}, ${newer ? 'newer than this Wardrik knows' : 'older than this Wardrik needs'} (${known})`,
  );
  return Object.assign(error, { code: newer ? 'WARDRIK_SCHEMA_NEWER' : 'WARDRIK_SCHEMA_OLDER' });
}

export const SCHEMA_FIXES: Readonly<Record<string, string>> = {
  WARDRIK_SCHEMA_NEWER: 'a newer Wardrik wrote this store; upgrade Wardrik on this node to that version',
  WARDRIK_SCHEMA_OLDER: 'open it once without the readonly option, so that Wardrik migrates it',
};
