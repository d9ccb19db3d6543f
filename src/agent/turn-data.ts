import { z } from 'zod';
import { readStored, stored } from '../store/journal-data.js';
import type { StepRecord, TurnRecord } from '../store/store.js';
import type { ParkedCall } from './agent.js';
import type { StepData } from './messages.js';
import type { ModelUsage } from './pricing.js';
import type { JournaledSearch } from './provider-search.js';
import type { ValueTableSnapshot } from '../tools/value-table.js';

/** `TurnRecord.data`: what a turn is about and where it stands. Plain JSON. */
export interface TurnData {
  readonly input: string;
  readonly model: string;
  readonly text: string;
  readonly parked: readonly ParkedCall[];
  readonly spentUsd: number;
  readonly steps: number;
  readonly error?: string;
  /** The earlier turns whose labels this turn started with. */
  readonly earlier?: readonly EarlierTurn[];
  /** The turn ran with labels on values: its model read outside text only as handles. */
  readonly values?: boolean;
}

/** An earlier turn of the conversation whose labels a turn starts with, since its text is in the turn's prompt. */
export interface EarlierTurn {
  readonly run: string;
  readonly labels: readonly string[];
}

const PARKED_CALL: z.ZodType<ParkedCall> = z.object({
  inboxId: z.string(),
  call: z.string(),
  tool: z.string(),
  reason: z.string(),
});

const TURN_DATA: z.ZodType<TurnData> = z.object({
  input: z.string(),
  model: z.string(),
  text: z.string(),
  parked: z.array(PARKED_CALL),
  spentUsd: z.number(),
  steps: z.number().int().nonnegative(),
  error: z.string().optional(),
  earlier: z.array(z.object({ run: z.string(), labels: z.array(z.string()) })).optional(),
  values: z.boolean().optional(),
});

const USAGE: z.ZodType<ModelUsage> = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
});

const METADATA = z.record(z.string(), z.record(z.string(), z.json()));

const SEARCH: z.ZodType<JournaledSearch> = z.object({
  id: z.string(),
  name: z.string(),
  input: z.string(),
  result: z.json().optional(),
  error: z.boolean().optional(),
  callMetadata: METADATA.optional(),
  resultMetadata: METADATA.optional(),
});

/** Held outside values (`labels: 'values'`): an optional field, so steps written before it read as they were. */
const VALUES: z.ZodType<ValueTableSnapshot> = z.object({
  next: z.number().int().positive(),
  held: z.array(
    z.object({
      handle: z.string().regex(/^\$outside_\d+$/),
      value: z.json(),
      labels: z.array(z.string()),
      source: z.object({ tool: z.string(), what: z.string() }),
    }),
  ),
  steered: z.array(z.string()),
});

const STEP_DATA: z.ZodType<StepData> = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('model'),
    model: z.string(),
    text: z.string(),
    calls: z.array(z.object({ id: z.string(), name: z.string(), input: z.string() })),
    searches: z.array(SEARCH).optional(),
    finishReason: z.string(),
    usage: USAGE,
    usd: z.number(),
  }),
  z.object({
    kind: z.literal('tools'),
    results: z.array(z.object({ id: z.string(), name: z.string(), text: z.string(), error: z.boolean() })),
    values: VALUES.optional(),
  }),
]);

/** A turn's data as the store keeps it: with its journal format. */
export function storedTurnData(data: TurnData): unknown {
  return stored(data);
}

/** A step as the store keeps it: with its journal format. */
export function storedStep(step: StepData): unknown {
  return stored(step);
}

/** The turn's data, checked (and upgraded from an older journal format); a `JournalDataError` names the run. */
export function turnDataOf(turn: TurnRecord): TurnData {
  return readStored(TURN_DATA, turn.data, `the data of run "${turn.run}" (a turn of agent "${turn.agent}")`);
}

/** A step's data, checked (and upgraded from an older journal format); a `JournalDataError` names the run. */
export function stepDataOf(step: StepRecord): StepData {
  return readStored(STEP_DATA, step.data, `step ${step.index} of run "${step.run}"`);
}
