import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ConfigurationError, defineTool, Tokens, Wardrik } from '../../src/index.js';
import { serving, text, type Serving } from './helpers.js';
import { eventually } from '../eventually.js';

describe('WardrikMcpServer', () => {
  describe('when a client lists the tools', () => {
    let s: Serving;
    before(async () => (s = await serving()));
    after(() => s.close());

    it('gives qualified names, titles, descriptions, schemas and MCP hints', async () => {
      const client = await s.client();
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['orders__find_order', 'orders__read_web', 'orders__refund', 'orders__slow'],
      );
      const find = tools[0]!;
      assert.equal(find.title, 'Find an order');
      assert.equal(find.description, 'Look up an order by id.');
      assert.deepEqual(find.inputSchema.required, ['id']);
      assert.deepEqual(find.annotations, { title: 'Find an order', readOnlyHint: true, openWorldHint: false });
      assert.deepEqual(find.execution, { taskSupport: 'optional' });
      assert.deepEqual(tools[2]!.annotations, { destructiveHint: true, idempotentHint: false });
    });
  });

  describe('with names: bare', () => {
    it('serves find_order as find_order', async () => {
      const s = await serving({ names: 'bare' });
      try {
        const client = await s.client();
        assert.deepEqual(
          (await client.listTools()).tools.map((t) => t.name),
          ['find_order', 'read_web', 'refund', 'slow'],
        );
        const result = await client.callTool({ name: 'find_order', arguments: { id: 'o-1' } });
        assert.deepEqual(result.structuredContent, { id: 'o-1', status: 'shipped' });
      } finally {
        await s.close();
      }
    });

    it('refuses at start-up two tools that would share a bare name, naming both', async () => {
      const tool = defineTool({
        name: 'find_order',
        description: 'Another.',
        annotations: { readOnly: true },
        run: () => 1,
      });
      const wardrik = await Wardrik.create({
        store: 'memory:',
        recoverMs: Infinity,
        tools: { orders: [tool], archive: [tool] },
      });
      try {
        assert.throws(
          () => wardrik.mcpServer({ tools: ['**'], names: 'bare', authenticate: false }),
          (error: unknown) =>
            error instanceof ConfigurationError &&
            /orders\/find_order/.test(error.message) &&
            /archive\/find_order/.test(error.message),
        );
        // Qualified names do not clash.
        assert.doesNotThrow(() => wardrik.mcpServer({ tools: ['**'], authenticate: false }));
      } finally {
        await wardrik.close();
      }
    });
  });

  describe('when a client calls a tool', () => {
    let s: Serving;
    before(async () => (s = await serving({ agent: 'desk' })));
    after(() => s.close());

    it('answers with the output as text and structured content, and the labels in _meta', async () => {
      const client = await s.client();
      const result = await client.callTool({ name: 'orders__find_order', arguments: { id: 'o-7' } });
      assert.equal(result.isError, undefined);
      assert.deepEqual(JSON.parse(text(result)), { id: 'o-7', status: 'shipped' });
      assert.deepEqual(result.structuredContent, { id: 'o-7', status: 'shipped' });
      assert.deepEqual(result._meta, {
        'wardrik/labels': ['confidential'],
        'io.modelcontextprotocol/trust-annotations': { sensitive: true },
      });
      const web = await client.callTool({ name: 'orders__read_web', arguments: {} });
      assert.deepEqual(web._meta, {
        'wardrik/labels': ['outside'],
        'io.modelcontextprotocol/trust-annotations': { untrusted: true },
      });
    });

    it('journals the call under the configured agent, in the session as its run', async () => {
      const client = await s.client();
      await client.callTool({ name: 'orders__find_order', arguments: { id: 'o-8' } });
      const calls = await s.store.listCalls({ run: client.session });
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.agent, 'desk');
      assert.equal(calls[0]!.tool, 'orders/find_order');
      assert.equal(calls[0]!.state, 'succeeded');
    });

    it('answers invalid arguments with an isError result listing every failing field', async () => {
      const client = await s.client();
      const result = await client.callTool({ name: 'orders__find_order', arguments: { id: 'x-1', verbose: 'yes' } });
      assert.equal(result.isError, true);
      assert.match(text(result), /id/);
      assert.match(text(result), /verbose/);
      assert.match(text(result), /did not run/);
    });

    it("answers a tool's own error as an isError result", async () => {
      const client = await s.client();
      const result = await client.callTool({ name: 'orders__refund', arguments: {} });
      assert.equal(result.isError, true);
      assert.match(text(result), /id/);
    });

    it('answers an unknown tool with JSON-RPC invalid params, naming the closest tools', async () => {
      const client = await s.client();
      await assert.rejects(
        client.callTool({ name: 'orders__find_ordr', arguments: {} }),
        (error: unknown) =>
          error instanceof McpError && error.code === -32602 && /orders__find_order/.test(error.message),
      );
      assert.deepEqual(await s.store.listCalls({ run: client.session }), []);
      // A hostile name is cut before it is compared with every served name or echoed.
      await assert.rejects(
        client.callTool({ name: 'x'.repeat(200_000), arguments: {} }),
        (error: unknown) => error instanceof McpError && error.message.length < 400,
      );
    });

    it('answers malformed tools/call params with JSON-RPC invalid params (-32602), naming the field', async () => {
      const client = await s.client();
      const malformed = (params: unknown) =>
        client.request({ method: 'tools/call', params } as never, CallToolResultSchema);
      const invalidParams = (field: RegExp) => (error: unknown) =>
        error instanceof McpError && error.code === -32602 && field.test(error.message);
      await assert.rejects(malformed({ name: 42, arguments: {} }), invalidParams(/params\.name/));
      await assert.rejects(
        malformed({ name: 'orders__find_order', arguments: [{ id: 'o-1' }] }),
        invalidParams(/params\.arguments/),
      );
      await assert.rejects(
        malformed({ name: 'orders__find_order', arguments: { id: 'o-1' }, task: { ttl: 'soon' } }),
        invalidParams(/params\.task\.ttl/),
      );
      await assert.rejects(malformed(undefined), invalidParams(/params/));
      // Nothing ran or was journaled for them.
      assert.deepEqual(await s.store.listCalls({ run: client.session }), []);
    });

    it('keeps labels with the session: outside read in one session does not reach another', async () => {
      const one = await s.client();
      const two = await s.client();
      await one.callTool({ name: 'orders__read_web', arguments: {} });
      assert.deepEqual(await s.store.getLabels(one.session), ['outside']);
      assert.deepEqual(await s.store.getLabels(two.session), []);
    });

    it("stops the tool's signal when the client cancels the request", async () => {
      const client = await s.client();
      const stop = new AbortController();
      const calling = client.callTool({ name: 'orders__slow', arguments: { tag: 'cancelled' } }, undefined, {
        signal: stop.signal,
      });
      await eventually(
        "(await s.store.listCalls({ run: client.session })).some((c) => c.state === 'started')",
        async () => (await s.store.listCalls({ run: client.session })).some((c) => c.state === 'started'),
      );
      stop.abort('enough');
      await assert.rejects(calling);
      await eventually("s.ledger.aborted.includes('cancelled')", () => s.ledger.aborted.includes('cancelled'));
    });

    it("stops the tool's signal when the client goes away mid-call", async () => {
      const client = await s.client();
      const gone = new AbortController();
      // A raw POST in the client's session, dropped before its answer (no notifications/cancelled is sent).
      const request = fetch(s.url, {
        method: 'POST',
        signal: gone.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': client.session,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 99,
          method: 'tools/call',
          params: { name: 'orders__slow', arguments: { tag: 'gone' } },
        }),
      });
      await eventually(
        "(await s.store.listCalls({ run: client.session })).some((c) => c.state === 'started')",
        async () => (await s.store.listCalls({ run: client.session })).some((c) => c.state === 'started'),
      );
      gone.abort();
      await assert.rejects(request.then((response) => response.text()));
      await eventually("s.ledger.aborted.includes('gone')", () => s.ledger.aborted.includes('gone'));
    });
  });

  describe('when the policy and labels apply', () => {
    it('parks a side effect after outside was read in that session only (the outside rule, per session)', async () => {
      const s = await serving(
        { approvals: { waitMs: 0 } },
        { policy: { rules: [{ match: 'orders/refund', action: 'allow' }] } },
      );
      try {
        const tainted = await s.client();
        const clean = await s.client();
        await tainted.callTool({ name: 'orders__read_web', arguments: {} });
        const parked = await tainted.callTool({ name: 'orders__refund', arguments: { id: 'o-1' } });
        assert.equal(parked.isError, true);
        assert.match(text(parked), /waiting for a person/);
        const ran = await clean.callTool({ name: 'orders__refund', arguments: { id: 'o-2' } });
        assert.equal(text(ran), 'refunded o-2');
        assert.deepEqual(ran._meta, {
          'wardrik/labels': ['money', 'confidential'],
          'io.modelcontextprotocol/trust-annotations': { sensitive: true },
        });
        assert.deepEqual(s.ledger.refunds, ['o-2']);
      } finally {
        await s.close();
      }
    });

    it("applies the server's rules and the agent's budget", async () => {
      const s = await serving({ policy: [{ match: 'orders/read_web', action: 'deny' }], budgetUsd: 0 });
      try {
        const client = await s.client();
        const denied = await client.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } });
        assert.equal(denied.isError, true);
        assert.match(text(denied), /budget/);
      } finally {
        await s.close();
      }
      const t = await serving({ policy: [{ match: 'orders/read_web', action: 'deny' }] });
      try {
        const client = await t.client();
        const denied = await client.callTool({ name: 'orders__read_web', arguments: {} });
        assert.equal(denied.isError, true);
        assert.match(text(denied), /does not allow/);
      } finally {
        await t.close();
      }
    });

    it('bounds the calls one session has in flight', async () => {
      const s = await serving({ http: { maxCallsPerSession: 1 } });
      try {
        const client = await s.client();
        const stop = new AbortController();
        const first = client.callTool({ name: 'orders__slow', arguments: { tag: 'first' } }, undefined, {
          signal: stop.signal,
        });
        await eventually(
          '(await s.store.listCalls({ run: client.session })).length === 1',
          async () => (await s.store.listCalls({ run: client.session })).length === 1,
        );
        const second = await client.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } });
        assert.equal(second.isError, true);
        assert.match(text(second), /1 calls in flight/);
        stop.abort();
        await assert.rejects(first);
        await eventually("s.ledger.aborted.includes('first')", () => s.ledger.aborted.includes('first'));
        const third = await client.callTool({ name: 'orders__find_order', arguments: { id: 'o-1' } });
        assert.equal(third.isError, undefined);
      } finally {
        await s.close();
      }
    });
  });

  describe('when the catalog changes', () => {
    it('sends tools/list_changed to every session and lists the new tools', async () => {
      const s = await serving({ tools: ['orders/*', 'extra/*'] });
      try {
        const one = await s.client();
        const two = await s.client();
        const catalog = s.wardrik.container.resolve(Tokens.Catalog);
        catalog.set('extra', [
          defineTool({ name: 'ping', description: 'Pings.', annotations: { readOnly: true }, run: () => 'pong' }),
        ]);
        await eventually(
          'one.changes.count === 1 && two.changes.count === 1',
          () => one.changes.count === 1 && two.changes.count === 1,
        );
        assert.ok((await one.listTools()).tools.some((t) => t.name === 'extra__ping'));
        // A change outside the served patterns says nothing.
        catalog.set('hidden', [defineTool({ name: 'ping', description: 'Pings.', run: () => 'pong' })]);
        catalog.delete('extra');
        await eventually('one.changes.count === 2', () => one.changes.count === 2);
        assert.ok(!(await one.listTools()).tools.some((t) => t.name === 'extra__ping'));
        assert.equal(one.changes.count, 2);
      } finally {
        await s.close();
      }
    });
  });

  describe('options', () => {
    it('refuses an HTTP handler without authenticate, saying how to fix it', async () => {
      const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
      try {
        const server = wardrik.mcpServer({ tools: ['**'] });
        assert.throws(
          () => server.handler(),
          (error: unknown) => error instanceof ConfigurationError && /authenticate: false/.test(error.message),
        );
        assert.throws(() => wardrik.mcpServer({ tools: [] }), ConfigurationError);
        assert.throws(() => wardrik.mcpServer({ tools: ['**'], approvals: { waitMs: -1 } }), /approvals.waitMs/);
      } finally {
        await wardrik.close();
      }
    });
  });
});
