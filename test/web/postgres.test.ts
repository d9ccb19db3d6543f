import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { Wardrik } from '../../src/index.js';
import { postgresSchemas } from '../cli/helpers.js';
import { signIn, TOKEN, webRig } from './helpers.js';
import { eventually } from '../eventually.js';

const schemas = postgresSchemas();
after(() => schemas.dropAll());

describe('The inbox web API on PostgreSQL', () => {
  it('records an approval that the node offering the tool runs once, and a restarted notifier announces only what it had not', async () => {
    const url = schemas.url();
    const received: string[] = [];
    const hook = createServer((request, response) => {
      received.push(String(request.headers['webhook-id']));
      request.resume().on('end', () => response.writeHead(200).end());
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const webhook = {
      url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`,
      secret: 'webhook-secret-0123456789',
      retry: { baseDelayMs: 5, maxDelayMs: 20 },
    };
    const rig = await webRig(url, { token: TOKEN, pollMs: 20, notify: { webhook } });
    try {
      await eventually('received.length === 4', () => received.length === 4);
      const session = await signIn(rig.base, 'Dana');
      const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.approval))!;
      const response = await session.post(`api/items/${item.id}/approve`, { digest: item.digest });
      assert.equal(((await response.json()) as { pending: boolean }).pending, true);
      await rig.seeded.node.recover();
      await rig.seeded.node.recover();
      assert.deepEqual(rig.seeded.ran, ['refund:ord_2']);
      // A restart: the first notifier stops, an item parks meanwhile, another inbox on the store starts.
      await rig.web.close();
      const parked = await rig.seeded.node.runner.run({
        agent: 'mailer',
        run: 'pg-r1',
        call: { id: 'm1', name: 'shop__send_email', arguments: { to: 'z@example.com' } },
      });
      const id = parked.status === 'parked' ? parked.inboxId : undefined;
      const again = await Wardrik.create({ store: url, recoverMs: Infinity });
      try {
        again.inboxWeb({ token: TOKEN, publicUrl: 'https://ops.example.com/', pollMs: 20, notify: { webhook } });
        await eventually('received.includes(id!)', () => received.includes(id!));
        // It read the pending items oldest first, found the older ones announced, and skipped them.
        assert.equal(received.length, 5, received.join(', '));
      } finally {
        await again.close();
      }
    } finally {
      await rig.close();
      await new Promise((resolve) => hook.close(resolve));
    }
  });
});
