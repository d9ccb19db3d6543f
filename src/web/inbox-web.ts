import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigurationError, NotFoundError } from '../errors.js';
import { BodyBudget } from '../http/body-budget.js';
import { untrustedProxyHeader } from '../http/client-address.js';
import { GuessLimiter } from '../http/guess-limiter.js';
import { hostRefusal } from '../http/host-check.js';
import { limitedServer } from '../http/server-options.js';
import { InboxApi } from './api.js';
import { CSRF_HEADER, WebAuth, type Person } from './auth.js';
import { readForm, readJson, send, sendError, sendJson, WebError } from './http.js';
import type { InboxWebParts } from './inbox-web-parts.js';
import { WebhookNotifier } from './notifier.js';
import { inboxWebSettings, pageUrl, type InboxWebOptions, type InboxWebSettings } from './options.js';
import { asset, inboxPage, signInPage } from './page.js';
import { SlackApp } from './slack-app.js';

export type { InboxWebParts } from './inbox-web-parts.js';

/** Where `listen()` serves: 127.0.0.1 and a free port unless told. */
export interface InboxWebListenOptions {
  readonly host?: string;
  readonly port?: number;
}

/**
 * The inbox in a browser: a page, the JSON API behind it and, when asked, webhook notifications.
 * `handler` is a Node request handler to mount under a path of an app (Express `app.use('/inbox',
 * web.handler)`, Fastify, NestJS); `listen()` serves it alone. Make it with `wardrik.inboxWeb(options)`.
 *
 * Routes, relative to where it is mounted: `GET /` the page (or the sign-in form); `POST sign-in`,
 * `POST sign-out`; `GET api/session`, `GET api/items[?status=answered]`, `GET api/items/ID`,
 * `GET api/runs/RUN`; `POST api/items/ID/approve|deny|answer`; with `slack`, `POST slack/interactions`.
 */
export class InboxWeb {
  /** The request handler to mount; it answers every request itself (404 for paths it does not know). */
  readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
  private readonly settings: InboxWebSettings;
  private readonly auth: WebAuth;
  private readonly api: InboxApi;
  private readonly guesses: GuessLimiter;
  private readonly budget: BodyBudget;
  /** Hosts that are the page's own whatever the bind (publicUrl's). */
  private readonly ownHosts: readonly string[];
  private proxyWarned = false;
  private notifier: WebhookNotifier | undefined;
  private readonly slack: SlackApp | undefined;
  private server: Server | undefined;
  private closed = false;

  /** @internal */
  constructor(
    private readonly parts: InboxWebParts,
    options: InboxWebOptions = {},
    env: Readonly<Record<string, string | undefined>> = process.env,
  ) {
    this.settings = inboxWebSettings(options, env, () => randomBytes(24).toString('base64url'));
    this.guesses = new GuessLimiter(this.settings.http.wrongGuesses, parts.clock, parts.timers);
    this.budget = new BodyBudget(this.settings.http.maxUnauthenticatedBytes);
    this.ownHosts = this.settings.publicUrl === undefined ? [] : [new URL(this.settings.publicUrl).host];
    this.auth = new WebAuth(this.settings, parts.clock, this.guesses);
    this.api = new InboxApi(parts.inbox, parts.store, parts.clock);
    this.handler = (request, response) => {
      this.handle(request, response).catch((error: unknown) => this.fail(response, error));
    };
    if (this.settings.slack !== undefined) this.slack = new SlackApp(this.settings.slack, this.api, parts, this.budget);
    if (this.settings.publicUrl !== undefined) this.slack?.start(this.settings.publicUrl, this.settings.pollMs);
    if (this.settings.webhook !== undefined) {
      if (this.settings.publicUrl !== undefined) this.startNotifier(this.settings.publicUrl);
      else {
        parts.events.emit({
          type: 'warning',
          message:
            "inboxWeb: notify.webhook is set but publicUrl is not, so notifications start only when listen() is called. A mounted inbox needs publicUrl, the page's address, for the links in its messages.",
        });
      }
    }
  }

  /** The sign-in token (absent when the app's `authenticate` decides). When it was generated, hand it to the people who approve. */
  get token(): string | undefined {
    return this.settings.token;
  }

