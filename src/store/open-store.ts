import { ConfigurationError } from '../errors.js';
import { MemoryStore } from './memory-store.js';
import type { FullStore } from './store.js';
import type { SqliteDriver } from './sqlite-connection.js';
import { editDistance } from '../tools/names.js';

const ACCEPTED =
  'Use "memory:", "sqlite:PATH" (such as "sqlite:.wardrik/wardrik.db", optionally "?synchronous=full" and "&driver=better-sqlite3"), ' +
  '"postgres://USER:PASSWORD@HOST:PORT/DATABASE" (optionally "?schema=NAME"), or pass a Store instance.';

const SCHEMES = ['memory', 'sqlite', 'postgres', 'postgresql'] as const;

/**
 * Opens the store a URL names: `memory:`, `sqlite:PATH[?synchronous=normal|full][&driver=node|better-sqlite3]`
 * (PATH relative to the working directory, or absolute), `postgres://…` or `postgresql://…` (`?schema=NAME`, default
 * `wardrik`). The SQLite and PostgreSQL stores are loaded only when named, so a user of one never
 * loads the other's driver. A PostgreSQL store has connected and migrated when this resolves.
 */
export async function openStore(url: string): Promise<FullStore> {
  const colon = url.indexOf(':');
  const scheme = colon < 0 ? '' : url.slice(0, colon).toLowerCase();
  if (url === 'memory' || scheme === 'memory') {
    if (url.length > 'memory:'.length) throw unknown(url, 'a memory store takes nothing after "memory:".', 'memory:');
    return new MemoryStore();
  }
  if (scheme === 'sqlite') return openSqlite(url);
  if (scheme === 'postgres' || scheme === 'postgresql') return openPostgres(url);
  throw unknown(url, 'its scheme is not one Wardrik knows.', suggestion(url, scheme, colon));
}

/** The file a `sqlite:` URL names, as given (relative to the working directory, or absolute); `undefined` for other URLs. */
export function sqlitePath(url: string): string | undefined {
  if (!/^sqlite:/i.test(url)) return undefined;
  const [rest = ''] = splitQuery(url.slice('sqlite:'.length));
  // `sqlite:///abs/path` and `sqlite://rel` are common spellings of `sqlite:/abs/path` and `sqlite:rel`.
  return rest.startsWith('//') ? rest.slice(2) : rest;
}

async function openSqlite(url: string): Promise<FullStore> {
  const path = sqlitePath(url) ?? '';
  const [, query] = splitQuery(url);
  if (path === '') throw unknown(url, 'it names no file.', 'sqlite:.wardrik/wardrik.db');
  let synchronous: 'normal' | 'full' | undefined;
  let driver: SqliteDriver | undefined;
  for (const [key, value] of new URLSearchParams(query)) {
    if (key === 'synchronous' && (value === 'normal' || value === 'full')) synchronous = value;
    else if (key === 'driver' && (value === 'node' || value === 'better-sqlite3')) driver = value;
    else
      throw unknown(
        url,
        `"${key}=${value}" is not a SQLite store option (only "synchronous=normal" or "synchronous=full", and "driver=node" or "driver=better-sqlite3").`,
        `sqlite:${path}`,
      );
  }
  const { SqliteStore } = await import('./sqlite-store.js');
  return new SqliteStore({
    path,
    ...(synchronous === undefined ? {} : { synchronous }),
    ...(driver === undefined ? {} : { driver }),
  });
}

async function openPostgres(url: string): Promise<FullStore> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new ConfigurationError(
      `Store URL "${redact(url)}" cannot be parsed as a URL. ${ACCEPTED} Percent-encode special characters in the password.`,
      { cause: error },
    );
  }
  // `schema` is ours, not the driver's: take it out before pg sees the URL.
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  const { PostgresStore } = await import('./postgres-store.js');
  const store = new PostgresStore({ url: parsed.toString(), ...(schema === undefined ? {} : { schema }) });
  return store.start();
}

function splitQuery(text: string): [string, string] {
  const at = text.indexOf('?');
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)];
}

function unknown(url: string, cause: string, closest: string | undefined): ConfigurationError {
  const hint = closest === undefined ? '' : ` Did you mean "${redact(closest)}"?`;
  return new ConfigurationError(`Store URL "${redact(url)}" cannot be used: ${cause} ${ACCEPTED}${hint}`);
}

/** The URL with its scheme replaced by the closest known one, or a `sqlite:` path for a bare path. */
function suggestion(url: string, scheme: string, colon: number): string | undefined {
  if (colon < 0) return /^[\w./~-]+$/.test(url) ? `sqlite:${url}` : undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const known of SCHEMES) {
    const distance = editDistance(scheme, known);
    if (distance < bestDistance) [best, bestDistance] = [known, distance];
  }
  if (best === undefined || bestDistance > Math.max(2, Math.floor(scheme.length / 3))) return undefined;
  let rest = url.slice(colon + 1);
  if (best === 'sqlite') rest = rest.replace(/^\/\/(?=[^/])/, '');
  if (best.startsWith('postgres') && !rest.startsWith('//')) rest = `//${rest.replace(/^\/+/, '')}`;
  return `${best}:${rest}`;
}

/** A URL without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
}
