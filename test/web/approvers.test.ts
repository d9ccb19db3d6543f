import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { financeDesk, PEOPLE, type Listed } from './finance-desk.js';
import { sqliteStores } from './helpers.js';

const stores = sqliteStores();
after(() => stores.removeAll());

describe('The web inbox holds answers to who may answer', () => {
  it('lists each item with whether the person may answer it, and why not', async () => {
    const desk = await financeDesk(stores.url(), { people: PEOPLE });
    try {
      const id = await desk.park('ana');
      const seen = async (who: string) =>
        ((await desk.as(who).get('api/items')).body.items as Listed[]).find((item) => item.id === id)!;
      const bob = await seen('bob');
      assert.equal(bob.mayAnswer, false);
      assert.match(bob.notYours!, /bob is not in "finance-leads" \(their groups: support\)/);
      assert.match(
        bob.whoMayAnswer!,
        /a person in "finance-leads", other than ana \(who asked for it\); 2 such people/,
      );
      const ana = await seen('ana');
      assert.equal(ana.mayAnswer, false);
      assert.match(ana.notYours!, /ana asked for this call/);
      assert.equal((await seen('carla')).mayAnswer, true);
      assert.equal(((await desk.as('carla').get(`api/items/${id}`)).body as unknown as Listed).mayAnswer, true);
    } finally {
      await desk.close();
    }
  });

  it('refuses with 403 an answer from outside the groups or from the requester, saying who may answer', async () => {
    const desk = await financeDesk(stores.url(), { people: PEOPLE });
    try {
      const id = await desk.park('ana');
      const digest = ((await desk.as('carla').get(`api/items/${id}`)).body as { digest: string }).digest;
      for (const [who, verb, body, why] of [
        ['bob', 'approve', { digest }, /bob is not in "finance-leads"/],
        ['bob', 'deny', { reason: 'no' }, /bob is not in "finance-leads"/],
        ['ana', 'approve', { digest }, /ana asked for this call, and may not answer it themselves/],
      ] as const) {
        const refused = await desk.as(who).post(`api/items/${id}/${verb}`, body);
        assert.equal(refused.status, 403, `${who} ${verb}`);
        const error = refused.body.error as { code: string; message: string };
        assert.equal(error.code, 'not_permitted');
        assert.match(error.message, why);
        assert.match(error.message, /Who may answer it: a person in "finance-leads"/);
      }
      assert.deepEqual(desk.paid, []);
    } finally {
      await desk.close();
    }
  });

  it('records a first approval toward the quorum, and lets the call run after the second', async () => {
    const desk = await financeDesk(stores.url(), { people: PEOPLE });
    try {
      const id = await desk.park('ana');
      const digest = ((await desk.as('carla').get(`api/items/${id}`)).body as { digest: string }).digest;
      const first = await desk.as('carla').post(`api/items/${id}/approve`, { digest });
      assert.equal(first.status, 200);
      assert.deepEqual([first.body.approvals, first.body.quorum, first.body.pending], [1, 2, true]);
      assert.match(String((first.body.answer as { reason: string }).reason), /carla approved this call \(1 of 2\)/);
      const again = await desk.as('carla').post(`api/items/${id}/approve`, { digest });
      assert.equal(again.status, 409);
      const second = await desk.as('dave').post(`api/items/${id}/approve`, { digest });
      assert.equal(second.status, 200);
      assert.deepEqual([second.body.approvals, second.body.quorum, second.body.status], [2, 2, 'approved']);
      // The inbox's Wardrik offers no tool: the node that offers it runs the approved call at its recovery.
      await desk.node.runner.recover();
      assert.deepEqual(desk.paid, [700]);
    } finally {
      await desk.close();
    }
  });

  it("takes the person and their groups from the app's authenticate", async () => {
    const desk = await financeDesk(
      stores.url(),
      {
        authenticate: (request) => {
          const who = String(request.headers['x-user'] ?? '');
          return who === '' ? undefined : { id: who, groups: who === 'erin' ? ['finance-leads'] : [] };
        },
      },
      1,
    );
    try {
      const id = await desk.park('ana');
      const session = await fetch(new URL('api/session', desk.base), { headers: { 'x-user': 'erin' } });
      const { csrfToken, groups } = (await session.json()) as { csrfToken: string; groups: string[] };
      assert.deepEqual(groups, ['finance-leads']);
      const item = (await (
        await fetch(new URL(`api/items/${id}`, desk.base), { headers: { 'x-user': 'erin' } })
      ).json()) as { digest: string };
      const frank = await fetch(new URL(`api/items/${id}/approve`, desk.base), {
        method: 'POST',
        headers: {
          'x-user': 'frank',
          'content-type': 'application/json',
          origin: new URL(desk.base).origin,
          'x-wardrik-csrf': (
            (await (await fetch(new URL('api/session', desk.base), { headers: { 'x-user': 'frank' } })).json()) as {
              csrfToken: string;
            }
          ).csrfToken,
        },
        body: JSON.stringify({ digest: item.digest }),
      });
      assert.equal(frank.status, 403);
      const erin = await fetch(new URL(`api/items/${id}/approve`, desk.base), {
        method: 'POST',
        headers: {
          'x-user': 'erin',
          'content-type': 'application/json',
          origin: new URL(desk.base).origin,
          'x-wardrik-csrf': csrfToken,
        },
        body: JSON.stringify({ digest: item.digest }),
      });
      assert.equal(erin.status, 200, await erin.clone().text());
      assert.equal(((await erin.json()) as { by: string }).by, 'erin');
    } finally {
      await desk.close();
    }
  });
});
