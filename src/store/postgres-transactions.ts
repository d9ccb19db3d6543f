import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { TookRow } from './postgres-journal.js';

// The PostgreSQL store's statements that run together on one connection, in one transaction.

/** The first key of the advisory locks that make a claim on a remembered key, or a budget hold, one step. */
const STEP_LOCK = 0x5741_5245;

/** Runs one of the store's named statements in the transaction; answers its rows. */
export type RunStatement<Name extends string> = <R extends QueryResultRow>(
  statement: Name,
  values: unknown[],
) => Promise<R[]>;

/**
 * Runs `work` in one transaction holding the advisory lock `lock` (none when undefined), so steps that read
 * then write are atomic: racing nodes take turns. Ends with `end`: a ROLLBACK keeps nothing of what `work`
 * did. Any failure is rolled back and thrown through `failure`.
 */
export async function lockedTransaction<Name extends string, T>(
  pool: Pool,
  lock: string | undefined,
  texts: Readonly<Record<Name, string>>,
  work: (run: RunStatement<Name>) => Promise<T>,
  end: 'COMMIT' | 'ROLLBACK',
  failure: (error: unknown) => Error,
): Promise<T> {
  let client: PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw failure(error);
  }
  try {
    await client.query('BEGIN');
    if (lock !== undefined) await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [STEP_LOCK, lock]);
    const result = await work(
      async <R extends QueryResultRow>(statement: Name, values: unknown[]) =>
        (await client.query<R>({ name: `wardrik_${statement}`, text: texts[statement], values })).rows,
    );
    await client.query(end);
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw failure(error);
  } finally {
    client.release();
  }
}

/** Journal statements one after the other in one transaction (a batch that writes a row twice); errors as the driver gave them. */
export async function journalInOrder(
  pool: Pool,
  text: string,
  statements: readonly unknown[][][],
): Promise<TookRow[][]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const took: TookRow[][] = [];
    for (const values of statements)
      took.push((await client.query<TookRow>({ name: 'wardrik_writeJournal', text, values })).rows);
    await client.query('COMMIT');
    return took;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
