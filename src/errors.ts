/**
 * The error family. What a developer sees (thrown) and what a model sees (an error answer) differ:
 * configuration and store errors are thrown; a bad argument, a failed or timed-out tool becomes an
 * error answer the model can correct from. Every message names the thing, the cause and the fix.
 */
/**
 * The code of every error Wardrik throws, one per class (an unreadable journal row has two): branch on
 * `error.code` (or `instanceof`), never on the message. A `ConflictError` says which conflict in its
 * `reason`. What a model is told instead (a bad argument, an unknown tool) is an answer with a
 * `ToolErrorCode`, never a thrown error.
 */
export type WardrikErrorCode =
  | 'configuration'
  | 'usage'
  | 'timeout'
  | 'unavailable'
  | 'invalid_arguments'
  | 'invalid_answer'
  | 'store'
  | 'journal_newer'
  | 'journal_malformed'
  | 'conflict'
  | 'not_found'
  | 'not_permitted'
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

/**
 * Wrong set-up, found at start-up (or at registration), never shown to a model: bad options or
 * decorators, or a test's scripted model given a script too short for its turn.
 */
export class ConfigurationError extends WardrikError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('configuration', message, options);
  }
}

/**
 * A Wardrik function called the wrong way while running: `agent.send('')`, `ctx.cost(-1)`, `park('')`, a
 * `ToolResult` whose content is not MCP content, a private-data key that is not a symbol or class. The
 * message names the function, what it takes and what it got; fix the calling code. Thrown inside a tool,
 * it fails that call (the model reads the message), as any error the tool throws does.
 */
export class UsageError extends WardrikError {
  constructor(message: string) {
    super('usage', message);
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
  /**
   * `repeatable`: the tool is read-only or idempotent, so trying again is safe and the model is told so.
   * `askedPerson`: the tool waited for a person during the attempt (an MCP server's question), so the
   * runner does not try it again by itself: that would ask the person again.
   */
  constructor(tool: string, ms: number, repeatable = true, askedPerson = false) {
    const timedOut = askedPerson
      ? `Tool "${tool}" timed out after ${ms} ms (not counting the wait for a person to answer its server's question) and was stopped`
      : `Tool "${tool}" timed out after ${ms} ms and was stopped`;
    super(
      'timeout',
      !repeatable
        ? `${timedOut}, ${MAY_HAVE_HAPPENED}`
        : askedPerson
          ? `${timedOut}, after the question was answered. It was not tried again, as that would ask the question again: call it again if the task still needs it (a person is asked anew), or tell the user it did not finish.`
          : `${timedOut}. Try again later, or with a smaller request.`,
    );
  }
}

/**
 * A transient failure: the service behind a tool is down or unreachable. Throw it from a tool (the MCP
 * layer does) so the runner retries the call when the tool is safe to repeat.
 */
export class UnavailableError extends WardrikError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('unavailable', message, options);
  }
}

/** @deprecated The old name of `UnavailableError`, kept so that code written for it still compiles. */
export const Unavailable = UnavailableError;
/** @deprecated The old name of `UnavailableError`. */
export type Unavailable = UnavailableError;

/**
 * An egress check refused a URL: a runtime MCP server is not added, or its connection (or a sign-in)
 * does not start. Not transient: trying again is refused again.
 */
export class EgressRefusedError extends WardrikError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('egress_refused', message, options);
  }
}

/** @deprecated The old name of `EgressRefusedError`, kept so that code written for it still compiles. */
export const EgressRefused = EgressRefusedError;
/** @deprecated The old name of `EgressRefusedError`. */
export type EgressRefused = EgressRefusedError;

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

/**
 * Every kind of conflict, by its `reason`, with the ids involved (`error.data`). In each, nothing was done
 * (nothing ran, nothing was recorded) unless it says otherwise.
 */
