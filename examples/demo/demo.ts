// `npm start`: an order-desk agent, end to end. It looks an order up (a decorated toolset), tracks the
// parcel (an MCP server of its own over stdio, not trusted: its answers, and the tool descriptions the model
// reads from the start, are outside text), and asks to refund it. The run carries `outside` from its start
// and has read the order (confidential), so sending the order id to the carrier asks a person first, then
// the refund parks for a person too. Approve or deny each from another terminal with the `wardrik` command;
// this process picks the answer up from the store (recoverMs: 300) and finishes the turn.
// Offline it plays a scripted model and says so; with ANTHROPIC_API_KEY set it asks claude-haiku-4-5.
import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { Wardrik, type WardrikEvent } from '../../src/index.js';
import { scriptedModel, type ScriptedCall, type ScriptedStep } from '../../src/testing/index.js';
import { OrderTools } from '../orders/order-tools.js';

const say = (line = ''): void => void process.stdout.write(`${line}\n`);
const live = (process.env.ANTHROPIC_API_KEY ?? '') !== '';
const AGENT = 'order-desk';
const BUDGET_USD = 5;
const REQUEST = 'Hi, where is my order for payment pi_123? It arrived broken, so please refund it.';

// The exact command a person types in another terminal: `npm run wardrik --` in the repo, else the binary.
const cliPath = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const inRepo = (() => {
  try {
    return (
      (JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { name?: string }).name === 'wardrik' &&
      existsSync(cliPath)
    );
  } catch {
    return false;
  }
})();
const nearby = relative(process.cwd(), cliPath);
const wardrikCommand = inRepo ? 'npm run wardrik --' : `node ${nearby.startsWith('..') ? cliPath : nearby}`;

say('Wardrik demo: an order-desk agent with a decorated toolset, an MCP server, a policy and a person.');
say(
  live
    ? 'Model:  anthropic:claude-haiku-4-5 (ANTHROPIC_API_KEY is set).'
    : 'Model:  a SCRIPTED model (scriptedModel from wardrik/testing): no AI is called, its replies are canned\n' +
        '        and start with [scripted]. Set ANTHROPIC_API_KEY to run claude-haiku-4-5 instead.',
);

const wardrik = await Wardrik.create({
  toolsets: [OrderTools],
  mcp: {
    servers: {
      // Not `trusted`, so its answers are labelled "outside", and so is a turn whose model reads its tools'
      // descriptions: the run asks a person before any call that changes something, whatever a rule allows,
      // and before the carrier gets the app's own data (a prompt-injection defence).
      shipping: {
        transport: {
          stdio: { command: process.execPath, args: [fileURLToPath(new URL('./shipping-server.js', import.meta.url))] },
        },
      },
    },
  },
  // Labels on the run (`labels: 'run'`, not the default): the scripted desk reads the carrier's note in clear
  // and says what it read. With the default, labels on values, the model would see the note only as a handle
  // (`$outside_1`). In both, the carrier's tool descriptions (an untrusted server's words) mark the run from
  // its start, so the parcel check asks a person, as the order it sends is the app's own data (docs/security.md).
  policy: { labels: 'run', rules: [{ match: 'orders/refund_order', action: 'ask' }] },
  // The default store, sqlite:.wardrik/wardrik.db. Look for approvals given elsewhere every 300 ms.
  recoverMs: 300,
});

let stopping = false;
process.on('SIGINT', () => {
  if (stopping) process.exit(130);
  stopping = true;
  say(
    '\nStopping. A parked turn stays parked in .wardrik/wardrik.db: answer it with the wardrik command, and the next `npm start` finishes it.',
  );
  void wardrik.close().finally(() => process.exit(130));
});

