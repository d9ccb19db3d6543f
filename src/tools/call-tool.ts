import { randomUUID } from 'node:crypto';
import { newRunId } from '../run-ids.js';
import { ToolTimeoutError, WardrikError } from '../errors.js';
import type { FieldIssue } from '../errors.js';
import { argumentChecker, MAX_ARGUMENTS_TEXT, type CheckResult } from './arguments.js';
import { checkAmount, type ToolContext } from './context.js';
import { answerLabels, OUTSIDE } from './labels.js';
import { closestNames } from './names.js';
import {
  errorAnswer,
  LabelledFailure,
  NO_LABELS,
  okAnswer,
  ParkRequest,
  ToolResult,
  type ToolAnswer,
  type ToolErrorCode,
} from './result.js';
import type { ToolDefinition } from './tool.js';

/** A model's request to call a tool. `arguments` may be an object or the JSON text of one. */
export interface ToolCall {
  readonly id?: string;
  readonly name: string;
  readonly arguments?: unknown;
}

/**
 * Runs the tool named by `call` after checking its arguments against the tool's input. Answers with
 * an error (never throws) when no tool has that name, the arguments fail, or the tool throws. The
 * context's missing fields are filled: a fresh run and call id, attempt 1, a signal that never aborts.
 * This is the bare call: time-outs, retries, policy and budgets are the runner's.
 */
export async function callTool(
  tools: readonly ToolDefinition[],
  call: ToolCall,
  ctx: Partial<ToolContext> = {},
): Promise<ToolAnswer> {
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (tool === undefined)
    return notFoundAnswer(
      call.name,
      tools.map((t) => t.name),
    );
  const checked = await checkArguments(tool, call.arguments);
  if (!checked.ok) return invalidArgumentsAnswer(tool.name, checked.issues);
  const run = ctx.run ?? newRunId();
  const id = ctx.call ?? call.id ?? randomUUID();
  const context: ToolContext = {
    agent: ctx.agent ?? 'local',
    run,
    call: id,
    attempt: ctx.attempt ?? 1,
    idempotencyKey: ctx.idempotencyKey ?? `${run}:${id}`,
    signal: ctx.signal ?? new AbortController().signal,
    caller: ctx.caller ?? { door: 'app' },
    labels: ctx.labels ?? [],
    cost: ctx.cost ?? ((usd) => checkAmount('cost(usd)', usd)),
    measure: ctx.measure ?? ((_unit, amount) => checkAmount('measure(unit, amount)', amount)),
    progress: ctx.progress ?? ((progress) => checkAmount('progress(progress)', progress)),
    log: ctx.log ?? (() => {}),
  };
  try {
    return answerFrom(tool, await tool.run(checked.value as never, context));
  } catch (error) {
    return failureAnswer(tool, error);
  }
}

/**
 * Arguments as a model sends them, an object or its JSON text, as an object; nothing means `{}`. Text
 * is parsed once: JSON text of a string (arguments encoded twice, `"{\"id\":1}"`) is refused, not parsed
 * again, so what is checked, journaled and run is the one value the model sent. Text longer than
 * `MAX_ARGUMENTS_TEXT` is refused unread.
 */
export function parseArguments(
  raw: unknown,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly FieldIssue[] } {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw !== 'string') return { ok: true, value: raw };
  if (raw.length > MAX_ARGUMENTS_TEXT) {
    return {
      ok: false,
      issues: [
        {
          path: '(arguments)',
          message: `are too large (${raw.length} characters of JSON; the limit is ${MAX_ARGUMENTS_TEXT}); send less`,
        },
      ],
    };
  }
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return {
      ok: false,
      issues: [{ path: '(arguments)', message: 'are not valid JSON; send a JSON object of named arguments' }],
    };
  }
  if (typeof value === 'string') {
    return {
      ok: false,
      issues: [
        {
          path: '(arguments)',
          message:
            'are a JSON string, not a JSON object (encoded twice?); send the object itself, such as {"id": "ord_1"}, not a string of it',
        },
      ],
    };
  }
  return { ok: true, value };
}

