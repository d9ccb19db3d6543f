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

export async function measure(
  name: string,
  op: () => unknown,
  options: { rounds?: number; perRound?: number } = {},
): Promise<Timing> {
  return (await measureInTurns([{ name, op }], options))[0]!;
}

/**
 * Measures operations in turns: every round runs each of them once, in an order that rotates, and
 * each figure is the median of its rounds. A slow spell of this shared machine then falls on all of
 * them alike, not on whichever happened to run during it, so their ratios hold.
 */
export async function measureInTurns(
  ops: readonly Measured[],
  options: { rounds?: number; perRound?: number } = {},
): Promise<Timing[]> {
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
  return ns >= 1_000_000
    ? `${(ns / 1_000_000).toFixed(2)} ms`
    : ns >= 1_000
      ? `${(ns / 1_000).toFixed(2)} µs`
      : `${ns.toFixed(0)} ns`;
}

/** Prints a table of timings, each with its ratio to `baseline`, and the target verdict when given. */
export function report(title: string, baseline: Timing, rows: readonly { timing: Timing; target?: number }[]): void {
  console.log(`\n${title}`);
  console.log(`  ${baseline.name.padEnd(52)} ${format(baseline.ns).padStart(10)}   (baseline)`);
  for (const { timing, target } of rows) {
    const ratio = timing.ns / baseline.ns;
    const verdict =
      target === undefined ? '' : ratio <= target ? `  target ≤ ${target}: met` : `  target ≤ ${target}: MISSED`;
    console.log(`  ${timing.name.padEnd(52)} ${format(timing.ns).padStart(10)}   ${ratio.toFixed(2)}x${verdict}`);
  }
}

/** The median of some numbers. */
export function median(values: readonly number[]): number {
  return values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/**
 * One comparison measured on several fresh pairs (of connections, of server processes): `one` holds a
 * pair's timings one call at a time and `many` its time per batch of `concurrency` calls, each with the
 * baseline first and ours second (more rows after, for reference).
 */
export interface PairResult {
  readonly one: readonly Timing[];
  readonly many: readonly Timing[];
}

/**
 * Prints a comparison made on several pairs, holding the targets to the median pair: one call at a time
 * (ours ≤ `target` × the baseline's time) and `concurrency` at once (ours ≥ 0.9 of the baseline's
 * throughput). `eachOne` and `eachMany` say how a pair's own figures are listed.
 */
export function reportPairs(
  title: string,
  results: readonly PairResult[],
  options: {
    readonly target: number;
    readonly concurrency: number;
    readonly baseline: string;
    readonly eachOne?: (pair: PairResult) => string;
    readonly eachMany?: (pair: PairResult) => string;
  },
): void {
  const { target, concurrency, baseline } = options;
  const ratios = results.map(({ one }) => one[1]!.ns / one[0]!.ns);
  const shares = results.map(({ many }) => many[0]!.ns / many[1]!.ns);
  const throughput = (timing: Timing): string => `${Math.round((concurrency * 1e9) / timing.ns)} calls/s`;
  const oneMedian = results[ratios.indexOf(median(ratios))]!.one;
  report(`${title}, one call at a time (median of ${results.length} pairs)`, oneMedian[0]!, [
    { timing: oneMedian[1]!, target },
    ...oneMedian.slice(2).map((timing) => ({ timing })),
  ]);
  console.log(
    `  each pair: ${results.map((pair, i) => options.eachOne?.(pair) ?? `${ratios[i]!.toFixed(2)}x`).join(', ')}`,
  );
  const manyMedian = results[shares.indexOf(median(shares))]!.many;
  report(
    `${title}, ${concurrency} calls at once, time per batch (median of ${results.length} pairs)`,
    manyMedian[0]!,
    manyMedian.slice(1).map((timing) => ({ timing })),
  );
  const share = median(shares);
  console.log(
    `  throughput at ${concurrency}: ${baseline} ${throughput(manyMedian[0]!)}, ours ${throughput(manyMedian[1]!)} = ${share.toFixed(2)} of ${baseline}  target ≥ 0.9: ${share >= 0.9 ? 'met' : 'MISSED'}` +
      ` (${format(manyMedian[1]!.ns / concurrency)} per call)`,
  );
  console.log(
    `  each pair: ${results.map((pair, i) => options.eachMany?.(pair) ?? `${shares[i]!.toFixed(2)} of ${baseline}`).join(', ')}`,
  );
}

/**
 * The SDK's HTTP client transport gives every request the same AbortSignal and undici adds a listener
 * per request, so many concurrent calls trip Node's MaxListenersExceeded warning (raw and ours alike).
 * Counts them instead of printing them; `printCount()` says how many there were.
 */
export function countListenerWarnings(): { printCount(): void } {
  let count = 0;
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning') count++;
    else console.warn(warning);
  });
  return {
    printCount() {
      if (count > 0)
        console.log(
          `\n  (${count} MaxListenersExceeded warnings from the SDK's HTTP client transport, counted and not printed)`,
        );
    },
  };
}
