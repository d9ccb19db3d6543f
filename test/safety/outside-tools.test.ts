// An untrusted MCP server writes its tools' names, descriptions and schemas, and the model reads them in clear
// from its first step, before the run has read any answer. Under the run-level rule (`labels: 'run'`) such a
// turn carries `outside` from the start, so a side effect a description asks for waits for a person. Real
// startAgent runs on SQLite, a planner that obeys any instruction it reads, a hostile MCP server over HTTP.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Wardrik, type PolicyOptions } from '../../src/index.js';
import {
  ATTACKER,
  hostileWeb,
  obeying,
  OWN_IBAN,
  planner,
  send,
  sqliteFiles,
  type Sent,
  bankWithBalance,
  DESCRIBED,
} from './values-kit.js';

const sqlite = sqliteFiles('wardrik-outside-tools-');

const RUN: PolicyOptions = {
  labels: 'run',
  rules: [
    { match: 'bank/*', action: 'allow' },
    { match: 'web/*', action: 'allow' },
  ],
};

const PAGE = { result: { content: [{ type: 'text', text: 'Nothing to see.' }] } };

/** A Wardrik on `store` whose bank sends to `sent`, beside a server `web` whose tool says `description`. */
function webFor(
  sent: Sent,
  options: { store?: string; policy?: PolicyOptions; description?: string; trusted?: boolean } = {},
) {
  return hostileWeb({
    store: options.store ?? sqlite(),
    tools: bankWithBalance(sent),
    policy: options.policy ?? RUN,
    description: options.description ?? DESCRIBED,
    ...(options.trusted === undefined ? {} : { trusted: options.trusted }),
    answer: () => PAGE,
  });
}

