import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { Tokens, type InboxRecord } from '../../src/index.js';
import { argumentsDigest } from '../../src/runner/digest.js';
import { signIn, sqliteStores, webRig, type WebRig } from './helpers.js';

const stores = sqliteStores();
after(() => stores.removeAll());

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

/** A server's question as the hub parks it: a form asking for a name. */
function question(id: string): InboxRecord {
  return {
    id,
    kind: 'question',
    status: 'pending',
    agent: 'mcp:hub',
    run: 'mcp:hub/asker',
    call: id,
    tool: 'asker/(no call)',
    arguments: null,
    digest: argumentsDigest(null),
    labels: ['outside'],
    reason: 'MCP server "asker" asks outside any call: Who are you?',
    createdAt: Date.now(),
    detail: {
      hub: 'hub',
      server: 'asker',
      mode: 'form',
      message: 'Who are you?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  };
}

describe('Answers the inbox cannot take, through the web API', () => {
  let rig: WebRig;
  beforeEach(async () => {
    rig = await webRig(stores.url());
  });
  afterEach(() => rig.close());

  it("answers a question's content that misfits the server's schema with 400, naming the field; the item stays pending", async () => {
    await rig.server.container.resolve(Tokens.Store).putInboxItem(question('q1'));
    const session = await signIn(rig.base, 'Dana');
    const refused = await session.post('api/items/q1/answer', { value: { action: 'accept', content: { name: 7 } } });
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as ErrorBody;
    assert.equal(body.error.code, 'usage');
    assert.match(body.error.message, /the content does not fit what MCP server "asker" asked for \(field "name"\)/);
    assert.equal((await rig.server.inbox.get('q1'))?.status, 'pending');
    const ok = await session.post('api/items/q1/answer', { value: { action: 'accept', content: { name: 'Dana' } } });
    assert.equal(ok.status, 200);
    assert.deepEqual((await rig.server.inbox.get('q1'))?.response, { action: 'accept', content: { name: 'Dana' } });
  });
});