say(`Store:  sqlite:.wardrik/wardrik.db (the default), the file ${resolve('.wardrik/wardrik.db')}`);
say('Tools:');
for (const tool of wardrik.tools()) {
  const facts = Object.entries(tool.annotations).map(([key, value]) =>
    value === true ? key : `${key}=${JSON.stringify(value)}`,
  );
  say(`  ${tool.name.padEnd(24)} ${facts.join(', ') || 'no annotations'}`);
}
say(
  '  (shipping__track_parcel comes from the MCP server "shipping" over stdio; it is not trusted, so its answers are labelled "outside",\n' +
    '   and a turn whose model reads its description carries "outside" from its start)',
);
say(
  'Policy: rule 1 (orders/refund_order ask): refunds wait for a person. Read-only tools run, but one that reaches\n' +
    "        outside (the carrier's) asks once the run carries both outside text and the app's own data.",
);
const older = (await wardrik.inbox.list()).length;
if (older > 0) say(`Note:   ${older} item(s) from earlier runs already wait in the inbox (${wardrikCommand} inbox).`);

let currentRun: string | undefined;
let total = 0;
/** Calls of this turn that waited for a person: when one runs, a person let it go. */
const parkedCalls = new Set<string>();
wardrik.events$.subscribe((event) => {
  if (event.type === 'warning') return say(`  warning: ${event.message}`);
  if (!('run' in event)) return;
  if (event.type === 'run.started' && currentRun === undefined) currentRun = event.run;
  if (event.run !== currentRun) return;
  narrate(event);
});

function narrate(event: WardrikEvent): void {
  switch (event.type) {
    case 'run.started':
      return say(`\n> Turn ${event.run} started (agent ${event.agent}, model ${event.model})`);
    case 'run.resumed':
      return say(
        `\n> The turn resumes: ${event.reason === 'answered' ? 'its parked call has its answer' : 'taken up after a restart'}.`,
      );
    case 'tool.decided':
      return say(`  policy   ${event.tool}: ${event.decision.toUpperCase()} (${event.rule})`);
    case 'tool.succeeded': {
      const approved = parkedCalls.has(event.call)
        ? ' (a person approved it; this process, which offers the tool, ran it at its next recovery)'
        : '';
      return say(
        `  ran      ${event.tool}: ok${event.attempts > 1 ? ` after ${event.attempts} attempts` : ''}${approved}`,
      );
    }
    case 'tool.failed':
      return say(`  failed   ${event.tool} (${event.code}): ${event.message}`);
    case 'label.added':
      return say(
        `  label    the run now carries ${event.labels.map((label) => `"${label}"`).join(', ')} (from ${event.tool})` +
          (event.labels.includes('outside')
            ? ': from here on, any call that changes something asks a person'
            : event.labels.includes('confidential')
              ? ": the app's own data; once the run also reads outside text, a tool that reaches outside asks a person"
              : ''),
      );
    case 'tool.parked':
      parkedCalls.add(event.call);
      return say(`  parked   ${event.tool} waits for a person (${event.kind}): ${event.reason}`);
    case 'cost':
      total = event.totalUsd;
      return say(
        `  cost     ${event.source === 'model' ? 'model step' : `tool ${event.call ?? ''}`}: $${event.usd.toFixed(6)} · agent ${event.agent} total $${event.totalUsd.toFixed(6)} of its $${BUDGET_USD} budget`,
      );
    default:
      return;
  }
}

/** Wraps a model to print what it is told (tool answers) and what it says and calls, as the turn goes. */
function narrated(model: LanguageModelV4): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    async doGenerate(options: LanguageModelV4CallOptions) {
      const last = options.prompt[options.prompt.length - 1];
      if (last?.role === 'tool') {
        for (const part of last.content) {
          if (part.type === 'tool-result') say(`  answer   ${part.toolName} -> ${cut(outputText(part.output))}`);
        }
      }
      const result = await model.doGenerate(options);
      for (const part of result.content) {
        if (part.type === 'text' && part.text.trim() !== '') say(`  model    ${cut(part.text)}`);
        if (part.type === 'tool-call') say(`  call     ${part.toolName} ${part.input}`);
      }
      return result;
    },
    doStream: (options: LanguageModelV4CallOptions) => model.doStream(options),
  };
}

