import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { ConfigurationError, Tokens, Wardrik } from '../../src/index.js';
import { json, wardrik as cli } from '../cli/helpers.js';
import { signIn, sqliteStores, TOKEN, webRig, type WebRig } from './helpers.js';

const stores = sqliteStores();
after(() => stores.removeAll());

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

describe('The inbox web API', () => {
  let rig: WebRig;
  let url: string;
  beforeEach(async () => {
    url = stores.url();
    rig = await webRig(url);
  });
  afterEach(() => rig.close());

  describe('without a session', () => {
    it('answers every API route with 401 and JSON that says how to sign in', async () => {
      for (const path of [
        'api/items',
        'api/session',
        `api/items/${rig.seeded.batch.approval}`,
        `api/runs/${rig.seeded.batch.run}`,
      ]) {
        const response = await fetch(new URL(path, rig.base));
        assert.equal(response.status, 401, path);
        const body = (await response.json()) as ErrorBody;
        assert.equal(body.error.code, 'unauthenticated');
        assert.match(body.error.message, /Sign in first/);
      }
      const post = await fetch(new URL(`api/items/${rig.seeded.batch.approval}/approve`, rig.base), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(post.status, 401);
      assert.equal((await rig.seeded.node.inbox.get(rig.seeded.batch.approval))?.status, 'pending');
    });

    it('reads a path that starts with two slashes as a path, not as a host: 404, never the page, the API or a 500', async () => {
      const origin = new URL(rig.base).origin;
      const bearer = { authorization: `Bearer ${TOKEN}` };
      for (const path of [
        '///',
        '//evil.example/',
        '//evil.example/api/items',
        '/\\evil.example/api/items',
        '//api/items?x=1',
      ]) {
        const response = await fetch(`${origin}${path}`, { headers: bearer, redirect: 'manual' });
        assert.equal(response.status, 404, path);
        assert.equal(((await response.json()) as ErrorBody).error.code, 'not_found', path);
        assert.ok(response.headers.get('content-security-policy'), path);
      }
      assert.deepEqual(
        rig.events.filter((event) => event.type === 'warning'),
        [],
      );
      assert.equal((await fetch(`${origin}/api/items?status=answered`, { headers: bearer })).status, 200);
    });

    it('sends a browser that opens sign-in itself (a reload or a copied address after a wrong token) to the page', async () => {
      const response = await fetch(new URL('sign-in?item=abc-1', rig.base), { redirect: 'manual' });
      assert.deepEqual([response.status, response.headers.get('location')], [303, './?item=abc-1']);
      assert.ok(response.headers.get('content-security-policy'));
    });

    it('shows the sign-in form, whose field is named token, with a CSP that runs no inline script', async () => {
      const response = await fetch(rig.base);
      assert.equal(response.status, 401);
      const html = await response.text();
      assert.match(html, /<input id="token" name="token" type="password"/);
      assert.doesNotMatch(html, /<script/);
      const csp = response.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.match(csp, /frame-ancestors 'none'/);
    });

    it('sends the CSP, no-store and no-framing headers on every response: pages, script, JSON, errors', async () => {
      const session = await signIn(rig.base);
      const responses = await Promise.all([
        fetch(rig.base),
        fetch(new URL('inbox.js', rig.base)),
        fetch(new URL('inbox.css', rig.base)),
        fetch(new URL('api/items', rig.base)),
        fetch(new URL('nowhere', rig.base)),
        fetch(new URL('inbox.js', rig.base), { method: 'POST' }),
        session.get(''),
        session.get('api/items'),
        session.get('api/nowhere'),
        session.post(`api/items/${rig.seeded.batch.approval}/approve`, { digest: 'nope' }),
      ]);
      assert.deepEqual(
        responses.map((response) => response.status),
        [401, 200, 200, 401, 404, 405, 200, 200, 404, 400],
      );
      for (const response of responses) {
        assert.equal(
          response.headers.get('content-security-policy'),
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
          response.url,
        );
        assert.equal(response.headers.get('x-frame-options'), 'DENY');
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      }
      // No inline script and no inline event handlers: the page's one script is the file.
      assert.doesNotMatch(await responses[6]!.text(), /<script>|\son[a-z]+=/i);
    });

    it('refuses a wrong token, and after ten wrong tries from one address still lets the right one in', async () => {
      const form = (token: string) =>
        fetch(new URL('sign-in', rig.base), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `token=${token}`,
          redirect: 'manual',
        });
      const wrong = await form('nope');
      assert.equal(wrong.status, 401);
      assert.match(await wrong.text(), /That token is not this inbox/);
      assert.equal(wrong.headers.get('set-cookie'), null);
      for (let i = 0; i < 9; i++) await form('nope');
      const right = await form(TOKEN);
      assert.equal(right.status, 303);
      assert.match(right.headers.get('set-cookie') ?? '', /^wardrik_session=/);
    });

    it('lets the right token in, as a bearer token and at the form, after ten wrong bearer tokens from the same address', async () => {
      const bearer = (token: string) =>
        fetch(new URL('api/items', rig.base), { headers: { authorization: `Bearer ${token}` } });
      for (let i = 0; i < 10; i++) assert.equal((await bearer(`guess-${i}`)).status, 401);
      assert.equal((await bearer(TOKEN)).status, 200);
      const form = await fetch(new URL('sign-in', rig.base), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=${TOKEN}`,
        redirect: 'manual',
      });
      assert.equal(form.status, 303);
    });
  });

  describe('signing in', () => {
    it('exchanges the token for an HttpOnly, SameSite=Strict session cookie naming the person', async () => {
      const session = await signIn(rig.base, 'Dana');
      assert.match(
        session.setCookie,
        /^wardrik_session=[\w-]{20,}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Strict$/,
      );
      const me = (await (await session.get('api/session')).json()) as { person: string; csrfToken: string };
      assert.equal(me.person, 'Dana');
      assert.equal(me.csrfToken, session.csrf);
    });

    it('ends the session on sign-out', async () => {
      const session = await signIn(rig.base);
      assert.equal((await session.post('sign-out', {})).status, 200);
      assert.equal((await session.get('api/items')).status, 401);
    });

    it('takes the token as a bearer token from scripts, which need no CSRF token', async () => {
      const response = await fetch(new URL(`api/items/${rig.seeded.batch.park}/deny`, rig.base), {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'scripted' }),
      });
      assert.equal(response.status, 200);
      assert.equal((await rig.seeded.node.inbox.get(rig.seeded.batch.park))?.by, 'token holder');
    });
  });

  describe('reading', () => {
    it('lists the pending items with their exact arguments, labels, digest and age', async () => {
      const session = await signIn(rig.base);
      const { items } = (await (await session.get('api/items')).json()) as {
        items: {
          id: string;
          kind: string;
          arguments: unknown;
          labels: string[];
          digest: string;
          ageMs: number;
          status: string;
        }[];
      };
      assert.deepEqual(items.map((item) => item.kind).sort(), ['approval', 'approval', 'in_doubt', 'park']);
      const turn = items.find((item) => item.id === rig.seeded.turn.approval)!;
      assert.deepEqual(turn.arguments, { id: 'ord_1' });
      assert.deepEqual(turn.labels, ['outside']);
      assert.equal(turn.status, 'pending');
      assert.equal(turn.digest, (await rig.seeded.node.inbox.get(turn.id))?.digest);
      assert.ok(turn.ageMs >= 0);
    });

    it('reads a run exactly as `wardrik show --json` prints it', async () => {
      const session = await signIn(rig.base);
      const response = await session.get(`api/runs/${encodeURIComponent(rig.seeded.turn.run)}`);
      assert.equal(response.status, 200);
      const fromWeb = await response.json();
      const { store: _store, ...fromCli } = json(await cli(['--store', url, 'show', rig.seeded.turn.run, '--json']));
      assert.deepEqual(fromWeb, fromCli);
      assert.equal((await session.get('api/runs/no-such-run')).status, 404);
    });

    it('lists answered items, most recently answered first, with who answered', async () => {
      const session = await signIn(rig.base, 'Dana');
      await session.post(`api/items/${rig.seeded.batch.park}/deny`, { reason: 'first' });
      await session.post(`api/items/${rig.seeded.batch.approval}/deny`, { reason: 'second' });
      const { items } = (await (await session.get('api/items?status=answered')).json()) as {
        items: { id: string; status: string; by: string }[];
      };
      assert.deepEqual(
        items.map((item) => [item.id, item.status, item.by]),
        [
          [rig.seeded.batch.approval, 'denied', 'Dana'],
          [rig.seeded.batch.park, 'denied', 'Dana'],
        ],
      );
      assert.equal((await session.get('api/items?status=everything')).status, 400);
    });
  });

  describe('approving', () => {
    it('records the approval with the person as by; the node that offers the tool runs it once', async () => {
      const session = await signIn(rig.base, 'Dana');
      const item = await rig.seeded.node.inbox.get(rig.seeded.batch.approval);
      const response = await session.post(`api/items/${item!.id}/approve`, { digest: item!.digest });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { status: string; by: string; pending: boolean; tool: string };
      assert.deepEqual([body.status, body.by, body.pending, body.tool], ['approved', 'Dana', true, 'shop/refund']);
      assert.deepEqual(rig.seeded.ran, []);
      await rig.seeded.node.recover();
      await rig.seeded.node.recover();
      assert.deepEqual(rig.seeded.ran, ['refund:ord_2']);
      const answered = await rig.seeded.node.inbox.get(item!.id);
      assert.deepEqual([answered?.status, answered?.by], ['approved', 'Dana']);
    });

    it("refuses a digest other than the call's and a missing one; nothing is recorded", async () => {
      const session = await signIn(rig.base);
      const id = rig.seeded.batch.approval;
      const wrong = await session.post(`api/items/${id}/approve`, { digest: 'a'.repeat(64) });
      assert.equal(wrong.status, 409);
      assert.match(
        ((await wrong.json()) as ErrorBody).error.message,
        /the approval was for other arguments .*nothing ran/,
      );
      const missing = await session.post(`api/items/${id}/approve`, {});
      assert.equal(missing.status, 400);
      assert.match(
        ((await missing.json()) as ErrorBody).error.message,
        /Approve with the digest of the arguments you reviewed/,
      );
      assert.equal((await rig.seeded.node.inbox.get(id))?.status, 'pending');
    });

    it('answers a second approval with 409, saying who answered and when', async () => {
      const dana = await signIn(rig.base, 'Dana');
      const lee = await signIn(rig.base, 'Lee');
      const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.approval))!;
      assert.equal((await dana.post(`api/items/${item.id}/approve`, { digest: item.digest })).status, 200);
      const second = await lee.post(`api/items/${item.id}/approve`, { digest: item.digest });
      assert.equal(second.status, 409);
      const body = (await second.json()) as ErrorBody;
      assert.equal(body.error.code, 'conflict');
      assert.match(
        body.error.message,
        new RegExp(
          `Inbox item "${item.id}" was already approved by Dana at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z; nothing was done`,
        ),
      );
    });

    it('records exactly one of many approvals sent at the same moment', async () => {
      const people = await Promise.all(['A', 'B', 'C', 'D'].map((name) => signIn(rig.base, name)));
      const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.approval))!;
      const statuses = await Promise.all(
        people.map(
          async (person) => (await person.post(`api/items/${item.id}/approve`, { digest: item.digest })).status,
        ),
      );
      assert.deepEqual(statuses.sort(), [200, 409, 409, 409]);
      await rig.seeded.node.recover();
      assert.deepEqual(rig.seeded.ran, ['refund:ord_2']);
    });

    it('refuses to approve a park or a call in doubt, saying how to answer it', async () => {
      const session = await signIn(rig.base);
      for (const id of [rig.seeded.batch.park, rig.seeded.batch.inDoubt]) {
        const item = (await rig.seeded.node.inbox.get(id))!;
        const response = await session.post(`api/items/${id}/approve`, { digest: item.digest });
        assert.equal(response.status, 400);
        assert.match(((await response.json()) as ErrorBody).error.message, /not an approval, so it cannot be approved/);
      }
      assert.equal((await session.post('api/items/no-such-item/approve', { digest: 'a'.repeat(64) })).status, 404);
    });
  });

  describe('denying and answering', () => {
    it('needs a reason to deny, and the model reads it when the turn goes on', async () => {
      const session = await signIn(rig.base, 'Dana');
      const id = rig.seeded.turn.approval;
      assert.equal((await session.post(`api/items/${id}/deny`, { reason: '   ' })).status, 400);
      const response = await session.post(`api/items/${id}/deny`, { reason: 'Over 30 days' });
      assert.equal(response.status, 200);
      const agent = rig.seeded.node.agents.get('support')!;
      const next = agent.result(rig.seeded.turn.run);
      await rig.seeded.node.recover();
      await next;
      const steps = await rig.seeded.node.container.resolve(Tokens.Store).listSteps(rig.seeded.turn.run);
      const tools = steps
        .map((step) => step.data as { kind: string; results?: { text: string; error: boolean }[] })
        .filter((data) => data.kind === 'tools');
      assert.deepEqual(
        tools.at(-1)?.results?.map((result) => [result.text, result.error]),
        [['A person (Dana) refused this call: Over 30 days', true]],
      );
      assert.deepEqual(rig.seeded.ran, []);
    });

    it("gives a tool's own park the value as its answer", async () => {
      const session = await signIn(rig.base, 'Dana');
      const response = await session.post(`api/items/${rig.seeded.batch.park}/answer`, {
        value: { amountCents: 1200 },
      });
      assert.equal(response.status, 200);
      const call = await rig.seeded.node.container.resolve(Tokens.Store).getCall(rig.seeded.batch.run, 'c2');
      assert.deepEqual(call?.answer, { status: 'ok', output: { amountCents: 1200 }, labels: ['outside'] });
    });

    it('runs a call in doubt that did not happen once, on the node that offers it, and refuses an answer of the wrong shape', async () => {
      const session = await signIn(rig.base);
      const id = rig.seeded.batch.inDoubt;
      const bad = await session.post(`api/items/${id}/answer`, { value: 'yes' });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as ErrorBody).error.message, /say whether it happened/);
      const response = await session.post(`api/items/${id}/answer`, { value: { happened: false } });
      assert.equal(((await response.json()) as { status: string }).status, 'approved');
      await rig.seeded.node.recover();
      await rig.seeded.node.recover();
      assert.deepEqual(rig.seeded.ran, ['email:a@example.com']);
    });
  });

  describe('state-changing requests', () => {
    it('refuses a POST without the CSRF token, and one from another origin even with it', async () => {
      const session = await signIn(rig.base);
      const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.approval))!;
      const path = `api/items/${item.id}/approve`;
      const noToken = await fetch(new URL(path, rig.base), {
        method: 'POST',
        headers: { cookie: session.cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ digest: item.digest }),
      });
      assert.equal(noToken.status, 403);
      assert.equal(((await noToken.json()) as ErrorBody).error.code, 'csrf');
      const otherOrigin = await session.post(path, { digest: item.digest }, { origin: 'http://evil.example' });
      assert.equal(otherOrigin.status, 403);
      assert.equal(((await otherOrigin.json()) as ErrorBody).error.code, 'cross_site');
      const crossSite = await session.post(path, { digest: item.digest }, { 'sec-fetch-site': 'cross-site' });
      assert.equal(crossSite.status, 403);
      assert.equal((await rig.seeded.node.inbox.get(item.id))?.status, 'pending');
    });

    it('takes only JSON bodies, of at most 1 MB, nested at most 64 deep', async () => {
      const session = await signIn(rig.base);
      const path = `api/items/${rig.seeded.batch.park}/answer`;
      const form = await session.post(path, {}, { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(form.status, 415);
      const big = await session.post(path, { value: 'x'.repeat(1024 * 1024) });
      assert.equal(big.status, 413);
      let deep: unknown = 1;
      for (let i = 0; i < 100; i++) deep = [deep];
      const nested = await session.post(path, { value: deep });
      assert.equal(nested.status, 400);
      assert.match(((await nested.json()) as ErrorBody).error.message, /nested more than 64 levels/);
      assert.equal((await rig.seeded.node.inbox.get(rig.seeded.batch.park))?.status, 'pending');
    });
  });
});

describe('The inbox web API behind a TLS proxy', () => {
  it("takes sign-ins and answers from publicUrl's origin when the proxy does not pass the Host the browser used", async () => {
    // The guide: "put it behind your TLS proxy and pass --public-url". A proxy such as nginx sends its upstream's
    // address as Host (fetch sends 127.0.0.1:PORT here), while the browser's Origin is the public one.
    const rig = await webRig(stores.url(), { token: TOKEN, publicUrl: 'https://ops.example.com/inbox/' });
    try {
      const origin = 'https://ops.example.com';
      const form = await fetch(new URL('sign-in', rig.base), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin, 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ token: TOKEN, name: 'Dana' }).toString(),
        redirect: 'manual',
      });
      assert.equal(form.status, 303, await form.clone().text());
      const session = await signIn(rig.base, 'Dana');
      const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.park))!;
      const denied = await session.post(`api/items/${item.id}/deny`, { reason: 'not now' }, { origin });
      assert.equal(denied.status, 200, await denied.clone().text());
      // Another site is still another site.
      const other = await session.post(
        `api/items/${rig.seeded.batch.approval}/deny`,
        { reason: 'x' },
        { origin: 'https://evil.example' },
      );
      assert.equal(other.status, 403);
    } finally {
      await rig.close();
    }
  });
});

describe('The inbox web API mounted in an app', () => {
  let app: Server;
  let appUrl: string;
  let rig: WebRig;
  beforeEach(async () => {
    // The app's own login: a header its gateway sets. Whatever it returns is the person.
    const authenticate = (request: IncomingMessage) =>
      (request.headers['x-app-user'] as string | undefined) ?? undefined;
    rig = await webRig(stores.url(), { authenticate, basePath: '/ops/inbox' });
    app = createServer((request, response) => {
      if (request.url?.startsWith('/ops/inbox')) return rig.web.handler(request, response);
      response.end('the app');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await new Promise((resolve) => app.close(resolve));
    await rig.close();
  });

  it("lets the app's login decide: nobody gets 401, a person answers as themselves", async () => {
    assert.equal((await fetch(`${appUrl}/ops/inbox/api/items`)).status, 401);
    const page = await fetch(`${appUrl}/ops/inbox/`);
    assert.equal(page.status, 401);
    assert.match(await page.text(), /Sign in to the app first/);
    const asDana = { 'x-app-user': 'dana@example.com' };
    assert.equal((await fetch(`${appUrl}/ops/inbox/`, { headers: asDana })).status, 200);
    const session = (await (await fetch(`${appUrl}/ops/inbox/api/session`, { headers: asDana })).json()) as {
      person: string;
      csrfToken: string;
      signOut: boolean;
    };
    assert.deepEqual([session.person, session.signOut], ['dana@example.com', false]);
    const response = await fetch(`${appUrl}/ops/inbox/api/items/${rig.seeded.batch.park}/deny`, {
      method: 'POST',
      headers: { ...asDana, 'content-type': 'application/json', 'x-wardrik-csrf': session.csrfToken, origin: appUrl },
      body: JSON.stringify({ reason: 'not today' }),
    });
    assert.equal(response.status, 200);
    assert.equal((await rig.seeded.node.inbox.get(rig.seeded.batch.park))?.by, 'dana@example.com');
    // Another person's CSRF token is not Dana's.
    const other = (await (
      await fetch(`${appUrl}/ops/inbox/api/session`, { headers: { 'x-app-user': 'lee' } })
    ).json()) as { csrfToken: string };
    assert.notEqual(other.csrfToken, session.csrfToken);
  });

  it("redirects the mount path to itself with a closing slash, so the page's links stay under it", async () => {
    const response = await fetch(`${appUrl}/ops/inbox`, { redirect: 'manual', headers: { 'x-app-user': 'dana' } });
    assert.equal(response.status, 308);
    assert.equal(response.headers.get('location'), '/ops/inbox/');
    const script = await fetch(`${appUrl}/ops/inbox/inbox.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /text\/javascript/);
  });

  it('answers 404 to a path that climbs out of basePath with .. (plain or percent-encoded), rather than serving it from the root', async () => {
    // An app that hands the inbox every URL starting with its path, as this one does, passes these on as they came.
    const raw = (path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        get(
          { host: '127.0.0.1', port: new URL(appUrl).port, path, headers: { 'x-app-user': 'dana@example.com' } },
          (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          },
        ).on('error', reject);
      });
    for (const path of [
      '/ops/inbox/../../api/items',
      '/ops/inbox/%2e%2e/%2E%2E/api/items',
      '/ops/inbox/..',
      '/ops/inbox/../inbox.js',
    ]) {
      const response = await raw(path);
      assert.equal(response.status, 404, path);
      assert.doesNotMatch(response.body, /"items"|<!doctype/i, path);
    }
    assert.equal((await raw('/ops/inbox/x/../api/items')).status, 200);
  });

  it('refuses sign-in with a token when the app decides', async () => {
    const response = await fetch(`${appUrl}/ops/inbox/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${TOKEN}`,
    });
    assert.equal(response.status, 404);
  });
});