describe("An untrusted MCP server's tool descriptions, under the run-level rule (labels: 'run')", () => {
  it('asks before the side effect a description asks for, at the first step, naming the outside label', async () => {
    const sent: Sent = [];
    const web = await webFor(sent);
    try {
      const model = obeying([]);
      const turn = await web.wardrik.startAgent({ id: 'a', model, tools: ['bank/*', 'web/*'] }).send('Hello.');
      assert.equal(turn.status, 'parked');
      assert.deepEqual(sent, []);
      const [item] = await web.wardrik.inbox.list();
      assert.deepEqual(item!.arguments, { recipient: ATTACKER, amount: 100 });
      assert.ok(item!.labels.includes('outside'));
      assert.match(item!.reason, /outside/);
      // Nothing was read before: the server's tools were offered, and that is what carries the label.
      assert.deepEqual(
        web.server.methods.filter((method) => method === 'tools/call'),
        [],
      );
    } finally {
      await web.close();
    }
  });

  it('asks in each of 10 turns at once, on one store', async () => {
    const sent: Sent = [];
    const web = await webFor(sent);
    try {
      const turns = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          web.wardrik
            .startAgent({ id: `a${i}`, model: obeying([]), tools: ['bank/*', 'web/*'] })
            .send(`Hello from ${i}.`),
        ),
      );
      assert.deepEqual(
        turns.map((turn) => turn.status),
        turns.map(() => 'parked'),
      );
      assert.deepEqual(sent, []);
      const items = await web.wardrik.inbox.list();
      assert.equal(items.length, 10);
      assert.ok(items.every((item) => item.labels.includes('outside')));
    } finally {
      await web.close();
    }
  });

  it("asks when the server's tools are only deferred: the search shows their descriptions", async () => {
    const sent: Sent = [];
    const web = await webFor(sent);
    try {
      const search = () => ({ toolCalls: [{ name: 'wardrik__search_tools', arguments: { query: 'web page' } }] });
      const model = obeying([search]);
      const agent = web.wardrik.startAgent({ id: 'a', model, tools: ['bank/*'], deferred: ['web/*'] });
      const turn = await agent.send('Find a tool to read pages.');
      assert.equal(turn.status, 'parked');
      assert.deepEqual(sent, []);
      assert.match(JSON.stringify(model.calls.at(-1)!.prompt), /GB29/);
    } finally {
      await web.close();
    }
  });

  it("keeps the user's own side effect unasked when the server is trusted", async () => {
    const sent: Sent = [];
    const web = await webFor(sent, { trusted: true, description: 'Reads a web page.' });
    try {
      const model = obeying([() => send(OWN_IBAN)]);
      const turn = await web.wardrik
        .startAgent({ id: 'a', model, tools: ['bank/*', 'web/*'] })
        .send(`Pay 50 to ${OWN_IBAN}.`);
      assert.equal(turn.status, 'done');
      assert.deepEqual(sent, [{ recipient: OWN_IBAN, amount: 50 }]);
    } finally {
      await web.close();
    }
  });

  it("runs the user's own side effect unasked in an agent not offered the server's tools", async () => {
    const sent: Sent = [];
    const web = await webFor(sent);
    try {
      const model = obeying([() => send(OWN_IBAN)]);
      const turn = await web.wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send(`Pay 50 to ${OWN_IBAN}.`);
      assert.equal(turn.status, 'done');
      assert.deepEqual(sent, [{ recipient: OWN_IBAN, amount: 50 }]);
    } finally {
      await web.close();
    }
  });
  it("asks in a parked turn taken up by a second Wardrik whose agent reads the server's tools", async () => {
    const store = sqlite();
    const asking: PolicyOptions = { ...RUN, rules: [{ match: 'bank/balance', action: 'ask' }, ...(RUN.rules ?? [])] };
    // The first node has no web server: the turn reads the balance, which asks a person, and parks.
    const first = await Wardrik.create({ store, tools: bankWithBalance([]), policy: asking });
    const balance = () => ({ toolCalls: [{ name: 'bank__balance', arguments: {} }] });
    const turn = await first
      .startAgent({ id: 'a', model: obeying([balance]), tools: ['bank/*', 'web/*'] })
      .send('What is my balance?');
    assert.equal(turn.status, 'parked');
    await first.close();
    // The second node lists the hostile server's tools: the turn goes on there, and its model reads them.
    const sent: Sent = [];
    const web = await webFor(sent, { store, policy: asking });
    try {
      const agent = web.wardrik.startAgent({ id: 'a', model: obeying([]), tools: ['bank/*', 'web/*'] });
      await web.wardrik.inbox.approve(turn.parked[0]!.inboxId, { by: 'dana' });
      const next = await agent.result(turn.run);
      assert.equal(next.status, 'parked');
      assert.deepEqual(sent, []);
      const item = (await web.wardrik.inbox.list()).find((pending) => pending.tool === 'bank/send_money');
      assert.match(item!.reason, /carries "outside" from its start: its model reads the tools of MCP server "web"/);
    } finally {
      await web.close();
    }
  });

  it('keeps the label in the next turn, whose prompt holds this one, when the server is gone', async () => {
    const store = sqlite();
    const web = await webFor([], { store });
    try {
      const said = web.wardrik.startAgent({ id: 'a', model: planner([() => ({ text: 'Hello.' })]), tools: ['web/*'] });
      assert.equal((await said.send('Hello.')).status, 'done');
    } finally {
      await web.close();
    }
    const sent: Sent = [];
    const later = await Wardrik.create({ store, tools: bankWithBalance(sent), policy: RUN });
    try {
      const model = obeying([() => send(OWN_IBAN)]);
      const turn = await later.startAgent({ id: 'a', model, tools: ['bank/*'] }).send(`Pay 50 to ${OWN_IBAN}.`);
      assert.equal(turn.status, 'parked');
      assert.deepEqual(sent, []);
      assert.match((await later.inbox.list())[0]!.reason, /labels of earlier turns .*"outside" from earlier turn/);
    } finally {
      await later.close();
    }
  });
});
