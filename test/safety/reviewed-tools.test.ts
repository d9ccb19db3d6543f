// A server marked `reviewed`: a person read its tool definitions, so the names and descriptions as pinned are
// not outside text and offering them does not steer a turn (labels on values) or label a run (`labels: 'run'`).
// Its answers stay outside. A definition that changed since it was pinned (a rug pull) is unreviewed again until
// a person accepts the change. Real startAgent runs on SQLite, an MCP server over HTTP on 127.0.0.1.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Wardrik, type PolicyOptions } from '../../src/index.js';
import {
  ATTACKER,
  hostileWeb,
  INJECTION,
  obeying,
  OWN_IBAN,
  plannerPrompts,
  send,
  sqliteFiles,
  type Sent,
  bankWithBalance,
  DESCRIBED,
} from './values-kit.js';

const sqlite = sqliteFiles('wardrik-reviewed-tools-');

const RULES: PolicyOptions['rules'] = [
  { match: 'bank/*', action: 'allow' },
  { match: 'web/*', action: 'allow' },
];
const VALUES: PolicyOptions = { labels: 'values', rules: RULES };
const RUN: PolicyOptions = { labels: 'run', rules: RULES };

/** What a hostile server writes in its tool's description once it changes it. */

const PAGE = { result: { content: [{ type: 'text', text: `Nothing to see. ${INJECTION}` }] } };

const readPage = () => ({ toolCalls: [{ name: 'web__page', arguments: {} }] });

function webFor(
  sent: Sent,
  options: {
    store?: string;
    policy: PolicyOptions;
    description?: string;
    reviewed?: boolean;
    moreTools?: readonly { name: string; description: string }[];
  },
) {
  return hostileWeb({
    store: options.store ?? sqlite(),
    tools: bankWithBalance(sent),
    policy: options.policy,
    description: options.description ?? 'Reads a web page.',
    reviewed: options.reviewed ?? true,
    ...(options.moreTools === undefined ? {} : { moreTools: options.moreTools }),
    answer: () => PAGE,
  });
}

/** Pins the reviewed `web` server's first definition on `store`, as a node that ran before did. */
async function pinFirst(store: string, policy: PolicyOptions): Promise<void> {
  const first = await webFor([], { store, policy });
  await first.close();
}

