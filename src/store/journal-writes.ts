import { NO_LABELS } from '../tools/result.js';
import type { CallRecord, CallState, JournalWrite, Store, StepRecord, TurnRecord } from './store.js';

// Every single write Wardrik makes, as a batch of one through `Store.writeJournal`: a store implements
// each write once, in its journal, and these answer as the write's namesake always has.

/** Writes a call's record if its current state is `expected` (see `JournalWrite`); false if not. */
export async function writeCall(store: Store, record: CallRecord, expected: CallState | undefined): Promise<boolean> {
  return one(store, { call: record, expected });
}

/** Records a turn's step if it has none at its index yet; false if it had (a step is written once). */
export async function appendStep(store: Store, step: StepRecord): Promise<boolean> {
  return one(store, { step });
}

/** Writes a turn if its stored `version` is `expected` (`undefined`: none yet); false if not. */
export async function writeTurn(store: Store, record: TurnRecord, expected: number | undefined): Promise<boolean> {
  return one(store, { turn: record, expectedVersion: expected });
}

/**
 * Takes or renews the lease on a run for `node`, for `ttlMs` from now, on the store's clock; with
 * `whileStarted`, only while that call is still `started` (see `JournalWrite`). False when another holds it.
 */
export async function leaseRun(
  store: Store,
  run: string,
  node: string,
  ttlMs: number,
  whileStarted?: string,
): Promise<boolean> {
  return one(store, { lease: whileStarted === undefined ? { run, node, ttlMs } : { run, node, ttlMs, whileStarted } });
}

/** Gives a run's lease up, if `node` holds it. */
export async function releaseRun(store: Store, run: string, node: string): Promise<void> {
  await store.writeJournal([{ release: { run, node } }]);
}

/**
 * Adds to an agent's spend (integer micro-dollars), and in the same batch to its budget's period
 * `account` when that is another key, and returns the agent's total right after it. The write and the
 * read are one step among this process's adds for the agent (they take turns), so each add here answers a
 * total of its own; another node's spend committed meanwhile is in it too.
 */
export function addSpend(store: Store, agent: string, microUsd: number, account?: string): Promise<number> {
  return inTurn(store, `spend\u0000${agent}`, async () => {
    await store.writeJournal([
      { spend: { agent, microUsd } },
      ...(account === undefined || account === agent ? [] : [{ spend: { agent: account, microUsd } }]),
    ]);
    return store.getSpend(agent);
  });
}

/**
 * Adds labels to a run and returns those it did not have before. The read of the run's labels and the write
 * are one step among this process's adds for the run, so of concurrent adds here one says it added a label;
 * of two nodes adding one at the same moment both may (the label is stored once).
 */
export function addLabels(store: Store, run: string, labels: readonly string[]): Promise<readonly string[]> {
  if (labels.length === 0) return Promise.resolve(NO_LABELS);
  return inTurn(store, `labels\u0000${run}`, async () => {
    const known = await store.getLabels(run);
    const added = [...new Set(labels)].filter((label) => !known.includes(label));
    if (added.length === 0) return NO_LABELS;
    await store.writeJournal([{ labels: { run, labels: added } }]);
    return added;
  });
}

/** The last step under way for each key of a store (`inTurn`); a key goes once nothing waits on it. */
const turns = new WeakMap<Store, Map<string, Promise<void>>>();

/** Runs `step` once every earlier step of `key` on `store` in this process has ended. */
function inTurn<T>(store: Store, key: string, step: () => Promise<T>): Promise<T> {
  let keys = turns.get(store);
  if (keys === undefined) turns.set(store, (keys = new Map<string, Promise<void>>()));
  const before = keys.get(key);
  const result = before === undefined ? step() : before.then(step);
  const done = result.then(
    () => undefined,
    () => undefined,
  );
  keys.set(key, done);
  void done.then(() => {
    if (keys.get(key) === done) keys.delete(key);
  });
  return result;
}

async function one(store: Store, write: JournalWrite): Promise<boolean> {
  const [took] = await store.writeJournal([write]);
  return took === true;
}

/** The run a batch of journal writes is for (its first write's; a spend's agent), to tell writers apart. */
export function batchRun(writes: readonly JournalWrite[]): string | undefined {
  const write = writes[0];
  if (write === undefined) return undefined;
  if ('call' in write) return write.call.run;
  if ('step' in write) return write.step.run;
  if ('turn' in write) return write.turn.run;
  if ('lease' in write) return write.lease.run;
  if ('release' in write) return write.release.run;
  if ('labels' in write) return write.labels.run;
  return write.spend.agent;
}
