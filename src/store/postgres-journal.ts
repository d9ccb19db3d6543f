import { type BatchOutcome, GroupCommit } from './group-commit.js';
import { callValues, encodeJson, turnValues } from './sql-rows.js';
import type { JournalWrite } from './store.js';

/** What the journal statement answers: each write that took, by kind, run and call id or step index (empty for a turn or lease). */
export interface TookRow {
  readonly kind: Kind;
  readonly run: string;
  readonly key: string;
}

/**
 * `Store.writeJournal` on PostgreSQL. The batches handed in during one turn of the event loop go to the
 * server as one statement (the store's `writeJournal`, one round trip and one transaction), so many runs
 * writing at once share round trips and commits. At most `maxInFlight` such statements run at once;
 * batches handed in meanwhile wait for the next. A single write (`writeCall`, a lease) is a batch of one,
 * through the same statement: each write has one encoding.
 *
 * What each caller sees is what its batch alone would have got. A statement answers which rows took (a
 * call, a step, a turn, a run's lease), not which writes, so no statement names a row twice:
 * - batches of one tick that write the same row go in statements one after the other, in the order they
 *   were handed in (a batch handed in while another statement is in flight may run beside it, as two
 *   writes on two connections always could: neither had been answered);
 * - a batch that writes one row twice (two first writes of a call, a first write and its answer, a
 *   lease given up and taken again) is sent as statements one after the other, in one transaction of
 *   its own.
 * - A statement the server refuses (a value that breaks a constraint) kept nothing: each of its batches
 *   is then sent alone, so only the batch at fault fails. A batch whose values cannot be encoded fails
 *   before anything is sent. Any other failure (the connection) fails every batch of the statement.
 */
export class PostgresJournal {
  private readonly groups: GroupCommit<JournalWrite, boolean>;

  constructor(
    /** Sends `writeJournal`'s 36 arrays; answers the rows that took. */
    private readonly send: (columns: unknown[][]) => Promise<readonly TookRow[]>,
    /** Sends the statements one after the other in one transaction; answers each one's rows. */
    private readonly sendInOrder: (statements: readonly unknown[][][]) => Promise<readonly (readonly TookRow[])[]>,
    private readonly failure: (error: unknown) => Error,
    maxInFlight: number,
  ) {
    this.groups = new GroupCommit((batches) => this.commit(batches), maxInFlight, undefined, 'postgres');
  }

  write(writes: readonly JournalWrite[]): Promise<boolean[]> {
    return this.groups.add(writes);
  }

  /** Resolves once every batch handed in has been answered. */
  drained(): Promise<void> {
    return this.groups.drained();
  }

  private async commit(batches: readonly (readonly JournalWrite[])[]): Promise<BatchOutcome<boolean>[]> {
    const outcomes = new Array<BatchOutcome<boolean>>(batches.length);
    let statement: Encoded[] = [];
    let keys = new Set<string>();
    const sendStatement = async () => {
      if (statement.length > 0) await this.sendTogether(statement, outcomes);
      statement = [];
      keys = new Set();
    };
    for (const [index, writes] of batches.entries()) {
      let encoded: Encoded;
      try {
        encoded = encode(index, writes);
      } catch (error) {
        outcomes[index] = { error: this.failure(error) };
        continue;
      }
      if (encoded.parts !== undefined) {
        await sendStatement();
        await this.sendParts(encoded, encoded.parts, outcomes);
        continue;
      }
      if (encoded.keys.some((key) => key !== undefined && keys.has(key))) await sendStatement();
      statement.push(encoded);
      for (const key of encoded.keys) if (key !== undefined) keys.add(key);
    }
    await sendStatement();
    return outcomes;
  }

  /** A batch that writes a row twice: its parts (each naming a row once) in order, in one transaction. */
  private async sendParts(batch: Encoded, parts: readonly Encoded[], outcomes: BatchOutcome<boolean>[]): Promise<void> {
    try {
      const took = await this.sendInOrder(parts.map((part) => columnsOf([part])));
      outcomes[batch.index] = { results: parts.flatMap((part, i) => answerOf(part, took[i]!)) };
    } catch (error) {
      outcomes[batch.index] = { error: this.failure(error) };
    }
  }

  private async sendTogether(statement: readonly Encoded[], outcomes: BatchOutcome<boolean>[]): Promise<void> {
    try {
      const took = await this.send(columnsOf(statement));
      answer(statement, new Set(took.map((row) => keyOf(row.kind, row.run, row.key))), outcomes);
    } catch (error) {
      if (statement.length === 1 || !refusedByServer(error)) {
        for (const batch of statement) outcomes[batch.index] = { error: this.failure(error) };
        return;
      }
      for (const batch of statement) await this.sendTogether([batch], outcomes);
    }
  }
}

