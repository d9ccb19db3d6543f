import type { JSONSchema7, LanguageModelV3FunctionTool } from '@ai-sdk/provider';
import { UsageError } from '../errors.js';
import { inspectArguments } from '../tools/arguments.js';
import { parseArguments } from '../tools/call-tool.js';
import { answerText, errorAnswer, okAnswer, type EditedCall, type ToolAnswer } from '../tools/result.js';
import { readOutside, type ReaderField } from '../tools/value-reader.js';
import type { ToolRef } from '../tools/tool-origin.js';
import type { ResolvedArguments, ValueSource, ValueTable } from '../tools/value-table.js';
import { generate } from './language-model.js';
import { modelStep } from './model-calls.js';
import type { LiveTurn } from './turn-state.js';

/**
 * Labels on values in an agent's turn (`policy.labels: 'values'`, docs/security.md "Labels on values"):
 * the model sees outside answers only as handles, a call's handles are put back before the policy decides,
 * and `wardrik__read` pulls typed fields out of a held value with the agent's model called without tools.
 */

/** The reader tool as the model calls it. Saved runs refer to this name: never change it. */
export const READ_TOOL = 'wardrik__read';

const MAX_FIELDS = 20;
const MAX_ENUM = 20;
const MAX_NAME = 64;

const READ_TOOL_DESCRIPTION =
  'Reads typed fields out of outside text you hold as a handle ($outside_N), which you cannot read yourself. ' +
  'Strings and numbers come back as new handles that you can pass to tools; booleans and enum members come ' +
  'back in clear, and from then on every call that changes something asks a person, so prefer strings.';

const FIELD_SCHEMA: JSONSchema7 = {
  oneOf: [
    {
      type: 'object',
      properties: { type: { enum: ['string', 'number', 'boolean'] } },
      required: ['type'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        enum: { type: 'array', items: { type: 'string', maxLength: 100 }, minItems: 1, maxItems: MAX_ENUM },
      },
      required: ['enum'],
      additionalProperties: false,
    },
  ],
};

/** The reader tool as the model is sent it. */
export const READ_TOOL_DEFINITION: LanguageModelV3FunctionTool = Object.freeze({
  type: 'function',
  name: READ_TOOL,
  description: READ_TOOL_DESCRIPTION,
  inputSchema: {
    type: 'object',
    properties: {
      handle: { type: 'string', pattern: '^\\$outside_\\d+$', description: 'The handle to read, such as $outside_1.' },
      fields: {
        type: 'object',
        description:
          'The fields to read, by name: { "iban": { "type": "string" }, "kind": { "enum": ["bill", "spam"] } }.',
        additionalProperties: FIELD_SCHEMA,
        minProperties: 1,
        maxProperties: MAX_FIELDS,
      },
    },
    required: ['handle', 'fields'],
    additionalProperties: false,
  } as unknown as JSONSchema7,
});

/** A call's arguments with its handles put back, or the answer refusing it (a handle the run never handed out). */
export type ResolvedCall = { readonly resolved: ResolvedArguments } | { readonly refused: ToolAnswer } | undefined;

/**
 * The model's arguments text with every handle replaced by its value (`undefined`: text the runner refuses
 * as it stands, such as text that is not JSON or arguments past `ARGUMENT_LIMITS`). The policy then decides
 * on the real values and their labels.
 */
export function resolveCall(table: ValueTable, input: string): ResolvedCall {
  const parsed = parseArguments(input);
  // Arguments past the limits (10,000 deep, say) are refused by the runner as they stand, never walked here.
  if (!parsed.ok || inspectArguments(parsed.value).length > 0) return undefined;
  try {
    return { resolved: table.resolve(parsed.value) };
  } catch (error) {
    if (error instanceof UsageError) return { refused: errorAnswer('invalid_arguments', error.message) };
    throw error;
  }
}

/**
 * The text the model reads for an answer: an answer labelled `outside`, or computed from arguments that held
 * outside values, as the handle it is now held under (`{"handle":"$outside_3","from":…}`), or with only its
 * outside fields held when the tool names them (`@OutsideFields`; never an error's); any other as it is.
 * `sent`: the model's own arguments text, with its handles.
 */
export function shownText(
  table: ValueTable,
  tool: ToolRef,
  answer: ToolAnswer,
  argumentLabels: readonly string[],
  sent: string,
): string {
  if (answer.status === 'parked') return answerText(answer);
  const value = answer.status === 'ok' ? answer.output : answer.message;
  const what = answer.status === 'error' ? 'error' : kindOf(value);
  const fields = answer.status === 'ok' ? tool.outsideFields : undefined;
  const { shown, labels } = table.conceal(value, answer.labels, { tool: tool.ref, what }, argumentLabels, fields);
  if (shown === value) return answerText(answer);
  const text = JSON.stringify(shown);
  const held = answer.status === 'ok' ? { ...answer, output: text } : { ...answer, message: text };
  if (held.edited === undefined) return answerText(held);
  // Guard (edit-note-held): the note on a person's edit shows no held value in clear, neither sent nor kept.
  return answerText({ ...held, edited: heldEdit(table, tool.ref, held.edited, sent, labels) });
}