describe("The app's authenticate", () => {
  it('has its names recorded as one printable line, as sign-in names are: no terminal escapes or line breaks in `by`', async () => {
    // A display name people may edit in the app: `wardrik inbox` prints `by` to an operator's terminal.
    const rig = await webRig(stores.url(), {
      authenticate: () => 'Eve\u001b]0;owned\u0007\nApproved by: the CEO\u202e',
    });
    try {
      const session = (await (await fetch(new URL('api/session', rig.base))).json()) as {
        person: string;
        csrfToken: string;
      };
      assert.equal(session.person, 'Eve ]0;owned  Approved by: the CEO');
      const response = await fetch(new URL(`api/items/${rig.seeded.batch.park}/deny`, rig.base), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-wardrik-csrf': session.csrfToken,
          origin: new URL(rig.base).origin,
        },
        body: JSON.stringify({ reason: 'no' }),
      });
      assert.equal(response.status, 200);
      assert.equal((await rig.seeded.node.inbox.get(rig.seeded.batch.park))?.by, 'Eve ]0;owned  Approved by: the CEO');
    } finally {
      await rig.close();
    }
  });

  it('refuses a name over 200 characters, or one that is only control characters, as a mistake in the app, naming it', async () => {
    for (const name of ['x'.repeat(201), '\u0000\u0007']) {
      const rig = await webRig(stores.url(), { authenticate: () => name });
      try {
        const response = await fetch(new URL('api/items', rig.base));
        assert.equal(response.status, 500);
        assert.match(
          ((await response.json()) as ErrorBody).error.message,
          /authenticate returned .*; return a name of 1 to 200 printable characters, or nothing/,
        );
      } finally {
        await rig.close();
      }
    }
  });
});

