import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../clock.js';
import { clientAddress } from '../http/client-address.js';
import { isWardrikName } from '../inbox/wardrik-names.js';
import type { GuessLimiter } from '../http/guess-limiter.js';
import { cookies, WebError } from './http.js';
import type { InboxWebSettings } from './options.js';
import { printableLine } from './text.js';

/** Who is asking, and the key their CSRF token is bound to. */
export interface Person {
  /** Recorded as `by` on every answer they give. */
  readonly name: string;
  /** A session's id, or the app's person: what the CSRF token is made from. */
  readonly key: string;
  /** Sent a bearer token rather than a cookie: a browser never attaches one on its own, so no CSRF token is needed. */
  readonly bearer: boolean;
  /** The groups their sign-in says they are in (a people file's, or the app's login's): checked against `approvers`. */
  readonly groups: readonly string[];
}

const NO_GROUPS: readonly string[] = Object.freeze([]);

export const SESSION_COOKIE = 'wardrik_session';
export const CSRF_HEADER = 'x-wardrik-csrf';
/** Who signs in without giving a name: answers say the token's holder gave them. */
export const TOKEN_HOLDER = 'token holder';
const MAX_SESSIONS = 10_000;
/** A name from the app's login is refused rather than cut past this: two people must not become one. */
const MAX_APP_NAME = 200;

/**
 * Signing in and checking who asks. With the app's `authenticate`, the app decides on every request.
 * Otherwise a person exchanges a token for a session: a random id in an HttpOnly, SameSite=Strict
 * cookie, kept in memory (a restart signs everyone out). A script may send the token as a bearer token.
 * The token is the shared one (the holder types their name) or a named person's (the name is theirs).
 * Wrong tokens are slowed per client address by the guess limiter; a right one is never held or refused.
 * State-changing requests also need the CSRF token (an HMAC of the session, so it needs no storage)
 * and must not come from another site.
 */
export class WebAuth {
  private readonly sessions = new Map<
    string,
    { readonly name: string; readonly groups: readonly string[]; readonly expiresAt: number }
  >();
  private readonly csrfKey = randomBytes(32);

  constructor(
    private readonly settings: InboxWebSettings,
    private readonly clock: Clock,
    private readonly guesses: GuessLimiter,
  ) {}

