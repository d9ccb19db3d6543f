import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { ServerConnection } from '../../src/mcp/connection.js';
import type { DefinitionPins } from '../../src/mcp/definition-pins.js';
import { ServerTools } from '../../src/mcp/server-tools.js';

const tools = (count: number, version = 1): McpTool[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `t${i}`,
    description: `Tool ${i}, version ${version}.`,
    inputSchema: { type: 'object' as const },
  }));

const serverTools = (maxTools = 20_000) =>
  new ServerTools({
    server: 's',
    options: { transport: { http: { url: 'http://127.0.0.1:9/' } } },
    connection: {} as ServerConnection,
    maxResultChars: 1_000,
    maxTools,
    pins: {} as DefinitionPins,
    asks: false,
  });

describe('ServerTools', () => {
  it('adapts a short listing at once, and a long one in slices, as a promise', async () => {
    const adapter = serverTools();
    const short = adapter.adapt(tools(10));
    assert.ok(!(short instanceof Promise) && short?.definitions.length === 10);
    const long = adapter.adapt(tools(2_000));
    assert.ok(long instanceof Promise);
    assert.equal((await long)?.definitions.length, 2_000);
  });

  it('drops a long listing that a newer one overtakes while it is adapted, and one the server going down overtakes', async () => {
    const adapter = serverTools();
    const first = adapter.adapt(tools(2_000, 1));
    const second = adapter.adapt(tools(3, 2));
    assert.equal(await first, undefined);
    assert.ok(!(second instanceof Promise) && second?.definitions.length === 3);
    const third = adapter.adapt(tools(2_000, 3));
    adapter.forget();
    assert.equal(await third, undefined);
  });

  it('ignores a listing the same as the last, and keeps the definitions of tools listed the same', async () => {
    const adapter = serverTools();
    const first = adapter.adapt(tools(3));
    assert.equal(adapter.adapt(tools(3)), undefined);
    const changed = adapter.adapt([...tools(3), ...tools(1, 9).map((t) => ({ ...t, name: 'extra' }))]);
    assert.ok(!(first instanceof Promise) && !(changed instanceof Promise));
    assert.equal(changed?.definitions[0], first?.definitions[0]);
  });

  it('offers at most maxTools and says how many were listed', () => {
    const listing = serverTools(5).adapt(tools(8));
    assert.ok(!(listing instanceof Promise));
    assert.equal(listing?.definitions.length, 5);
    assert.equal(listing?.overCap, 8);
  });
});
