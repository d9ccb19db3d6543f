import {
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
  type CallToolResult,
  type Tool as McpTool,
} from '@modelcontextprotocol/client';
import { EgressRefusedError, MAY_HAVE_HAPPENED, UnavailableError } from '../errors.js';
import { CONFIDENTIAL, OUTSIDE } from '../policy/policy.js';
import { LabelledFailure, ToolResult } from '../tools/result.js';
import type { Annotations, JsonSchema } from '../tools/tool.js';
import { LABELS_META, TRUST_ANNOTATIONS_META } from './labels-meta.js';

/** What decides a tool's annotations besides the server's own hints. */
export interface AnnotationRules {
  readonly trusted: boolean;
  /** The server's `gated` option, which overrides the default. */
  readonly gated: boolean | undefined;
  /** The tool was gated before (untrusted servers only): it stays gated whatever its hints say now. */
  readonly wasGated: boolean;
  readonly timeoutMs: number | undefined;
}

/**
 * A tool's Wardrik annotations from its MCP hints: readOnlyHint → readOnly, destructiveHint →
 * destructive, idempotentHint → idempotent, openWorldHint → openWorld. A hint the server does not give
 * is not set; read-only implies idempotent. `gated`: the server's option if set, else gated unless
 * read-only, and a tool of an untrusted server that was gated once stays gated (a later tools/list
 * claiming readOnlyHint does not let it run unasked). Answers are labelled `outside` unless trusted.
 */
export function annotationsOf(tool: McpTool, rules: AnnotationRules): Annotations {
  const hints = (tool.annotations ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const map = [
    ['readOnlyHint', 'readOnly'],
    ['destructiveHint', 'destructive'],
    ['idempotentHint', 'idempotent'],
    ['openWorldHint', 'openWorld'],
  ] as const;
  for (const [hint, key] of map) if (typeof hints[hint] === 'boolean') out[key] = hints[hint];
  if (out.readOnly === true) out.idempotent = true;
  out.gated = rules.gated ?? (rules.wasGated || out.readOnly !== true);
  if (!rules.trusted) out.labels = [OUTSIDE];
  if (rules.timeoutMs !== undefined) out.timeout = rules.timeoutMs;
  return out as Annotations;
}

/**
 * The input schema the model sees and arguments are checked against: the server's own, `$schema` included
 * (a client keeps a tool's schema as the server gave it, SEP-1613; the draft it names is the one its
 * arguments are checked in). MCP input schemas are always objects, so a missing `type` is `object`.
 */
export function inputSchemaOf(tool: McpTool): JsonSchema {
  const schema = { ...(tool.inputSchema ?? {}) } as Record<string, unknown>;
  if (schema.type === undefined) schema.type = 'object';
  return schema as JsonSchema;
}

export function describeTool(tool: McpTool, server: string): string {
  const description = typeof tool.description === 'string' ? tool.description.trim() : '';
  if (description !== '') return description;
  const title = tool.title ?? tool.annotations?.title;
  return typeof title === 'string' && title.trim() !== ''
    ? title
    : `Tool "${tool.name}" of the MCP server "${server}" (the server gives no description).`;
}

/**
 * A call's result as the answer's output: `structuredContent` when the server gives it (and it fits),
 * else the text parts joined by new lines, with other parts named (`[image image/png, 2048 bytes]`).
 * Text over `maxChars` is cut with a note saying so. An `isError` result throws a plain Error with the
 * tool's text, which the runner passes to the model as the call's error and never retries.
 */
export function outputOf(result: CallToolResult, maxChars: number, where: string): unknown {
  const text = textOf(result);
  if (result.isError === true) {
    const message = cut(text === '' ? `${where} reported an error without a message.` : text, maxChars);
    // The error text reaches the model as the call's error: the labels the server put on it stay with it.
    const labels = labelsOf(result);
    throw labels.length === 0 ? new Error(message) : new LabelledFailure(message, labels);
  }
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    if (json.length <= maxChars) return result.structuredContent;
    return cut(json, maxChars);
  }
  return cut(text, maxChars);
}

const MAX_LABELS = 16;
const LABEL = /^[A-Za-z0-9_.:-]{1,64}$/;

/**
 * The output with the labels the server put on its result, so that `outside` read by a service behind
 * an MCP hop still gates side effects here. Read from any server, trusted or not, in two forms: Wardrik's
 * `wardrik/labels` (at most 16 labels of 1 to 64 plain characters, the rest ignored), and the draft trust
 * annotations on the result or any content block (`untrusted: true` → `outside`, `sensitive: true` →
 * `confidential`; any other value, key or `false` adds nothing). A label restricts, but for `public`, which
 * only a trusted server's answer can use to leave `confidential` off (an untrusted server's answers are
 * `outside` whatever it says). Neither form can take a label away: what a call carries otherwise stays.
 */