export interface ConflictData {
  /** The inbox item was answered before this answer came (earlier, or by someone else a moment ago). */
  readonly already_answered: {
    readonly item: string;
    /** `approved`, `denied` or `answered`. */
    readonly status: string;
    readonly by?: string;
    readonly answeredAt?: number;
  };
  /** The item waited longer than `policy.approvalTtlMs`: it was denied as this answer came, and the agent told. */
  readonly expired: { readonly item: string; readonly ttlMs: number };
  /** The item is answered another way: approving a tool's own park or a call in doubt, answering an approval. */
  readonly wrong_kind: { readonly item: string; readonly kind: string };
  /** This person's approval already counts toward the item's quorum: it waits for other people. */
  readonly already_approved: {
    readonly item: string;
    readonly by: string;
    readonly approvals: number;
    readonly quorum: number;
  };
  /** The approval was for other arguments (`digest`) than the call has (`expected`): look at the item again. */
  readonly stale_digest: { readonly item: string; readonly digest: string; readonly expected: string };
  /** Changed arguments cannot be checked here: this node does not offer `tool` and the item kept no schema. */
  readonly not_offered: { readonly item: string; readonly tool: string };
  /** The item does not hold what its kind needs (a question, a changed tool definition): deny it instead. */
  readonly missing_detail: { readonly item: string; readonly kind: string };
  /** Another node holds the new run's lease: send again. */
  readonly busy: { readonly run: string };
  /** A turn with this run id exists already: send again. */
  readonly run_exists: { readonly run: string };
  /**
   * Another node wrote the run's journal first (its `step`, its `call`, or the turn): it drives the run
   * now, and this node stopped. `run` is absent only for a write of no one run.
   */
  readonly taken_over: { readonly run?: string; readonly call?: string; readonly step?: number };
  /** The turn stopped on this node before these journal writes were committed; recovery takes its calls up. */
  readonly stopped: { readonly run: string };
  /** `server` is one of MCP hub `hub`'s configured servers: it cannot be replaced or removed at runtime. */
  readonly configured_server: { readonly hub: string; readonly server: string };
  /** `owner` (a toolset, or another hub's server) already has the name `server`. */
  readonly name_taken: { readonly hub: string; readonly server: string; readonly owner: string };
}

/** Which conflict a `ConflictError` is: branch on it (the `code` stays `conflict` for every one). */
export type ConflictReason = keyof ConflictData;

/**
 * An answer or a write that conflicts with the state it would change: `reason` says which conflict,
 * `data` the ids involved. `error.is('already_answered')` narrows `data` to that reason's shape.
 */
export class ConflictError extends WardrikError {
  readonly reason: ConflictReason;
  readonly data: ConflictData[ConflictReason];

  constructor(...[reason, data, message]: ConflictArguments) {
    super('conflict', message);
    this.reason = reason;
    this.data = Object.freeze({ ...data });
  }

  /** Whether this is the conflict `reason`: `if (error.is('already_answered')) error.data.by`. */
  is<R extends ConflictReason>(reason: R): this is ConflictOf<R> {
    return this.reason === reason;
  }
}

/** What `new ConflictError` takes: a reason, its data and the message, the data checked against the reason. */
export type ConflictArguments = {
  [R in ConflictReason]: [reason: R, data: ConflictData[R], message: string];
}[ConflictReason];

/** A `ConflictError` of one reason, as `error.is(reason)` narrows it. */
export type ConflictOf<R extends ConflictReason> = ConflictError & {
  readonly reason: R;
  readonly data: ConflictData[R];
};

/**
 * A person may not give this answer: the rule that asked names other groups (`approvers`), or keeps the
 * person the run acts for from answering (`separateFrom`). The message says who may answer; nothing ran.
 */
export class NotPermittedError extends WardrikError {
  constructor(
    message: string,
    /** The inbox item, and who may answer it in words, such as `a person in finance-leads, not ana (who asked)`. */
    readonly data: { readonly item: string; readonly who: string },
  ) {
    super('not_permitted', message);
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