/** Parses, applies the limits, then checks against the tool's DTO or schema; synchronous unless a validator is async. */
export function checkArguments(tool: ToolDefinition, raw: unknown): CheckResult | Promise<CheckResult> {
  const parsed = parseArguments(raw);
  if (!parsed.ok) return parsed;
  try {
    const result = argumentChecker(tool).check(parsed.value);
    return result instanceof Promise ? result.catch(uncheckable) : result;
  } catch (error) {
    return uncheckable(error);
  }
}

function uncheckable(error: unknown): CheckResult {
  return { ok: false, issues: [{ path: '(arguments)', message: `cannot be checked: ${(error as Error).message}` }] };
}

/**
 * The answer for what a tool returned: its output with its labels (`confidential` unless they say
 * otherwise, see `answerLabels`), or a park.
 */
export function answerFrom(tool: ToolDefinition, value: unknown): ToolAnswer {
  const own = tool.annotations.labels ?? NO_LABELS;
  if (value instanceof ParkRequest) {
    return value.detail === undefined
      ? { status: 'parked', kind: value.kind, reason: value.reason, labels: own }
      : { status: 'parked', kind: value.kind, reason: value.reason, labels: own, detail: value.detail };
  }
  if (value instanceof ToolResult) {
    const labels = answerLabels(own, value.labels);
    return value.content === undefined
      ? okAnswer(value.output, labels)
      : { status: 'ok', output: value.output, labels, content: value.content };
  }
  return okAnswer(value, answerLabels(own));
}

/**
 * The answer for what a tool threw: its message, for the model to act on. An error of a tool that reaches
 * outside (`@OpenWorld()`, or `@OutsideFields`: its answers hold outside text) is labelled `outside` like its
 * answers would be, since what it says may quote what outside said (a fetch that failed echoes the page);
 * Wardrik's own time-out is its own words.
 */
export function failureAnswer(tool: ToolDefinition, error: unknown): ToolAnswer {
  const code: ToolErrorCode =
    error instanceof WardrikError && (error.code === 'timeout' || error.code === 'unavailable') ? error.code : 'failed';
  const message = error instanceof Error ? error.message : String(error);
  const own = tool.annotations.labels ?? NO_LABELS;
  let labels = answerLabels(own, error instanceof LabelledFailure ? error.labels : NO_LABELS);
  // Guard (outside-error-labelled): an error of a tool that reaches outside may quote outside text.
  const quotesOutside = reachesOutsideInAnswers(tool) && !(error instanceof ToolTimeoutError);
  if (quotesOutside && !labels.includes(OUTSIDE)) labels = [...labels, OUTSIDE];
  return errorAnswer(code, message === '' ? `Tool "${tool.name}" failed without a message.` : message, labels);
}

/** Whether a tool's answers may hold outside text it did not say it labels: it reaches outside, or names outside fields. */
function reachesOutsideInAnswers(tool: ToolDefinition): boolean {
  return tool.annotations.openWorld === true || tool.annotations.outsideFields !== undefined;
}

/** The answer for a call to a tool nobody offers, naming the closest that exist. */
export function notFoundAnswer(name: string, available: Iterable<string>): ToolAnswer {
  const closest = closestNames(name, available);
  const hint = closest.length > 0 ? ` The closest available: ${closest.join(', ')}.` : ' No tools are available.';
  return errorAnswer('tool_not_found', `No tool is named "${name}".${hint}`);
}

const MAX_LISTED_ISSUES = 25;

/** The answer for arguments that failed the tool's checks: every failing field, for the model to fix. */
export function invalidArgumentsAnswer(tool: string, issues: readonly FieldIssue[]): ToolAnswer {
  // The first few only: arguments with thousands of bad values must not make an answer as large.
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((issue) => `- ${issue.path.slice(0, 200)}: ${issue.message}`);
  if (issues.length > MAX_LISTED_ISSUES) listed.push(`- and ${issues.length - MAX_LISTED_ISSUES} more`);
  return errorAnswer(
    'invalid_arguments',
    `Invalid arguments for tool "${tool}"; the tool did not run. Fix these and call it again:\n${listed.join('\n')}`,
  );
}

export function mergeLabels(a: readonly string[], b: readonly string[]): readonly string[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  return [...new Set([...a, ...b])];
}
