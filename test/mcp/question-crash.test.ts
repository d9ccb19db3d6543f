import 'reflect-metadata';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { container as root } from 'tsyringe';
import { Tokens, Wardrik, type TurnResult } from '../../src/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { killAtCrashPoint } from '../crash/kill-at-crash-point.js';
import { lapseLeases } from '../crash/scratch-stores.js';
import { FAST } from './helpers.js';
import { eventually } from '../eventually.js';

const NODE_SCRIPT = fileURLToPath(new URL('./fixtures/question-crash-node.js', import.meta.url));
const ASKING = fileURLToPath(new URL('./fixtures/asking-server.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'wardrik-question-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A node taking over after the crash: the dead node's lease has run out (on the store's clock), and its own clock is an hour on. */
async function survivor(store: string): Promise<Wardrik> {
  await lapseLeases(store);
  const container = root.createChildContainer();
  container.register(Tokens.Clock, { useValue: { now: () => Date.now() + 3_600_000 } });
  const wardrik = await Wardrik.create({
    store,
    container,
    recoverMs: Infinity,
    runner: { node: 'survivor' },
    policy: { rules: [{ match: 'q/*', action: 'allow' }] },
    mcp: {
      ...FAST,
      servers: { q: { transport: { stdio: { command: process.execPath, args: [ASKING] } }, trusted: true } },
    },
  });
  await eventually("the server's tools", () => wardrik.tools(['q/*']).length === 5);
  return wardrik;
}

/** Runs the doomed node on `store` with its turn calling `tool`, kills it at its crash point, and returns the parked turn it wrote. */
async function crashWhileAsking(store: string, tool: string): Promise<TurnResult> {
  const out = join(dir, `${tool}.json`);
  await killAtCrashPoint(NODE_SCRIPT, { WARDRIK_STORE: store, WARDRIK_TOOL: tool, WARDRIK_OUT: out });
  return JSON.parse(readFileSync(out, 'utf8')) as TurnResult;
}

const reporter = () => scriptedModel([(step) => ({ text: `Done: ${step.lastToolResult}` })], { name: 'survivor' });

describe("A node killed with SIGKILL while an MCP server's question waits (SQLite)", () => {
  it('leaves a call that changes things in doubt, never run again silently, and closes the question nobody can hear now', async () => {
    const store = `sqlite:${join(dir, 'book.db')}`;
    const parked = await crashWhileAsking(store, 'book');
    assert.equal(parked.status, 'parked');
    // Wardrik.create recovers what the crash left, once the server's tools are there.
    const wardrik = await survivor(store);
    try {
      const question = await wardrik.inbox.get(parked.parked[0]!.inboxId);
      assert.equal(question?.kind, 'question');
      assert.equal(question?.status, 'answered');
      assert.deepEqual(question?.response, { action: 'cancel' });
      assert.match(question?.by ?? '', /the node running its call stopped/);
      // Only the call in doubt waits: the server was not called again (it would have asked again).
      const pending = await wardrik.inbox.list();
      assert.deepEqual(
        pending.map((item) => [item.kind, item.run, item.call]),
        [['in_doubt', parked.run, question!.call]],
      );
      assert.equal((await wardrik.recover()).inDoubt, 0, 'taken over once');
      // A person says it happened; the turn takes that answer and finishes.
      const agent = wardrik.startAgent({ id: 'booker', model: reporter(), tools: ['q/*'] });
      await wardrik.inbox.answer(pending[0]!.id, { happened: true, result: 'seat 4A for Ada' }, { by: 'ann' });
      const done = await agent.result(parked.run);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.match(done.text, /seat 4A for Ada/);
    } finally {
      await wardrik.close();
    }
  });

  it('runs a read-only call again, whose server asks anew (answered here from a second Wardrik), and the turn finishes with that answer', async () => {
    const store = `sqlite:${join(dir, 'ask.db')}`;
    const parked = await crashWhileAsking(store, 'ask');
    const lost = parked.parked[0]!.inboxId;
    // Recovery at start-up runs the call again and waits for it, so the new question is answered by
    // another Wardrik on the same file.
    const starting = survivor(store);
    const other = await Wardrik.create({ store, recoverMs: Infinity });
    try {
      await eventually('the question asked anew', async () =>
        (await other.inbox.list()).some((item) => item.kind === 'question' && item.id !== lost),
      );
      const asked = (await other.inbox.list()).find((item) => item.kind === 'question' && item.id !== lost)!;
      assert.equal(asked.run, parked.run, 'the new question belongs to the same call');
      await other.inbox.answer(asked.id, { action: 'accept', content: { name: 'Grace' } });
    } finally {
      await other.close();
    }
    const wardrik = await starting;
    try {
      assert.equal((await wardrik.inbox.get(lost))?.status, 'answered', 'the lost question is closed');
      const agent = wardrik.startAgent({ id: 'booker', model: reporter(), tools: ['q/*'] });
      assert.deepEqual(await wardrik.agents.recover(), [parked.run]);
      const done = await agent.result(parked.run);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.match(done.text, /"name":"Grace"/);
    } finally {
      await wardrik.close();
    }
  });
});
