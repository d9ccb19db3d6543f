import 'reflect-metadata';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { ToolChangedEvent, WardrikEvent } from '../../src/index.js';
import { startHttpFixture } from './fixtures/http-server.js';
import { harness, lines, stdio, tempDir, type Harness } from './helpers.js';

const changedEvents = (events: readonly WardrikEvent[]): ToolChangedEvent[] =>
  events.filter((e): e is ToolChangedEvent => e.type === 'tool.changed');

/** bump_tools changes `write` (readOnlyHint instead of destructiveHint) and adds `extra`. */
async function bump(h: Harness, server: string): Promise<void> {
  const from = h.mark();
  const bumped = await h.wardrik.runner.run({
    agent: 'a',
    run: 'bump',
    call: { id: 'bump', name: `${server}__bump_tools` },
    policy: [{ match: `${server}/bump_tools`, action: 'allow' }],
  });
  assert.equal(bumped.status, 'ok', JSON.stringify(bumped));
  await h.toolsChanged(server, 13, from);
}

describe('Pinned tool definitions', () => {
  it('gates a changed tool: each call parks with what changed until a person accepts one, then calls run', async () => {
    const dir = tempDir();
    const count = join(dir, 'count');
    const h = await harness({ servers: { fx: { transport: stdio([], { COUNT_FILE: count }), gated: false } } });
    try {
      await h.toolsChanged('fx', 12);
      assert.equal((await h.call('fx__write')).status, 'ok', 'first seen: pinned and not gated');
      await bump(h, 'fx');
      const [changed] = changedEvents(h.events);
      assert.equal(changed?.tool, 'write');
      assert.equal(changed?.accepted, false);
      assert.ok(
        changed?.changes.some((c) => /annotations changed: .*readOnlyHint null → true/.test(c)),
        JSON.stringify(changed),
      );
      assert.equal(changedEvents(h.events).length, 1, 'extra is new, not changed');

      // Two calls at once: both park, nothing reaches the server.
      const [one, two] = await Promise.all([
        h.call('fx__write', {}, { run: 'r1' }),
        h.call('fx__write', {}, { run: 'r2' }),
      ]);
      assert.equal(one.status === 'parked' && one.kind, 'tool_change');
      assert.equal(two.status === 'parked' && two.kind, 'tool_change');
      assert.equal(lines(count).filter((l) => l === 'write').length, 1);
      const items = await h.wardrik.inbox.list();
      assert.equal(items.length, 2);
      const item = items[0]!;
      assert.equal(item.kind, 'tool_change');
      assert.match(item.reason, /definition of tool "write" of MCP server "fx" changed/);
      const detail = item.detail as {
        before: { annotations: object };
        after: { annotations: object };
        changes: string[];
      };
      assert.deepEqual(detail.before.annotations, { destructiveHint: true, openWorldHint: false });
      assert.deepEqual(detail.after.annotations, { readOnlyHint: true });

      // Accepting one runs it and pins the new definition; the other item still runs its own call once approved.
      const accepted = await h.wardrik.inbox.approve(item.id, { by: 'ann' });
      assert.equal(accepted.status, 'ok', JSON.stringify(accepted));
      assert.equal((await h.call('fx__write', {}, { run: 'r3' })).status, 'ok', 'accepted: no longer gated');
      assert.equal(lines(count).filter((l) => l === 'write').length, 3);
      assert.equal((await h.wardrik.inbox.approve(items[1]!.id)).status, 'ok');
      assert.equal(lines(count).filter((l) => l === 'write').length, 4);
    } finally {
      await h.close();
    }
  });

  it('keeps the tool gated when the person denies the change', async () => {
    const h = await harness({ servers: { fx: { transport: stdio(), gated: false } } });
    try {
      await h.toolsChanged('fx', 12);
      await bump(h, 'fx');
      const parked = await h.call('fx__write', {}, { run: 'r1' });
      assert.ok(parked.status === 'parked' && parked.inboxId !== undefined);
      const denied = await h.wardrik.inbox.deny(parked.inboxId, { reason: 'looks like a rug pull' });
      assert.equal(denied.status, 'error');
      const again = await h.call('fx__write', {}, { run: 'r2' });
      assert.equal(again.status === 'parked' && again.kind, 'tool_change');
    } finally {
      await h.close();
    }
  });

  it('keeps pins in the store across restarts and nodes: a server changed while Wardrik was down is gated', async () => {
    const db = `sqlite:${join(tempDir(), 'w.db')}`;
    const first = await harness({ servers: { fx: { transport: stdio(), gated: false } } }, { store: db });
    try {
      await first.toolsChanged('fx', 12);
    } finally {
      await first.close();
    }
    // The server was upgraded meanwhile: it starts with the changed `write`.
    const second = await harness(
      { servers: { fx: { transport: stdio([], { VARIANT: '1' }), gated: false } } },
      { store: db },
    );
    const other = await harness(
      { servers: { fx: { transport: stdio([], { VARIANT: '1' }), gated: false } } },
      { store: db },
    );
    try {
      await second.toolsChanged('fx', 13);
      await other.toolsChanged('fx', 13);
      assert.deepEqual(
        changedEvents(second.events).map((e) => [e.tool, e.accepted]),
        [['write', false]],
      );
      const parked = await second.call('fx__write', {}, { run: 'r1' });
      assert.ok(parked.status === 'parked' && parked.kind === 'tool_change' && parked.inboxId !== undefined);
      assert.equal((await other.call('fx__write', {}, { run: 'r2' })).status, 'parked');
      // Accepted on one node: the other node's next call runs.
      assert.equal((await second.wardrik.inbox.approve(parked.inboxId)).status, 'ok');
      assert.equal((await other.call('fx__write', {}, { run: 'r3' })).status, 'ok');
    } finally {
      await second.close();
      await other.close();
    }
  });

  it("accepts a trusted server's changes as they come, with an event", async () => {
    const h = await harness({ servers: { fx: { transport: stdio(), trusted: true, gated: false } } });
    try {
      await h.toolsChanged('fx', 12);
      await bump(h, 'fx');
      assert.deepEqual(
        changedEvents(h.events).map((e) => [e.tool, e.accepted]),
        [['write', true]],
      );
      assert.equal((await h.call('fx__write')).status, 'ok');
    } finally {
      await h.close();
    }
  });

  it('gates a changed tool of a Streamable HTTP server too', async () => {
    const fixture = await startHttpFixture();
    const h = await harness({ servers: { web: { transport: { http: { url: fixture.url } }, gated: false } } });
    try {
      await h.toolsChanged('web', 12);
      await bump(h, 'web');
      const parked = await h.call('web__write', {}, { run: 'r1' });
      assert.equal(parked.status === 'parked' && parked.kind, 'tool_change');
    } finally {
      await h.close();
      await fixture.close();
    }
  });
});
