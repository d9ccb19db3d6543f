import { z } from 'zod';
import { JournalDataError } from '../errors.js';
import type { ContentPart, ToolAnswer, ToolErrorCode } from '../tools/result.js';
import type { InboxKind, InboxRecord, InboxStatus } from './store.js';

/**
 * The format of the JSON Wardrik keeps in its journal: calls' and remembered answers, inbox items,
 * runtime MCP servers' options, and agent turns' data and steps. Every stored value carries it as its
 * `format` field. A value without one was written before formats existed: format 0, whose shapes are
 * those of format 1.
 *
 * To change a stored shape: raise `JOURNAL_FORMAT` and add to `UPGRADES` the step that turns a value
 * of the format before into the new one, so that runs journaled by an older Wardrik still resume. A
 * value of a format above `JOURNAL_FORMAT` was written by a newer Wardrik: it is refused, not guessed at.
 */
export const JOURNAL_FORMAT = 1;

/** A stored value as read back, before it is checked against the shape of its format. */
type StoredObject = Readonly<Record<string, unknown>>;

/** `UPGRADES[n]` turns a value of format `n` into format `n + 1`. Format 0 → 1 added only the field. */
const UPGRADES: readonly ((value: StoredObject) => StoredObject)[] = [(value) => value];

/** The value as it is stored: with the format it is written in, as its first field. */
export function stored<T extends object>(value: T): T & { readonly format: number } {
  return { format: JOURNAL_FORMAT, ...value };
}

/**
 * Checks a stored value (`where` names it, with its run, for the error) and returns it in this
 * Wardrik's shape: upgraded from an older format, without its `format` field. Throws a
 * `JournalDataError` for a newer format or a value its format does not allow.
 */
export function readStored<T>(schema: z.ZodType<T>, value: unknown, where: string): T {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw malformed(where, 'it is not a JSON object');
  const format = (value as { format?: unknown }).format ?? 0;
  if (typeof format !== 'number' || !Number.isSafeInteger(format) || format < 0) {
    throw malformed(
      where,
      `its format field is ${typeof format === 'number' ? format : `a ${typeof format}`}, not a format number`,
    );
  }
  if (format > JOURNAL_FORMAT) throw newer(where, format);
  let current = value as StoredObject;
  for (let from = format; from < JOURNAL_FORMAT; from++) current = UPGRADES[from]!(current);
  const { format: _format, ...shape } = current;
  const parsed = schema.safeParse(shape);
  if (!parsed.success) throw malformed(where, `format ${format} ${describeIssue(parsed.error.issues[0])}`);
  return parsed.data;
}

/** `readStored` of JSON text: text that is not JSON at all is malformed too. */
export function readStoredJson<T>(schema: z.ZodType<T>, text: string, where: string): T {
  return readStored(schema, parseJson(text, where), where);
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw malformed(where, 'it is not JSON');
  }
}

/** A zod enum of every member of the string union `T`: the compiler refuses a list that leaves one out. */
function enumOf<T extends string>() {
  return <const L extends readonly [T, ...T[]]>(
    values: L & ([Exclude<T, L[number]>] extends [never] ? unknown : never),
  ) => z.enum(values);
}

const labels = z.array(z.string());

const contentPart: z.ZodType<ContentPart> = z.union([
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.enum(['image', 'audio']), data: z.string(), mimeType: z.string() }),
  z.object({
    type: z.literal('resource'),
    resource: z.union([
      z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string() }),
      z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.string() }),
    ]),
  }),
]);

/** Who may answer an approval, as a rule said (see `Answerers`). */
const answerers = z.object({
  groups: z.array(z.array(z.string())).optional(),
  separateFrom: z.literal('requester').optional(),
  quorum: z.number().optional(),
});

const inboxKind = enumOf<InboxKind>()(['approval', 'park', 'in_doubt', 'tool_change', 'question', 'authorize']);

/**
 * A value the caller or a tool gave (an answer's output, a call's arguments): any JSON, or none. It may
 * have been `undefined`, which JSON leaves out: the schemas holding one are cast to the record type,
 * whose field is required but may be `undefined`, which reads the same as absent.
 */
const given = z.unknown().optional();

/** A call a person approved with changed arguments. */
const editedCall = z.object({ original: given, arguments: given, by: z.string().optional() });

