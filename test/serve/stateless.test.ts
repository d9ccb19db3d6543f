import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, Tokens, Wardrik, type Store } from '../../src/index.js';
import { eventually } from '../eventually.js';
import { scratchStores } from '../crash/scratch-stores.js';
import {
  clientNamedByToken,
  modernClient,
  orderTools,
  serving,
  text,
  type Ledger,
  type ModernResult,
} from './helpers.js';

const KEY = 'k'.repeat(16) + 'e'.repeat(16);

/** The conversation token a result carries. */
function conversationOf(result: ModernResult): string {
  const token = result._meta?.['wardrik/conversation'];
  assert.equal(typeof token, 'string', 'a result carries its conversation');
  return token!;
}

/** A token with its signed payload swapped for another: what a client forging one would send. */
function forged(token: string, change: (payload: { p: Record<string, unknown> }) => void): string {
  const [version, body, mac] = token.split('.');
  const payload = JSON.parse(Buffer.from(body!, 'base64url').toString('utf8')) as { p: Record<string, unknown> };
  change(payload);
  return [version, Buffer.from(JSON.stringify(payload)).toString('base64url'), mac].join('.');
}

async function itemLabels(store: Store, result: ModernResult): Promise<readonly string[]> {
  const id = result._meta?.['wardrik/inbox'];
  assert.ok(id !== undefined, `the call waits in the inbox: ${JSON.stringify(result)}`);
  return (await store.getInboxItem(id))!.labels;
}

