import { ConfigurationError, StoreError } from '../errors.js';
import { SCHEMA_FIXES } from './sql-rows.js';

/**
 * A driver or server error as a `StoreError` naming the store (`where`), what it could not do, the cause
 * (with the URL's password removed) and the fix for its SQLSTATE or socket error code.
 */
export function postgresStoreError(where: string, url: string, action: string, error: unknown): StoreError {
  if (error instanceof StoreError || error instanceof ConfigurationError) return error as StoreError;
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const cause = redactSecret(messageOf(error), url);
  const fix = (code === undefined ? undefined : (FIXES[code] ?? FIXES[code.slice(0, 2)])) ?? FIXES.default!;
  return new StoreError(
    `${where} could not ${action}: ${cause}${code === undefined ? '' : ` (${code})`}. Fix: ${fix}.`,
    { cause: error },
  );
}

/** What to do, by SQLSTATE (or its class, the first two characters) or Node's socket error code. */
const FIXES: Readonly<Record<string, string>> = {
  ...SCHEMA_FIXES,
  ECONNREFUSED: 'nothing is listening there; start PostgreSQL, or correct the host and port in the store URL',
  ENOTFOUND: 'the host name does not resolve; correct the host in the store URL',
  EAI_AGAIN: 'the host name could not be resolved right now; check DNS, then retry',
  ETIMEDOUT: 'the server did not answer in time; check the network path and firewall, or raise connectTimeoutMs',
  ECONNRESET: 'the connection dropped; retry, and check the server log if it repeats',
  '28P01': 'the password was refused; correct the credentials in the store URL',
  '28000': 'the server refused this user; check pg_hba.conf and the user in the store URL',
  '3D000': 'the database does not exist; create it, or correct the database name in the store URL',
  '42501':
    'the user lacks a privilege; grant it CREATE on the database (to make the schema) and CREATE and USAGE on the schema (for its tables and its journal function, wardrik_journal)',
  '53': 'the server is out of resources (disk, memory or connections); free them, or lower maxConnections',
  '57': 'the server is shutting down or cancelled the statement; retry once it is back',
  '08': 'the connection failed; check that the server is up and reachable, then retry',
  XX: 'the server reported an internal error; check its log',
  default: 'check that PostgreSQL is reachable at that address and the store URL is right',
};

// Node reports a refused connection to a name with several addresses as an AggregateError with an
// empty message; its first error says what happened.
function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.message === '' && error.errors.length > 0)
    return messageOf(error.errors[0]);
  return error instanceof Error ? error.message || error.name : String(error);
}

/** `host:port` of a store URL, for messages. */
export function addressOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
  } catch {
    return 'an unparsable URL';
  }
}

/** Removes the URL's password from a driver message, in case one ever echoes it. */
function redactSecret(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return message;
  }
  return password === '' ? message : message.replaceAll(password, '***');
}
