import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { ConfigurationError, Wardrik, type InboxPersonOptions, type InboxWebOptions } from '../../src/index.js';
import { seed, wardrik as cli } from '../cli/helpers.js';
import { signIn, sqliteStores, TOKEN, webRig } from './helpers.js';

const stores = sqliteStores();
after(() => stores.removeAll());

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const ANA = 'ana-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const PEOPLE: readonly InboxPersonOptions[] = [
  { id: 'ana', tokenSha256: sha256(ANA) },
  { id: 'Bob Marsh', tokenSha256: sha256(BOB).toUpperCase() },
];

const form = (base: string, token: string, name: string) =>
  fetch(new URL('sign-in', base), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, name }).toString(),
    redirect: 'manual',
  });

describe('Who answers in the inbox', () => {
  describe('with one shared token', () => {
    it("refuses a typed name that looks like Wardrik's own, so nobody answers as Wardrik", async () => {
      const rig = await webRig(stores.url());
      try {
        for (const name of [
          'wardrik (policy.approvalTtlMs)',
          'Wardrik',
          '  WARDRIK (the node running its call stopped)',
          'ｗａｒｄｒｉｋ',
          'war-drik',
          '\u3164wardrik (policy.approvalTtlMs)',
          '\uFFA0wardrik',
          'w\u0430rdrik',
          'wardr\u0131k',
          '\u051Dardrik',
        ]) {
          const response = await form(rig.base, TOKEN, name);
          assert.equal(response.status, 400, name);
          assert.equal(response.headers.get('set-cookie'), null, name);
          assert.match(await response.text(), /looks like a name Wardrik records for itself/, name);
        }
        assert.equal((await form(rig.base, TOKEN, 'Edward Rik')).status, 303);
      } finally {
        await rig.close();
      }
    });

    it("refuses such a name from the app's authenticate as a mistake in the app", async () => {
      const rig = await webRig(stores.url(), { authenticate: () => 'wardrik (policy.approvalTtlMs)' });
      try {
        const response = await fetch(new URL('api/items', rig.base));
        assert.equal(response.status, 500);
        assert.match(
          ((await response.json()) as { error: { message: string } }).error.message,
          /none starting with "wardrik"/,
        );
      } finally {
        await rig.close();
      }
    });
  });

  describe('with named people', () => {
    it('records the person whose token signed in as by, whatever name is typed', async () => {
      const rig = await webRig(stores.url(), { people: PEOPLE });
      try {
        const page = await (await fetch(rig.base)).text();
        assert.match(page, /name="token"/);
        assert.doesNotMatch(page, /name="name"/);
        const session = await signIn(rig.base, 'wardrik (policy.approvalTtlMs)', ANA);
        assert.equal(((await (await session.get('api/session')).json()) as { person: string }).person, 'ana');
        const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.approval))!;
        const approved = (await (
          await session.post(`api/items/${item.id}/approve`, { digest: item.digest })
        ).json()) as { by: string };
        assert.equal(approved.by, 'ana');
        assert.equal((await rig.seeded.node.inbox.get(item.id))?.by, 'ana');
        const denied = await fetch(new URL(`api/items/${rig.seeded.batch.park}/deny`, rig.base), {
          method: 'POST',
          headers: { authorization: `Bearer ${BOB}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'not now' }),
        });
        assert.equal(denied.status, 200);
        assert.equal((await rig.seeded.node.inbox.get(rig.seeded.batch.park))?.by, 'Bob Marsh');
      } finally {
        await rig.close();
      }
    });

    it("refuses a token that is no one's, and the hash of a token given as the token", async () => {
      const rig = await webRig(stores.url(), { people: PEOPLE });
      try {
        for (const token of [TOKEN, sha256(ANA), `${ANA} `]) {
          const response = await form(rig.base, token, 'ana');
          assert.equal(response.status, 401, token);
          assert.match(await response.text(), /That token is no one(&#39;|')s here/);
        }
        assert.equal(
          (await fetch(new URL('api/items', rig.base), { headers: { authorization: `Bearer ${sha256(ANA)}` } })).status,
          401,
        );
      } finally {
        await rig.close();
      }
    });

    it('refuses at start-up a person named like Wardrik, twice listed, sharing a token, with a bad hash or an unknown key, and people beside a shared token', async () => {
      const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
      try {
        const refusals: [unknown, RegExp][] = [
          [
            [{ id: 'Wardrik (policy.approvalTtlMs)', tokenSha256: sha256(ANA) }],
            /people\[0\]\.id "Wardrik \(policy\.approvalTtlMs\)" looks like a name Wardrik records for itself/,
          ],
          [[PEOPLE[0], { id: 'ana', tokenSha256: sha256(BOB) }], /people\[1\]\.id "ana" is listed twice/],
          [[PEOPLE[0], { id: 'eve', tokenSha256: sha256(ANA).toUpperCase() }], /"eve" has the same token as "ana"/],
          [[{ id: 'ana', tokenSha256: 'abc' }], /people\[0\]\.tokenSha256 must be 64 hex digits/],
          // What `printf %s "$TOKEN" | sha256sum` gives with TOKEN unset: an empty form field would sign in as ana.
          [[{ id: 'ana', tokenSha256: sha256('') }], /people\[0\]\.tokenSha256 is the SHA-256 of an empty token/],
          [
            [{ id: 'ana', tokenSha256: sha256(ANA), roles: ['ops'] }],
            /people\[0\] has "roles", which this version of Wardrik does not know/,
          ],
          [
            [{ id: 'ana', tokenSha256: sha256(ANA), groups: 'ops' }],
            /people\[0\]\.groups must be a list of group names/,
          ],
          [
            [{ id: 'ana', tokenSha256: sha256(ANA), groups: [''] }],
            /people\[0\]\.groups must be a list of group names/,
          ],
          [[{ id: 'line\nbreak', tokenSha256: sha256(ANA) }], /people\[0\]\.id must be 1 to 80 printable characters/],
          [[], /people is a list of 1 to 10000 people/],
        ];
        for (const [people, message] of refusals) {
          assert.throws(
            () => wardrik.inboxWeb({ people } as InboxWebOptions),
            (error: unknown) => error instanceof ConfigurationError && message.test(error.message),
            String(message),
          );
        }
        assert.throws(
          () => wardrik.inboxWeb({ people: PEOPLE, token: TOKEN }),
          /both named people and a shared token \(inboxWeb: token\) are given/,
        );
      } finally {
        await wardrik.close();
      }
    });
  });

  describe('at the command line', () => {
    it("refuses --by with a name like Wardrik's own, and answers nothing", async () => {
      const url = stores.url();
      const seeded = await seed(url);
      await seeded.node.close();
      for (const args of [
        ['approve', seeded.batch.approval],
        ['deny', seeded.batch.approval, '--reason', 'no'],
        ['answer', seeded.batch.park, '--json', '1'],
      ]) {
        const result = await cli(['--store', url, ...args, '--by', 'Wardrik (policy.approvalTtlMs)']);
        assert.equal(result.code, 2, args[0]);
        assert.match(result.stderr, /looks like one Wardrik records for itself/, args[0]);
      }
      const listed = await cli(['--store', url, 'inbox', '--json']);
      assert.equal((JSON.parse(listed.stdout) as { items: unknown[] }).items.length, 4);
    });
  });
});
