/**
 * Small timing helpers for the benchmarks: each figure is the median of several rounds, each round
 * the mean over many operations, so one slow round (GC, the other core busy) does not decide it.
 */
export interface Timing {
  readonly name: string;
  /** Median nanoseconds per operation. */
  readonly ns: number;
}

/** An operation to time; `before`, if given, runs (untimed) before each of its rounds. */
export interface Measured {
  readonly name: string;
  readonly op: () => unknown;
  readonly before?: () => Promise<void> | void;
}

export async function measure(name: string, op: () => unknown, options: { rounds?: number; perRound?: number } = {}): Promise<Timing> {
  return (await measureInTurns([{ name, op }], options))[0]!;
}

/**
 * Measures operations in turns: every round runs each of them once, in an order that rotates, and
 * each figure is the median of its rounds. A slow spell of this shared machine then falls on all of
 * them alike, not on whichever happened to run during it, so their ratios hold.
 */
export async function measureInTurns(ops: readonly Measured[], options: { rounds?: number; perRound?: number } = {}): Promise<Timing[]> {
  const rounds = options.rounds ?? 15;
  const perRound = options.perRound ?? 2_000;
  const time = async ({ op, before }: Measured): Promise<number> => {
    await before?.();
    const start = process.hrtime.bigint();
    for (let i = 0; i < perRound; i++) await op();
    return Number(process.hrtime.bigint() - start) / perRound;
  };
  for (const measured of ops) await time(measured); // warm-up
  const samples = ops.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < ops.length; k++) {
      const index = (k + round) % ops.length;
      samples[index]!.push(await time(ops[index]!));
    }
  }
  return ops.map(({ name }, i) => ({ name, ns: samples[i]!.sort((a, b) => a - b)[Math.floor(rounds / 2)]! }));
}

export function format(ns: number): string {
  return ns >= 1_000_000 ? `${(ns / 1_000_000).toFixed(2)} ms` : ns >= 1_000 ? `${(ns / 1_000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`;
}

/** Prints a table of timings, each with its ratio to `baseline`, and the target verdict when given. */
export function report(title: string, baseline: Timing, rows: readonly { timing: Timing; target?: number }[]): void {
  console.log(`\n${title}`);
  console.log(`  ${baseline.name.padEnd(52)} ${format(baseline.ns).padStart(10)}   (baseline)`);
  for (const { timing, target } of rows) {
    const ratio = timing.ns / baseline.ns;
    const verdict = target === undefined ? '' : ratio <= target ? `  target ≤ ${target}: met` : `  target ≤ ${target}: MISSED`;
    console.log(`  ${timing.name.padEnd(52)} ${format(timing.ns).padStart(10)}   ${ratio.toFixed(2)}x${verdict}`);
  }
}
