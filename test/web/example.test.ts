import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startOpsApp } from '../../examples/web/inbox-behind-login.js';
import { sqliteStores } from './helpers.js';

const stores = sqliteStores();
after(() => stores.removeAll());

describe('The mounted-inbox example', () => {
  it("serves the inbox under /ops/inbox to the app's signed-in users only, and records them as by", async () => {
    const app = await startOpsApp({ store: stores.url() });
    try {
      const parked = await app.wardrik.runner.run({
        agent: 'support',
        run: 'r1',
        call: { id: 'c1', name: 'shop__refund', arguments: { orderId: 'ord_7' } },
      });
      assert.equal(parked.status, 'parked');
      assert.equal((await fetch(`${app.url}/ops/inbox/api/items`)).status, 401);
      const login = await fetch(`${app.url}/login?user=dana`, { method: 'POST', redirect: 'manual' });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
      const page = await fetch(`${app.url}/ops/inbox/`, { headers: { cookie } });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<script src="inbox.js" defer><\/script>/);
      const session = (await (await fetch(`${app.url}/ops/inbox/api/session`, { headers: { cookie } })).json()) as {
        person: string;
        csrfToken: string;
      };
      assert.equal(session.person, 'dana');
      const [item] = await app.wardrik.inbox.list();
      const response = await fetch(`${app.url}/ops/inbox/api/items/${item!.id}/approve`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', 'x-wardrik-csrf': session.csrfToken, origin: app.url },
        body: JSON.stringify({ digest: item!.digest }),
      });
      // This app's Wardrik offers the tool, so the approval runs the call here, at once.
      assert.deepEqual(await response.json(), {
        id: item!.id,
        status: 'approved',
        by: 'dana',
        kind: 'approval',
        tool: 'shop/refund',
        agent: 'support',
        run: 'r1',
        call: 'c1',
        pending: false,
        answer: { status: 'ok', output: { refunded: 'ord_7' }, labels: ['confidential'] },
      });
    } finally {
      await app.close();
    }
  });
});