export function labelled(result: CallToolResult, output: unknown): unknown {
  const labels = labelsOf(result);
  return labels.length === 0 ? output : new ToolResult(output, { labels });
}

function labelsOf(result: CallToolResult): readonly string[] {
  const meta = result._meta?.[LABELS_META];
  const named = Array.isArray(meta)
    ? meta.slice(0, MAX_LABELS).filter((label): label is string => typeof label === 'string' && LABEL.test(label))
    : [];
  const annotated = new Set<string>();
  annotate(result._meta, annotated);
  if (Array.isArray(result.content))
    for (const part of result.content) annotate((part as { _meta?: Record<string, unknown> } | null)?._meta, annotated);
  return annotated.size === 0 ? named : [...new Set([...named, ...annotated])];
}

/** Adds the labels a trust-annotations claim in `meta` makes (only `true` claims count). */
function annotate(meta: Record<string, unknown> | undefined, into: Set<string>): void {
  const claims = meta?.[TRUST_ANNOTATIONS_META] as { untrusted?: unknown; sensitive?: unknown } | null | undefined;
  if (claims === null || typeof claims !== 'object') return;
  if (claims.untrusted === true) into.add(OUTSIDE);
  if (claims.sensitive === true) into.add(CONFIDENTIAL);
}

function textOf(result: CallToolResult): string {
  const content = Array.isArray(result.content) ? result.content : [];
  const parts: string[] = [];
  for (const part of content) {
    switch (part.type) {
      case 'text':
        parts.push(part.text);
        break;
      case 'image':
      case 'audio':
        parts.push(`[${part.type} ${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`);
        break;
      case 'resource': {
        const resource = part.resource as { uri: string; text?: string; mimeType?: string };
        parts.push(
          typeof resource.text === 'string'
            ? resource.text
            : `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]`,
        );
        break;
      }
      case 'resource_link':
        parts.push(`[link ${part.uri}${part.name ? ` (${part.name})` : ''}]`);
        break;
      default:
        parts.push(`[${String((part as { type?: unknown }).type)} content]`);
    }
  }
  return parts.join('\n');
}

