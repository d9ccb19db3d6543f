import 'reflect-metadata';
import assert from 'node:assert/strict';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { eventually } from '../eventually.js';
import { clientNamedByToken, modernClient, serving, text, type ModernResult } from './helpers.js';
import { TasksClient, type WireResult } from './tasks-client.js';

const KEY = 'k'.repeat(16) + 'e'.repeat(16);
const ALICE = { authorization: 'Bearer alice-0123456789' };
const MALLORY = { authorization: 'Bearer mallory-0123456789' };

/** The 2026-07-28 envelope a raw request carries. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

/** An open `subscriptions/listen` stream over its own connection, or the answer that refused it. */
interface Listen {
  readonly status: number;
  /** The first event, or the whole body of a refusal. */
  readonly first: string;
  readonly req: ClientRequest;
}

/** Opens a `subscriptions/listen` on a connection of its own, as a hostile client would hold hundreds. */
function listen(url: string, id: number, headers: Record<string, string>): Promise<Listen> {
  const target = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'subscriptions/listen',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res: IncomingMessage) => {
        let first = '';
        const done = () => resolve({ status: res.statusCode ?? 0, first, req });
        res.on('data', (chunk: Buffer) => {
          first += chunk.toString('utf8');
          if (first.includes('\n\n')) done();
        });
        res.on('end', done);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function acknowledged(opened: Listen): boolean {
  return opened.status === 200 && opened.first.includes('notifications/subscriptions/acknowledged');
}

describe('the 2026-07-28 doors under a hostile client', () => {
  it("bounds one client's running tasks (a task outlives its request): past the bound a call answers an error, unrun", async () => {
    const s = await serving({
      stateKey: KEY,
      authenticate: { verifier: clientNamedByToken },
      http: { maxTasksPerClient: 3 },
    });
    try {
      const mallory = await TasksClient.connect(s.url, { headers: MALLORY });
      const alice = await TasksClient.connect(s.url, { headers: ALICE });
      // Eight at once: exactly three become tasks, the rest are refused without running.
      const sent = await Promise.all(
        Array.from({ length: 8 }, (_, i) => mallory.call('orders__slow', { tag: `m${i}` })),
      );
      const tasks = sent.filter((answer) => answer.resultType === 'task');
      const refused = sent.filter((answer) => answer.isError === true);
      assert.equal(tasks.length, 3, JSON.stringify(sent));
      assert.equal(refused.length, 5);
      assert.match(text(refused[0]), /already has 3 calls running as tasks.*did not run/);
      // Another client has its own.
      assert.equal((await alice.call('orders__slow', { tag: 'a0' })).resultType, 'task');
      // One ends: its place is free again.
      await mallory.cancel(tasks[0]!.taskId!);
      await eventually(
        'the cancelled task is settled',
        async () => (await mallory.get(tasks[0]!.taskId!)).status === 'cancelled',
      );
      const again: WireResult = await mallory.call('orders__slow', { tag: 'm-again' });
      assert.equal(again.resultType, 'task', JSON.stringify(again));
      await mallory.close();
      await alice.close();
    } finally {
      await s.close();
    }
  });

  it("stops the calls of this node's tasks when the server closes, as a session's calls stop", async () => {
    const s = await serving({ stateKey: KEY });
    const client = await TasksClient.connect(s.url);
    try {
      const created = await client.call('orders__slow', { tag: 'left-running' });
      assert.equal(created.resultType, 'task');
      await s.server.close();
      assert.deepEqual(s.ledger.aborted, ['left-running']);
    } finally {
      await client.close().catch(() => {});
      await s.close();
    }
  });

  it("bounds one client's subscriptions/listen streams, frees each when its client goes, and leaves other clients theirs", async () => {
    const s = await serving({
      stateKey: KEY,
      authenticate: { verifier: clientNamedByToken },
      http: { maxListensPerClient: 3 },
    });
    const opened: Listen[] = [];
    try {
      for (let i = 0; i < 3; i++) opened.push(await listen(s.url, i, MALLORY));
      assert.ok(opened.every(acknowledged), opened.map((o) => o.first).join('\n'));
      const past = await listen(s.url, 3, MALLORY);
      assert.equal(past.status, 503, past.first);
      assert.match(past.first, /3 subscriptions\/listen streams open for this client/);
      assert.equal((JSON.parse(past.first) as { id?: unknown }).id, 3);
      const alice = await listen(s.url, 4, ALICE);
      assert.ok(acknowledged(alice), alice.first);
      opened.push(alice);
      // Mallory goes away: every place she held is free again (nothing leaks).
      for (const held of opened.splice(0, 3)) held.req.destroy();
      await eventually('her three places are free', async () => {
        const next = await listen(s.url, 5, MALLORY);
        opened.push(next);
        return acknowledged(next);
      });
      for (let i = 0; i < 2; i++) opened.push(await listen(s.url, 6 + i, MALLORY));
      assert.ok(opened.slice(-2).every(acknowledged));
    } finally {
      for (const held of opened) held.req.destroy();
      await s.close();
    }
  });

  it('never takes one kind of token for another, nor one sealed with another key; nothing runs for them', async () => {
    const s = await serving({ stateKey: KEY, authenticate: { verifier: clientNamedByToken } });
    const other = await serving({ stateKey: 'o'.repeat(32), authenticate: { verifier: clientNamedByToken } });
    try {
      const alice = await modernClient(s.url, ALICE);
      const tasks = await TasksClient.connect(s.url, { headers: ALICE });
      const waiting = await alice.call('orders__refund', { id: 'o-1' });
      const conversation = waiting._meta!['wardrik/conversation']!;
      const taskId = (await tasks.call('orders__refund', { id: 'o-1' })).taskId!;
      const refused = (error: Error & { code?: number }) => error.code === -32602;
      for (const state of [conversation, taskId])
        await assert.rejects(alice.call('orders__refund', { id: 'o-1' }, { requestState: state }), refused);
      for (const token of [waiting.requestState!, taskId])
        await assert.rejects(
          alice.call('orders__refund', { id: 'o-1' }, { _meta: { 'wardrik/conversation': token } }),
          refused,
        );
      for (const id of [waiting.requestState!, conversation])
        await assert.rejects(tasks.get(id), (error: Error & { code?: number }) => error.code === -32602);
      // The same client on a server with another key: none of them is its.
      const elsewhere = await modernClient(other.url, ALICE);
      await assert.rejects(
        elsewhere.call('orders__refund', { id: 'o-1' }, { requestState: waiting.requestState }),
        refused,
      );
      await assert.rejects(
        elsewhere.call('orders__refund', { id: 'o-1' }, { _meta: { 'wardrik/conversation': conversation } }),
        refused,
      );
      // Only the two real calls wait; the refused ones left nothing, here or there.
      assert.equal((await s.store.listInbox()).length, 2);
      assert.deepEqual(await other.store.listInbox(), []);
      assert.deepEqual([...s.ledger.refunds, ...other.ledger.refunds], []);
      await alice.close();
      await elsewhere.close();
      await tasks.close();
    } finally {
      await s.close();
      await other.close();
    }
  });

  it('ignores the labels a client sends: a conversation that read outside text keeps `outside`', async () => {
    const s = await serving({ stateKey: KEY });
    try {
      const client = await modernClient(s.url);
      const read = await client.call('orders__read_web', {});
      const conversation = read._meta!['wardrik/conversation']!;
      const waiting: ModernResult = await client.call(
        'orders__refund',
        { id: 'o-1' },
        { _meta: { 'wardrik/conversation': conversation, 'wardrik/labels': [], labels: [] } },
      );
      assert.equal(waiting.resultType, 'input_required');
      const item = await s.store.getInboxItem(waiting._meta!['wardrik/inbox']!);
      assert.deepEqual(item?.labels, ['outside']);
      await client.close();
    } finally {
      await s.close();
    }
  });

  it("cannot reach another client's 2025-11-25 session by sending its session id with the 2026-07-28 envelope", async () => {
    const s = await serving({ stateKey: KEY, authenticate: { verifier: clientNamedByToken } });
    try {
      const alice = await s.client({ requestInit: { headers: ALICE } });
      await alice.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } });
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: { name: 'orders__read_web', arguments: {}, _meta: ENVELOPE },
      });
      for (const version of ['2026-07-28', '2025-11-25']) {
        const response = await fetch(s.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': alice.session,
            'mcp-protocol-version': version,
            'mcp-method': 'tools/call',
            'mcp-name': 'orders__read_web',
            ...MALLORY,
          },
          body,
        });
        assert.equal(response.status, 403, await response.text());
      }
      assert.deepEqual(await s.store.getLabels(alice.session), ['confidential'], 'no outside page read in her session');
      assert.equal((await s.store.listCalls({ run: alice.session })).length, 1);
    } finally {
      await s.close();
    }
  });

  it('quotes a refused request in its warning only in part: 900 KB a request never reaches the log whole', async () => {
    const s = await serving({ stateKey: KEY });
    const warnings: string[] = [];
    const watching = s.wardrik.events$.subscribe((event) => {
      if (event.type === 'warning') warnings.push(event.message);
    });
    try {
      const big = 'x'.repeat(900_000);
      // The SDK refuses each (headers and body disagree, a version it does not know) quoting what was sent.
      const refused = [
        { header: 'a', name: big, version: '2026-07-28' },
        { header: big.slice(0, 100), name: big.slice(0, 100), version: big },
      ];
      for (const { header, name, version } of refused) {
        const response = await fetch(s.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': header,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name,
              arguments: {},
              _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': version },
            },
          }),
        });
        assert.equal(response.status, 400);
      }
      assert.equal(warnings.length, 2, 'each refusal is reported');
      for (const warning of warnings) {
        assert.ok(warning.length <= 2_100, `a warning of ${warning.length} characters`);
        assert.match(warning, /refused[\s\S]*more characters cut/);
      }
    } finally {
      watching.unsubscribe();
      await s.close();
    }
  });
});
