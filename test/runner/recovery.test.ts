import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defineTool, MemoryStore, Wardrik, type CallRecord, type ToolContext } from '../../src/index.js';
import { LEASE_IDLE_MS } from '../../src/runner/run-leases.js';
import { manualTime } from '../../src/testing/index.js';
import { manualTimeContainer } from '../manual-time-container.js';
import { counter, errorCode } from './helpers.js';
import { leaseRun, releaseRun, writeCall } from '../../src/store/journal-writes.js';

/** A call a crash left `started`, as the journal has it. */
function inFlight(call: string, tool: string, over: Partial<CallRecord> = {}): CallRecord {
  return {
    run: 'run-1',
    call,
    agent: 'a',
    tool,
    arguments: {},
    idempotencyKey: `run-1:${call}`,
    state: 'started',
    attempt: 1,
    updatedAt: 1,
    ...over,
  };
}

function tools(ran: ReturnType<typeof counter>) {
  return {
    t: [
      defineTool({
        name: 'read',
        description: 'd',
        annotations: { readOnly: true },
        run: (_a, ctx: ToolContext) => ran.calls.push(['read', ctx.idempotencyKey, ctx.attempt]),
      }),
      defineTool({
        name: 'refund',
        description: 'd',
        annotations: { idempotent: true },
        run: (_a, ctx: ToolContext) => ran.calls.push(['refund', ctx.idempotencyKey, ctx.attempt]),
      }),
      defineTool({ name: 'email', description: 'd', run: () => ran.calls.push(['email']) }),
    ],
  };
}