  /** The person asking, or `undefined` for nobody (the caller answers 401). */
  async who(request: IncomingMessage): Promise<Person | undefined> {
    // The session first: a bearer header that is not ours (an SSO proxy's own) must not slow a signed-in person.
    const id = cookies(request).get(SESSION_COOKIE);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (id !== undefined && session !== undefined) {
      if (session.expiresAt > this.clock.now())
        return { name: session.name, key: `session:${id}`, bearer: false, groups: session.groups };
      this.sessions.delete(id);
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    if (bearer !== undefined && this.signsIn) {
      // A bearer token is a guess at the same secrets as the sign-in form's: the same count slows both.
      const holder = await this.holder(request, bearer);
      if (holder !== undefined)
        return { name: holder.name, key: `bearer:${holder.name}`, bearer: true, groups: holder.groups };
    }
    if (this.settings.authenticate === undefined) return undefined;
    const found = await this.settings.authenticate(request);
    if (found === undefined || found === null) return undefined;
    const name = typeof found === 'object' ? (found as { id?: unknown }).id : found;
    const groups = typeof found === 'object' ? appGroups((found as { groups?: unknown }).groups) : NO_GROUPS;
    const printable = typeof name === 'string' ? printableLine(name).trim() : '';
    if (printable === '' || printable.length > MAX_APP_NAME || isWardrikName(printable)) {
      const what =
        typeof name !== 'string'
          ? `a ${typeof name}`
          : printable === ''
            ? 'no printable character'
            : printable.length > MAX_APP_NAME
              ? `a name of ${printable.length} characters`
              : 'a name like those Wardrik records for itself';
      throw new WebError(
        500,
        'configuration',
        `inboxWeb: authenticate returned ${what}; return a name of 1 to ${MAX_APP_NAME} printable characters, or nothing (and none starting with "wardrik", the name Wardrik records for itself); or { id: name, groups: [...] }.`,
      );
    }
    // The name is recorded as `by` and printed by `wardrik inbox`: one line, as a sign-in name is.
    return { name: printable, key: `person:${printable}`, bearer: false, groups };
  }

  /**
   * Exchanges a token for a session; returns the cookie to set. Refuses a wrong token (401, answered
   * late when its address guessed wrong many times), and a typed name that looks like Wardrik's own (400).
   */
  async signIn(request: IncomingMessage, form: URLSearchParams, cookiePath: string): Promise<string> {
    if (!this.signsIn)
      throw new WebError(404, 'not_found', "Sign-in with a token is off here: this inbox uses the app's own login.");
    const holder = await this.holder(request, form.get('token') ?? '');
    if (holder === undefined) {
      throw new WebError(
        401,
        'unauthenticated',
        this.settings.people === undefined
          ? "That token is not this inbox's. Use the token `wardrik web` printed at start, or the one in WARDRIK_WEB_TOKEN."
          : "That token is no one's here. Use the token you were given for this inbox.",
      );
    }
    // A shared token's holder types the name recorded as `by` and shown in the CLI and the page: one line of printable text.
    const name = holder.named
      ? holder.name
      : printableLine(form.get('name') ?? '')
          .trim()
          .slice(0, 80) || TOKEN_HOLDER;
    if (isWardrikName(name))
      throw new WebError(
        400,
        'usage',
        `"${name.slice(0, 80)}" looks like a name Wardrik records for itself, so nobody may answer under it; give your own name.`,
      );
    const now = this.clock.now();
    this.sweep(now);
    const id = randomBytes(24).toString('base64url');
    this.sessions.set(id, { name, groups: holder.groups, expiresAt: now + this.settings.sessionMs });
    return sessionCookie(
      id,
      cookiePath,
      Math.floor(this.settings.sessionMs / 1000),
      secure(request, this.settings.publicUrl),
    );
  }

  /** Whether people sign in with a token here (shared or their own), rather than only through the app's login. */
  get signsIn(): boolean {
    return this.settings.token !== undefined || this.settings.people !== undefined;
  }

  /**
   * Whose token `given` is: the named person's, or the shared token's holder; `undefined` for nobody,
   * after the wait the guess limiter gives a wrong guess from this address. A right token waits for nothing.
   */
  private async holder(
    request: IncomingMessage,
    given: string,
  ): Promise<{ name: string; named: boolean; groups: readonly string[] } | undefined> {
    const { token, people } = this.settings;
    // An empty token is nobody's, whatever a people file lists (its SHA-256 is what an unset $TOKEN hashes to).
    if (given !== '' && people !== undefined) {
      // Looked up by hash: the time a lookup takes tells nothing of a token, only of its SHA-256.
      const person = people.get(createHash('sha256').update(given).digest('hex'));
      if (person !== undefined) return { name: person.id, named: true, groups: person.groups };
    } else if (given !== '' && token !== undefined && sameSecret(given, token))
      return { name: TOKEN_HOLDER, named: false, groups: NO_GROUPS };
    await this.guesses.wrong(clientAddress(request, this.settings.http.trustProxy), request.socket);
    return undefined;
  }

  /** Ends the session the request carries; returns the cookie that clears it. */
  signOut(request: IncomingMessage, cookiePath: string): string {
    const id = cookies(request).get(SESSION_COOKIE);
    if (id !== undefined) this.sessions.delete(id);
    return sessionCookie('', cookiePath, 0, secure(request, this.settings.publicUrl));
  }

  /** The CSRF token the page sends back in the `x-wardrik-csrf` header. */
  csrfToken(person: Person): string {
    return createHmac('sha256', this.csrfKey).update(person.key).digest('base64url');
  }

  /** Refuses a state-changing request that comes from another site or lacks the person's CSRF token (403). */
  checkStateChange(request: IncomingMessage, person: Person): void {
    this.checkSameOrigin(request);
    if (person.bearer) return;
    const sent = request.headers[CSRF_HEADER];
    if (typeof sent !== 'string' || !sameSecret(sent, this.csrfToken(person))) {
      throw new WebError(
        403,
        'csrf',
        `The request has no valid CSRF token (header ${CSRF_HEADER}); reload the page and try again. Scripts read it from GET api/session.`,
      );
    }
  }

  /** Refuses a request a browser says came from another site (Sec-Fetch-Site, Origin). */
  checkSameOrigin(request: IncomingMessage): void {
    const site = request.headers['sec-fetch-site'];
    const origin = request.headers.origin;
    const allowed = (): boolean => {
      if (origin === undefined) return true;
      try {
        const url = new URL(origin);
        return url.host === request.headers.host || this.settings.origins.includes(url.origin);
      } catch {
        return false;
      }
    };
    // A listed origin (a proxy's public one) passes even when the browser calls it cross-site.
    const listed = origin !== undefined && this.settings.origins.includes(origin);
    if ((site !== undefined && site !== 'same-origin' && site !== 'none' && !listed) || !allowed()) {
      throw new WebError(
        403,
        'cross_site',
        `This request came from another site (${origin ?? String(site)}); answers are taken only from the inbox page itself. Behind a proxy, give its public address as publicUrl (wardrik web --public-url), or list it in inboxWeb({ origins }).`,
      );
    }
  }

  private sweep(now: number): void {
    for (const [id, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(id);
    // Past the cap the oldest sessions go first (a Map iterates in insertion order).
    for (const id of this.sessions.keys()) {
      if (this.sessions.size < MAX_SESSIONS) break;
      this.sessions.delete(id);
    }
  }
}

/** Compares secrets in constant time, whatever their lengths. */
function sameSecret(given: string, expected: string): boolean {
  const hash = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(hash(given), hash(expected));
}

function sessionCookie(value: string, path: string, maxAgeSeconds: number, secureOnly: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secureOnly ? '; Secure' : ''}`;
}

function secure(request: IncomingMessage, publicUrl: string | undefined): boolean {
  return (request.socket as { encrypted?: boolean }).encrypted === true || publicUrl?.startsWith('https:') === true;
}

/** The groups the app's login gave: a list of names; anything else is the app's bug, said as a 500. */
function appGroups(groups: unknown): readonly string[] {
  if (groups === undefined) return NO_GROUPS;
  if (Array.isArray(groups) && groups.length <= 1_000 && groups.every((group) => typeof group === 'string'))
    return Object.freeze([...(groups as string[])]);
  throw new WebError(
    500,
    'configuration',
    'inboxWeb: authenticate returned groups that are not a list of group names; return { id, groups: ["finance-leads"] }.',
  );
}
