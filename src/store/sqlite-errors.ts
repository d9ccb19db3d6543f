import { StoreError } from '../errors.js';
import { SCHEMA_FIXES } from './sql-rows.js';

// How the SQLite store (sqlite-store.ts) reports a failure: what failed, why, and what to do about it.

/** What to do about each SQLite failure a user can meet, by its result code. */
const FIXES: Readonly<Record<string, string>> = {
  ...SCHEMA_FIXES,
  SQLITE_READONLY:
    'the file or its directory is read-only (or the store was opened read-only); give this process write access, or point the store at a writable path',
  SQLITE_CANTOPEN:
    'the file cannot be opened; check that its directory exists and is writable, and that the path is not a directory',
  SQLITE_FULL: 'the disk is full; free space, then retry',
  SQLITE_IOERR: 'the disk reported an I/O error; check the disk and free space, then retry',
  SQLITE_CORRUPT: 'the file is damaged; restore it from a backup, or move it aside to start a new journal',
  SQLITE_NOTADB: 'the file is not a SQLite database; point the store at another path',
  SQLITE_BUSY: 'another process held the write lock too long; retry, or give each process its own file',
  SQLITE_PERM: 'the operating system refused access; check the file permissions',
  ENOTDIR: 'a part of the path is a file, not a directory; choose another path',
  // mkdir -p reports a file in the way as EEXIST.
  EEXIST: 'a part of the path is a file, not a directory; choose another path',
  EACCES: 'the directory cannot be created; check its permissions or choose another path',
  EROFS: 'the file system is read-only; choose a path on a writable disk',
};

/** SQLite's primary result codes by number, named as better-sqlite3 names them (node:sqlite gives the number). */
const RESULT_CODES: readonly string[] = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
  'NOTICE',
  'WARNING',
];

/** The error's SQLite code (`SQLITE_FULL` …) from either driver, or its system code (`EACCES` …). */
function codeOf(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  // node:sqlite: ERR_SQLITE_ERROR, with SQLite's (extended) result code as a number.
  if (code === 'ERR_SQLITE_ERROR' && typeof errcode === 'number') {
    const name = RESULT_CODES[errcode & 0xff];
    return name === undefined ? undefined : `SQLITE_${name}`;
  }
  return typeof code === 'string' ? code : undefined;
}

export function storeError(path: string, action: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const code = codeOf(error);
  const cause = error instanceof Error ? error.message : String(error);
  const fix =
    (code === undefined ? undefined : (FIXES[code] ?? FIXES[code.replace(/_[A-Z]+$/, '')])) ??
    // A closed connection: better-sqlite3 says "not open", node:sqlite ERR_INVALID_STATE ("finalized").
    (cause.includes('not open') || code === 'ERR_INVALID_STATE'
      ? 'the store was closed; open a new one'
      : 'check the file and the disk');
  return new StoreError(
    `SQLite store "${path}" could not ${action}: ${cause}${code === undefined ? '' : ` (${code})`}. Fix: ${fix}.`,
    {
      cause: error,
    },
  );
}