/**
 * A person's edit of a call whose answer is held, as the planner reads it: what the model sent, by its own
 * handles (the edit note held the values they stood for), and what ran, held under a handle of its own,
 * since the person may have kept outside text in it.
 */
function heldEdit(
  table: ValueTable,
  tool: string,
  edited: EditedCall,
  sent: string,
  labels: readonly string[],
): EditedCall {
  const parsed = parseArguments(sent);
  const ran = table.hold(edited.arguments, labels, { tool, what: 'arguments a person approved' });
  return { ...edited, original: parsed.ok ? parsed.value : sent, arguments: ran };
}

function kindOf(value: unknown): string {
  if (typeof value === 'string') return 'text';
  if (Array.isArray(value)) return 'list';
  return value === null ? 'null' : typeof value;
}

/** The reader's answer, and what its model calls cost in US dollars (to be added to the agent's spend). */
export interface ReaderAnswer {
  readonly answer: ToolAnswer;
  readonly usd: number;
}

/**
 * `wardrik__read`: the agent's own model, called with no tools, reads the fields out of the held value.
 * Its answer is the fields object (strings and numbers as new handles, booleans and enum members in clear).
 */
export async function readerAnswer(d: LiveTurn, table: ValueTable, input: string): Promise<ReaderAnswer> {
  const parsed = parseArguments(input);
  const request = parsed.ok ? readRequest(parsed.value) : undefined;
  let usd = 0;
  if (request === undefined)
    return {
      usd,
      answer: errorAnswer(
        'invalid_arguments',
        `${READ_TOOL} takes { "handle": "$outside_1", "fields": { "name": { "type": "string" | "number" | "boolean" } | { "enum": ["a", "b"] } } }, with 1 to ${MAX_FIELDS} fields of names up to ${MAX_NAME} characters and enums of 1 to ${MAX_ENUM} texts.`,
      ),
    };
  const quarantined = async (prompt: string): Promise<string> => {
    const answer = await generate(await d.rt.model(), {
      prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
      abortSignal: d.signal,
      ...(d.rt.options.maxOutputTokens === undefined ? {} : { maxOutputTokens: d.rt.options.maxOutputTokens }),
    });
    const { text, usd: cost } = modelStep(d.rt.spec, answer, d.rt.price, undefined);
    usd += cost;
    // Models wrap JSON in prose or a code fence: the object is from the first brace to the last.
    return text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  };
  try {
    const fields = await readOutside(table, request.handle, request.fields, quarantined);
    return { usd, answer: okAnswer(fields) };
  } catch (error) {
    if (error instanceof UsageError) return { usd, answer: errorAnswer('invalid_arguments', error.message) };
    // Guard (reader-failure-held): the reader's model read outside text, so what its failure says may repeat it.
    const said = heldFailure(table, request.handle, error);
    const message = `${READ_TOOL} could not read ${request.handle}: its model call failed; what it said is held as ${said}.`;
    return { usd, answer: errorAnswer('failed', message) };
  }
}

/** The reader's failure held as outside text of its handle's labels; gives the new handle. */
function heldFailure(table: ValueTable, handle: string, error: unknown): string {
  const source: ValueSource = { tool: READ_TOOL, what: `error reading ${handle}` };
  return table.hold((error as Error).message, table.value(handle).labels, source);
}

/** The reader's arguments, checked and bounded; undefined when they are not of its shape. */
function readRequest(
  value: unknown,
): { readonly handle: string; readonly fields: Record<string, ReaderField> } | undefined {
  const { handle, fields } = (value ?? {}) as { handle?: unknown; fields?: unknown };
  if (typeof handle !== 'string' || !/^\$outside_\d{1,9}$/.test(handle)) return undefined;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return undefined;
  const entries = Object.entries(fields as Record<string, unknown>);
  if (entries.length === 0 || entries.length > MAX_FIELDS) return undefined;
  const checked: Record<string, ReaderField> = {};
  for (const [name, field] of entries) {
    if (name === '' || name.length > MAX_NAME) return undefined;
    const reader = readerField(field);
    if (reader === undefined) return undefined;
    checked[name] = reader;
  }
  return { handle, fields: checked };
}

function readerField(field: unknown): ReaderField | undefined {
  const { type, enum: members } = (field ?? {}) as { type?: unknown; enum?: unknown };
  if (type === 'string' || type === 'number' || type === 'boolean') return { type };
  const texts =
    Array.isArray(members) &&
    members.length > 0 &&
    members.length <= MAX_ENUM &&
    members.every((member) => typeof member === 'string' && member.length <= 100);
  return texts ? { enum: members as string[] } : undefined;
}
