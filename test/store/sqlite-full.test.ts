import 'reflect-metadata';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defineTool, StoreError, Wardrik } from '../../src/index.js';

/**
 * A full disk, for real: the SQLite file lives on a small tmpfs the test mounts (CI runs as root), and
 * a filler file takes the space away and gives it back.
 */
const mountPoint = mkdtempSync(join(tmpdir(), 'wardrik-full-'));
const filler = join(mountPoint, 'filler');

before(() => execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint]));
after(() => {
  execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

/** Appends to the filler until not even 512 bytes are left. */
function fillTheDisk(): void {
  for (let size = 1 << 20; size >= 512;) {
    try {
      writeFileSync(filler, Buffer.alloc(size), { flag: 'a' });
    } catch {
      size >>= 1;
    }
  }
}

// On each driver, one after the other on the same small disk (each file removed after).
for (const driver of ['node', 'better-sqlite3'] as const) {
  describe(`SqliteStore on a full disk, on the ${driver} driver`, () => {
    it('runs no call whose journal entry cannot be written, says why, and resumes once there is space', async () => {
      let ran = 0;
      const file = join(mountPoint, `wardrik-${driver}.db`);
      const wardrik = await Wardrik.create({
        store: `sqlite:${file}?driver=${driver}`,
        tools: {
          t: [
            defineTool({
              name: 'note',
              description: 'd',
              input: { type: 'object' },
              annotations: { readOnly: true },
              run: () => ++ran,
            }),
          ],
        },
        recoverMs: Infinity,
      });
      const note = (id: string) =>
        wardrik.runner.run({
          agent: 'a',
          run: `r-${id}`,
          call: { id, name: 't__note', arguments: { text: 'x'.repeat(20_000) } },
        });
      try {
        assert.equal((await note('before')).status, 'ok');
        fillTheDisk();
        const runsBefore = ran;
        let failure: unknown;
        for (let i = 0; i < 20 && failure === undefined; i++)
          await note(`full-${i}`).catch((error: unknown) => (failure = error));
        assert.ok(failure instanceof StoreError, `expected a StoreError, got ${String(failure)}`);
        assert.match(failure.message, /did not run: could not .*wardrik-[\w-]+\.db.*disk is full/);
        assert.equal(ran, runsBefore, 'no call ran once the store could not be written');
        rmSync(filler);
        assert.equal((await note('after')).status, 'ok');
      } finally {
        await wardrik.close();
        for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      }
    });
  });
}
