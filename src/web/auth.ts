import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../clock.js';
import { cookies, WebError } from './http.js';
import type { InboxWebSettings } from './options.js';

/** Who is asking, and the key their CSRF token is bound to. */
export interface Person {
  /** Recorded as `by` on every answer they give. */
  readonly name: string;
  /** A session's id, or the app's person: what the CSRF token is made from. */
  readonly key: string;
  /** Sent a bearer token rather than a cookie: a browser never attaches one on its own, so no CSRF token is needed. */
  readonly bearer: boolean;
}

export const SESSION_COOKIE = 'wardrik_session';
export const CSRF_HEADER = 'x-wardrik-csrf';
/** Who signs in without giving a name: answers say the token's holder gave them. */
export const TOKEN_HOLDER = 'token holder';
const MAX_SESSIONS = 10_000;
const MAX_FAILURES_PER_MINUTE = 10;

/**
 * Signing in and checking who asks. With the app's `authenticate`, the app decides on every request.
 * Otherwise a person exchanges the token for a session: a random id in an HttpOnly, SameSite=Strict
 * cookie, kept in memory (a restart signs everyone out). A script may send the token as a bearer token.
 * State-changing requests also need the CSRF token (an HMAC of the session, so it needs no storage)
 * and must not come from another site.
 */
export class WebAuth {
  private readonly sessions = new Map<string, { readonly name: string; readonly expiresAt: number }>();
  private readonly failures = new Map<string, number[]>();
  private readonly csrfKey = randomBytes(32);

  constructor(
    private readonly settings: InboxWebSettings,
    private readonly clock: Clock,
  ) {}

  /** The person asking, or `undefined` for nobody (the caller answers 401). */
  async who(request: IncomingMessage): Promise<Person | undefined> {
    const bearer = /^Bearer\s+(\S+)$/i.exec(String(request.headers.authorization ?? ''))?.[1];
    if (bearer !== undefined && this.settings.token !== undefined && sameSecret(bearer, this.settings.token)) return { name: TOKEN_HOLDER, key: 'bearer', bearer: true };
    const id = cookies(request).get(SESSION_COOKIE);
    const session = id === undefined ? undefined : this.sessions.get(id);
    if (id !== undefined && session !== undefined) {
      if (session.expiresAt > this.clock.now()) return { name: session.name, key: `session:${id}`, bearer: false };
      this.sessions.delete(id);
    }
    if (this.settings.authenticate === undefined) return undefined;
    const name = await this.settings.authenticate(request);
    if (name === undefined || name === null) return undefined;
    if (typeof name !== 'string' || name.trim() === '') throw new WebError(500, 'configuration', 'inboxWeb: authenticate returned something other than a person\'s name; return a non-empty string, or nothing.');
    return { name, key: `person:${name}`, bearer: false };
  }

  /** Exchanges the token for a session; returns the cookie to set. Refuses a wrong token, and many wrong tries (429). */
  signIn(request: IncomingMessage, form: URLSearchParams, cookiePath: string): string {
    const token = this.settings.token;
    if (token === undefined) throw new WebError(404, 'not_found', 'Sign-in with a token is off here: this inbox uses the app\'s own login.');
    const from = request.socket.remoteAddress ?? '?';
    const now = this.clock.now();
    const recent = (this.failures.get(from) ?? []).filter((at) => at > now - 60_000);
    if (recent.length >= MAX_FAILURES_PER_MINUTE) throw new WebError(429, 'too_many', 'Too many wrong tokens from this address; wait a minute and try again.');
    if (!sameSecret(form.get('token') ?? '', token)) {
      // Bounded, like the sessions: past the cap the addresses that failed longest ago are forgotten first.
      if (this.failures.size >= MAX_SESSIONS) this.failures.delete(this.failures.keys().next().value!);
      this.failures.delete(from);
      this.failures.set(from, [...recent, now]);
      throw new WebError(401, 'unauthenticated', 'That token is not this inbox\'s. Use the token `wardrik web` printed at start, or the one in WARDRIK_WEB_TOKEN.');
    }
    this.failures.delete(from);
    // The name is recorded as `by` and shown in the CLI and the page: one line of printable text.
    const name = (form.get('name') ?? '').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').trim().slice(0, 80) || TOKEN_HOLDER;
    this.sweep(now);
    const id = randomBytes(24).toString('base64url');
    this.sessions.set(id, { name, expiresAt: now + this.settings.sessionMs });
    return sessionCookie(id, cookiePath, Math.floor(this.settings.sessionMs / 1000), secure(request, this.settings.publicUrl));
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
      throw new WebError(403, 'csrf', `The request has no valid CSRF token (header ${CSRF_HEADER}); reload the page and try again. Scripts read it from GET api/session.`);
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
      throw new WebError(403, 'cross_site', `This request came from another site (${origin ?? String(site)}); answers are taken only from the inbox page itself. Behind a proxy, list its public origin in inboxWeb({ origins }).`);
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