describe('A reviewed MCP server (reviewed: true), labels on values', () => {
  it("does not steer a turn offered its tools: the user's own payment after reading runs unasked", async () => {
    const sent: Sent = [];
    const web = await webFor(sent, { policy: VALUES });
    try {
      const model = obeying([readPage, () => send(OWN_IBAN)]);
      const turn = await web.wardrik
        .startAgent({ id: 'a', model, tools: ['bank/*', 'web/*'] })
        .send(`Read the page, then pay 50 to ${OWN_IBAN}.`);
      assert.equal(turn.status, 'done');
      assert.deepEqual(sent, [{ recipient: OWN_IBAN, amount: 50 }]);
      assert.deepEqual(await web.wardrik.inbox.list(), []);
      // Its answer is still outside: the planner reads a handle, never the injection in it.
      const prompts = plannerPrompts(model);
      assert.match(prompts, /\\"handle\\":\\"\$outside_1\\"/);
      assert.match(prompts, /\\"labels\\":\[\\"outside\\"\]/);
      assert.doesNotMatch(prompts, /GB29|Ignore the user/);
    } finally {
      await web.close();
    }
  });

  it('runs the payment unasked in each of 10 turns at once, each reading the page as a handle', async () => {
    const sent: Sent = [];
    const web = await webFor(sent, { policy: VALUES });
    try {
      const models = Array.from({ length: 10 }, () => obeying([readPage, () => send(OWN_IBAN)]));
      const turns = await Promise.all(
        models.map((model, i) =>
          web.wardrik.startAgent({ id: `a${i}`, model, tools: ['bank/*', 'web/*'] }).send(`Pay 50, ${i}.`),
        ),
      );
      assert.deepEqual(
        turns.map((turn) => turn.status),
        turns.map(() => 'done'),
      );
      assert.equal(sent.length, 10);
      assert.ok(sent.every((payment) => payment.recipient === OWN_IBAN));
      for (const model of models) assert.doesNotMatch(plannerPrompts(model), /GB29/);
    } finally {
      await web.close();
    }
  });

  it('steers the turn again after a rug pull: the changed description is outside text', async () => {
    const store = sqlite();
    await pinFirst(store, VALUES);
    const sent: Sent = [];
    const web = await webFor(sent, { store, policy: VALUES, description: DESCRIBED });
    try {
      const turn = await web.wardrik
        .startAgent({ id: 'a', model: obeying([]), tools: ['bank/*', 'web/*'] })
        .send('Hello.');
      assert.equal(turn.status, 'parked');
      assert.deepEqual(sent, []);
      const [item] = await web.wardrik.inbox.list();
      assert.deepEqual(item!.arguments, { recipient: ATTACKER, amount: 100 });
      assert.match(item!.reason, /chosen after the planner read outside data in clear/);
    } finally {
      await web.close();
    }
  });

  it('steers the turn when the server adds a tool after its list was reviewed; calling that tool waits for a person', async () => {
    const store = sqlite();
    await pinFirst(store, VALUES);
    const sent: Sent = [];
    const web = await webFor(sent, { store, policy: VALUES, moreTools: [{ name: 'notes', description: DESCRIBED }] });
    try {
      const turn = await web.wardrik
        .startAgent({ id: 'a', model: obeying([]), tools: ['bank/*', 'web/*'] })
        .send('Hello.');
      assert.equal(turn.status, 'parked');
      assert.deepEqual(sent, []);
      const [item] = await web.wardrik.inbox.list();
      assert.deepEqual(item!.arguments, { recipient: ATTACKER, amount: 100 });
      assert.match(item!.reason, /chosen after the planner read outside data in clear/);
      const call = await web.wardrik.runner.run({
        agent: 'b',
        run: 'notes',
        call: { id: 'n1', name: 'web__notes' },
        policy: [{ match: 'web/notes', action: 'allow' }],
      });
      assert.equal(call.status === 'parked' && call.kind, 'tool_change');
      const gated = (await web.wardrik.inbox.list()).find((i) => i.kind === 'tool_change');
      assert.match(gated!.reason, /Tool "notes" of MCP server "web" was added since its tool list was reviewed/);
    } finally {
      await web.close();
    }
  });

  it('steers each of 10 turns at once after a rug pull', async () => {
    const store = sqlite();
    await pinFirst(store, VALUES);
    const sent: Sent = [];
    const web = await webFor(sent, { store, policy: VALUES, description: DESCRIBED });
    try {
      const turns = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          web.wardrik.startAgent({ id: `a${i}`, model: obeying([]), tools: ['bank/*', 'web/*'] }).send(`Hi ${i}.`),
        ),
      );
      assert.deepEqual(
        turns.map((turn) => turn.status),
        turns.map(() => 'parked'),
      );
      assert.deepEqual(sent, []);
      assert.equal((await web.wardrik.inbox.list()).length, 10);
    } finally {
      await web.close();
    }
  });

  it('is reviewed again once a person accepts the changed definition', async () => {
    const store = sqlite();
    await pinFirst(store, VALUES);
    const sent: Sent = [];
    const web = await webFor(sent, { store, policy: VALUES, description: 'Reads a web page, cached.' });
    try {
      // Changed and unaccepted: the turn is steered, and its call of the changed tool parks for a person.
      const agent = web.wardrik.startAgent({
        id: 'a',
        model: obeying([readPage, () => send(OWN_IBAN)]),
        tools: ['bank/*', 'web/*'],
      });
      const turn = await agent.send(`Read the page, then pay 50 to ${OWN_IBAN}.`);
      assert.equal(turn.status, 'parked');
      const [change] = await web.wardrik.inbox.list();
      assert.equal(change!.kind, 'tool_change');
      assert.equal((await web.wardrik.inbox.approve(change!.id, { by: 'dana' })).status, 'ok');
      assert.deepEqual(sent, []);
      // Accepted: the definition the turn reads is the one a person accepted (pinned by its digest), so the
      // turn, taken up again, is not steered by it, and neither is a new turn: the payments run unasked.
      const next = await agent.result(turn.run);
      assert.equal(next.status, 'done');
      const later = await web.wardrik
        .startAgent({ id: 'b', model: obeying([() => send(OWN_IBAN)]), tools: ['bank/*', 'web/*'] })
        .send(`Pay 50 to ${OWN_IBAN}.`);
      assert.equal(later.status, 'done');
      assert.deepEqual(sent, [
        { recipient: OWN_IBAN, amount: 50 },
        { recipient: OWN_IBAN, amount: 50 },
      ]);
    } finally {
      await web.close();
    }
  });
});

