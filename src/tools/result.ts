/**
 * What a tool returns and what a call answers.
 */
import { UsageError } from '../errors.js';

/**
 * An MCP content part a tool can answer with: text, an image or audio (base64 `data`), or an embedded
 * resource. MCP clients get the parts as they are; Wardrik's own models read the result's `output`.
 */
export type ContentPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image' | 'audio'; readonly data: string; readonly mimeType: string }
  | {
      readonly type: 'resource';
      readonly resource: { readonly uri: string; readonly mimeType?: string } & (
        { readonly text: string } | { readonly blob: string }
      );
    };

/**
 * Return it from a tool to label its answer, such as `new ToolResult(page, { labels: ['outside'] })`,
 * or to answer MCP clients with content parts: `new ToolResult(undefined, { content: [{ type: 'image', … }] })`
 * (its output is then the parts' text, for Wardrik's own models).
 */
export class ToolResult<T = unknown> {
  readonly labels: readonly string[];
  readonly content: readonly ContentPart[] | undefined;
  readonly output: T;

  constructor(
    output: T,
    options: { readonly labels?: readonly string[]; readonly content?: readonly ContentPart[] } = {},
  ) {
    this.labels = Object.freeze([...(options.labels ?? [])]);
    this.content = options.content === undefined ? undefined : checkContent(options.content);
    this.output = output === undefined && this.content !== undefined ? (contentText(this.content) as T) : output;
    Object.freeze(this);
  }
}

function checkContent(parts: readonly ContentPart[]): readonly ContentPart[] {
  if (!Array.isArray(parts as unknown))
    throw new UsageError(
      `new ToolResult(output, { content }) takes content as a list of MCP content parts, such as [{ type: "text", text: "…" }]; got ${typeof parts}.`,
    );
  parts.forEach((part: ContentPart, i) => {
    const ok =
      part?.type === 'text'
        ? typeof part.text === 'string'
        : part?.type === 'image' || part?.type === 'audio'
          ? typeof part.data === 'string' && typeof part.mimeType === 'string'
          : part?.type === 'resource' &&
            typeof part.resource?.uri === 'string' &&
            (typeof (part.resource as { text?: unknown }).text === 'string' ||
              typeof (part.resource as { blob?: unknown }).blob === 'string');
    if (!ok) {
      throw new UsageError(
        `ToolResult content[${i}] is not an MCP content part: give { type: 'text', text }, { type: 'image' | 'audio', data (base64), mimeType } or { type: 'resource', resource: { uri, text | blob } }.`,
      );
    }
  });
  return Object.freeze(parts.map((part) => Object.freeze({ ...part })));
}

/** The parts as text, for a model that reads text: images, audio and binary resources are named. */
export function contentText(parts: readonly ContentPart[]): string {
  return parts
    .map((part) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'resource')
        return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
      return `[${part.type} ${part.mimeType}]`;
    })
    .join('\n');
}

/**
 * Returned by `park(reason)`: the call waits for a person, whose answer becomes its result. Wardrik's
 * MCP hub parks with kind `tool_change` (a tool whose definition changed), with `detail` for the person.
 */
export class ParkRequest {
  constructor(
    readonly reason: string,
    readonly kind: 'park' | 'tool_change' = 'park',
    readonly detail?: unknown,
  ) {
    Object.freeze(this);
  }
}

/** Makes the call wait for a person: `return park('Needs a manager for refunds over $500')`. */
export function park(reason: string): ParkRequest {
  if (typeof reason !== 'string' || reason.trim() === '') {
    throw new UsageError(
      'park(reason) needs a reason a person can read, such as park("Refunds over $500 need a manager").',
    );
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
  | {
      readonly status: 'ok';
      readonly output: unknown;
      readonly labels: readonly string[];
      /** The MCP content parts the tool answered with (`ToolResult`'s `content`), for MCP clients. */
      readonly content?: readonly ContentPart[];
      readonly edited?: EditedCall;
    }
  | {
      readonly status: 'error';
      readonly code: ToolErrorCode;
      readonly message: string;
      readonly labels: readonly string[];
      readonly edited?: EditedCall;
    }
  | {
      readonly status: 'parked';
      /**
       * Why it waits: a policy asked for approval, the tool parked itself, a crash left it in doubt, or
       * an MCP tool's definition changed since a person accepted it.
       */
      readonly kind: 'approval' | 'park' | 'in_doubt' | 'tool_change';
      /** What the person is shown besides the reason (for `tool_change`: the definitions and what changed). */
      readonly detail?: unknown;
      /** The inbox item a person answers; absent for a bare `callTool`, which has no inbox. */
      readonly inboxId?: string;
      readonly reason: string;
      readonly labels: readonly string[];
      /**
       * @internal Who may answer, and whom the call was for, as the journal keeps them: an item a crash
       * lost is put back with them, never as anyone's to answer (the rule that asked is the call's `decidedBy`).
       */
      readonly approval?: { readonly answerers?: unknown; readonly requester?: string };
    };

/** A call a person approved with changed arguments: what it was sent with, what it ran with, and who changed them. */
export interface EditedCall {
  readonly original: unknown;
  readonly arguments: unknown;
  readonly by?: string;
}

/**
 * A tool's failure that carries labels, as an MCP server's error result with `wardrik/labels` does: its
 * error text may hold what the labels say (outside text), so the failed call's answer keeps them.
 */
export class LabelledFailure extends Error {
  constructor(
    message: string,
    readonly labels: readonly string[],
  ) {
    super(message);
    this.name = 'LabelledFailure';
  }
}

/** No labels: one shared frozen array, since most answers carry none and call records keep them. */
export const NO_LABELS: readonly string[] = Object.freeze([]);

export function okAnswer(output: unknown, labels: readonly string[] = NO_LABELS): ToolAnswer {
  return { status: 'ok', output, labels };
}

export function errorAnswer(code: ToolErrorCode, message: string, labels: readonly string[] = NO_LABELS): ToolAnswer {
  return { status: 'error', code, message, labels };
}

/** The text a model reads for an answer; it says so when a person changed the call's arguments. */
export function answerText(answer: ToolAnswer): string {
  if (answer.status !== 'parked' && answer.edited !== undefined)
    return `${editedNote(answer.edited)}\n${answerText({ ...answer, edited: undefined })}`;
  switch (answer.status) {
    case 'ok':
      return typeof answer.output === 'string' ? answer.output : JSON.stringify(answer.output ?? null);
    case 'error':
      return answer.message;
    case 'parked':
      return `This call is waiting for a person: ${answer.reason}`;
  }
}

function editedNote(edited: EditedCall): string {
  const who = edited.by === undefined ? 'A person' : `A person (${edited.by})`;
  return `${who} changed this call's arguments before approving it: it ran with ${JSON.stringify(edited.arguments)}, not ${JSON.stringify(edited.original)} as you sent. Its answer:`;
}