/** The scripted order desk: each reply follows from the last tool answer, so a resumed turn goes on right. */
function orderDesk(call: ScriptedCall): ScriptedStep {
  const last = call.prompt[call.prompt.length - 1];
  const usage = { inputTokens: 900 + 150 * call.index, outputTokens: 60 };
  if (last?.role !== 'tool') {
    return {
      text: 'Let me look that order up.',
      toolCalls: [{ name: 'orders__find_order', arguments: { payment_intent: 'pi_123' } }],
      usage,
    };
  }
  const result = last.content.find((part) => part.type === 'tool-result');
  const text = result === undefined ? '' : outputText(result.output);
  if (result?.toolName === 'orders__find_order') {
    return {
      text: 'Found ord_1001 (a Blue mug). Checking its parcel.',
      toolCalls: [{ name: 'shipping__track_parcel', arguments: { order_id: 'ord_1001' } }],
      usage,
    };
  }
  if (result?.toolName === 'shipping__track_parcel' && text.startsWith('A person')) {
    return {
      text: `I could not check the parcel (${text}). Refunding ord_1001 in full, as the customer reports it broken.`,
      toolCalls: [{ name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } }],
      usage,
    };
  }
  if (result?.toolName === 'shipping__track_parcel') {
    return {
      text: 'The carrier noted a dented box. Refunding ord_1001 in full.',
      toolCalls: [{ name: 'orders__refund_order', arguments: { orderId: 'ord_1001' } }],
      usage,
    };
  }
  if (result?.toolName === 'orders__refund_order' && result.output.type === 'text') {
    const cents = (JSON.parse(text) as { amountCents?: number }).amountCents ?? 0;
    return {
      text: `Your mug (order ord_1001) was delivered on 27 Nov in a dented box, so I refunded it in full: $${(cents / 100).toFixed(2)}.`,
      usage,
    };
  }
  return {
    text: `Your mug (order ord_1001) arrived damaged, but I could not refund it: ${text}. A colleague will follow up.`,
    usage,
  };
}

function outputText(
  output: Extract<LanguageModelV4Prompt[number], { role: 'tool' }>['content'][number] extends infer P
    ? P extends { output: infer O }
      ? O
      : never
    : never,
): string {
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  return JSON.stringify('value' in output ? output.value : output);
}

function cut(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const underlying = live
  ? await wardrik.models.resolve('anthropic:claude-haiku-4-5')
  : scriptedModel(orderDesk, { name: 'order-desk' });
// The built-in providers are AI SDK 7's (LanguageModelV4), as the scripted model is.
if (underlying.specificationVersion !== 'v4')
  throw new Error(`expected a v4 model, got ${underlying.specificationVersion}`);
const model = narrated(underlying);
const agent = wardrik.startAgent({
  id: AGENT,
  model,
  instructions:
    'You are an order desk. Look orders up, check their parcel, and refund an order that arrived damaged. Be brief; say what you did.',
  tools: ['orders/*', 'shipping/*'],
  budgetUsd: BUDGET_USD,
  // Price the scripted model like Claude Haiku, so the demo shows spend.
  ...(live ? {} : { price: { inputPerMTok: 1, outputPerMTok: 5 } }),
});

say(`\nUser: ${REQUEST}`);
let turn = await agent.send(REQUEST);
while (turn.status === 'parked') {
  const next = agent.result(turn.run); // the turn's next stop: done, failed, or parked again
  say('\nThe turn waits for a person. From another terminal, in this directory:');
  for (const parked of turn.parked) {
    say(`  approve:  ${wardrikCommand} approve ${parked.inboxId}`);
    say(`  deny:     ${wardrikCommand} deny ${parked.inboxId} --reason "Ask the customer for a photo first"`);
  }
  say(`  (${wardrikCommand} inbox shows what waits, with its arguments and labels.)`);
  say('Waiting for the answer… (Ctrl-C stops; the turn stays parked in the store)');
  turn = await next;
}

say(`\nAgent (${turn.status}): ${turn.text}`);
if (turn.error !== undefined) say(`  error: ${turn.error}`);
say(
  `This turn: ${turn.steps} model steps, $${turn.spentUsd.toFixed(6)}; agent ${AGENT} has spent $${total.toFixed(6)} in all.`,
);
say(`The whole run, step by step: ${wardrikCommand} show ${turn.run}`);
await wardrik.close();
