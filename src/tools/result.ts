/**
 * What a tool returns and what a call answers.
 */

/** Return it from a tool to label its answer, such as `new ToolResult(page, { labels: ['outside'] })`. */
export class ToolResult<T = unknown> {
  readonly labels: readonly string[];

  constructor(
    readonly output: T,
    options: { readonly labels?: readonly string[] } = {},
  ) {
    this.labels = Object.freeze([...(options.labels ?? [])]);
    Object.freeze(this);
  }
}

/** Returned by `park(reason)`: the call waits for a person, whose answer becomes its result. */
export class ParkRequest {
  constructor(readonly reason: string) {
    Object.freeze(this);
  }
}

/** Makes the call wait for a person: `return park('Needs a manager for refunds over $500')`. */
export function park(reason: string): ParkRequest {
  if (typeof reason !== 'string' || reason.trim() === '') {
    throw new TypeError('park(reason) needs a reason a person can read, such as park("Refunds over $500 need a manager").');
  }
  return new ParkRequest(reason);
}

/** Why a call answered with an error. */
export type ToolErrorCode =
  | 'invalid_arguments'
  | 'tool_not_found'
  | 'failed'
  | 'timeout'
  | 'unavailable'
  | 'aborted'
  | 'denied'
  | 'refused'
  | 'budget_spent'
  | 'conflict';

/**
 * What a call answers: its output, an error the model can correct from, or that it waits for a
 * person. `labels` are the labels this answer carries (from `ToolResult` and `@Labels`).
 */
export type ToolAnswer =
  | { readonly status: 'ok'; readonly output: unknown; readonly labels: readonly string[] }
  | {
      readonly status: 'error';
      readonly code: ToolErrorCode;
      readonly message: string;
      readonly labels: readonly string[];
    }
  | {
      readonly status: 'parked';
      /** Why it waits: a policy asked for approval, the tool parked itself, or a crash left it in doubt. */
      readonly kind: 'approval' | 'park' | 'in_doubt';
      /** The inbox item a person answers; absent for a bare `callTool`, which has no inbox. */
      readonly inboxId?: string;
      readonly reason: string;
      readonly labels: readonly string[];
    };

/** No labels: one shared frozen array, since most answers carry none and call records keep them. */
export const NO_LABELS: readonly string[] = Object.freeze([]);

export function okAnswer(output: unknown, labels: readonly string[] = NO_LABELS): ToolAnswer {
  return { status: 'ok', output, labels };
}

export function errorAnswer(code: ToolErrorCode, message: string, labels: readonly string[] = NO_LABELS): ToolAnswer {
  return { status: 'error', code, message, labels };
}

/** The text a model reads for an answer. */
export function answerText(answer: ToolAnswer): string {
  switch (answer.status) {
    case 'ok':
      return typeof answer.output === 'string' ? answer.output : JSON.stringify(answer.output ?? null);
    case 'error':
      return answer.message;
    case 'parked':
      return `This call is waiting for a person: ${answer.reason}`;
  }
}
