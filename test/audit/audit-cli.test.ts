import 'reflect-metadata';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { container } from 'tsyringe';
import { Tokens } from '../../src/index.js';
import { POSTGRES_URL, postgresSchemas, wardrik } from '../cli/helpers.js';
import { auditedNode } from './audited-node.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-audit-cli-'));
const schemas = postgresSchemas();
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schemas.dropAll();
});

const KEY = 'the trail key';

/** A store with a signed trail of six decisions, each `allow`, one call at a time so entry n is call c(n-1). */
async function seed(url: string): Promise<void> {
  const app = container.createChildContainer();
  app.register(Tokens.Credentials, { useValue: { resolve: () => KEY } });
  const node = await auditedNode(url, { container: app, audit: { signingKey: 'AUDIT_KEY' } });
  for (let i = 0; i < 6; i++) await node.calls(`run-${i}`, 1);
  await node.wardrik.close();
}

/** `wardrik audit verify` on `url` as a child process: its exit code and what it said. */
async function verify(url: string, ...flags: string[]) {
  const result = await wardrik(['audit', 'verify', '--store', url, ...flags], { env: { TRAIL_KEY: KEY, OTHER: 'x' } });
  return { code: result.code, said: `${result.stdout}${result.stderr}` };
}

/** A copy of the seeded SQLite file, changed by `sql`: its store URL. */
function tampered(name: string, sql: string): string {
  const path = join(dir, `${name}.db`);
  copyFileSync(join(dir, 'seed.db'), path);
  const db = new Database(path);
  db.exec(sql);
  db.close();
  return `sqlite:${path}`;
}

describe('wardrik audit, on SQLite', () => {
  const seeded = `sqlite:${join(dir, 'seed.db')}`;
  before(() => seed(seeded));

  it('verifies a trail nobody touched, its signatures too, and names its head', async () => {
    const { code, said } = await verify(seeded, '--signing-key', 'TRAIL_KEY');
    assert.equal(code, 0, said);
    assert.match(said, /verifies: 6 entries, 1 to 6; the chain and signatures check out/);
  });

  it('fails a check with another key from the first entry', async () => {
    const { code, said } = await verify(seeded, '--signing-key', 'OTHER');
    assert.equal(code, 6);
    assert.match(said, /entry 1's signature does not match the key/);
  });

  it('names a row edited by hand', async () => {
    const url = tampered('edited', `UPDATE wardrik_audit SET data = replace(data, '"allow"', '"deny"') WHERE seq = 3`);
    const { code, said } = await verify(url);
    assert.equal(code, 6);
    assert.match(said, /does not verify: entry 3 was changed or moved/);
  });

  it('names a row deleted', async () => {
    const { code, said } = await verify(tampered('deleted', 'DELETE FROM wardrik_audit WHERE seq = 4'));
    assert.equal(code, 6);
    assert.match(said, /entry 4 was removed: the chain goes from entry 3 to entry 5/);
  });

  it('names the first of two rows swapped', async () => {
    const swap = `UPDATE wardrik_audit SET seq = -2 WHERE seq = 2; UPDATE wardrik_audit SET seq = 2 WHERE seq = 3;
      UPDATE wardrik_audit SET seq = 3 WHERE seq = -2;`;
    const { code, said } = await verify(tampered('swapped', swap));
    assert.equal(code, 6);
    assert.match(said, /entry 2 was changed or moved/);
  });

  it('names the last row of a removed prefix no checkpoint vouches for', async () => {
    const { code, said } = await verify(tampered('cut', 'DELETE FROM wardrik_audit WHERE seq <= 2'));
    assert.equal(code, 6);
    assert.match(said, /entries 1 to 2 were removed: the trail starts at entry 3/);
  });

  it('exports JSON lines, from an entry or a time, and verifies an export', async () => {
    const all = await wardrik(['audit', 'export', '--store', seeded]);
    assert.equal(all.code, 0, all.stderr);
    const lines = all.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; at: number });
    assert.deepEqual(
      lines.map((entry) => entry.seq),
      [1, 2, 3, 4, 5, 6],
    );
    const from = await wardrik(['audit', 'export', '--store', seeded, '--since', '5', '--json']);
    assert.deepEqual(
      from.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { seq: number }).seq),
      [5, 6],
    );
    const since = new Date(lines[3]!.at).toISOString();
    const fromTime = await wardrik(['audit', 'export', '--store', seeded, '--since', since]);
    assert.equal(fromTime.stdout.trim().split('\n').length, 3);
    const file = join(dir, 'export.jsonl');
    writeFileSync(file, all.stdout);
    assert.equal((await verify(seeded, '--file', file, '--signing-key', 'TRAIL_KEY')).code, 0);
    writeFileSync(file, all.stdout.replace('"call":"c0","digest"', '"call":"c9","digest"'));
    const changed = await verify(seeded, '--file', file);
    assert.equal(changed.code, 6);
    assert.match(changed.said, /export .* does not verify: entry 1 was changed/);
  });

  it('says --since needs an entry number or a time', async () => {
    const result = await wardrik(['audit', 'export', '--store', seeded, '--since', 'yesterday']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /an entry number \(such as 120\) or an ISO time/);
  });
});

describe('wardrik audit, on PostgreSQL', () => {
  it('names a row edited by hand, and one deleted', async () => {
    const url = schemas.url();
    await seed(url);
    assert.equal((await verify(url, '--signing-key', 'TRAIL_KEY')).code, 0);
    const schema = new URL(url).searchParams.get('schema')!;
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      await admin.query(`UPDATE "${schema}".wardrik_audit SET data = replace(data, '"allow"', '"deny"') WHERE seq = 5`);
      const edited = await verify(url);
      assert.equal(edited.code, 6);
      assert.match(edited.said, /entry 5 was changed or moved/);
      await admin.query(`DELETE FROM "${schema}".wardrik_audit WHERE seq = 2`);
      const deleted = await verify(url);
      assert.equal(deleted.code, 6);
      assert.match(deleted.said, /entry 2 was removed/);
    } finally {
      await admin.end();
    }
  });
});
