import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, it } from 'node:test';
import { CLI, seed, wardrik } from '../cli/helpers.js';
import { raw, signIn, sqliteStores } from './helpers.js';
import { eventually } from '../eventually.js';

const stores = sqliteStores();
after(() => stores.removeAll());

/** Starts `wardrik web ARGS` and collects what it prints. */
function serve(args: readonly string[], env: Record<string, string> = {}) {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'web', '--port', '0', ...args], {
    env: { ...process.env, WARDRIK_STORE: '', WARDRIK_WEB_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
      await eventually(
        '/Sign-in token/.test(out.stdout) || out.code !== undefined',
        () => /Sign-in token/.test(out.stdout) || out.code !== undefined,
      );
      const base = /The Wardrik inbox is at (http:\/\/127\.0\.0\.1:\d+\/) /.exec(out.stdout)?.[1];
      const token = /Sign-in token, shown this once: (\S+)/.exec(out.stdout)?.[1];
      assert.ok(base !== undefined && token !== undefined, `${out.stdout}\n${out.stderr}`);
      assert.equal(out.stdout.split(token).length, 2, 'the token is printed once');
      const session = await signIn(base, 'Dana', token);
      const item = (await seeded.node.inbox.get(seeded.batch.approval))!;
      const approved = (await (await session.post(`api/items/${item.id}/approve`, { digest: item.digest })).json()) as {
        status: string;
        by: string;
        pending: boolean;
      };
      assert.deepEqual(approved, { ...approved, status: 'approved', by: 'Dana', pending: true });
      // As `wardrik approve` does: recorded here, run by the node that offers the tool.
      assert.deepEqual(seeded.ran, []);
      await seeded.node.recover();
      assert.deepEqual(seeded.ran, ['refund:ord_2']);
      child.kill('SIGTERM');
      await eventually('out.code !== undefined', () => out.code !== undefined);
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
      await eventually(
        "out.stdout.includes('\\n') || out.code !== undefined",
        () => out.stdout.includes('\n') || out.code !== undefined,
      );
      const printed = JSON.parse(out.stdout) as { url: string; store: string; token?: string };
      assert.equal(printed.token, undefined);
      assert.match(printed.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
      const response = await fetch(new URL('api/items', printed.url), {
        headers: { authorization: 'Bearer from-the-environment-123' },
      });
      assert.equal(((await response.json()) as { items: unknown[] }).items.length, 4);
      child.kill('SIGTERM');
      await eventually('out.code !== undefined', () => out.code !== undefined);
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

  it('refuses a foreign Host (DNS rebinding) unless --allowed-host names it', async () => {
    const url = stores.url();
    const seeded = await seed(url);
    try {
      for (const [args, expected] of [
        [[], 403],
        [['--allowed-host', 'rebind.example'], 401],
      ] as const) {
        const { child, out } = serve(['--store', url, '--json', ...args], {
          WARDRIK_WEB_TOKEN: 'from-the-environment-123',
        });
        children.push(child);
        await eventually(
          "out.stdout.includes('\\n') || out.code !== undefined",
          () => out.stdout.includes('\n') || out.code !== undefined,
        );
        const { url: base } = JSON.parse(out.stdout) as { url: string };
        assert.equal((await raw(base, { headers: { host: 'rebind.example' } })).status, expected, args.join(' '));
        assert.equal(
          (await raw(base, { headers: { host: `localhost:${new URL(base).port}` } })).status,
          args.length === 0 ? 401 : 403,
          args.join(' '),
        );
        child.kill('SIGTERM');
        await eventually('out.code !== undefined', () => out.code !== undefined);
      }
    } finally {
      await seeded.node.close();
    }
  });

  it('says at start that one shared token is for one person, and with --people records who signed in as by', async () => {
    const url = stores.url();
    const seeded = await seed(url);
    const dir = mkdtempSync(join(tmpdir(), 'wardrik-people-'));
    try {
      const shared = serve(['--store', url], { WARDRIK_WEB_TOKEN: 'from-the-environment-123' });
      children.push(shared.child);
      await eventually(
        '/One shared token/.test(shared.out.stdout) || shared.out.code !== undefined',
        () => /One shared token/.test(shared.out.stdout) || shared.out.code !== undefined,
      );
      assert.match(
        shared.out.stdout,
        /One shared token, for one person: whoever has it types the name recorded with their answers\. For several people, give each a token of their own with --people FILE\./,
      );
      shared.child.kill('SIGTERM');

      const token = 'ana-token-0123456789abcdef';
      const file = join(dir, 'people.json');
      writeFileSync(
        file,
        JSON.stringify({ people: [{ id: 'ana', tokenSha256: createHash('sha256').update(token).digest('hex') }] }),
      );
      const named = serve(['--store', url, '--people', file]);
      children.push(named.child);
      await eventually(
        '/named person/.test(named.out.stdout) || named.out.code !== undefined',
        () => /named person/.test(named.out.stdout) || named.out.code !== undefined,
      );
      assert.match(
        named.out.stdout,
        /1 named person signs in, each with their own token; answers are recorded under their names\./,
      );
      assert.doesNotMatch(named.out.stdout, /Sign-in token|One shared token/);
      const base = /The Wardrik inbox is at (http:\S+) /.exec(named.out.stdout)![1]!;
      const session = await signIn(base, 'Someone Else', token);
      const item = (await seeded.node.inbox.get(seeded.batch.approval))!;
      assert.equal(
        ((await (await session.post(`api/items/${item.id}/approve`, { digest: item.digest })).json()) as { by: string })
          .by,
        'ana',
      );
      named.child.kill('SIGTERM');

      const refused = await wardrik(['--store', url, 'web', '--port', '0', '--people', join(dir, 'missing.json')]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /The people file ".*missing\.json" cannot be read \(ENOENT\)/);
    } finally {
      await seeded.node.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
