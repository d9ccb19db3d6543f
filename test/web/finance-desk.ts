import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { defineTool, Wardrik, type InboxWebOptions, type ToolAnswer } from '../../src/index.js';

/** A payables desk for the approvers' tests: people with groups, and a four-eyes rule on payments. */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
export const token = (who: string) => `${who}-token-0123456789abcdef`;
export const PEOPLE = [
  { id: 'ana', tokenSha256: sha256(token('ana')), groups: ['finance-leads'] },
  { id: 'bob', tokenSha256: sha256(token('bob')), groups: ['support'] },
  { id: 'carla', tokenSha256: sha256(token('carla')), groups: ['finance-leads'] },
  { id: 'dave', tokenSha256: sha256(token('dave')), groups: ['finance-leads', 'support'] },
];

export interface Listed {
  id: string;
  mayAnswer: boolean;
  notYours?: string;
  whoMayAnswer?: string;
}

/** A node that offers `pay` under a four-eyes rule, and an inbox on the same store in a Wardrik that offers no tools. */
export async function financeDesk(url: string, web: InboxWebOptions, quorum = 2) {
  const paid: number[] = [];
  const node = await Wardrik.create({
    store: url,
    recoverMs: Infinity,
    tools: {
      t: [
        defineTool({
          name: 'pay',
          description: 'Pay a supplier.',
          input: {
            type: 'object',
            properties: { cents: { type: 'integer' } },
            required: ['cents'],
            additionalProperties: false,
          },
          run: ({ cents }: { cents: number }) => {
            paid.push(cents);
            return { paid: cents };
          },
        }),
      ],
    },
    policy: { rules: [{ match: 't/pay', action: 'ask', approvers: ['finance-leads'], quorum }] },
  });
  const server = await Wardrik.create({ store: url, recoverMs: Infinity });
  const inbox = server.inboxWeb(web);
  const { url: base } = await inbox.listen();
  const as = (who: string) => ({
    get: async (path: string) => {
      const response = await fetch(new URL(path, base), { headers: { authorization: `Bearer ${token(who)}` } });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    post: async (path: string, body: unknown) => {
      const response = await fetch(new URL(path, base), {
        method: 'POST',
        headers: { authorization: `Bearer ${token(who)}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
  });
  return {
    node,
    paid,
    as,
    base,
    async park(onBehalfOf: string, cents = 700): Promise<string> {
      const answer: ToolAnswer = await node.runner.run({
        agent: 'payables',
        run: `run-${cents}`,
        call: { id: 'c1', name: 't__pay', arguments: { cents } },
        onBehalfOf,
      });
      assert.equal(answer.status, 'parked');
      return answer.status === 'parked' ? answer.inboxId! : '';
    },
    async close() {
      await server.close();
      await node.close();
    },
  };
}
