import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { Tokens, verifyAudit, type FullStore } from '../../src/index.js';
import { postgresSchemas } from '../cli/helpers.js';
import { auditedNode } from './audited-node.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-audit-nodes-'));
const schemas = postgresSchemas();
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schemas.dropAll();
});

const NODE = fileURLToPath(new URL('./audited-node.js', import.meta.url));

/** Runs audited-node.js as a child process making `calls` calls in `run`; resolves with what it printed. */
function childNode(store: string, run: string, calls: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [NODE], {
      env: { ...process.env, STORE_URL: store, AUDITED_NODE_RUN: run, CALLS: String(calls) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`node exited ${code}: ${out}`))));
  });
}

async function checkTrail(store: FullStore, expected: number): Promise<void> {
  const entries = await store.listAudit();
  assert.equal(entries.filter((entry) => entry.kind === 'decision').length, expected);
  const result = await verifyAudit(store);
  assert.deepEqual([result.problem, result.entries], [undefined, expected]);
}

describe('An audit trail several nodes append to', () => {
  it('stays one chain on one SQLite file written by three processes at once', async () => {
    const url = `sqlite:${join(dir, 'nodes.db')}`;
    const here = await auditedNode(url);
    const done = await Promise.all([
      childNode(url, 'run-b', 40),
      childNode(url, 'run-c', 40),
      (async () => {
        await here.calls('run-a', 40);
        return 'done';
      })(),
    ]);
    assert.deepEqual(done, ['done', 'done', 'done']);
    await checkTrail(here.wardrik.container.resolve(Tokens.Store) as FullStore, 120);
    await here.wardrik.close();
  });

  it('stays one chain in one PostgreSQL schema written by two nodes at once', async () => {
    const url = schemas.url();
    const [a, b] = [await auditedNode(url), await auditedNode(url)];
    const answers = (await Promise.all([a.calls('run-a', 40), b.calls('run-b', 40)])).flat();
    assert.ok(answers.every((answer) => answer.status === 'ok'));
    await checkTrail(a.wardrik.container.resolve(Tokens.Store) as FullStore, 80);
    await a.wardrik.close();
    await b.wardrik.close();
  });
});
