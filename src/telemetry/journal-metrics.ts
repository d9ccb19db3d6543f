import { instrumentsOfProvider } from './meter-cache.js';

/** Commits take a millisecond or less on a local disk, up to seconds on a busy remote database. */
const COMMIT_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * `wardrik.journal.commit.duration` (docs/events.md): each shared commit of the journal's batches, by
 * store and outcome. `undefined` without a MeterProvider: the commit path then reads no clock for it.
 */
export const journalCommitDuration = instrumentsOfProvider((meter) =>
  meter.createHistogram('wardrik.journal.commit.duration', {
    description: "How long one commit of the journal's writes took (many runs' batches may share one).",
    unit: 's',
    advice: { explicitBucketBoundaries: COMMIT_SECONDS },
  }),
);
