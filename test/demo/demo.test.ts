import 'reflect-metadata';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { anthropicMessage, fakeApi } from '../agent/fake-providers.js';
import { wardrik } from '../cli/helpers.js';

const DEMO = fileURLToPath(new URL('../../examples/demo/demo.js', import.meta.url));
// One working directory for every run, as a person running `npm start` again and again: .wardrik/ is made here.
const cwd = mkdtempSync(join(tmpdir(), 'wardrik-demo-'));
after(() => rmSync(cwd, { recursive: true, force: true }));

/** The demo as a child process, non-interactive, offline; its output so far, and ways to wait on it. */
function startDemo(extraEnv: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.ANTHROPIC_API_KEY;
  delete env.ANTHROPIC_BASE_URL;
  delete env.WARDRIK_STORE;
  Object.assign(env, extraEnv);
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [DEMO], { cwd, env });
  let output = '';
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const listeners = new Set<() => void>();
  const changed = (): void => listeners.forEach((listener) => listener());
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((output += chunk), changed()));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((output += chunk), changed()));
  child.on('close', (code, signal) => ((exited = { code, signal }), changed()));
  /** Resolves once `ready()` holds; fails after `ms` with what the demo printed. */
  const until = <T>(what: string, ready: () => T | undefined, ms = 30_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const value = ready();
        if (value !== undefined) {
          cleanup();
          resolve(value);
        } else if (exited !== undefined) {
          cleanup();
          reject(new Error(`The demo exited (${exited.code ?? exited.signal}) before ${what}. It printed:\n${output}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`The demo did not ${what} within ${ms} ms. It printed:\n${output}`));
      }, ms);
      const cleanup = (): void => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });
  return {
    child,
    get output() {
      return output;
    },
    /** The inbox id in the `nth` approve command (from 1) the demo tells the person to type. */
    // Once it says it waits: everything it prints before waiting (both commands) has arrived by then.
    approveId: (nth = 1) =>
      until(`print approve command ${nth} and wait`, () =>
        output.split('Waiting for the answer').length > nth
          ? [...output.matchAll(/approve: +node \S+ approve ([0-9a-f-]{36})/g)][nth - 1]?.[1]
          : undefined,
      ),
    exit: () =>
      new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
        until('exit', () => exited).then(resolve, reject);
      }),
    /** Ends the child if a test failed before it exited, so no process is left behind. */
    stop() {
      if (exited === undefined) child.kill('SIGKILL');
    },
  };
}

function exits0(result: { code: number | null; stderr: string }): void {
  assert.equal(result.code, 0, result.stderr);
}

describe('The demo (npm start)', () => {
  it('asks before the carrier gets the order id, then parks the refund, and finishes the turn once both are approved with the CLI', async () => {
    const demo = startDemo();
    try {
      // A fresh directory, yet the run carries "outside" from its start: its model reads the untrusted
      // carrier's tool description. With the order read (confidential), the carrier's call asks first.
      const tracking = await demo.approveId();
      assert.match(
        demo.output,
        /policy {3}shipping\/track_parcel: ASK \(labels: the run carries "outside" and confidential data \(labelled "confidential"\)/,
      );
      assert.match(demo.output, /its model reads the tools of MCP server "shipping", not marked trusted/);
      exits0(await wardrik(['approve', tracking, '--by', 'dana'], { cwd }));
      const id = await demo.approveId(2);
      assert.match(demo.output, /Model: {2}a SCRIPTED model \(scriptedModel from wardrik\/testing\): no AI is called/);
      assert.match(demo.output, /Store: {2}sqlite:\.wardrik\/wardrik\.db \(the default\)/);
      assert.match(demo.output, /call {5}orders__find_order \{"payment_intent":"pi_123"\}/);
      assert.match(demo.output, /policy {3}orders\/find_order: ALLOW \(default: read-only tools run\)/);
      assert.match(demo.output, /cost {5}model step: \$0\.\d{6} · agent order-desk total \$0\.\d{6} of its \$5 budget/);
      assert.match(demo.output, /answer {3}shipping__track_parcel -> Delivered on 27 Nov/);
      assert.match(demo.output, /label {4}the run now carries "confidential" \(from orders\/find_order\)/);
      assert.match(demo.output, /policy {3}orders\/refund_order: ASK \(rule 1 \(orders\/refund_order ask\)\)/);
      assert.match(demo.output, /parked {3}orders\/refund_order waits for a person \(approval\)/);
      assert.match(demo.output, new RegExp(`deny: +node \\S+ deny ${id} --reason`));

      const approved = await wardrik(['approve', id, '--by', 'dana'], { cwd });
      assert.equal(approved.code, 0, approved.stderr);
      const { code } = await demo.exit();
      assert.equal(code, 0, demo.output);
      assert.match(demo.output, /ran {6}orders\/refund_order: ok \(a person approved it/);
      assert.match(demo.output, /The turn resumes: its parked call has its answer\./);
      assert.match(
        demo.output,
        /Agent \(done\): \[scripted\] Your mug \(order ord_1001\) was delivered on 27 Nov in a dented box, so I refunded it in full: \$49\.99\./,
      );
      assert.match(demo.output, /This turn: 4 model steps, \$0\.\d{6}/);
      assert.match(demo.output, /The whole run, step by step: node \S+ show [0-9a-f-]{36}/);
    } finally {
      demo.stop();
    }
  });

  it('runs again in the same directory: asks before the carrier gets the order id, and tells the model when the person denies the refund', async () => {
    const demo = startDemo();
    try {
      // The first run's turn is in the prompt: the carrier's text (outside) and the order (confidential),
      // so the call that would send the order id to the untrusted carrier asks a person first.
      const tracking = await demo.approveId();
      assert.match(
        demo.output,
        /policy {3}shipping\/track_parcel: ASK \(labels: the run carries "outside" and confidential data \(labelled "confidential"\)/,
      );
      assert.match(demo.output, /parked {3}shipping\/track_parcel waits for a person/);
      exits0(await wardrik(['approve', tracking, '--by', 'sam'], { cwd }));
      const id = await demo.approveId(2);
      assert.match(demo.output, /parked {3}orders\/refund_order waits for a person/);
      const denied = await wardrik(['deny', id, '--reason', 'Ask for a photo first', '--by', 'sam'], { cwd });
      assert.equal(denied.code, 0, denied.stderr);
      const { code } = await demo.exit();
      assert.equal(code, 0, demo.output);
      assert.match(demo.output, /Model: {2}a SCRIPTED model/);
      assert.match(demo.output, /The turn resumes: its parked call has its answer\./);
      assert.match(
        demo.output,
        /answer {3}orders__refund_order -> A person \(sam\) refused this call: Ask for a photo first/,
      );
      assert.match(
        demo.output,
        /Agent \(done\): \[scripted\] Your mug \(order ord_1001\) arrived damaged, but I could not refund it: A person \(sam\) refused this call: Ask for a photo first\./,
      );
      // The store kept the first run's spend: the running total is the agent's, across runs.
      assert.match(demo.output, /agent order-desk has spent \$0\.0\d{5} in all/);
      const runs = await wardrik(['runs', '--agent', 'order-desk', '--json'], { cwd });
      assert.equal((JSON.parse(runs.stdout) as { runs: unknown[] }).runs.length, 2);
    } finally {
      demo.stop();
    }
  });

  it('runs the real model when ANTHROPIC_API_KEY is set (here against a loopback fake of the Anthropic API)', async () => {
    const replies = [
      anthropicMessage([
        { text: 'Looking it up.' },
        { tool: 'orders__find_order', id: 'toolu_1', input: { payment_intent: 'pi_123' } },
      ]),
      anthropicMessage([{ tool: 'shipping__track_parcel', id: 'toolu_2', input: { order_id: 'ord_1001' } }]),
      anthropicMessage([{ tool: 'orders__refund_order', id: 'toolu_3', input: { orderId: 'ord_1001' } }]),
      anthropicMessage([{ text: 'Refunded your damaged mug in full.' }]),
    ];
    const api = await fakeApi((_request, index) => replies[Math.min(index, replies.length - 1)]!);
    const demo = startDemo({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: `${api.url}/v1` });
    try {
      // Earlier runs' turns are in the prompt, so the tracking asks first, then the refund.
      exits0(await wardrik(['approve', await demo.approveId()], { cwd }));
      const id = await demo.approveId(2);
      assert.match(demo.output, /Model: {2}anthropic:claude-haiku-4-5 \(ANTHROPIC_API_KEY is set\)\./);
      assert.doesNotMatch(demo.output, /SCRIPTED/);
      exits0(await wardrik(['approve', id], { cwd }));
      const { code } = await demo.exit();
      assert.equal(code, 0, demo.output);
      assert.match(demo.output, /Agent \(done\): Refunded your damaged mug in full\./);
      assert.equal(api.requests.length, 4);
      assert.equal(api.requests[0]!.headers['x-api-key'], 'test-key');
    } finally {
      demo.stop();
      await api.close();
    }
  });

  it('stops cleanly on Ctrl-C while it waits, leaving the turn parked in the store', async () => {
    const demo = startDemo();
    try {
      const id = await demo.approveId();
      demo.child.kill('SIGINT');
      const { code } = await demo.exit();
      assert.equal(code, 130, demo.output);
      assert.match(demo.output, /Stopping\. A parked turn stays parked/);
      const inbox = await wardrik(['inbox', '--json'], { cwd });
      assert.deepEqual(
        (JSON.parse(inbox.stdout) as { items: { id: string }[] }).items.map((item) => item.id),
        [id],
      );
    } finally {
      demo.stop();
    }
  });
});
