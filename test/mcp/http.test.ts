import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EgressRefused, publicOnly, type EgressCheck } from '../../src/index.js';
import { startHttpFixture } from './fixtures/http-server.js';
import { harness, stdio } from './helpers.js';
import { eventually } from '../eventually.js';

/** A check that allows every URL and pins it to 127.0.0.1, recording what it was asked. */
function loopbackPin(asked: string[] = []): EgressCheck {
  return (url) => {
    asked.push(url.href);
    return { ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] };
  };
}

describe('MCP over Streamable HTTP', () => {
  it('offers the tools and answers calls', async () => {
    const fixture = await startHttpFixture();
    const h = await harness({ servers: { web: { transport: { http: { url: fixture.url } } } } });
    try {
      assert.equal(h.wardrik.tools(['web/*']).length, 12);
      assert.deepEqual(await h.call('web__echo', { text: 'over http' }), {
        status: 'ok',
        output: 'echo: over http',
        labels: ['outside'],
      });
      const failed = await h.call('web__fail');
      assert.equal(failed.status === 'error' && failed.message, 'it broke: the widget is missing');
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('sends the credential as a bearer token and configured headers as given', async () => {
    const fixture = await startHttpFixture();
    process.env.WARDRIK_TEST_HTTP_TOKEN = 'tok-123';
    const h = await harness({
      servers: {
        web: {
          transport: { http: { url: fixture.url, headers: { 'x-team': 'blue' } } },
          credential: 'WARDRIK_TEST_HTTP_TOKEN',
        },
      },
    });
    try {
      assert.ok(fixture.requests.length > 0);
      assert.ok(fixture.requests.every((r) => r.authorization === 'Bearer tok-123'));
    } finally {
      delete process.env.WARDRIK_TEST_HTTP_TOKEN;
      await h.close();
      await fixture.close();
    }
  });

  it('lists the tools again on tools/list_changed', async () => {
    const fixture = await startHttpFixture();
    const h = await harness({ servers: { web: { transport: { http: { url: fixture.url } }, gated: false } } });
    try {
      const from = h.mark();
      await h.call('web__bump_tools');
      await h.toolsChanged('web', 13, from);
      assert.equal(h.wardrik.tools(['web/extra']).length, 1);
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('goes down to 0 tools when the server stops, and retries a read-only call across its restart', async () => {
    let fixture = await startHttpFixture();
    const { port, state } = fixture;
    const h = await harness({ servers: { web: { transport: { http: { url: fixture.url } } } } });
    try {
      await fixture.close();
      const from = h.mark();
      const answer = h.call('web__echo', { text: 'again' });
      await h.toolsChanged('web', 0, from);
      // The call met the server down and waits for its retry: only then is the server started again.
      await h.until((e) => e.type === 'tool.retrying', 15_000, from);
      fixture = await startHttpFixture({ port, state });
      assert.deepEqual(await answer, { status: 'ok', output: 'echo: again', labels: ['outside'] });
      assert.ok(h.events.slice(from).some((e) => e.type === 'tool.retrying'));
      await h.toolsChanged('web', 12, from);
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('does not send a non-repeatable call again when the server fails during it', async () => {
    const fixture = await startHttpFixture();
    const h = await harness({ servers: { web: { transport: { http: { url: fixture.url } }, gated: false } } });
    try {
      await fixture.close();
      const answer = await h.call('web__write');
      assert.equal(answer.status === 'error' && answer.code, 'unavailable');
      assert.equal(h.events.filter((e) => e.type === 'tool.retrying').length, 0);
    } finally {
      await h.close();
    }
  });

  it('a server that is not there offers no tools and does not hold up the others', async () => {
    const fixture = await startHttpFixture();
    const h = await harness({
      servers: {
        gone: { transport: { http: { url: 'http://127.0.0.1:9/mcp' } } },
        web: { transport: { http: { url: fixture.url } } },
        local: { transport: stdio() },
      },
    });
    try {
      assert.equal(h.wardrik.tools(['gone/*']).length, 0);
      assert.equal(h.wardrik.tools(['web/*']).length, 12);
      assert.equal(h.wardrik.tools(['local/*']).length, 12);
    } finally {
      await h.close();
      await fixture.close();
    }
  });
});

describe('The egress check on runtime HTTP servers', () => {
  it('connects to the address the check allowed, keeping the URL host name in the Host header', async () => {
    const fixture = await startHttpFixture();
    const asked: string[] = [];
    const h = await harness({ check: loopbackPin(asked) });
    try {
      const url = `http://mcp.wardrik.test:${fixture.port}/mcp`;
      await h.hub().add('pinned', { transport: { http: { url } } });
      await h.toolsChanged('pinned', 12);
      assert.deepEqual(await h.call('pinned__echo', { text: 'pinned' }), {
        status: 'ok',
        output: 'echo: pinned',
        labels: ['outside'],
      });
      assert.ok(fixture.requests.length > 0);
      assert.ok(fixture.requests.every((r) => r.host === `mcp.wardrik.test:${fixture.port}`));
      // Once on add, once at the connection's start.
      assert.deepEqual(asked, [url, url]);
    } finally {
      await h.close();
      await fixture.close();
    }
  });

  it('checks again at every connection start, and a refusal keeps the server down', async () => {
    const fixture = await startHttpFixture();
    let allow = true;
    const h = await harness({
      check: () =>
        allow ? { ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] } : { ok: false, reason: 'now refused' },
    });
    try {
      await h.hub().add('flip', { transport: { http: { url: fixture.url } } });
      await h.toolsChanged('flip', 12);
      allow = false;
      const from = h.mark();
      await fixture.close();
      await h.call('flip__echo', { text: 'x' });
      await h.toolsChanged('flip', 0, from);
      // The reconnects ask the check again, which now refuses: the server stays down, saying why.
      await eventually('the refusal', () => /now refused/.test(h.hub().status()[0]?.error ?? ''));
      assert.equal(h.wardrik.tools(['flip/*']).length, 0);
    } finally {
      await h.close();
    }
  });

  it('does not follow a redirect to another origin, and never reaches it', async () => {
    const target = await startHttpFixture();
    const redirecting = await startHttpFixture({ redirectTo: `http://other.wardrik.test:${target.port}/mcp` });
    const asked: string[] = [];
    const h = await harness({ check: loopbackPin(asked) });
    try {
      await h.hub().add('hop', { transport: { http: { url: `http://first.wardrik.test:${redirecting.port}/mcp` } } });
      const warning = await h.until((e) => e.type === 'warning' && e.message.includes('"hop"'));
      assert.match(warning.type === 'warning' ? warning.message : '', /[Rr]edirect/);
      assert.equal(target.requests.length, 0);
      assert.ok(asked.every((url) => url.includes('first.wardrik.test')));
    } finally {
      await h.close();
      await redirecting.close();
      await target.close();
    }
  });

  it('publicOnly refuses a loopback server and any command when a server is added', async () => {
    const h = await harness({ check: publicOnly() });
    try {
      await assert.rejects(
        h.hub().add('local', { transport: { http: { url: 'http://127.0.0.1:8080/mcp' } } }),
        (error: Error) => error instanceof EgressRefused && /loopback/.test(error.message),
      );
      await assert.rejects(
        h.hub().add('meta', { transport: { http: { url: 'http://169.254.169.254/' } } }),
        /metadata/,
      );
      await assert.rejects(
        h.hub().add('cmd', { transport: stdio() }),
        (error: Error) => error instanceof EgressRefused && /runs a command/.test(error.message),
      );
      assert.deepEqual(h.hub().servers(), []);
    } finally {
      await h.close();
    }
  });
});

describe('Closing HTTP connections', () => {
  it('closes its sockets with the hub instead of leaving them in a keep-alive pool', async () => {
    const fixture = await startHttpFixture();
    const h = await harness({ servers: { web: { transport: { http: { url: fixture.url } } } } });
    try {
      await h.call('web__echo', { text: 'x' });
      assert.ok((await fixture.connections()) > 0);
      await h.close();
      // Well under the 4 s an idle keep-alive socket would otherwise stay open.
      await eventually('the sockets to close', async () => (await fixture.connections()) === 0);
    } finally {
      await h.close();
      await fixture.close();
    }
  });
});
