import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Wardrik } from '../../src/index.js';
import { WARDRIK_INBOX, WARDRIK_MCP_SERVER } from '../../src/nest/index.js';
import { start } from '../../examples/nest/main.js';
import { OrdersRepository, OrderTools } from '../../examples/nest/orders.js';

/** Nest's logger, recording what each context logs. */
class RecordingLogger implements LoggerService {
  readonly lines: { level: string; context: string | undefined; message: string }[] = [];
  private record(level: string, message: unknown, context?: unknown) {
    this.lines.push({ level, context: typeof context === 'string' ? context : undefined, message: String(message) });
  }
  log(message: unknown, context?: unknown) {
    this.record('log', message, context);
  }
  warn(message: unknown, context?: unknown) {
    this.record('warn', message, context);
  }
  error(message: unknown, context?: unknown) {
    this.record('error', message, context);
  }
  debug(message: unknown, context?: unknown) {
    this.record('debug', message, context);
  }
}

const bearer = (who: 'agent' | 'bob' | 'carol') => ({ authorization: `Bearer ${who}-token` });

async function mcpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'nest-test-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: bearer('agent') } }),
  );
  return client;
}

const text = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

for (const adapter of ['express', 'fastify'] as const) {
  describe(`Wardrik in a NestJS 12 application on ${adapter}`, () => {
    let app: INestApplication;
    let url: string;
    const logger = new RecordingLogger();

    before(async () => {
      ({ app, url } = await start(adapter, { logger }));
    });
    after(async () => {
      await app.close();
    });

    it('calls the Nest-built toolset, with the repository and configuration Nest injected', async () => {
      const client = await mcpClient(url);
      try {
        const tools = await client.listTools();
        assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['orders__find_order', 'orders__refund_order']);
        const found = await client.callTool({ name: 'orders__find_order', arguments: { orderId: 'ord_1' } });
        const order = JSON.parse(text(found)) as { refundLimitCents: number; askedBy: string; status: string };
        assert.equal(order.status, 'shipped');
        assert.equal(order.refundLimitCents, 20_000, "the app's configuration, not an empty copy");
        assert.equal(order.askedBy, 'support-bot', 'ctx.caller.principal is the user the guard let in');
      } finally {
        await client.close();
      }
    });

    it("injects Wardrik, its MCP server and its inbox, and Wardrik's toolset is Nest's own instance", () => {
      const wardrik = app.get(Wardrik);
      assert.ok(wardrik instanceof Wardrik);
      assert.ok(app.get(WARDRIK_MCP_SERVER) !== null);
      assert.ok(app.get(WARDRIK_INBOX) !== null);
      assert.deepEqual(
        wardrik.tools().map((tool) => tool.name),
        ['orders__find_order', 'orders__refund_order'],
      );
      assert.ok(app.get(OrderTools) instanceof OrderTools);
    });

    it('keeps out an MCP client the guard does not know', async () => {
      const response = await fetch(new URL('/mcp', url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(response.status, 401);
    });

    it('parks a refund, lets only an approver approve it through the inbox API, then runs it once', async () => {
      const client = await mcpClient(url);
      const repository = app.get(OrdersRepository);
      const before = repository.refunds.length;
      try {
        const parked = await client.callTool({
          name: 'orders__refund_order',
          arguments: { orderId: 'ord_1', amountCents: 1200 },
        });
        const inboxId = /inbox item "?([\w:.-]+)"?/i.exec(text(parked))?.[1];
        assert.ok(inboxId !== undefined, text(parked));
        assert.equal(repository.refunds.length, before, 'nothing ran before the approval');

        // Reading needs a known person; answering needs an approver.
        assert.equal((await fetch(new URL('/inbox/api/items', url))).status, 401);
        const items = await fetch(new URL('/inbox/api/items', url), { headers: bearer('bob') });
        assert.equal(items.status, 200);
        assert.ok(JSON.stringify(await items.json()).includes(inboxId));
        const shown = await fetch(new URL(`/inbox/api/items/${encodeURIComponent(inboxId)}`, url), {
          headers: bearer('bob'),
        });
        const { digest } = (await shown.json()) as { digest: string };
        const approve = async (who: 'bob' | 'carol') => {
          // As the page does: the CSRF token from the session, bound to the person the guard let in.
          const session = await fetch(new URL('/inbox/api/session', url), { headers: bearer(who) });
          const { csrfToken, person, groups } = (await session.json()) as {
            csrfToken: string;
            person: string;
            groups: string[];
          };
          assert.equal(person, who);
          // The guard's request.user.roles are the person's groups, checked against rules' approvers.
          assert.deepEqual(groups, who === 'bob' ? ['support'] : ['support', 'approver']);
          return fetch(new URL(`/inbox/api/items/${encodeURIComponent(inboxId)}/approve`, url), {
            method: 'POST',
            headers: {
              ...bearer(who),
              'content-type': 'application/json',
              'x-wardrik-csrf': csrfToken,
              origin: new URL(url).origin,
            },
            body: JSON.stringify({ digest }),
          });
        };
        const refused = await approve('bob');
        assert.equal(refused.status, 403);
        assert.match(await refused.text(), /Only approvers answer/);
        const approved = await approve('carol');
        assert.equal(approved.status, 200, await approved.clone().text());
        const item = await app.get(Wardrik).inbox.get(inboxId);
        assert.equal(item?.by, 'carol');
        assert.equal(item?.requester, 'support-bot', "the MCP caller the guard let in is the item's requester");
        assert.equal(repository.refunds.length, before + 1);
        assert.equal(repository.refunds.at(-1)?.amountCents, 1200);
        // Logged through Nest's Logger.
        assert.ok(
          logger.lines.some((line) => line.context === 'Wardrik' && line.message.includes(`inbox item ${inboxId}`)),
          JSON.stringify(logger.lines.filter((line) => line.context === 'Wardrik')),
        );
      } finally {
        await client.close();
      }
    });

    it('serves the inbox page behind the guard', async () => {
      const page = await fetch(new URL('/inbox/', url), { headers: bearer('bob') });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/i);
      assert.equal((await fetch(new URL('/inbox/', url))).status, 401);
    });
  });
}