describe('The inbox web API mounted the way Express mounts a handler', () => {
  it('routes under the mount path Express strips into originalUrl, and sets the session cookie on that path', async () => {
    const rig = await webRig(stores.url());
    // What `app.use('/inbox', web.handler)` does: url loses the mount path, originalUrl keeps the whole.
    const app = createServer((request, response) => {
      if (!request.url?.startsWith('/inbox')) {
        response.end('the app');
        return;
      }
      Object.assign(request, { originalUrl: request.url, url: request.url.slice('/inbox'.length) || '/' });
      rig.web.handler(request, response);
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}/inbox/`;
    try {
      const bare = await fetch(base.slice(0, -1), { redirect: 'manual' });
      assert.deepEqual([bare.status, bare.headers.get('location')], [308, '/inbox/']);
      const session = await signIn(base, 'Dana');
      assert.match(session.setCookie, /; Path=\/inbox;/);
      const { items } = (await (await session.get('api/items')).json()) as { items: unknown[] };
      assert.equal(items.length, 4);
      const response = await session.post(`api/items/${rig.seeded.batch.park}/deny`, { reason: 'no' });
      assert.equal(response.status, 200);
    } finally {
      await new Promise((resolve) => app.close(resolve));
      await rig.close();
    }
  });
});

describe('inboxWeb options', () => {
  it('refuses a short token, a bad webhook and a bad publicUrl at once, naming the fix', async () => {
    const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
    try {
      assert.throws(
        () => wardrik.inboxWeb({ token: 'short' }),
        (error: unknown) => error instanceof ConfigurationError && /at least 16 characters/.test(error.message),
      );
      assert.throws(
        () => wardrik.inboxWeb({ notify: { webhook: { url: 'ftp://x', secret: 'x'.repeat(16) } } }),
        /not an http\(s\) URL/,
      );
      assert.throws(
        () => wardrik.inboxWeb({ notify: { webhook: { url: 'http://127.0.0.1:1/', secret: 'short' } } }),
        /secret must be at least 16 characters/,
      );
      assert.throws(() => wardrik.inboxWeb({ publicUrl: 'not a url' }), /publicUrl "not a url" is not a URL/);
      assert.throws(
        () =>
          wardrik.inboxWeb({
            notify: { webhook: { url: 'http://127.0.0.1:1/', secret: 'x'.repeat(16), retry: { baseDelayMs: -5 } } },
          }),
        /retry\.baseDelayMs must be a number of milliseconds of at least 1; got -5/,
      );
      assert.throws(() => wardrik.inboxWeb({ basePath: 'inbox' }), /basePath "inbox" is not a URL path/);
      const web = wardrik.inboxWeb();
      assert.equal(web.tokenGenerated, true);
      assert.ok((web.token ?? '').length >= 32);
    } finally {
      await wardrik.close();
    }
  });
});
