/**
 * The error family. What a developer sees (thrown) and what a model sees (an error answer) differ:
 * configuration and store errors are thrown; a bad argument, a failed or timed-out tool becomes an
 * error answer the model can correct from. Every message names the thing, the cause and the fix.
 */
/**
 * The code of every error Wardrik throws, one per class (an unreadable journal row has two): branch on `error.code` (or `instanceof`), never
 * on the message. What a model is told instead (a bad argument, an unknown tool) is an answer with a
 * `ToolErrorCode`, never a thrown error.
 */
export type WardrikErrorCode =
  | 'configuration'
  | 'timeout'
  | 'unavailable'
  | 'invalid_arguments'
  | 'invalid_answer'
  | 'store'
  | 'journal_newer'
  | 'journal_malformed'
  | 'conflict'
  | 'not_found'
  | 'closed'
  | 'egress_refused';

export class WardrikError extends Error {
  readonly code: WardrikErrorCode;

  constructor(code: WardrikErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Wrong set-up, found at start-up (or at registration), never shown to a model. */
export class ConfigurationError extends WardrikError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('configuration', message, options);
  }
}

/**
 * What the model is told after a call that is not safe to repeat may or may not have happened (it timed
 * out, its connection dropped): "try again later" made models send it again as a new call, a second effect.
 */
export const MAY_HAVE_HAPPENED =
  'so it may have happened. Do not call it again: a repeat could do it twice. Tell the user it is not known whether it happened; a person will check and settle it.';

/** A call ran longer than its time-out: the reason its `ctx.signal` aborts with, so a tool can tell a time-out from a stop. */
export class ToolTimeoutError extends WardrikError {
  /** `repeatable`: the tool is read-only or idempotent, so trying again is safe and the model is told so. */
  constructor(tool: string, ms: number, repeatable = true) {
    super(
      'timeout',
      repeatable
        ? `Tool "${tool}" timed out after ${ms} ms and was stopped. Try again later, or with a smaller request.`
        : `Tool "${tool}" timed out after ${ms} ms and was stopped, ${MAY_HAVE_HAPPENED}`,
    );
  }
}

/**
 * A transient failure: the service behind a tool is down or unreachable. Throw it from a tool (the MCP
 * layer does) so the runner retries the call when the tool is safe to repeat.
 */
export class Unavailable extends WardrikError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}

/** One failing argument: where it is and why it failed. */
export interface FieldIssue {
  /** The field path, such as `items[0].sku`; `(arguments)` for the whole object. */
  readonly path: string;
  readonly message: string;
}

const MAX_LISTED_ISSUES = 25;

/** Arguments a person gave (approving a call with changes) did not pass the tool's checks. Carries every failing field. */
export class InvalidArgumentsError extends WardrikError {
  readonly issues: readonly FieldIssue[];

  constructor(tool: string, issues: readonly FieldIssue[]) {
    // The message lists the first few: arguments with thousands of bad values must not make an error as large.
    const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `- ${issue.path.slice(0, 200)}: ${issue.message}`);
    if (issues.length > MAX_LISTED_ISSUES) listed.push(`- and ${issues.length - MAX_LISTED_ISSUES} more`);
    super(
      'invalid_arguments',
      `Invalid arguments for tool "${tool}"; nothing ran. Fix these and approve again:\n${listed.join('\n')}`,
    );
    this.issues = Object.freeze([...issues]);
  }
}

/**
 * A person's answer to an inbox item that cannot be taken as given: an approval's `allowIf` naming fields
 * the call lacks, a denial without a reason, a question's content that does not fit what the server asked.
 * Nothing was recorded; the message says what to send instead.
 */
export class InvalidAnswerError extends WardrikError {
  constructor(message: string) {
    super('invalid_answer', message);
  }
}

/** The store could not read or write; a call whose journal entry cannot be written does not run. */
export class StoreError extends WardrikError {
  /**
   * For a failure of one call (`runner.run` rejecting): `false` when the store failed before the call
   * started, so it did not run; `true` when its tool ran but the outcome could not be recorded (recovery
   * then runs it again if repeatable, or parks it `in_doubt`). Absent for any other store failure.
   */
  readonly ran?: boolean;

  constructor(message: string, options?: { cause?: unknown; ran?: boolean }) {
    super('store', message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.ran !== undefined) this.ran = options.ran;
  }
}

/** An answer that conflicts with the state it would change: already answered, stale, wrong kind. */
export class ConflictError extends WardrikError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** Something asked for by id does not exist. */
export class NotFoundError extends WardrikError {
  constructor(message: string) {
    super('not_found', message);
  }
}

/**
 * A journal row this Wardrik cannot read: written by a newer Wardrik (`journal_newer`), or not in the
 * shape its format says (`journal_malformed`). The run it belongs to is not resumed from it.
 */
export class JournalDataError extends StoreError {
  override readonly code: 'journal_newer' | 'journal_malformed';

  constructor(code: 'journal_newer' | 'journal_malformed', message: string) {
    super(message);
    this.code = code;
  }
}

/** Wardrik, or the part asked (an MCP hub, an agent's turn), was closed: open a new one, or resume elsewhere. */
export class ClosedError extends WardrikError {
  constructor(message: string) {
    super('closed', message);
  }
}
