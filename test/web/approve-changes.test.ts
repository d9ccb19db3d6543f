import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { json, wardrik as cli } from '../cli/helpers.js';
import { signIn, sqliteStores, webRig, type WebRig } from './helpers.js';

const stores = sqliteStores();
after(() => stores.removeAll());

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

describe('Approving with changes through the web API and the CLI (on a node without the tool)', () => {
  let rig: WebRig;
  let url: string;
  beforeEach(async () => {
    url = stores.url();
    rig = await webRig(url);
  });
  afterEach(() => rig.close());

  it('API: checks edited arguments against the schema the item kept, records who changed them, and the tool runs them', async () => {
    const session = await signIn(rig.base, 'Dana');
    const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.approval))!;
    const bad = await session.post(`api/items/${item.id}/approve`, { digest: item.digest, arguments: { id: 7 } });
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as ErrorBody;
    assert.equal(body.error.code, 'invalid_arguments');
    assert.match(body.error.message, /- id: must be string/);
    assert.equal(
      (await session.post(`api/items/${item.id}/approve`, { digest: item.digest, arguments: [1] })).status,
      400,
    );
    const ok = await session.post(`api/items/${item.id}/approve`, { digest: item.digest, arguments: { id: 'ord_9' } });
    assert.equal(ok.status, 200);
    await rig.seeded.node.recover();
    assert.deepEqual(rig.seeded.ran, ['refund:ord_9']);
    const answered = (await rig.seeded.node.inbox.get(item.id))!;
    assert.deepEqual(
      [answered.arguments, answered.edited?.arguments, answered.edited?.by],
      [{ id: 'ord_2' }, { id: 'ord_9' }, 'Dana'],
    );
  });

  it('API: scope "run" with allowIf lets the same call in the same run go, and only that', async () => {
    const session = await signIn(rig.base, 'Dana');
    const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.approval))!;
    const refused = await session.post(`api/items/${item.id}/approve`, {
      digest: item.digest,
      scope: 'run',
      allowIf: ['order'],
    });
    assert.equal(refused.status, 400);
    assert.match(
      ((await refused.json()) as ErrorBody).error.message,
      /allowIf names argument fields of the approved call, such as \["id"\]/,
    );
    assert.equal(
      (await session.post(`api/items/${item.id}/approve`, { digest: item.digest, scope: 'run', allowIf: ['id'] }))
        .status,
      200,
    );
    const run = (id: string, call: string, agent = 'batch') =>
      rig.seeded.node.runner.run({
        agent,
        run: rig.seeded.batch.run,
        call: { id: call, name: 'shop__refund', arguments: { id } },
      });
    assert.equal((await run('ord_2', 'again')).status, 'ok');
    assert.equal((await run('ord_3', 'other')).status, 'parked');
    assert.equal((await run('ord_2', 'stranger', 'someone-else')).status, 'parked');
  });

  it('CLI: wardrik approve --digest --arguments runs the changed call; --arguments without --digest is a usage error', async () => {
    const item = (await rig.seeded.node.inbox.get(rig.seeded.batch.approval))!;
    const missing = await cli(['approve', item.id, '--arguments', '{"id":"ord_5"}', '--store', url]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--arguments needs --digest/);
    const badJson = await cli(['approve', item.id, '--digest', item.digest, '--arguments', '{id}', '--store', url]);
    assert.equal(badJson.code, 2);
    assert.match(badJson.stderr, /--arguments must be a JSON value/);
    const badField = await cli([
      'approve',
      item.id,
      '--digest',
      item.digest,
      '--arguments',
      '{"id":7}',
      '--store',
      url,
      '--json',
    ]);
    assert.equal(badField.code, 2, badField.stderr);
    assert.equal(JSON.parse(badField.stderr).error.code, 'invalid_arguments');
    assert.match(JSON.parse(badField.stderr).error.message, /- id: must be string/);
    const approved = await cli([
      'approve',
      item.id,
      '--digest',
      item.digest,
      '--arguments',
      '{"id":"ord_5"}',
      '--by',
      'lee',
      '--store',
      url,
      '--json',
    ]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(json(approved).status, 'approved');
    await rig.seeded.node.recover();
    assert.deepEqual(rig.seeded.ran, ['refund:ord_5']);
    const listed = await cli(['inbox', '--all', '--store', url]);
    assert.match(listed.stdout, /ran with: {2}\{"id":"ord_5"\} \(changed by lee\)/);
  });
});
