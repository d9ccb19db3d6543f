import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ARGUMENT_LIMITS, defineTool, SqliteStore } from '../../src/index.js';
import { CUT_KEY } from '../../src/tools/arguments.js';
import { counter, errorCode, errorMessage, harness } from './helpers.js';

function deepJson(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A SQLite store in a fresh directory, and how large its files are. */
function sqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'wardrik-args-'));
  const path = join(dir, 'journal.db');
  const store = new SqliteStore({ path });
  return {
    store,
    bytes: () =>
      ['', '-wal'].reduce((sum, suffix) => sum + (statSync(path + suffix, { throwIfNoEntry: false })?.size ?? 0), 0),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const echo = (ran: ReturnType<typeof counter>) =>
  defineTool({
    name: 'echo',
    description: 'Echoes.',
    annotations: { readOnly: true },
    input: { type: 'object', properties: { text: { type: 'string' }, a: {} } },
    run: (args: unknown) => (ran.calls.push(args), 'ok'),
  });

describe('Arguments over the limits', () => {
  it('refuses 20 calls of 10 MB at once as too large, and journals a note for each, never the 10 MB', async () => {
    const db = sqlite();
    const ran = counter();
    const h = await harness([echo(ran)], { store: db.store });
    try {
      const before = db.bytes();
      const big = 'x'.repeat(10 * 1024 * 1024);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          h.call('echo', i % 2 === 0 ? { text: big } : JSON.stringify({ text: big }), { id: `big${i}` }),
        ),
      );
      for (const answer of answers) {
        assert.equal(errorCode(answer), 'invalid_arguments');
        assert.match(errorMessage(answer), /are too large/);
      }
      assert.equal(ran.count, 0);
      for (let i = 0; i < 20; i++) {
        const record = await db.store.getCall('run-1', `big${i}`);
        assert.deepEqual(Object.keys(record?.arguments as object), [CUT_KEY]);
      }
      assert.ok(
        db.bytes() - before < 2 * 1024 * 1024,
        `the journal grew by ${db.bytes() - before} bytes for 200 MB of refused arguments`,
      );
    } finally {
      await h.close();
      db.remove();
    }
  });

  it('journals 10,000-deep arguments as a note, and answers the same call sent again the same way', async () => {
    const db = sqlite();
    const ran = counter();
    const h = await harness([echo(ran)], { store: db.store });
    try {
      const first = await h.call('echo', deepJson(10_000), { id: 'deep' });
      assert.match(
        errorMessage(first),
        new RegExp(`a\\.a\\..*: is nested deeper than ${ARGUMENT_LIMITS.depth} levels`),
      );
      const record = await db.store.getCall('run-1', 'deep');
      assert.match(String((record?.arguments as Record<string, unknown>)[CUT_KEY]), /nested deeper than 32 levels/);
      // The same call again (a retry after a lost answer): its recorded answer, not a conflict.
      assert.deepEqual(await h.call('echo', deepJson(10_000), { id: 'deep' }), first);
      assert.equal(ran.count, 0);
    } finally {
      await h.close();
      db.remove();
    }
  });

  it('refuses the journaled note itself as too large, when it is run again', async () => {
    const ran = counter();
    const h = await harness([echo(ran)]);
    try {
      const answer = await h.call('echo', {
        [CUT_KEY]: 'the arguments were over the limits (nested deeper than 32 levels); only this note was kept',
      });
      assert.match(errorMessage(answer), /\(arguments\): were too large, so only a note was kept/);
      assert.equal(ran.count, 0);
    } finally {
      await h.close();
    }
  });

  it('keeps arguments within the limits whole in the journal', async () => {
    const db = sqlite();
    const ran = counter();
    const h = await harness([echo(ran)], { store: db.store });
    try {
      const args = { text: 'y'.repeat(1_000), a: JSON.parse(deepJson(30)) as object };
      await h.call('echo', { ...args, extra: 1 }, { id: 'fine' });
      assert.deepEqual((await db.store.getCall('run-1', 'fine'))?.arguments, { ...args, extra: 1 });
    } finally {
      await h.close();
      db.remove();
    }
  });
});

describe('Arguments encoded twice (JSON text of a JSON string)', () => {
  it('are refused, saying to send the object itself, and the tool does not run', async () => {
    const ran = counter();
    const h = await harness([echo(ran)]);
    try {
      const twice = JSON.stringify(JSON.stringify({ text: 'hi' }));
      const answer = await h.call('echo', twice);
      assert.equal(errorCode(answer), 'invalid_arguments');
      assert.match(
        errorMessage(answer),
        /\(arguments\): are a JSON string, not a JSON object \(encoded twice\?\); send the object itself/,
      );
      assert.equal(ran.count, 0);
      assert.equal((await h.call('echo', JSON.stringify({ text: 'hi' }))).status, 'ok');
    } finally {
      await h.close();
    }
  });
});
