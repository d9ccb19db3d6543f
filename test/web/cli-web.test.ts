import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, afterEach, describe, it } from 'node:test';
import { CLI, seed, wardrik } from '../cli/helpers.js';
import { signIn, sqliteStores, until } from './helpers.js';

const stores = sqliteStores();
after(() => stores.removeAll());

/** Starts `wardrik web ARGS` and collects what it prints. */
function serve(args: readonly string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'web', '--port', '0', ...args], { env: { ...process.env, WARDRIK_STORE: '', WARDRIK_WEB_TOKEN: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '', code: undefined as number | null | undefined };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out.stderr += chunk));
  child.on('exit', (code) => (out.code = code));
  return { child, out };
}

describe('wardrik web', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });

  it('serves the inbox on 127.0.0.1, prints a generated token once, answers as the CLI does, and stops on SIGTERM', async () => {
    const url = stores.url();
    const seeded = await seed(url);
    try {
      const { child, out } = serve(['--store', url]);
      children.push(child);
      await until(() => /Sign-in token/.test(out.stdout) || out.code !== undefined);
      const base = /The Wardrik inbox is at (http:\/\/127\.0\.0\.1:\d+\/) /.exec(out.stdout)?.[1];
      const token = /Sign-in token, shown this once: (\S+)/.exec(out.stdout)?.[1];
      assert.ok(base !== undefined && token !== undefined, `${out.stdout}\n${out.stderr}`);
      assert.equal(out.stdout.split(token).length, 2, 'the token is printed once');
      const session = await signIn(base, 'Dana', token);
      const item = (await seeded.node.inbox.get(seeded.batch.approval))!;
      const approved = (await (await session.post(`api/items/${item.id}/approve`, { digest: item.digest })).json()) as { status: string; by: string; pending: boolean };
      assert.deepEqual(approved, { ...approved, status: 'approved', by: 'Dana', pending: true });
      // As `wardrik approve` does: recorded here, run by the node that offers the tool.
      assert.deepEqual(seeded.ran, []);
      await seeded.node.recover();
      assert.deepEqual(seeded.ran, ['refund:ord_2']);
      child.kill('SIGTERM');
      await until(() => out.code !== undefined);
      assert.equal(out.code, 0);
    } finally {
      await seeded.node.close();
    }
  });

  it('takes the token from WARDRIK_WEB_TOKEN and prints JSON with --json', async () => {
    const url = stores.url();
    const seeded = await seed(url);
    try {
      const { child, out } = serve(['--store', url, '--json'], { WARDRIK_WEB_TOKEN: 'from-the-environment-123' });
      children.push(child);
      await until(() => out.stdout.includes('\n') || out.code !== undefined);
      const printed = JSON.parse(out.stdout) as { url: string; store: string; token?: string };
      assert.equal(printed.token, undefined);
      assert.match(printed.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
      const response = await fetch(new URL('api/items', printed.url), { headers: { authorization: 'Bearer from-the-environment-123' } });
      assert.equal(((await response.json()) as { items: unknown[] }).items.length, 4);
      child.kill('SIGTERM');
      await until(() => out.code !== undefined);
    } finally {
      await seeded.node.close();
    }
  });

  it('refuses --webhook-url without WARDRIK_WEBHOOK_SECRET, and a bad --port, with exit 2', async () => {
    const url = stores.url();
    const seeded = await seed(url);
    await seeded.node.close();
    const noSecret = await wardrik(['--store', url, 'web', '--port', '0', '--webhook-url', 'http://127.0.0.1:9/hook']);
    assert.equal(noSecret.code, 2);
    assert.match(noSecret.stderr, /--webhook-url needs its signing secret in WARDRIK_WEBHOOK_SECRET/);
    const badPort = await wardrik(['--store', url, 'web', '--port', '70000']);
    assert.equal(badPort.code, 2);
    assert.match(badPort.stderr, /a port number from 0 to 65535/);
  });
});
