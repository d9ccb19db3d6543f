// The runner's overhead per call, in one process: a tool without a DTO against
// the journal's two writes alone (≤ 5x; a raw call is printed for scale), and a validated call against
// plain class-transformer + class-validator (≤ 1.6x).
import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { IsInt, IsString, Matches, Max, Min, validateSync } from 'class-validator';
import { defineTool, MemoryStore, Wardrik, type CallRecord, type ToolAnswer } from '../src/index.js';
import { measureInTurns, report } from './lib.js';

class RefundArgs {
  @IsString()
  @Matches(/^ord_/)
  orderId!: string;

  @IsInt()
  @Min(1)
  @Max(1_000_000)
  amountCents!: number;

  @IsString()
  reason!: string;
}

const work = (n: number): number => n + 1;
const bare = defineTool({
  name: 'bump',
  description: 'Adds one.',
  annotations: { readOnly: true },
  run: () => work(1),
});
const checked = defineTool({
  name: 'refund',
  description: 'Refunds.',
  input: RefundArgs,
  annotations: { readOnly: true },
  run: (a: RefundArgs) => work(a.amountCents),
});
const args = { orderId: 'ord_1', amountCents: 500, reason: 'damaged' };
const options = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true };
let id = 0;

// Every round of the runner starts on a fresh memory store (a new Wardrik), so a round's figure is
// that of a process whose journal holds that round's calls, not every call the bench made before it:
// otherwise the figure grows with the bench's own length, as the store's records pile up in the heap.
let wardrik = await Wardrik.create({ store: 'memory:', tools: { b: [bare, checked] } });
const freshStore = async (): Promise<void> => {
  await wardrik.close();
  wardrik = await Wardrik.create({ store: 'memory:', tools: { b: [bare, checked] } });
};
const run = (name: string, args?: unknown) => () =>
  wardrik.runner.run({ agent: 'a', run: 'r', call: { id: `${name}${id++}`, name, arguments: args } });

// For scale: the journal alone, the two writes (started, then the answer) a call makes to a memory
// store that keeps every record, as the runner's does, through its synchronous journal (Store.sync) as
// the runner writes them; also a fresh store each round.
let journal = new MemoryStore();
const journalOnly = (): void => {
  const call = `j${id++}`;
  const idempotencyKey = `r:${call}`;
  const args = {};
  // Whole literals, as the runner writes them (a spread copy costs several times more here).
  const started: CallRecord = {
    run: 'r',
    call,
    agent: 'a',
    tool: 'b/bump',
    arguments: args,
    idempotencyKey,
    state: 'started',
    attempt: 1,
    updatedAt: Date.now(),
  };
  journal.sync.writeCall(started, undefined);
  const answer: ToolAnswer = { status: 'ok', output: 2, labels: [] };
  journal.sync.writeCall(
    {
      run: 'r',
      call,
      agent: 'a',
      tool: 'b/bump',
      arguments: args,
      idempotencyKey,
      state: 'succeeded',
      attempt: 1,
      answer,
      updatedAt: Date.now(),
    },
    'started',
  );
};

// Each group in turns, so the machine's slow spells fall on every side of a ratio.
const [raw, runner, journaled] = await measureInTurns(
  [
    // The baseline a caller would otherwise write: await the tool function.
    { name: '(for scale) raw: await tool.run(args, ctx)', op: async () => bare.run({} as never, {} as never) },
    { name: 'runner: no DTO, memory store', op: run('b__bump'), before: freshStore },
    {
      name: '(the journal alone: 2 memory store writes)',
      op: journalOnly,
      before: () => void (journal = new MemoryStore()),
    },
  ],
  { perRound: 5_000 },
);
// Against the journal's writes rather than a raw call: the two writes a durable call must make cost
// about ten raw calls on their own, so a ratio to a raw call says little about the runner's own work.
report("Runner overhead, a tool without a DTO, against the journal's writes alone", journaled!, [
  { timing: runner!, target: 5 },
  { timing: raw! },
]);

const [plain, validated] = await measureInTurns([
  {
    name: 'plain: plainToInstance + validateSync',
    op: () => {
      const instance = plainToInstance(RefundArgs, args);
      if (validateSync(instance, options).length > 0) throw new Error('invalid');
      return work(instance.amountCents);
    },
  },
  { name: 'runner: validated call, memory store', op: run('b__refund', args), before: freshStore },
]);
report('Runner, a validated call', plain!, [{ timing: validated!, target: 1.6 }]);
await wardrik.close();