function cut(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[Wardrik cut this result: it was ${text.length} characters; only the first ${maxChars} are shown.]`;
}

/** A call's result that is not the shape MCP gives `tools/call` results. */
export class MalformedResult extends Error {
  override readonly name = 'MalformedResult';
}

/**
 * What the SDK's client checks a call's result with, in place of its own zod schema: the same shape,
 * checked where it lies. Zod builds a copy of every result as it checks it, about 5 KB and several µs a
 * call (a third of all an MCP call allocated). The SDK reads it as a Standard Schema; its check throws
 * `MalformedResult`, which the SDK passes on as the call's rejection. A content part of a type this MCP
 * version does not know is let through (shown to the model as `[type content]`), so a newer server's
 * results still read.
 */
export const CALL_RESULT = {
  safeParse(value: unknown): { success: true; data: CallToolResult } | { success: false; error: MalformedResult } {
    const problem = resultProblem(value);
    return problem === undefined
      ? { success: true, data: value as CallToolResult }
      : { success: false, error: new MalformedResult(problem) };
  },
  '~standard': {
    version: 1 as const,
    vendor: 'wardrik',
    validate(value: unknown): { value: CallToolResult } {
      const problem = resultProblem(value);
      if (problem !== undefined) throw new MalformedResult(problem);
      return { value: value as CallToolResult };
    },
  },
};

function resultProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'the result is not an object';
  // `structuredContent` may be any JSON value (SEP-2106), as the SDK's own check has it.
  const { content, isError } = value;
  if (content !== undefined) {
    if (!Array.isArray(content)) return '"content" is not a list';
    for (let i = 0; i < content.length; i++) {
      const problem = partProblem(content[i]);
      if (problem !== undefined) return `content[${i}]: ${problem}`;
    }
  }
  if (isError !== undefined && typeof isError !== 'boolean') return '"isError" is not true or false';
  return undefined;
}

/** What is wrong with a content part, in the fields Wardrik reads from it. */
function partProblem(part: unknown): string | undefined {
  if (!isRecord(part) || typeof part.type !== 'string') return 'not an object with a "type"';
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? undefined : '"text" is not a string';
    case 'image':
    case 'audio':
      return typeof part.data === 'string' && typeof part.mimeType === 'string'
        ? undefined
        : '"data" or "mimeType" is not a string';
    case 'resource':
      return isRecord(part.resource) &&
        typeof part.resource.uri === 'string' &&
        (typeof part.resource.text === 'string' || typeof part.resource.blob === 'string')
        ? undefined
        : '"resource" needs a "uri" and a "text" or "blob"';
    case 'resource_link':
      return typeof part.uri === 'string' && typeof part.name === 'string'
        ? undefined
        : '"uri" or "name" is not a string';
    default:
      return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The answer to a call was lost on its way: the response stream of its request (Streamable HTTP) ended
 * before the answer came, with no way to resume it (SEP-2575, protocol 2026-07-28). The server may have
 * run the call. The connection itself is fine; the request is never sent again here.
 */
export class ResponseLost extends Error {
  override readonly name = 'ResponseLost';
}

/**
 * A 2026-07-28 server answered a call `input_required` with a request Wardrik does not answer (only
 * elicitation is offered, and only where the server's options allow it), or asked round after round.
 */
export class UnansweredInput extends Error {
  override readonly name = 'UnansweredInput';
}

/** SDK errors that are the server's (or this call's) own answer, the same on any connection. */
const ANSWERS: ReadonlySet<string> = new Set([
  SdkErrorCode.InvalidResult,
  SdkErrorCode.RequestTimeout,
  SdkErrorCode.UnsupportedResultType,
  SdkErrorCode.InputRequiredRoundsExceeded,
  SdkErrorCode.CapabilityNotSupported,
  SdkErrorCode.MethodNotSupportedByProtocolVersion,
]);

/** Whether a failed call means the connection itself is gone (so the hub reconnects). */
export function isConnectionFailure(error: unknown): boolean {
  // A result that does not fit MCP's shape is the server's answer to this call, the same every time.
  if (error instanceof MalformedResult || error instanceof ResponseLost || error instanceof UnansweredInput)
    return false;
  if (error instanceof ProtocolError) return false;
  if (error instanceof SdkHttpError) return !(error.status > 0) || error.status === 404 || error.status >= 500;
  if (error instanceof SdkError) return !ANSWERS.has(error.code);
  return !(error instanceof EgressRefusedError);
}

/**
 * What a failed call throws. The server refusing the request itself (bad parameters, unknown method) is
 * the call's error; an egress refusal too. Everything else — a dropped connection, a lost response, a
 * time-out, a server error, the process dying, an HTTP failure — is `UnavailableError`, which the runner
 * retries only for repeatable tools: a call that may have reached the server is never sent again here. For
 * a tool that is not `repeatable`, a failure after which the call may have run tells the model not to call
 * it again.
 */
export function callFailure(error: unknown, where: string, detail: string | undefined, repeatable = true): Error {
  const inDoubt = (what: string): string =>
    repeatable ? `${what}, so it may or may not have run. Try again later.` : `${what}, ${MAY_HAVE_HAPPENED}`;
  if (error instanceof EgressRefusedError) return error;
  if (error instanceof UnauthorizedError) {
    // The server refused the request before running it: it needs a (new, or wider) sign-in.
    return new UnavailableError(
      `${where} asks for a sign-in (a token with more access, or a new one); the call did not run. A person signs in through the inbox (an authorize item); try again after.`,
      { cause: error },
    );
  }
  if (error instanceof UnansweredInput) return new Error(`${where} ${error.message}`, { cause: error });
  if (error instanceof ResponseLost) {
    return new UnavailableError(inDoubt(`${where}: the answer was lost (${error.message})`), { cause: error });
  }
  if (error instanceof MalformedResult || (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult)) {
    return new Error(
      `${where} answered with a result that is not valid MCP (${(error as Error).message}); the server needs fixing.`,
      { cause: error },
    );
  }
  if (error instanceof ProtocolError) {
    switch (error.code as ProtocolErrorCode) {
      case ProtocolErrorCode.InvalidParams:
      case ProtocolErrorCode.InvalidRequest:
      case ProtocolErrorCode.MethodNotFound:
      case ProtocolErrorCode.ParseError:
        return new Error(`${where} refused the call: ${error.message}`, { cause: error });
      default:
        return new UnavailableError(`${where} failed with a server error: ${error.message}. Try again later.`, {
          cause: error,
        });
    }
  }
  if (error instanceof SdkHttpError) {
    const status = error.status;
    if (status >= 400 && status < 500 && status !== 404 && status !== 408 && status !== 429)
      return new Error(`${where} refused the request (HTTP ${status}): ${error.message}`, { cause: error });
  } else if (error instanceof SdkError) {
    switch (error.code) {
      case SdkErrorCode.ConnectionClosed:
        return new UnavailableError(
          inDoubt(`${where}: the connection closed during the call${detail === undefined ? '' : ` (${detail})`}`),
          { cause: error },
        );
      case SdkErrorCode.RequestTimeout:
        return new UnavailableError(inDoubt(`${where} did not answer in time`), { cause: error });
      case SdkErrorCode.InputRequiredRoundsExceeded:
        return new Error(`${where} asked for input more times than Wardrik answers in one call: ${error.message}`, {
          cause: error,
        });
      default:
        break;
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return new UnavailableError(
    repeatable
      ? `${where} could not be reached: ${message}. Try again later.`
      : inDoubt(`${where}: the request failed (${message})`),
    { cause: error },
  );
}