  /** Whether the token was generated here (neither given nor in WARDRIK_WEB_TOKEN). */
  get tokenGenerated(): boolean {
    return this.settings.tokenGenerated;
  }

  /** How many named people may sign in with their own token; 0 when one shared token (or the app's login) decides. */
  get people(): number {
    return this.settings.people?.size ?? 0;
  }

  /** @internal Answers to wrong tokens held now. */
  get heldGuesses(): number {
    return this.guesses.held;
  }

  /** @internal Bytes of sign-in forms held now. */
  get unauthenticatedBytes(): number {
    return this.budget.inUse;
  }

  /** Serves the inbox on its own; resolves to the page's URL. */
  async listen(options: InboxWebListenOptions = {}): Promise<{ readonly url: string }> {
    if (this.server !== undefined)
      throw new ConfigurationError(
        'inboxWeb: listen() was called twice; one InboxWeb serves one address. Call wardrik.inboxWeb() again for another.',
      );
    // A client that never finishes its headers or body does not hold a socket for long, nor do too many.
    const server = limitedServer(this.handler, this.settings.http);
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const url = pageUrl(`http://${host}:${address.port}/`);
    if (this.settings.webhook !== undefined && this.notifier === undefined) this.startNotifier(url);
    if (this.settings.publicUrl === undefined) this.slack?.start(url, this.settings.pollMs);
    return { url };
  }

