import { CommanderError } from 'commander';
import {
  ConfigurationError,
  ConflictError,
  InvalidAnswerError,
  InvalidArgumentsError,
  NotFoundError,
  NotPermittedError,
  StoreError,
  UsageError,
  type ConflictReason,
} from '../errors.js';

/**
 * What the `wardrik` command's exit code means. Scripts branch on these, so they never change:
 * a new kind of failure gets a new number.
 */
export const ExitCode = Object.freeze({
  /** It did what was asked. */
  ok: 0,
  /** Something nobody planned for; the message says what. */
  unexpected: 1,
  /** A bad command line: an unknown command or option, a missing or malformed argument, bad JSON, a bad store URL. */
  usage: 2,
  /** The inbox item, run, module or MCP server named does not exist. */
  notFound: 3,
  /** The item was answered already, expired, or the digest is not the call's: nothing was done. */
  conflict: 4,
  /** The store could not be opened or used: a missing SQLite file, PostgreSQL down, a disk error. */
  store: 5,
  /** The audit trail does not verify: an entry was changed, removed or moved (`wardrik audit verify`). */
  tampered: 6,
  /** `wardrik policy test`: a row's decision is not the one it expects. */
  mismatch: 7,
});

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the command explains itself: a message naming the thing, the cause and the fix, and its exit code. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCodeValue,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The exit code and the stable `code` (for `--json`) of any error a command may throw. */
export function classify(error: unknown): { readonly exitCode: ExitCodeValue; readonly code: string } {
  if (error instanceof CliError) return { exitCode: error.exitCode, code: CODES[error.exitCode] };
  if (error instanceof CommanderError) return { exitCode: ExitCode.usage, code: 'usage' };
  if (error instanceof NotFoundError) return { exitCode: ExitCode.notFound, code: 'not_found' };
  if (error instanceof ConflictError) {
    const exitCode = CONFLICT_EXITS[error.reason];
    return { exitCode, code: CODES[exitCode] };
  }
  // Someone outside the rule's approvers, or the requester themselves: nothing was done, as for a conflict.
  if (error instanceof NotPermittedError) return { exitCode: ExitCode.conflict, code: 'not_permitted' };
  if (error instanceof StoreError) return { exitCode: ExitCode.store, code: 'store' };
  // Changed arguments that fail the tool's checks (`approve --arguments`): the message lists every field.
  if (error instanceof InvalidArgumentsError) return { exitCode: ExitCode.usage, code: 'invalid_arguments' };
  // An answer the inbox cannot take as given (an --allow-if field the call lacks, content that misfits a question).
  if (error instanceof InvalidAnswerError) return { exitCode: ExitCode.usage, code: 'usage' };
  // A bad store URL, a bad server option: fixed on the command line. (A TypeError here is a bug, reported
  // as unexpected with its stack.)
  if (error instanceof ConfigurationError) return { exitCode: ExitCode.usage, code: 'usage' };
  // A Wardrik function called the wrong way: the command passed on something the person typed.
  if (error instanceof UsageError) return { exitCode: ExitCode.usage, code: 'usage' };
  return { exitCode: ExitCode.unexpected, code: 'unexpected' };
}

/**
 * The exit code of each conflict. An item answered another way (approving a park, answering an approval)
 * is a wrong command, fixed on the command line; the others say the item or run moved on: nothing was done.
 */
const CONFLICT_EXITS: Readonly<Record<ConflictReason, ExitCodeValue>> = {
  wrong_kind: ExitCode.usage,
  already_answered: ExitCode.conflict,
  already_approved: ExitCode.conflict,
  expired: ExitCode.conflict,
  stale_digest: ExitCode.conflict,
  not_offered: ExitCode.conflict,
  missing_detail: ExitCode.conflict,
  busy: ExitCode.conflict,
  run_exists: ExitCode.conflict,
  taken_over: ExitCode.conflict,
  stopped: ExitCode.conflict,
  configured_server: ExitCode.conflict,
  name_taken: ExitCode.conflict,
};

const CODES: Readonly<Record<ExitCodeValue, string>> = {
  0: 'ok',
  1: 'unexpected',
  2: 'usage',
  3: 'not_found',
  4: 'conflict',
  5: 'store',
  6: 'tampered',
  7: 'mismatch',
};