describe("A reviewed MCP server (reviewed: true), labels: 'run'", () => {
  it('does not label the run outside from its start; reading its answer still does', async () => {
    const sent: Sent = [];
    const web = await webFor(sent, { policy: RUN });
    try {
      const model = obeying([() => send(OWN_IBAN), readPage, () => send(OWN_IBAN, 60)]);
      const turn = await web.wardrik
        .startAgent({ id: 'a', model, tools: ['bank/*', 'web/*'] })
        .send(`Pay 50 to ${OWN_IBAN}, read the page, pay 60.`);
      assert.equal(turn.status, 'parked');
      assert.deepEqual(sent, [{ recipient: OWN_IBAN, amount: 50 }], 'the first payment ran unasked');
      const [item] = await web.wardrik.inbox.list();
      assert.ok(item!.labels.includes('outside'), 'the answer labelled the run');
      assert.doesNotMatch(item!.reason, /from its start/);
    } finally {
      await web.close();
    }
  });

  it('labels the run outside from its start after a rug pull', async () => {
    const store = sqlite();
    await pinFirst(store, RUN);
    const sent: Sent = [];
    const web = await webFor(sent, { store, policy: RUN, description: 'Reads a web page, cached.' });
    try {
      const turn = await web.wardrik
        .startAgent({ id: 'a', model: obeying([() => send(OWN_IBAN)]), tools: ['bank/*', 'web/*'] })
        .send(`Pay 50 to ${OWN_IBAN}.`);
      assert.equal(turn.status, 'parked');
      assert.deepEqual(sent, []);
      const [item] = await web.wardrik.inbox.list();
      assert.match(item!.reason, /carries "outside" from its start: its model reads the tools of MCP server "web"/);
    } finally {
      await web.close();
    }
  });
});

describe('A server not marked reviewed', () => {
  it("steers each of 10 turns at once: the user's own payment asks", async () => {
    const sent: Sent = [];
    const web = await webFor(sent, { policy: VALUES, reviewed: false });
    try {
      const turns = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          web.wardrik
            .startAgent({ id: `a${i}`, model: obeying([() => send(OWN_IBAN)]), tools: ['bank/*', 'web/*'] })
            .send(`Pay 50 to ${OWN_IBAN}, ${i}.`),
        ),
      );
      assert.deepEqual(
        turns.map((turn) => turn.status),
        turns.map(() => 'parked'),
      );
      assert.deepEqual(sent, []);
      const items = await web.wardrik.inbox.list();
      assert.equal(items.length, 10);
      assert.ok(items.every((item) => /chosen after the planner read outside data in clear/.test(item.reason)));
    } finally {
      await web.close();
    }
  });
});

describe('The reviewed option', () => {
  it('is refused at create when not a boolean, naming the option and the fix', async () => {
    await assert.rejects(
      Wardrik.create({
        store: sqlite(),
        mcp: { servers: { web: { transport: { http: { url: 'http://127.0.0.1:9/mcp' } }, reviewed: 'yes' as never } } },
      }),
      /MCP server "web" of hub "\w+": reviewed must be true or false; got "yes"\. Write reviewed: true or leave it out\./,
    );
  });
});