  /** Stops notifying and serving. Safe to call twice; `wardrik.close()` calls it. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.guesses.close();
    await this.notifier?.close();
    await this.slack?.close();
    const server = this.server;
    if (server !== undefined) {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  }

  private warnOfProxy(request: IncomingMessage): void {
    const header = this.proxyWarned ? undefined : untrustedProxyHeader(request, this.settings.http.trustProxy);
    if (header === undefined) return;
    this.proxyWarned = true;
    this.parts.events.emit({
      type: 'warning',
      message: `inboxWeb: requests come with the ${header} header, so a proxy is in front, but http.trustProxy is not set: wrong tokens from every client it forwards are counted as from its one address. Set http.trustProxy (wardrik web --trust-proxy) to the header your proxy sets to the client's address.`,
    });
  }

  private signInMode(): 'app' | 'token' | 'person' {
    return this.settings.people !== undefined ? 'person' : this.settings.token !== undefined ? 'token' : 'app';
  }

  private startNotifier(publicUrl: string): void {
    this.notifier = new WebhookNotifier(this.settings.webhook!, publicUrl, this.parts, this.settings.pollMs);
    this.notifier.start();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const refused = hostRefusal(
      request,
      this.settings.http.allowedHosts,
      'add it to inboxWeb({ http: { allowedHosts } }) (wardrik web --allowed-host)',
      this.ownHosts,
    );
    if (refused !== undefined) throw new WebError(403, 'host', refused, true);
    this.warnOfProxy(request);
    const { path, mount, needsSlash } = locate(request, this.settings.basePath);
    const method = request.method ?? 'GET';
    if (path === '/inbox.js' || path === '/inbox.css') {
      allow(method, 'GET', 'HEAD');
      const file = await asset(path.slice(1));
      return send(response, 200, file.type, file.body, { 'cache-control': 'no-cache' });
    }
    if (path === '/') {
      allow(method, 'GET', 'HEAD');
      if (needsSlash)
        return send(response, 308, 'text/plain; charset=utf-8', 'The inbox is at its path with a closing slash.', {
          location: `${mount}/`,
        });
      const person = await this.auth.who(request);
      if (person !== undefined) return send(response, 200, 'text/html; charset=utf-8', inboxPage());
      return send(
        response,
        401,
        'text/html; charset=utf-8',
        signInPage(this.signInMode(), undefined, linkedItem(request)),
      );
    }
    if (path === '/sign-in') {
      const item = linkedItem(request);
      // Back to the page, and to the item a notification linked to.
      const page = item === undefined ? './' : `./?item=${encodeURIComponent(item)}`;
      // After a wrong token the address bar shows sign-in: opening it again leads to the form, not to a 405.
      if (method === 'GET' || method === 'HEAD')
        return send(response, 303, 'text/plain; charset=utf-8', 'The sign-in form is on the page.', { location: page });
      allow(method, 'POST');
      this.auth.checkSameOrigin(request);
      try {
        const cookie = await this.auth.signIn(
          request,
          await readForm(request, this.budget, this.parts.timers),
          mount || '/',
        );
        return send(response, 303, 'text/plain; charset=utf-8', 'Signed in.', { location: page, 'set-cookie': cookie });
      } catch (error) {
        if (error instanceof WebError && (error.status === 401 || (error.status === 400 && error.code === 'usage'))) {
          return send(
            response,
            error.status,
            'text/html; charset=utf-8',
            signInPage(this.signInMode(), error.message, linkedItem(request)),
          );
        }
        throw error;
      }
    }
    if (path === '/oauth/callback') return this.signInCallback(request, response, method);
    // Slack's own signature vouches for a press, not a person's sign-in.
    if (path === '/slack/interactions' && this.slack !== undefined) return this.slack.handle(request, response, method);
    if (!path.startsWith('/api/') && path !== '/sign-out')
      throw new WebError(404, 'not_found', `Nothing at "${path}" here; the inbox page is at "${mount}/".`);
    const person = await this.auth.who(request);
    if (person === undefined) {
      throw new WebError(
        401,
        'unauthenticated',
        !this.auth.signsIn
          ? 'Sign in to the app first: this inbox uses its login.'
          : 'Sign in first: open the inbox page and give the token, or send it as "authorization: Bearer TOKEN".',
      );
    }
    if (method !== 'GET' && method !== 'HEAD') this.auth.checkStateChange(request, person);
    if (path === '/sign-out') {
      allow(method, 'POST');
      return sendJson(response, 200, { signedOut: true }, { 'set-cookie': this.auth.signOut(request, mount || '/') });
    }
    return sendJson(response, 200, await this.route(request, method, path, person));
  }

  /**
   * Where a person's browser comes back after signing in to an MCP server (the hub's `oauth.redirectUrl`):
   * the code is exchanged and the server connects. Only a person signed in to the inbox completes one.
   */
  private async signInCallback(request: IncomingMessage, response: ServerResponse, method: string): Promise<void> {
    allow(method, 'GET');
    const person = await this.auth.who(request);
    if (person === undefined)
      throw new WebError(
        401,
        'unauthenticated',
        'Sign in to the inbox first, then open the sign-in link from its item again.',
      );
    if (this.parts.completeSignIn === undefined)
      throw new WebError(404, 'not_found', 'This Wardrik has no MCP hub, so no sign-in waits here.');
    let server: string;
    try {
      server = await this.parts.completeSignIn(target(request.url), person.name);
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      throw error instanceof NotFoundError
        ? new WebError(404, 'not_found', message)
        : new WebError(502, 'sign_in_failed', message.slice(0, 1_000));
    }
    return send(
      response,
      200,
      'text/plain; charset=utf-8',
      `Signed in to MCP server "${server}"; it connects now. You can close this page.`,
    );
  }

  private async route(request: IncomingMessage, method: string, path: string, person: Person): Promise<unknown> {
    const query = target(request.url).searchParams;
    if (path === '/api/session') {
      allow(method, 'GET');
      return {
        person: person.name,
        csrfToken: this.auth.csrfToken(person),
        csrfHeader: CSRF_HEADER,
        pollMs: this.settings.pollMs,
        signOut: person.key.startsWith('session:'),
        groups: person.groups,
      };
    }
    if (path === '/api/items') {
      allow(method, 'GET');
      const status = query.get('status') ?? 'pending';
      if (status !== 'pending' && status !== 'answered')
        throw new WebError(
          400,
          'usage',
          `status=${status} is not one the API knows: "pending" (the default) or "answered".`,
        );
      const limit = Number(query.get('limit') ?? 50);
      return this.api.items(status, Number.isInteger(limit) ? limit : 50, answerer(person));
    }
    const item = /^\/api\/items\/([^/]+)(?:\/(approve|deny|answer))?$/.exec(path);
    if (item !== null) {
      const id = decoded(item[1]!);
      const verb = item[2];
      if (verb === undefined) {
        allow(method, 'GET');
        return this.api.item(id, answerer(person));
      }
      allow(method, 'POST');
      const body = await readJson(request, this.parts.timers);
      if (verb === 'approve') return this.api.approve(id, answerer(person), body);
      if (verb === 'deny') return this.api.deny(id, answerer(person), body);
      return this.api.answer(id, answerer(person), body);
    }
    const run = /^\/api\/runs\/([^/]+)$/.exec(path);
    if (run !== null) {
      allow(method, 'GET');
      return this.api.run(decoded(run[1]!));
    }
    throw new WebError(
      404,
      'not_found',
      `No API route "${method} ${path}". The routes: GET api/session, GET api/items, GET api/items/ID, GET api/runs/RUN, POST api/items/ID/approve|deny|answer.`,
    );
  }

