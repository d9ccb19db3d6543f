import { readFileSync } from 'node:fs';
import { ConfigurationError } from '../errors.js';
import { isWardrikName } from '../inbox/wardrik-names.js';
import { printableLine } from './text.js';

/**
 * One person who may answer in the inbox, with a token of their own: `by` on their answers is `id`,
 * from the token they signed in with, never a name they type. The token itself is never kept: only
 * its SHA-256, so the file that lists people holds no secret (`printf %s "$TOKEN" | sha256sum`).
 */
export interface InboxPersonOptions {
  /** Recorded as `by` on their answers: 1 to 80 printable characters, not a name Wardrik uses for itself. */
  readonly id: string;
  /** The hex SHA-256 of their token (64 hex digits). The token is at least 16 characters. */
  readonly tokenSha256: string;
  /** The groups they are in, checked against policy rules' `approvers`, such as `['finance-leads']`. */
  readonly groups?: readonly string[];
}

/** A named person as a token finds them: their id and groups. */
export interface NamedPerson {
  readonly id: string;
  readonly groups: readonly string[];
}

const MAX_ID = 80;
const MAX_PEOPLE = 10_000;
/** A people file is a short list; more than this is not one. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const PERSON_KEYS = new Set(['id', 'tokenSha256', 'groups']);
/** What `printf %s "$TOKEN" | sha256sum` prints when TOKEN is unset: no person's token. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The people checked: who each token's hash belongs to. `source` names where they came from in messages. */
export function peopleByTokenHash(people: unknown, source: string): ReadonlyMap<string, NamedPerson> {
  if (!Array.isArray(people) || people.length === 0 || people.length > MAX_PEOPLE) {
    throw new ConfigurationError(
      `${source}: people is a list of 1 to ${MAX_PEOPLE} people, such as [{ "id": "ana", "tokenSha256": "<64 hex digits>" }].`,
    );
  }
  const byHash = new Map<string, NamedPerson>();
  const ids = new Set<string>();
  people.forEach((person: unknown, index) => {
    const at = `${source}: people[${index}]`;
    if (person === null || typeof person !== 'object' || Array.isArray(person))
      throw new ConfigurationError(`${at} is not an object; give { "id": "ana", "tokenSha256": "<64 hex digits>" }.`);
    const unknown = Object.keys(person).filter((key) => !PERSON_KEYS.has(key));
    // Refused, not ignored: a key this version does not enforce (roles, say) must not be read as granting more.
    if (unknown.length > 0)
      throw new ConfigurationError(
        `${at} has ${unknown.map((key) => JSON.stringify(key)).join(', ')}, which this version of Wardrik does not know; a person has "id", "tokenSha256" and "groups".`,
      );
    const { tokenSha256, groups } = person as Record<string, unknown>;
    const id = personId((person as Record<string, unknown>).id, `${at}.id`);
    if (ids.has(id))
      throw new ConfigurationError(`${at}.id ${JSON.stringify(id)} is listed twice; each person once, with one token.`);
    if (typeof tokenSha256 !== 'string' || !/^[0-9a-fA-F]{64}$/.test(tokenSha256)) {
      throw new ConfigurationError(
        `${at}.tokenSha256 must be 64 hex digits, the SHA-256 of the person's token: printf %s "$TOKEN" | sha256sum`,
      );
    }
    const hash = tokenSha256.toLowerCase();
    if (hash === EMPTY_SHA256)
      throw new ConfigurationError(
        `${at}.tokenSha256 is the SHA-256 of an empty token (was $TOKEN set when you hashed it?); hash the person's real token.`,
      );
    if (byHash.has(hash))
      throw new ConfigurationError(
        `${at}: ${JSON.stringify(id)} has the same token as ${JSON.stringify(byHash.get(hash)!.id)}; give each person a token of their own.`,
      );
    ids.add(id);
    byHash.set(hash, Object.freeze({ id, groups: groupsOf(groups, `${at}.groups`) }));
  });
  return byHash;
}

/** A person's id, checked: recorded as `by`, so one line of printable text, and not a name Wardrik records for itself. */
export function personId(id: unknown, at: string): string {
  if (
    typeof id !== 'string' ||
    id.length > MAX_ID ||
    id.trim() === '' ||
    printableLine(id) !== id ||
    id.trim() !== id
  ) {
    throw new ConfigurationError(
      `${at} must be 1 to ${MAX_ID} printable characters on one line, without spaces at either end; got ${JSON.stringify(id)?.slice(0, 100)}.`,
    );
  }
  if (isWardrikName(id))
    throw new ConfigurationError(
      `${at} ${JSON.stringify(id)} looks like a name Wardrik records for itself; give the person another id.`,
    );
  return id;
}

/** A person's groups, checked: a list of names, such as ["finance-leads"]; none when absent. */
export function groupsOf(groups: unknown, at: string): readonly string[] {
  if (groups === undefined) return Object.freeze([]);
  if (
    !Array.isArray(groups) ||
    groups.length > 1_000 ||
    !groups.every((group) => typeof group === 'string' && group.trim() !== '' && group.length <= 100)
  )
    throw new ConfigurationError(
      `${at} must be a list of group names of 1 to 100 characters, such as ["finance-leads"]; got ${JSON.stringify(groups)?.slice(0, 100)}.`,
    );
  return Object.freeze([...(groups as string[])]);
}

/**
 * Reads a people file: JSON `{ "people": [{ "id": "ana", "tokenSha256": "…" }] }` (an object, so that
 * more than people can be added beside them later).
 */
export function readPeopleFile(path: string): unknown[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigurationError(
      `The people file ${JSON.stringify(path)} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the path.`,
      { cause: error },
    );
  }
  if (Buffer.byteLength(text) > MAX_FILE_BYTES)
    throw new ConfigurationError(
      `The people file ${JSON.stringify(path)} is over ${MAX_FILE_BYTES / 1024 / 1024} MiB; it lists people and token hashes, nothing more.`,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigurationError(
      `The people file ${JSON.stringify(path)} is not JSON (${(error as Error).message}); write { "people": [{ "id": "ana", "tokenSha256": "…" }] }.`,
    );
  }
  const people = (value as { people?: unknown } | null)?.people;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Array.isArray(people)) {
    throw new ConfigurationError(
      `The people file ${JSON.stringify(path)} must be an object with a "people" list: { "people": [{ "id": "ana", "tokenSha256": "…" }] }.`,
    );
  }
  const unknown = Object.keys(value).filter((key) => key !== 'people');
  if (unknown.length > 0)
    throw new ConfigurationError(
      `The people file ${JSON.stringify(path)} has ${unknown.map((key) => JSON.stringify(key)).join(', ')}, which this version of Wardrik does not know; it reads "people".`,
    );
  return people as unknown[];
}
