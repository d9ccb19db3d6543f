import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wardrik, type InboxWeb, type InboxWebOptions, type WardrikEvent } from '../../src/index.js';
import { seed, type Seeded } from '../cli/helpers.js';

export const TOKEN = 'test-token-0123456789abcdef';

/** A fresh SQLite store file per call, all under one temporary folder removed by `removeAll`. */
export function sqliteStores() {
  const dir = mkdtempSync(join(tmpdir(), 'wardrik-web-'));
  let n = 0;
  return {
    url: () => `sqlite:${join(dir, `store-${++n}`, 'wardrik.db')}`,
    removeAll: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * What the web tests run against: a node that offers the shop's tools and parked calls of every kind
 * (`seed`), and an inbox server on the same store in a second Wardrik that offers no tools, as
 * `wardrik web` runs it. `base` is the page's URL.
 */
export interface WebRig {
  readonly seeded: Seeded;
  readonly server: Wardrik;
  readonly web: InboxWeb;
  readonly base: string;
  readonly events: WardrikEvent[];
  close(): Promise<void>;
}

export async function webRig(url: string, options: InboxWebOptions = { token: TOKEN }): Promise<WebRig> {
  const seeded = await seed(url);
  const server = await Wardrik.create({ store: url, recoverMs: Infinity });
  const events: WardrikEvent[] = [];
  const subscription = server.events$.subscribe((event) => events.push(event));
  const web = server.inboxWeb(options);
  const { url: base } = await web.listen();
  return {
    seeded,
    server,
    web,
    base,
    events,
    async close() {
      subscription.unsubscribe();
      await server.close();
      await seeded.node.close();
    },
  };
}

/** A script's session: signs in with the form, then sends the cookie and CSRF token as the page does. */
export async function signIn(base: string, name = 'Dana', token = TOKEN) {
  const response = await fetch(new URL('sign-in', base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(base).origin },
    body: new URLSearchParams({ token, name }).toString(),
    redirect: 'manual',
  });
  if (response.status !== 303) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  const session = (await (await fetch(new URL('api/session', base), { headers: { cookie } })).json()) as {
    csrfToken: string;
    csrfHeader: string;
    person: string;
  };
  return {
    setCookie,
    cookie,
    csrf: session.csrfToken,
    get: (path: string) => fetch(new URL(path, base), { headers: { cookie } }),
    /** A POST as the page sends it: JSON, cookie, CSRF token, same origin. */
    post: (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(new URL(path, base), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          cookie,
          [session.csrfHeader]: session.csrfToken,
          origin: new URL(base).origin,
          ...headers,
        },
        body: JSON.stringify(body),
      }),
  };
}

/** A request with exactly the headers given (fetch sets Host itself); resolves to its status and body. */
export function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
