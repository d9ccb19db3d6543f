import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore, Wardrik, type JournalWrite } from '../../src/index.js';
import { withoutSync } from '../runner/helpers.js';
import { eventually } from '../eventually.js';
import { scratchStores } from '../crash/scratch-stores.js';
import { clientNamedByToken, orderTools, serving, type Ledger } from './helpers.js';
import { firstText, TASKS, TasksClient, WireError, type WireResult } from './tasks-client.js';

const KEY = 't'.repeat(16) + 'k'.repeat(16);

/** What a sealed conversation token names (its run and agent), without its expiry: tokens sealed a second apart differ. */
const sealedPayload = (token: unknown): unknown =>
  (JSON.parse(Buffer.from(String(token).split('.')[1]!, 'base64url').toString('utf8')) as { p: unknown }).p;

/** Polls `tasks/get` until the task leaves `working`. */
async function settled(client: TasksClient, taskId: string): Promise<WireResult> {
  let task: WireResult = {};
  await eventually('the task left working', async () => (task = await client.get(taskId)).status !== 'working');
  return task;
}

function refusedWith(code: number) {
  return (error: unknown) => error instanceof WireError && error.code === code;
}

describe('mcpServer: the tasks extension for 2026-07-28 clients that declare it', () => {
  it('a call waiting for a person is a task; tasks/get reads it, and after the approval gives its one result', async () => {
    const s = await serving({ stateKey: KEY });
    try {
      const client = await TasksClient.connect(s.url);
      const created = await client.call('orders__refund', { id: 'o-7' });
      assert.equal(created.resultType, 'task', JSON.stringify(created));
      assert.equal(created.status, 'working');
      assert.match(created.statusMessage ?? '', /Waiting for a person \(inbox item /);
      assert.ok(Number.isInteger(created.ttlMs) && Number.isInteger(created.pollIntervalMs));
      assert.ok(!('requestState' in created) && !('result' in created) && !('content' in created));
      assert.ok(!Number.isNaN(Date.parse(created.createdAt!)));
      const taskId = created.taskId!;
      const early = await client.get(taskId);
      assert.deepEqual([early.resultType, early.taskId, early.status], ['complete', taskId, 'working']);
      assert.equal(early.result, undefined);
      const [item] = await s.store.listInbox();
      await s.wardrik.inbox.approve(item!.id, { by: 'ana' });
      const gets = await Promise.all(Array.from({ length: 6 }, () => settled(client, taskId)));
      for (const done of gets) {
        assert.equal(done.status, 'completed');
        assert.equal(firstText(done.result), 'refunded o-7');
        assert.ok((done.result?._meta?.['wardrik/labels'] as string[]).includes('money'), 'its labels come along');
        assert.equal(typeof done.result?._meta?.['wardrik/conversation'], 'string');
      }
      assert.deepEqual(s.ledger.refunds, ['o-7']);
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('answers a quick call at once, and labels follow the conversation into a task', async () => {
    const s = await serving({ stateKey: KEY });
    try {
      const client = await TasksClient.connect(s.url);
      const read = await client.call('orders__read_web', {});
      assert.deepEqual([read.resultType, read.taskId], ['complete', undefined]);
      assert.deepEqual(read._meta?.['wardrik/labels'], ['outside']);
      const conversation = read._meta!['wardrik/conversation'];
      const created = await client.call('orders__refund', { id: 'o-2' }, { 'wardrik/conversation': conversation });
      assert.equal(created.resultType, 'task');
      assert.deepEqual(sealedPayload(created._meta?.['wardrik/conversation']), sealedPayload(conversation));
      const [item] = await s.store.listInbox();
      assert.ok(item!.labels.includes('outside'), `the item carries outside: ${JSON.stringify(item!.labels)}`);
      await s.wardrik.inbox.approve(item!.id, { by: 'ana' });
      const done = await settled(client, created.taskId!);
      assert.equal(firstText(done.result), 'refunded o-2');
      assert.deepEqual(
        sealedPayload(done.result?._meta?.['wardrik/conversation']),
        sealedPayload(conversation),
        'the result continues the conversation',
      );
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('a long call becomes a task; tasks/cancel acks with nothing else and stops it: cancelled', async () => {
    const s = await serving({ stateKey: KEY });
    try {
      const client = await TasksClient.connect(s.url);
      const created = await client.call('orders__slow', { tag: 'long' });
      assert.equal(created.resultType, 'task', JSON.stringify(created));
      assert.equal((await client.get(created.taskId!)).status, 'working');
      const ack = await client.cancel(created.taskId!);
      assert.deepEqual(
        Object.keys(ack).filter((key) => key !== '_meta'),
        ['resultType'],
      );
      assert.equal(ack.resultType, 'complete');
      const done = await settled(client, created.taskId!);
      assert.equal(done.status, 'cancelled', JSON.stringify(done));
      assert.equal(done.result, undefined);
      assert.deepEqual(s.ledger.aborted, ['long']);
      // Cancelling a finished task acks the same.
      assert.equal((await client.cancel(created.taskId!)).resultType, 'complete');
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('a task whose call failed inside the server (its journal write) is failed, with no result', async () => {
    const real = new MemoryStore();
    let failing = false;
    const store = withoutSync(real, {
      writeJournal: (writes: readonly JournalWrite[]) =>
        failing && writes.some((write) => 'call' in write && write.call.state !== 'started')
          ? Promise.reject(new Error('connection terminated unexpectedly'))
          : real.writeJournal(writes),
    });
    const s = await serving({ stateKey: KEY }, { store });
    const warnings: string[] = [];
    const subscription = s.wardrik.events$.subscribe(
      (event) => event.type === 'warning' && warnings.push(event.message),
    );
    try {
      const client = await TasksClient.connect(s.url);
      const created = await client.call('orders__slow', { tag: 'broken' });
      assert.equal(created.resultType, 'task');
      failing = true; // the stopped call's answer cannot be written
      await client.cancel(created.taskId!);
      const done = (await settled(client, created.taskId!)) as WireResult & { error?: { code: number } };
      assert.equal(done.status, 'failed', JSON.stringify(done));
      assert.equal(done.error?.code, -32603);
      assert.equal(done.result, undefined);
      assert.ok(
        warnings.some((warning) => /A served task/.test(warning)),
        warnings.join('\n'),
      );
      await client.close();
    } finally {
      subscription.unsubscribe();
      failing = false;
      await s.close();
    }
  });

  it('cancelling a task that waits for a person refuses its item: it never runs, even if approved later', async () => {
    const s = await serving({ stateKey: KEY });
    try {
      const client = await TasksClient.connect(s.url);
      const created = await client.call('orders__refund', { id: 'o-3' });
      const [item] = await s.store.listInbox();
      await client.cancel(created.taskId!);
      assert.equal((await s.store.getInboxItem(item!.id))?.status, 'denied');
      await assert.rejects(s.wardrik.inbox.approve(item!.id, { by: 'ana' }));
      assert.equal((await client.get(created.taskId!)).status, 'cancelled');
      assert.deepEqual(s.ledger.refunds, []);
      await client.close();
    } finally {
      await s.close();
    }
  });

  it('a client without the extension keeps input_required, and its tasks methods are refused -32021', async () => {
    const s = await serving({ stateKey: KEY });
    try {
      const plain = await TasksClient.connect(s.url, { declare: false });
      const waiting = await plain.call('orders__refund', { id: 'o-4' });
      assert.equal(waiting.resultType, 'input_required');
      assert.equal(typeof waiting.requestState, 'string');
      for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'])
        await assert.rejects(plain.request(method, { taskId: 'x' }), (error: unknown) => {
          assert.ok(error instanceof WireError && error.code === -32021, String(error));
          assert.deepEqual(error.data, { requiredCapabilities: { extensions: { [TASKS]: {} } } });
          return true;
        });
      // One request may still declare it on its own.
      const optIn = await plain.call(
        'orders__refund',
        { id: 'o-5' },
        {
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      );
      assert.equal(optIn.resultType, 'task');
      await plain.close();
    } finally {
      await s.close();
    }
  });

  it('refuses forged, unknown and other clients’ task ids (-32602); tasks/list and tasks/result do not exist', async () => {
    const s = await serving({
      stateKey: KEY,
      authenticate: { verifier: clientNamedByToken },
    });
    try {
      const alice = await TasksClient.connect(s.url, { headers: { authorization: 'Bearer alice-0123456789' } });
      const bob = await TasksClient.connect(s.url, { headers: { authorization: 'Bearer bob-0123456789' } });
      const created = await alice.call('orders__refund', { id: 'o-6' });
      const taskId = created.taskId!;
      await assert.rejects(bob.get(taskId), refusedWith(-32602));
      await assert.rejects(bob.cancel(taskId), refusedWith(-32602));
      const [version, body, mac] = taskId.split('.');
      const payload = JSON.parse(Buffer.from(body!, 'base64url').toString()) as { p: { call: string } };
      payload.p.call = 'call-someone-elses';
      const forgedId = [version, Buffer.from(JSON.stringify(payload)).toString('base64url'), mac].join('.');
      await assert.rejects(alice.get(forgedId), refusedWith(-32602));
      await assert.rejects(alice.get('no-such-task'), refusedWith(-32602));
      await assert.rejects(alice.request('tasks/list', {}), refusedWith(-32601));
      await assert.rejects(alice.request('tasks/result', { taskId }), refusedWith(-32601));
      assert.equal((await alice.get(taskId)).status, 'working');
      assert.equal((await s.store.listInbox())[0]?.status, 'pending', 'bob’s cancel refused nothing');
      await alice.close();
      await bob.close();
    } finally {
      await s.close();
    }
  });

  it('20 tasked calls at once, each polled at once from many requests, each run exactly once', async () => {
    const s = await serving({ stateKey: KEY });
    try {
      const client = await TasksClient.connect(s.url);
      const ids = Array.from({ length: 20 }, (_, i) => `o-${100 + i}`);
      const created = await Promise.all(ids.map((id) => client.call('orders__refund', { id })));
      assert.ok(created.every((task) => task.resultType === 'task'));
      assert.equal(new Set(created.map((task) => task.taskId)).size, 20);
      const items = await s.store.listInbox();
      assert.equal(items.length, 20);
      await Promise.all(items.map((item) => s.wardrik.inbox.approve(item.id, { by: 'ana' })));
      const done = await Promise.all(created.flatMap((task) => [1, 2, 3].map(() => settled(client, task.taskId!))));
      assert.deepEqual(
        done.map((task) => firstText(task.result)).sort(),
        ids.flatMap((id) => [1, 2, 3].map(() => `refunded ${id}`)).sort(),
      );
      assert.deepEqual([...s.ledger.refunds].sort(), ids);
      await client.close();
    } finally {
      await s.close();
    }
  });

  const { stores } = scratchStores('serve-tasks');
  for (const [kind, makeUrl] of stores.filter(([kind]) => kind !== 'SQLite on better-sqlite3')) {
    it(`another node sharing the ${kind} store and key answers tasks/get; polls on both run the call once`, async () => {
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
        const onA = await TasksClient.connect(a.url);
        const onB = await TasksClient.connect(b.url);
        const created = await onA.call('orders__refund', { id: 'o-5' });
        assert.equal(created.resultType, 'task');
        const taskId = created.taskId!;
        assert.equal((await onB.get(taskId)).status, 'working');
        const [item] = await b.wardrik.inbox.list();
        await b.wardrik.inbox.approve(item!.id, { by: 'ana' });
        const done = await Promise.all([
          ...Array.from({ length: 4 }, () => settled(onA, taskId)),
          ...Array.from({ length: 4 }, () => settled(onB, taskId)),
        ]);
        for (const task of done) assert.equal(firstText(task.result), 'refunded o-5');
        assert.deepEqual([...a.ledger.refunds, ...b.ledger.refunds], ['o-5']);
        await onA.close();
        await onB.close();
      } finally {
        for (const node of nodes) await node.wardrik.close();
      }
    });
  }
});