describe('mcpServer for MCP 2026-07-28 clients (stateless)', () => {
  it('answers a 2026-07-28 client and a 2025-11-25 one on the same URL, the new one with no session', async () => {
    const s = await serving();
    const sessionIds: (string | null)[] = [];
    try {
      const modern = await modernClient(s.url);
      assert.equal(modern.getProtocolEra(), 'modern');
      assert.deepEqual(
        (await modern.listTools()).tools.map((t) => t.name),
        ['orders__find_order', 'orders__read_web', 'orders__refund', 'orders__slow'],
      );
      const found = await modern.call('orders__find_order', { id: 'o-1' });
      assert.deepEqual(found.structuredContent, { id: 'o-1', status: 'shipped' });
      const legacy = await s.client();
      assert.equal(typeof legacy.session, 'string');
      const old = await legacy.callTool({ name: 'orders__find_order', arguments: { id: 'o-2' } });
      assert.deepEqual(old.structuredContent, { id: 'o-2', status: 'shipped' });
      // A raw 2026-07-28 request: answered at once, with no session id to keep.
      const response = await fetch(s.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'server/discover',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'server/discover',
          params: {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            },
          },
        }),
      });
      sessionIds.push(response.headers.get('mcp-session-id'));
      const discovered = (await response.json()) as { result?: { supportedVersions?: string[] } };
      assert.equal(response.status, 200);
      assert.ok(discovered.result?.supportedVersions?.includes('2026-07-28'), JSON.stringify(discovered));
      assert.deepEqual(sessionIds, [null]);
      await modern.close();
    } finally {
      await s.close();
    }
  });

  it('answers a request with no session and no envelope by its id: -32602 when its header names 2026-07-28', async () => {
    const s = await serving();
    const post = async (id: number, headers: Record<string, string>, params: unknown) => {
      const response = await fetch(s.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params }),
      });
      return { status: response.status, body: (await response.json()) as { id?: unknown; error?: { code?: number } } };
    };
    try {
      const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' };
      const bare = await post(7, modern, {});
      assert.deepEqual([bare.status, bare.body.id, bare.body.error?.code], [400, 7, -32602], JSON.stringify(bare));
      const noVersion = await post(8, modern, { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } });
      assert.deepEqual([noVersion.status, noVersion.body.id, noVersion.body.error?.code], [400, 8, -32602]);
      // No era named at all: the 2025 path says to open a session, to this request's id.
      const unnamed = await post(9, {}, {});
      assert.deepEqual([unnamed.status, unnamed.body.id, unnamed.body.error?.code], [400, 9, -32000]);
      // A 2025-11-25 client still opens its session with initialize.
      const legacy = await s.client();
      assert.equal(typeof legacy.session, 'string');
    } finally {
      await s.close();
    }
  });

  it('sends tools/list_changed on an open subscriptions/listen stream when the served tools change', async () => {
    const s = await serving({ tools: ['orders/*', 'extra/*'] });
    try {
      const modern = await modernClient(s.url);
      let changes = 0;
      modern.setNotificationHandler('notifications/tools/list_changed', () => void changes++);
      const subscription = await modern.listen({ toolsListChanged: true });
      assert.equal(subscription.honoredFilter.toolsListChanged, true);
      const catalog = s.wardrik.container.resolve(Tokens.Catalog);
      catalog.set('extra', [
        defineTool({ name: 'ping', description: 'Pings.', annotations: { readOnly: true }, run: () => 'pong' }),
      ]);
      await eventually('changes === 1', () => changes === 1);
      assert.ok((await modern.listTools()).tools.some((t) => t.name === 'extra__ping'));
      await subscription.close();
      await modern.close();
    } finally {
      await s.close();
    }
  });

  describe('labels follow the conversation the client carries, signed by the server', () => {
    it('a call sent with the conversation of one that read outside text carries `outside`; one without starts clean', async () => {
      const s = await serving({ stateKey: KEY });
      try {
        const client = await modernClient(s.url);
        const read = await client.call('orders__read_web', {});
        assert.deepEqual(read._meta?.['wardrik/labels'], ['outside']);
        const conversation = conversationOf(read);
        const within = await client.call(
          'orders__refund',
          { id: 'o-1' },
          { _meta: { 'wardrik/conversation': conversation } },
        );
        assert.equal(within.resultType, 'input_required');
        assert.deepEqual(await itemLabels(s.store, within), ['outside']);
        // It is the same conversation: the call's result names it again.
        assert.equal(
          JSON.parse(Buffer.from(conversationOf(within).split('.')[1]!, 'base64url').toString()).p.run,
          JSON.parse(Buffer.from(conversation.split('.')[1]!, 'base64url').toString()).p.run,
        );
        const fresh = await client.call('orders__refund', { id: 'o-2' });
        assert.deepEqual(await itemLabels(s.store, fresh), []);
        await client.close();
      } finally {
        await s.close();
      }
    });

    it('a conversation replayed from before the label was added still carries it: labels live in the store, not the token', async () => {
      const s = await serving({ stateKey: KEY });
      try {
        const client = await modernClient(s.url);
        const before = conversationOf(await client.call('orders__find_order', { id: 'o-1' }));
        const read = await client.call('orders__read_web', {}, { _meta: { 'wardrik/conversation': before } });
        assert.deepEqual(read._meta?.['wardrik/labels'], ['outside']);
        const replayed = await client.call(
          'orders__refund',
          { id: 'o-1' },
          { _meta: { 'wardrik/conversation': before } },
        );
        assert.deepEqual(await itemLabels(s.store, replayed), ['confidential', 'outside']);
        await client.close();
      } finally {
        await s.close();
      }
    });

    it('refuses a forged conversation and a forged requestState, and runs nothing for them', async () => {
      const s = await serving({ stateKey: KEY });
      try {
        const client = await modernClient(s.url);
        const read = await client.call('orders__read_web', {});
        const clean = conversationOf(await client.call('orders__find_order', { id: 'o-1' }));
        // The labelled conversation's token pointed at the clean run: the signature no longer matches.
        const swapped = forged(conversationOf(read), (payload) => {
          payload.p.run = JSON.parse(Buffer.from(clean.split('.')[1]!, 'base64url').toString()).p.run;
        });
        await assert.rejects(
          client.call('orders__refund', { id: 'o-1' }, { _meta: { 'wardrik/conversation': swapped } }),
          (error: Error & { code?: number }) =>
            error.code === -32602 && /not a conversation this server gave/.test(error.message),
        );
        await assert.rejects(
          client.call('orders__refund', { id: 'o-1' }, { _meta: { 'wardrik/conversation': 'v1.e30.AAAA' } }),
          (error: Error & { code?: number }) => error.code === -32602,
        );
        const waiting = await client.call('orders__refund', { id: 'o-1' });
        const other = forged(waiting.requestState!, (payload) => {
          payload.p.call = 'call-1';
        });
        await assert.rejects(
          client.call('orders__refund', { id: 'o-1' }, { requestState: other }),
          (error: Error & { code?: number }) => error.code === -32602,
        );
        assert.deepEqual(s.ledger.refunds, []);
        await client.close();
      } finally {
        await s.close();
      }
    });

    it("another client cannot join a caller's conversation or take its waiting call, even holding their tokens", async () => {
      const s = await serving({
        stateKey: KEY,
        authenticate: { verifier: clientNamedByToken },
      });
      try {
        const alice = await modernClient(s.url, { authorization: 'Bearer alice-0123456789' });
        const bob = await modernClient(s.url, { authorization: 'Bearer bob-0123456789' });
        const read = await alice.call('orders__read_web', {});
        const waiting = await alice.call(
          'orders__refund',
          { id: 'o-1' },
          { _meta: { 'wardrik/conversation': conversationOf(read) } },
        );
        assert.equal(waiting.resultType, 'input_required');
        await assert.rejects(
          bob.call('orders__find_order', { id: 'o-1' }, { _meta: { 'wardrik/conversation': conversationOf(read) } }),
          (error: Error & { code?: number }) => error.code === -32602,
        );
        await s.wardrik.inbox.approve(waiting._meta!['wardrik/inbox']!, { by: 'ana' });
        await assert.rejects(
          bob.call('orders__refund', { id: 'o-1' }, { requestState: waiting.requestState }),
          (error: Error & { code?: number }) => error.code === -32602,
        );
        const done = await alice.call('orders__refund', { id: 'o-1' }, { requestState: waiting.requestState });
        assert.equal(text(done), 'refunded o-1');
        await alice.close();
        await bob.close();
      } finally {
        await s.close();
      }
    });
  });

  describe('a call that waits for a person', () => {
    it('answers input_required at once, again on a retry before the answer, and the one result after it; concurrent retries run it once', async () => {
      const s = await serving({ stateKey: KEY });
      try {
        const client = await modernClient(s.url);
        const waiting = await client.call('orders__refund', { id: 'o-7' });
        assert.equal(waiting.resultType, 'input_required');
        const inbox = waiting._meta!['wardrik/inbox']!;
        const early = await client.call('orders__refund', { id: 'o-7' }, { requestState: waiting.requestState });
        assert.equal(early.resultType, 'input_required');
        assert.equal(early._meta?.['wardrik/inbox'], inbox);
        assert.equal((await s.store.listInbox()).length, 1);
        await s.wardrik.inbox.approve(inbox, { by: 'ana' });
        const retries = await Promise.all(
          Array.from({ length: 8 }, () =>
            client.call('orders__refund', { id: 'o-7' }, { requestState: waiting.requestState }),
          ),
        );
        for (const retry of retries) assert.equal(text(retry), 'refunded o-7', JSON.stringify(retry));
        assert.deepEqual(s.ledger.refunds, ['o-7']);
        // A retry with another call's arguments is refused rather than answered with this result.
        await assert.rejects(
          client.call('orders__refund', { id: 'o-8' }, { requestState: waiting.requestState }),
          (error: Error & { code?: number }) => error.code === -32602 && /belongs to another call/.test(error.message),
        );
        await client.close();
      } finally {
        await s.close();
      }
    });

    it('a denied call answers its denial to the retry, and never runs', async () => {
      const s = await serving({ stateKey: KEY });
      try {
        const client = await modernClient(s.url);
        const waiting = await client.call('orders__refund', { id: 'o-9' });
        await s.wardrik.inbox.deny(waiting._meta!['wardrik/inbox']!, { reason: 'not this one', by: 'ana' });
        const denied = await client.call('orders__refund', { id: 'o-9' }, { requestState: waiting.requestState });
        assert.equal(denied.isError, true);
        assert.match(text(denied), /not this one/);
        assert.deepEqual(s.ledger.refunds, []);
        await client.close();
      } finally {
        await s.close();
      }
    });

    const { stores } = scratchStores('serve-stateless');
    for (const [kind, makeUrl] of stores.filter(([kind]) => kind !== 'SQLite on better-sqlite3')) {
      it(`is answered on another node sharing the ${kind} store: retries on both at once run it once`, async () => {
        const url = makeUrl();
        const nodes: { wardrik: Wardrik; url: string; ledger: Ledger }[] = [];
        try {
          for (let i = 0; i < 2; i++) {
            const ledger: Ledger = { refunds: [], aborted: [] };
            const wardrik = await Wardrik.create({
              store: url,
              recoverMs: Infinity,
              tools: { orders: orderTools(ledger) },
            });
            const server = wardrik.mcpServer({ tools: ['orders/*'], authenticate: false, stateKey: KEY });
            nodes.push({ wardrik, url: await server.listen(), ledger });
          }
          const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
          const onA = await modernClient(a.url);
          const onB = await modernClient(b.url);
          const waiting = await onA.call('orders__refund', { id: 'o-5' });
          assert.equal(waiting.resultType, 'input_required');
          const early = await onB.call('orders__refund', { id: 'o-5' }, { requestState: waiting.requestState });
          assert.equal(early.resultType, 'input_required');
          await b.wardrik.inbox.approve(waiting._meta!['wardrik/inbox']!, { by: 'ana' });
          const retry = () => ({ requestState: waiting.requestState });
          let results: ModernResult[] = [];
          await eventually('every retry has the result', async () => {
            results = await Promise.all([
              ...Array.from({ length: 4 }, () => onA.call('orders__refund', { id: 'o-5' }, retry())),
              ...Array.from({ length: 4 }, () => onB.call('orders__refund', { id: 'o-5' }, retry())),
            ]);
            return results.every((result) => result.resultType === undefined);
          });
          for (const result of results) assert.equal(text(result), 'refunded o-5');
          assert.deepEqual([...a.ledger.refunds, ...b.ledger.refunds], ['o-5']);
          await onA.close();
          await onB.close();
        } finally {
          for (const node of nodes) await node.wardrik.close();
        }
      });
    }
  });
});