/** The statement's parameters, one array each: a call's 13 columns in `callValues` order and its expected state, a step's 4, a spend's 2, a label's 2, a turn's 7 in `turnValues` order and its expected version, a lease's 4 (with the call it is taken for, or null), a release's 2. */
const COLUMNS = 36;
const CALL = 0;
const STEP = 14;
const SPEND = 18;
const LABEL = 20;
const TURN = 22;
const LEASE = 30;
const RELEASE = 34;

/** The rows a journal statement writes, by table. */
type Kind = 'call' | 'step' | 'turn' | 'lease';

/** One batch's values, each row with the first of its parameters in the journal statement, and the row each of its writes names. */
interface Encoded {
  readonly index: number;
  readonly rows: readonly (readonly [first: number, values: readonly unknown[]])[];
  /** The row each write names (`undefined`: spend or labels, which name no row one statement could write twice). */
  readonly keys: (string | undefined)[];
  /** Whether each write is answered by its row taking; the others (spend, labels, a release) are always true. */
  readonly answered: boolean[];
  /** When the batch writes a row more than once: its writes cut into runs that each name a row once. */
  readonly parts?: readonly Encoded[];
}

function encode(index: number, writes: readonly JournalWrite[]): Encoded {
  const whole = encodePart(index, writes);
  const named = whole.keys.filter((key) => key !== undefined);
  if (new Set(named).size === named.length) return whole;
  const parts: Encoded[] = [];
  let from = 0;
  let seen = new Set<string>();
  whole.keys.forEach((key, i) => {
    if (key === undefined) return;
    if (!seen.has(key)) return void seen.add(key);
    parts.push(encodePart(index, writes.slice(from, i)));
    from = i;
    seen = new Set([key]);
  });
  parts.push(encodePart(index, writes.slice(from)));
  return { ...whole, parts };
}

function encodePart(index: number, writes: readonly JournalWrite[]): Encoded {
  const rows: [number, readonly unknown[]][] = [];
  const push = (first: number, values: readonly unknown[]) => void rows.push([first, values]);
  const keys: (string | undefined)[] = [];
  const answered: boolean[] = [];
  for (const write of writes) {
    if ('call' in write) {
      push(CALL, [...callValues(write.call), write.expected ?? null]);
      keys.push(keyOf('call', write.call.run, write.call.call));
    } else if ('step' in write) {
      const { run, index: step, data, createdAt } = write.step;
      push(STEP, [run, step, encodeJson(data), createdAt]);
      keys.push(keyOf('step', run, String(step)));
    } else if ('spend' in write) {
      push(SPEND, [write.spend.agent, write.spend.microUsd]);
      keys.push(undefined);
    } else if ('labels' in write) {
      for (const label of write.labels.labels) push(LABEL, [write.labels.run, label]);
      keys.push(undefined);
    } else if ('turn' in write) {
      push(TURN, [...turnValues(write.turn), write.expectedVersion ?? null]);
      keys.push(keyOf('turn', write.turn.run, ''));
    } else if ('lease' in write) {
      // Its length, not its end: the server reads the time (migration 9).
      const { run, node, ttlMs, whileStarted } = write.lease;
      push(LEASE, [run, node, ttlMs, whileStarted ?? null]);
      keys.push(keyOf('lease', run, ''));
    } else {
      push(RELEASE, [write.release.run, write.release.node]);
      keys.push(keyOf('lease', write.release.run, ''));
    }
    answered.push(!('spend' in write || 'labels' in write || 'release' in write));
  }
  return { index, rows, keys, answered };
}

/** The journal statement's 36 arrays for the batches' rows, in order. */
function columnsOf(batches: readonly Encoded[]): unknown[][] {
  const columns: unknown[][] = Array.from({ length: COLUMNS }, () => []);
  for (const batch of batches)
    for (const [first, values] of batch.rows) values.forEach((value, i) => columns[first + i]!.push(value));
  return columns;
}

function answer(statement: readonly Encoded[], took: ReadonlySet<string>, outcomes: BatchOutcome<boolean>[]): void {
  for (const batch of statement) outcomes[batch.index] = { results: resultsOf(batch, took) };
}

function answerOf(part: Encoded, rows: readonly TookRow[]): boolean[] {
  return resultsOf(part, new Set(rows.map((row) => keyOf(row.kind, row.run, row.key))));
}

function resultsOf(batch: Encoded, took: ReadonlySet<string>): boolean[] {
  return batch.keys.map((key, i) => !batch.answered[i] || took.has(key!));
}

function keyOf(kind: Kind, run: string, key: string): string {
  return JSON.stringify([kind, run, key]);
}

/**
 * The server answered the statement with an error (it has a SQLSTATE and a severity): the statement,
 * its own transaction, kept nothing. A lost connection is not this: the statement may have committed.
 */
function refusedByServer(error: unknown): boolean {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}