/** A call's answer, as calls and remembered results keep it. */
const TOOL_ANSWER = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('ok'),
    output: given,
    labels,
    content: z.array(contentPart).optional(),
    edited: editedCall.optional(),
  }),
  z.object({
    status: z.literal('error'),
    code: enumOf<ToolErrorCode>()([
      'invalid_arguments',
      'tool_not_found',
      'failed',
      'timeout',
      'unavailable',
      'aborted',
      'denied',
      'refused',
      'budget_spent',
      'conflict',
    ]),
    message: z.string(),
    labels,
    edited: editedCall.optional(),
  }),
  z.object({
    status: z.literal('parked'),
    kind: inboxKind,
    inboxId: z.string().optional(),
    reason: z.string(),
    labels,
    // A parked answer of SQLite schema 14 or PostgreSQL 11 kept `approval.decidedBy`: its migration moved it into the call's column.
    approval: z.object({ answerers: answerers.optional(), requester: z.string().optional() }).optional(),
  }),
]) as z.ZodType<ToolAnswer>;

const INBOX_RECORD = z.object({
  id: z.string(),
  kind: inboxKind,
  status: enumOf<InboxStatus>()(['pending', 'approved', 'denied', 'answered']),
  agent: z.string(),
  run: z.string(),
  call: z.string(),
  tool: z.string(),
  arguments: given,
  digest: z.string(),
  labels,
  reason: z.string(),
  createdAt: z.number(),
  budgetUsd: z.number().optional(),
  by: z.string().optional(),
  answeredAt: z.number().optional(),
  detail: given,
  response: given,
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  edited: z.object({ arguments: given, digest: z.string(), by: z.string().optional() }).optional(),
  scope: z.enum(['call', 'run']).optional(),
  allowIf: z.array(z.string()).optional(),
  escalatedAt: z.number().optional(),
  answerers: answerers.optional(),
  requester: z.string().optional(),
  approvals: z.array(z.object({ by: z.string(), digest: z.string(), at: z.number() })).optional(),
  revision: z.number().optional(),
  decidedBy: z.string().optional(),
}) as z.ZodType<InboxRecord>;

/**
 * A runtime MCP server's options: any object here. The hub checks them as it checks options given in
 * code (`serverDefinition`) before it starts the server, and says which stored server it skipped.
 */
const MCP_SERVER_OPTIONS: z.ZodType<StoredObject> = z.record(z.string(), z.unknown());

/** A call's answer as JSON text, for a store that keeps text. */
export function answerJson(answer: ToolAnswer): string {
  return JSON.stringify(stored(answer));
}

/** A call's answer from its stored text; `where` names the call and its run, or the remembered key. */
export function answerOf(text: string, where: string): ToolAnswer {
  return readStoredJson(TOOL_ANSWER, text, where);
}

export function inboxJson(item: InboxRecord): string {
  return JSON.stringify(stored(item));
}

/** An inbox item from its stored text, named by its id and run in an error. */
export function inboxOf(text: string): InboxRecord {
  const value = parseJson(text, 'an inbox item');
  const { id, run } = (value ?? {}) as { id?: unknown; run?: unknown };
  const where =
    typeof id === 'string' && typeof run === 'string' ? `inbox item "${id}" of run "${run}"` : 'an inbox item';
  return readStored(INBOX_RECORD, value, where);
}

export function mcpServerOptionsJson(options: unknown): string | null {
  return options === undefined
    ? null
    : JSON.stringify(
        typeof options === 'object' && options !== null && !Array.isArray(options) ? stored(options) : options,
      );
}

export function mcpServerOptionsOf(text: string | null, hub: string, name: string): unknown {
  return text === null
    ? undefined
    : readStoredJson(MCP_SERVER_OPTIONS, text, `the options of MCP server "${name}" of hub "${hub}"`);
}

// What the errors say. The run (or item, or key) is named; the value itself never is: it may hold
// what a person or a tool wrote.

function newer(where: string, format: number): JournalDataError {
  return new JournalDataError(
    'journal_newer',
    `Cannot read ${where}: it was written in journal format ${format} by a newer Wardrik; this one reads formats up to ${JOURNAL_FORMAT}. ` +
      'Fix: upgrade Wardrik on this node to the version that wrote the journal. This Wardrik takes the run no further.',
  );
}

function malformed(where: string, cause: string): JournalDataError {
  return new JournalDataError(
    'journal_malformed',
    `Cannot read ${where}: ${cause}. ` +
      'Fix: if a newer Wardrik wrote this journal, upgrade Wardrik on this node to that version; otherwise the row was changed outside Wardrik: restore it from a backup. This Wardrik takes the run no further.',
  );
}

function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (issue === undefined) return 'does not allow it';
  const path = issue.path
    .map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
    .join('')
    .replace(/^\./, '');
  return `does not allow its ${path === '' ? 'shape' : `field ${path.slice(0, 200)}`}: ${issue.message.slice(0, 200)}`;
}
