import 'reflect-metadata';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import type { HttpServerOptions, InboxWebOptions } from '../../src/index.js';
import { raw, sqliteStores, TOKEN, webRig } from './helpers.js';
import { eventually } from '../eventually.js';

const stores = sqliteStores();
after(() => stores.removeAll());

const bearer = (base: string, token: string, headers: Record<string, string> = {}) =>
  raw(new URL('api/items', base).href, { headers: { authorization: `Bearer ${token}`, ...headers } });
const signInForm = (base: string, token: string, headers: Record<string, string> = {}) =>
  raw(new URL('sign-in', base).href, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: `token=${encodeURIComponent(token)}&name=Dana`,
  });

const withHttp = (http: HttpServerOptions): InboxWebOptions => ({ token: TOKEN, http });

/** A raw connection with a chunked POST to sign-in under way, `bytes` of form sent; `status` resolves with the answer's status (null if closed without one). */
function openSignIn(base: string, bytes: number): { socket: Socket; status: Promise<number | null> } {
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  const status = new Promise<number | null>((resolve) => {
    socket
      .setEncoding('latin1')
      .once('data', (text: string) => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    socket.once('close', () => resolve(null));
  });
  socket.write(
    `POST /sign-in HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/x-www-form-urlencoded\r\ntransfer-encoding: chunked\r\n\r\n`,
  );
  const form = `token=x&name=${'a'.repeat(bytes - 13)}`;
  socket.write(`${Buffer.byteLength(form).toString(16)}\r\n${form}\r\n`);
  return { socket, status };
}

describe('The inbox under abuse', () => {
  describe('wrong tokens', () => {
    it('lets the right bearer token and the right sign-in in after ten wrong tokens from the same address', async () => {
      const rig = await webRig(stores.url());
      try {
        for (let i = 0; i < 5; i++) assert.equal((await bearer(rig.base, `guess-${i}`)).status, 401);
        for (let i = 0; i < 5; i++) assert.equal((await signInForm(rig.base, `guess-${i}`)).status, 401);
        assert.equal((await bearer(rig.base, TOKEN)).status, 200);
        assert.equal((await signInForm(rig.base, TOKEN)).status, 303);
      } finally {
        await rig.close();
      }
    });

    it('holds the answer to a wrong token past the free ones, while a right one sent after it is let in at once', async () => {
      const rig = await webRig(
        stores.url(),
        withHttp({ wrongGuesses: { free: 1, delayMs: 600_000, maxDelayMs: 600_000 } }),
      );
      try {
        assert.equal((await bearer(rig.base, 'guess-1')).status, 401);
        let answered = false;
        const heldOnes = [bearer(rig.base, 'guess-2'), signInForm(rig.base, 'guess-3')].map((sent) =>
          sent.then(
            () => (answered = true),
            () => undefined,
          ),
        );
        // Both wrong guesses reached the server and are counted before the right token is sent.
        await eventually('rig.web.heldGuesses === 2', () => rig.web.heldGuesses === 2);
        assert.equal((await bearer(rig.base, TOKEN)).status, 200);
        assert.equal((await signInForm(rig.base, TOKEN)).status, 303);
        assert.equal(answered, false);
        // Closing the inbox lets the held answers go (and closes their connections).
        await rig.close();
        await Promise.all(heldOnes);
      } finally {
        await rig.close();
      }
    });

    it('cuts a connection that pipelines wrong tokens past the free ones: one held answer per connection', async () => {
      const rig = await webRig(
        stores.url(),
        withHttp({ wrongGuesses: { free: 1, delayMs: 600_000, maxDelayMs: 600_000 } }),
      );
      try {
        const url = new URL(rig.base);
        const socket = connect(Number(url.port), url.hostname);
        socket.on('error', () => {});
        let closed = false;
        socket.once('close', () => (closed = true));
        // Node reads requests pipelined on one connection at once: 20 wrong guesses were held side by side.
        socket.write(`GET /api/items HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer guess\r\n\r\n`.repeat(20));
        await eventually('closed || rig.web.heldGuesses > 1', () => closed || rig.web.heldGuesses > 1);
        assert.equal(closed, true);
        assert.ok(rig.web.heldGuesses <= 1, `${rig.web.heldGuesses} answers held`);
        assert.equal((await bearer(rig.base, TOKEN)).status, 200);
      } finally {
        await rig.close();
      }
    });

    it("never slows a signed-in person whose requests also carry a bearer token that is not ours (an SSO proxy's)", async () => {
      const rig = await webRig(
        stores.url(),
        withHttp({ wrongGuesses: { free: 1, delayMs: 600_000, maxDelayMs: 600_000 } }),
      );
      try {
        const signedIn = await signInForm(rig.base, TOKEN);
        const cookie = String((signedIn.headers['set-cookie'] as string[])[0]).split(';')[0]!;
        for (let i = 0; i < 5; i++) {
          let status: number | undefined;
          const answer = bearer(rig.base, 'proxy-jwt', { cookie }).then((response) => (status = response.status));
          await eventually(
            'status !== undefined || rig.web.heldGuesses > 0',
            () => status !== undefined || rig.web.heldGuesses > 0,
          );
          assert.equal(rig.web.heldGuesses, 0);
          await answer;
          assert.equal(status, 200);
        }
      } finally {
        await rig.close();
      }
    });

    it('counts wrong guesses per client address from the trusted proxy header, and never from a header it was not told to trust', async () => {
      const proxied = await webRig(
        stores.url(),
        withHttp({ trustProxy: 'x-forwarded-for', wrongGuesses: { free: 1, delayMs: 600_000, maxDelayMs: 600_000 } }),
      );
      try {
        assert.equal(
          (await bearer(proxied.base, 'guess', { 'x-forwarded-for': '203.0.113.9, 198.51.100.1' })).status,
          401,
        );
        void bearer(proxied.base, 'guess', { 'x-forwarded-for': '203.0.113.9, 198.51.100.1' }).catch(() => {});
        await eventually('proxied.web.heldGuesses === 1', () => proxied.web.heldGuesses === 1);
        // Another client behind the same proxy: its own first wrong guess is free, its right token is let in.
        assert.equal((await bearer(proxied.base, 'guess', { 'x-forwarded-for': '198.51.100.2' })).status, 401);
        assert.equal((await bearer(proxied.base, TOKEN, { 'x-forwarded-for': '198.51.100.1' })).status, 200);
      } finally {
        await proxied.close();
      }
      assert.deepEqual(
        proxied.events.filter((event) => event.type === 'warning'),
        [],
      );
      const direct = await webRig(
        stores.url(),
        withHttp({ wrongGuesses: { free: 1, delayMs: 600_000, maxDelayMs: 600_000 } }),
      );
      try {
        assert.equal((await bearer(direct.base, 'guess', { 'x-forwarded-for': '198.51.100.3' })).status, 401);
        void bearer(direct.base, 'guess', { 'x-forwarded-for': '198.51.100.4' }).catch(() => {});
        await eventually('direct.web.heldGuesses === 1', () => direct.web.heldGuesses === 1);
        // Said once: a proxy is in front, and every client it forwards is counted as one.
        const warnings = direct.events
          .filter((event) => event.type === 'warning')
          .map((event) => (event as { message: string }).message);
        assert.equal(warnings.length, 1);
        assert.match(
          warnings[0]!,
          /requests come with the x-forwarded-for header, so a proxy is in front, but http\.trustProxy is not set/,
        );
      } finally {
        await direct.close();
      }
    });
  });

  describe('bodies before sign-in', () => {
    it('keeps 400 held-open 1 MB sign-in bodies under 50 MB and answers the page meanwhile: each is refused (413) before it is read', async () => {
      const rig = await webRig(stores.url());
      const child = fork(
        fileURLToPath(new URL('./flood-client.js', import.meta.url)),
        [rig.base, '400', String(1_000_000)],
        { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
      );
      try {
        assert.equal((await raw(rig.base)).status, 401);
        const before = process.memoryUsage().rss;
        const { statuses } = await new Promise<{ statuses: (number | null)[] }>((resolve, reject) => {
          child.once('message', (message) => resolve(message as { statuses: (number | null)[] }));
          child.once('exit', (code) => reject(new Error(`the flood client exited (${code}) before reporting`)));
        });
        const page = await raw(rig.base);
        const grown = process.memoryUsage().rss - before;
        assert.equal(page.status, 401);
        assert.match(page.body, /name="token"/);
        assert.ok(grown < 50 * 1024 * 1024, `memory grew ${Math.round(grown / 1024 / 1024)} MB`);
        assert.deepEqual(new Set(statuses), new Set([413]));
      } finally {
        child.kill('SIGKILL');
        await rig.close();
      }
    });

    it('refuses a chunked sign-in form past a few KB (413) without waiting for the rest', async () => {
      const rig = await webRig(stores.url());
      try {
        const { socket, status } = openSignIn(rig.base, 20_000);
        assert.equal(await status, 413);
        socket.destroy();
      } finally {
        await rig.close();
      }
    });

    it('caps the bytes unauthenticated bodies hold at once across requests (503), and frees them as each ends', async () => {
      const rig = await webRig(stores.url(), withHttp({ maxUnauthenticatedBytes: 8_192 }));
      try {
        const first = openSignIn(rig.base, 3_000);
        const second = openSignIn(rig.base, 3_000);
        await eventually('rig.web.unauthenticatedBytes === 6_000', () => rig.web.unauthenticatedBytes === 6_000);
        const third = openSignIn(rig.base, 3_000);
        assert.equal(await third.status, 503);
        // The first ends: its bytes are given back, and a new form fits again.
        first.socket.end('0\r\n\r\n');
        assert.equal(await first.status, 401);
        await eventually('rig.web.unauthenticatedBytes === 3_000', () => rig.web.unauthenticatedBytes === 3_000);
        const fourth = openSignIn(rig.base, 3_000);
        await eventually('rig.web.unauthenticatedBytes === 6_000', () => rig.web.unauthenticatedBytes === 6_000);
        for (const held of [second, third, fourth]) held.socket.destroy();
      } finally {
        await rig.close();
      }
    });
  });

  describe('slow and many connections', () => {
    it('cuts a client whose headers do not arrive within headersTimeoutMs', async () => {
      const rig = await webRig(stores.url(), withHttp({ headersTimeoutMs: 200, requestTimeoutMs: 200 }));
      try {
        const url = new URL(rig.base);
        const socket = connect(Number(url.port), url.hostname);
        socket.setEncoding('latin1');
        let answer = '';
        socket.on('data', (text: string) => (answer += text));
        socket.write(`GET / HTTP/1.1\r\nhost: ${url.host}\r\nx-slow: `);
        await new Promise((resolve) => socket.once('close', resolve));
        assert.match(answer, /^HTTP\/1\.1 408/);
      } finally {
        await rig.close();
      }
    });

    it('closes connections past maxConnections as they arrive, and serves again once one closes', async () => {
      const rig = await webRig(stores.url(), withHttp({ maxConnections: 2 }));
      try {
        const url = new URL(rig.base);
        const open = async () => {
          const socket = connect(Number(url.port), url.hostname);
          await new Promise((resolve) => socket.once('connect', resolve));
          return socket;
        };
        const held = [await open(), await open()];
        const third = await open();
        await new Promise((resolve) => third.once('close', resolve));
        held[0]!.destroy();
        await eventually(
          '(await raw(rig.base).catch(() => ({ status: 0 }))).status === 401',
          async () => (await raw(rig.base).catch(() => ({ status: 0 }))).status === 401,
        );
        held[1]!.destroy();
      } finally {
        await rig.close();
      }
    });
  });

  describe('Host', () => {
    it('refuses a foreign Host on a loopback bind (DNS rebinding), and takes loopback names and allowedHosts', async () => {
      const rig = await webRig(stores.url());
      try {
        const port = new URL(rig.base).port;
        const foreign = await raw(rig.base, {
          headers: { host: `rebind.example:${port}`, authorization: `Bearer ${TOKEN}` },
        });
        assert.equal(foreign.status, 403);
        assert.match(
          (JSON.parse(foreign.body) as { error: { message: string } }).error.message,
          /^Host "rebind\.example:\d+" is not allowed here \(DNS-rebinding protection\)/,
        );
        assert.equal(
          (
            await raw(new URL('api/items', rig.base).href, {
              headers: { host: `rebind.example:${port}`, authorization: `Bearer ${TOKEN}` },
            })
          ).status,
          403,
        );
        for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'localhost'])
          assert.equal((await raw(rig.base, { headers: { host } })).status, 401, host);
        // A loopback name followed by anything but a port is not a loopback name.
        for (const host of [
          'localhost:1@evil.com',
          '[::1]evil.com',
          '[::1].evil.com',
          'localhost:abc',
          'localhost:99999',
        ]) {
          assert.equal((await raw(rig.base, { headers: { host } })).status, 403, host);
        }
      } finally {
        await rig.close();
      }
      const listed = await webRig(stores.url(), withHttp({ allowedHosts: ['ops.example.com'] }));
      try {
        assert.equal((await raw(listed.base, { headers: { host: 'ops.example.com' } })).status, 401);
        assert.equal((await raw(listed.base, { headers: { host: 'localhost' } })).status, 403);
      } finally {
        await listed.close();
      }
      const published = await webRig(stores.url(), { token: TOKEN, publicUrl: 'https://inbox.example.com/' });
      try {
        assert.equal((await raw(published.base, { headers: { host: 'inbox.example.com' } })).status, 401);
        assert.equal((await raw(published.base, { headers: { host: 'localhost' } })).status, 401);
        assert.equal((await raw(published.base, { headers: { host: 'rebind.example' } })).status, 403);
      } finally {
        await published.close();
      }
    });
  });
});