describe('recovery', () => {
  it('runs in-flight repeatable calls again at start-up, with the same idempotency key and the next attempt', async () => {
    const store = new MemoryStore();
    await writeCall(store, inFlight('c1', 't/read'), undefined);
    await writeCall(store, inFlight('c2', 't/refund', { attempt: 2 }), undefined);
    const ran = counter();
    const wardrik = await Wardrik.create({ store, tools: tools(ran) });
    assert.deepEqual(ran.calls, [
      ['read', 'run-1:c1', 2],
      ['refund', 'run-1:c2', 3],
    ]);
    assert.equal((await store.getCall('run-1', 'c1'))?.state, 'succeeded');
    assert.equal((await store.getCall('run-1', 'c2'))?.state, 'succeeded');
    await wardrik.close();
  });

  it('parks an in-flight call that is not safe to repeat as in_doubt, and never runs it by itself', async () => {
    const store = new MemoryStore();
    await writeCall(store, inFlight('c3', 't/email', { arguments: { to: 'x@example.com' } }), undefined);
    const ran = counter();
    const wardrik = await Wardrik.create({ store, tools: tools(ran) });
    assert.deepEqual(
      await wardrik.recover(),
      { rerun: 0, inDoubt: 0, restored: 0, skipped: 0, approved: 0, unoffered: 0 },
      'a second recovery finds nothing to do',
    );
    const [item] = await wardrik.inbox.list();
    assert.equal(item?.kind, 'in_doubt');
    assert.equal(item?.call, 'c3');
    assert.match(item?.reason ?? '', /may or may not have happened/);
    const answer = await wardrik.runner.run({
      agent: 'a',
      run: 'run-1',
      call: { id: 'c3', name: 't__email', arguments: { to: 'x@example.com' } },
    });
    assert.equal(answer.status, 'parked', 'asking again for the same call does not run it');
    assert.equal(ran.count, 0);
    await wardrik.close();
  });

  it('records an in-doubt call a person says happened, without running it', async () => {
    const store = new MemoryStore();
    await writeCall(store, inFlight('c4', 't/email'), undefined);
    const ran = counter();
    const wardrik = await Wardrik.create({ store, tools: tools(ran) });
    const [item] = await wardrik.inbox.list();
    await assert.rejects(wardrik.inbox.answer(item!.id, 'yes'), /answer \{ happened: true, result \}/);
    const answer = await wardrik.inbox.answer(item!.id, { happened: true, result: 'sent at 10:02' }, { by: 'ops' });
    assert.deepEqual(answer, { status: 'ok', output: 'sent at 10:02', labels: [] });
    assert.equal((await store.getCall('run-1', 'c4'))?.state, 'succeeded');
    assert.equal(ran.count, 0);
    await wardrik.close();
  });

  it('runs an in-doubt call once when a person says it did not happen', async () => {
    const store = new MemoryStore();
    await writeCall(store, inFlight('c5', 't/email'), undefined);
    const ran = counter();
    const wardrik = await Wardrik.create({ store, tools: tools(ran) });
    const [item] = await wardrik.inbox.list();
    const answers = await Promise.allSettled([
      wardrik.inbox.answer(item!.id, { happened: false }),
      wardrik.inbox.answer(item!.id, { happened: false }),
    ]);
    assert.equal(answers.filter((a) => a.status === 'fulfilled').length, 1);
    assert.equal(ran.count, 1);
    await wardrik.close();
  });

  it('leaves an in-flight call of a tool this node does not offer to a node that does, and warns', async () => {
    const store = new MemoryStore();
    await writeCall(store, inFlight('c6', 'other/tool'), undefined);
    const wardrik = await Wardrik.create({ store, tools: tools(counter()) });
    const warnings: string[] = [];
    wardrik.events$.subscribe((e) => e.type === 'warning' && warnings.push(e.message));
    assert.equal((await wardrik.recover()).unoffered, 1);
    assert.deepEqual(await wardrik.inbox.list(), []);
    assert.equal((await store.getCall('run-1', 'c6'))?.state, 'started');
    assert.ok(
      warnings.some((w) => /1 call\(s\) left in flight use tools this node does not offer \(other\/tool\)/.test(w)),
    );
    const ran = counter();
    const other = await Wardrik.create({
      store,
      tools: {
        other: [
          defineTool({ name: 'tool', description: 'd', annotations: { readOnly: true }, run: () => ran.calls.push(1) }),
        ],
      },
    });
    assert.equal(ran.count, 1, 'the node that offers it runs it again');
    await other.close();
    await wardrik.close();
  });

  it('leaves in-flight calls of a run another live node holds', async () => {
    const store = new MemoryStore();
    await writeCall(store, inFlight('c7', 't/email'), undefined);
    await leaseRun(store, 'run-1', 'node-a', 60_000);
    const wardrik = await Wardrik.create({ store, tools: tools(counter()), runner: { node: 'node-b' } });
    assert.deepEqual(await wardrik.inbox.list(), []);
    assert.equal((await wardrik.recover()).skipped, 1);
    assert.equal((await store.getCall('run-1', 'c7'))?.state, 'started');
    await wardrik.close();
  });

  it("takes over a dead node's run once its lease expired", async () => {
    const store = new MemoryStore();
    await writeCall(store, inFlight('c8', 't/refund'), undefined);
    await leaseRun(store, 'run-1', 'node-a', -60_000); // it lapsed a minute ago
    const ran = counter();
    const wardrik = await Wardrik.create({ store, tools: tools(ran), runner: { node: 'node-b' } });
    assert.deepEqual(ran.calls, [['refund', 'run-1:c8', 2]]);
    await wardrik.close();
  });

  it('puts back an inbox item a crash lost between the journal and the inbox', async () => {
    const store = new MemoryStore();
    await writeCall(
      store,
      {
        ...inFlight('c9', 't/email'),
        state: 'parked',
        inboxId: 'lost-1',
        answer: { status: 'parked', kind: 'approval', inboxId: 'lost-1', reason: 'Needs approval.', labels: [] },
      },
      undefined,
    );
    const ran = counter();
    const wardrik = await Wardrik.create({ store, tools: tools(ran) });
    const item = await wardrik.inbox.get('lost-1');
    assert.deepEqual([item?.kind, item?.status, item?.call], ['approval', 'pending', 'c9']);
    await wardrik.inbox.approve('lost-1');
    assert.equal(ran.count, 1);
    await wardrik.close();
  });

  it('records an approval while another live node holds the run, and runs the call once the run is free', async () => {
    const store = new MemoryStore();
    const ran = counter();
    const time = manualTime(Date.now());
    const container = manualTimeContainer(time);
    const wardrik = await Wardrik.create({
      store,
      container,
      tools: tools(ran),
      runner: { node: 'node-b' },
      recoverMs: Infinity,
    });
    const parked = await wardrik.runner.run({ agent: 'a', run: 'run-2', call: { id: 'p1', name: 't__email' } });
    assert.equal(parked.status, 'parked');
    await time.advance(2 * LEASE_IDLE_MS); // node B gives its idle lease up
    assert.equal(await leaseRun(store, 'run-2', 'node-a', 60_000), true, 'node A takes the run');
    const [item] = await wardrik.inbox.list();
    const answer = await wardrik.inbox.approve(item!.id);
    assert.deepEqual(
      [answer.status, answer.status === 'parked' ? answer.reason : ''],
      [
        'parked',
        'A person let this call go; run "run-2" is busy on another node right now, so the next recovery runs it once the run is free.',
      ],
    );
    assert.equal((await wardrik.inbox.get(item!.id))?.status, 'approved', 'the approval is recorded, not bounced');
    assert.equal(ran.count, 0);
    assert.equal((await wardrik.recover()).skipped, 1, 'left alone while node A holds the run');
    await releaseRun(store, 'run-2', 'node-a');
    assert.equal((await wardrik.recover()).approved, 1);
    assert.equal((await store.getCall('run-2', 'p1'))?.state, 'succeeded');
    assert.equal(ran.count, 1);
    await wardrik.close();
  });

  it('records an approval given where the tool is not offered, and runs the call on a node that offers it', async () => {
    const store = new MemoryStore();
    const ran = counter();
    const worker = await Wardrik.create({ store, tools: tools(ran), recoverMs: Infinity });
    const parked = await worker.runner.run({ agent: 'a', run: 'run-6', call: { id: 'e1', name: 't__email' } });
    const desk = await Wardrik.create({ store, recoverMs: Infinity }); // a process with no tools, like the wardrik command
    const answer = await desk.inbox.approve(parked.status === 'parked' ? parked.inboxId! : '', { by: 'dana' });
    assert.deepEqual(
      [answer.status, answer.status === 'parked' ? answer.reason : ''],
      ['parked', 'A person let this call go; it runs on the next node that offers t/email.'],
    );
    assert.equal(ran.count, 0);
    assert.equal((await worker.recover()).approved, 1);
    assert.equal((await store.getCall('run-6', 'e1'))?.state, 'succeeded');
    assert.equal((await worker.recover()).approved, 0, 'it runs once');
    assert.equal(ran.count, 1);
    await desk.close();
    await worker.close();
  });

  it("keeps a run's lease between calls close together, and gives it up once the run is idle", async () => {
    const store = new MemoryStore();
    const time = manualTime(Date.now());
    const container = manualTimeContainer(time);
    const wardrik = await Wardrik.create({ store, container, tools: tools(counter()), runner: { node: 'node-b' } });
    await wardrik.runner.run({ agent: 'a', run: 'run-4', call: { id: 'r1', name: 't__read' } });
    assert.equal(await leaseRun(store, 'run-4', 'node-a', 60_000), false, 'held right after the call');
    await time.advance(LEASE_IDLE_MS - 1);
    assert.equal(await leaseRun(store, 'run-4', 'node-a', 60_000), false, 'kept while the run may have a next call');
    await time.advance(LEASE_IDLE_MS);
    assert.equal(await leaseRun(store, 'run-4', 'node-a', 60_000), true, 'given up once idle');
    await wardrik.close();
  });

  it('gives up its leases when it closes, so another node can take the runs at once', async () => {
    const store = new MemoryStore();
    const wardrik = await Wardrik.create({ store, tools: tools(counter()), runner: { node: 'node-b' } });
    await wardrik.runner.run({ agent: 'a', run: 'run-5', call: { id: 'r1', name: 't__read' } });
    await wardrik.close();
    assert.equal(await leaseRun(store, 'run-5', 'node-a', 60_000), true);
  });

  it('does not run a call in a run another live node holds', async () => {
    const store = new MemoryStore();
    const ran = counter();
    const wardrik = await Wardrik.create({ store, tools: tools(ran), runner: { node: 'node-b' } });
    await leaseRun(store, 'run-3', 'node-a', 60_000);
    const answer = await wardrik.runner.run({ agent: 'a', run: 'run-3', call: { id: 'r1', name: 't__read' } });
    assert.equal(errorCode(answer), 'conflict');
    assert.equal(ran.count, 0);
    assert.equal(await store.getCall('run-3', 'r1'), undefined, 'nothing journaled: the call can be sent again');
    await wardrik.close();
  });
});