  private fail(response: ServerResponse, error: unknown): void {
    if (error instanceof WebError) return sendError(response, error, this.parts.timers);
    // A bug or an unexpected failure: said in a warning for the developer, not in detail to the browser.
    this.parts.events.emit({
      type: 'warning',
      message: `inboxWeb: a request failed: ${(error as Error)?.message ?? String(error)}`,
    });
    sendError(
      response,
      new WebError(
        500,
        'unexpected',
        "Something went wrong on the server; nothing more is known here. Try again; if it persists, see the app's warning events.",
      ),
      this.parts.timers,
    );
  }
}

/**
 * The request's path under the mount point, and the mount point itself. Express and Connect strip the
 * mount path from `url` and keep the whole in `originalUrl`; a plain server passes the whole URL, and
 * `basePath` says what to strip.
 */
function locate(
  request: IncomingMessage,
  basePath: string | undefined,
): { path: string; mount: string; needsSlash: boolean } {
  let inner = target(request.url).pathname;
  const originalUrl = (request as { originalUrl?: string }).originalUrl;
  const original = target(originalUrl ?? request.url).pathname;
  if (basePath !== undefined && (inner === basePath || inner.startsWith(`${basePath}/`)))
    inner = inner.slice(basePath.length);
  else if (basePath !== undefined && originalUrl === undefined) {
    // A plain server passes the URL as it came: "/inbox/../api/items" starts with the base path but, read, climbs out of it.
    throw new WebError(
      404,
      'not_found',
      `Nothing at "${original}" here: it is outside the inbox's base path "${basePath}/".`,
    );
  }
  const mount = original.endsWith(inner) ? original.slice(0, original.length - inner.length).replace(/\/$/, '') : '';
  // Under Express, both "/inbox" and "/inbox/" arrive as "/"; only the latter keeps the page's relative links under the mount.
  const needsSlash = (inner === '/' || inner === '') && !original.endsWith('/');
  return { path: inner === '' ? '/' : inner, mount: needsSlash ? original : mount, needsSlash };
}

/**
 * The request's target as a URL. Resolving it against a base would read `//evil.example/api/items` as
 * host `evil.example` and path `/api/items` (and throw on `///`): a path is put after an origin instead.
 */
function target(url: string | undefined): URL {
  const raw = url ?? '/';
  try {
    return /^https?:\/\//i.test(raw) ? new URL(raw) : new URL(`http://x${raw.startsWith('/') ? '' : '/'}${raw}`);
  } catch {
    throw new WebError(
      400,
      'usage',
      `"${raw.slice(0, 80)}" is not a URL path this inbox can read; open the inbox page at its own address.`,
    );
  }
}

/** The item a notification's link names (`?item=ID`), kept through sign-in. */
function linkedItem(request: IncomingMessage): string | undefined {
  const item = target(request.url).searchParams.get('item');
  return item !== null && /^[\w.:-]{1,200}$/.test(item) ? item : undefined;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new WebError(
      400,
      'usage',
      `"${segment.slice(0, 80)}" is not a well-formed path segment; percent-encode ids with encodeURIComponent.`,
    );
  }
}

function allow(method: string, ...methods: string[]): void {
  if (!methods.includes(method))
    throw new WebError(405, 'method_not_allowed', `${method} is not allowed here; use ${methods.join(' or ')}.`);
}

/** The signed-in person as the inbox checks answers: their name as `by`, and their groups. */
function answerer(person: Person): { readonly by: string; readonly groups: readonly string[] } {
  return { by: person.name, groups: person.groups };
}
