import 'reflect-metadata';
import { IsInt } from 'class-validator';
import { defineTool, Wardrik, type WardrikOptions } from '../../src/index.js';

class ReadArgs {
  @IsInt()
  n!: number;
}

// One Wardrik node with an audit trail: what audit-nodes.test.ts runs several of on one store, and
// audit-cli.test.ts seeds a store with. `calls(n)` makes n allowed calls at once, each a decision entry.

export async function auditedNode(store: string, options: Omit<WardrikOptions, 'store' | 'tools'> = {}) {
  const wardrik = await Wardrik.create({
    store,
    policy: { rules: [{ match: 't/*', action: 'allow' }] },
    audit: {},
    recoverMs: Infinity,
    ...options,
    tools: {
      t: [defineTool({ name: 'read', description: 'd', input: ReadArgs, run: (args: ReadArgs) => `read ${args.n}` })],
    },
  });
  return {
    wardrik,
    calls: (run: string, n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          wardrik.runner.run({ agent: 'a', run, call: { id: `c${i}`, name: 't__read', arguments: { n: i } } }),
        ),
      ),
  };
}

// As a child process: STORE_URL, RUN and CALLS say what to do; prints "done" once every call answered.
if (process.env.AUDITED_NODE_RUN !== undefined) {
  const node = await auditedNode(process.env.STORE_URL!);
  const answers = await node.calls(process.env.AUDITED_NODE_RUN, Number(process.env.CALLS));
  await node.wardrik.close();
  const failed = answers.filter((answer) => answer.status !== 'ok');
  process.stdout.write(failed.length === 0 ? 'done\n' : `failed ${JSON.stringify(failed[0])}\n`);
}
