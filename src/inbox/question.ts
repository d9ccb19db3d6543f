import { InvalidAnswerError } from '../errors.js';
import { compiledSchema, schemaProblem, toolsAjv } from '../tools/json-schema.js';

/** What an inbox item of kind `question` carries: an MCP server's `elicitation/create`, as a person sees it. */
export interface QuestionDetail {
  readonly hub: string;
  readonly server: string;
  /** `form`: answer with content fitting `requestedSchema`; `url`: open `url`, then accept, decline or cancel. */
  readonly mode: 'form' | 'url';
  readonly message: string;
  readonly requestedSchema?: Record<string, unknown>;
  readonly url?: string;
}

/** A person's answer to a question, as it goes back to the server. */
export type QuestionResponse =
  { readonly action: 'accept'; readonly content?: Record<string, unknown> } | { readonly action: 'decline' | 'cancel' };

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

/**
 * Checks a person's answer to a question and returns what the server is sent. Accepted form content
 * gets the requested schema's defaults for the fields left out (SEP-1034) and must then fit the schema;
 * a misfit throws an InvalidAnswerError naming the field, and nothing is sent.
 */
export function questionResponse(id: string, detail: QuestionDetail, value: unknown): QuestionResponse {
  const usage = `Answer inbox item "${id}" with {"action":"accept","content":{…}}, {"action":"decline"} or {"action":"cancel"}`;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidAnswerError(`${usage}.`);
  const { action, content } = value as { action?: unknown; content?: unknown };
  if (typeof action !== 'string' || !ACTIONS.has(action))
    throw new InvalidAnswerError(`${usage}; got action ${JSON.stringify(action)}.`);
  if (action !== 'accept') return { action: action as 'decline' | 'cancel' };
  if (detail.mode === 'url') return { action: 'accept' };
  if (content !== undefined && (content === null || typeof content !== 'object' || Array.isArray(content))) {
    throw new InvalidAnswerError(`${usage}: "content" is an object of the fields the server asked for.`);
  }
  const schema = detail.requestedSchema ?? { type: 'object' };
  const filled = withDefaults(schema, { ...(content as Record<string, unknown> | undefined) });
  const problem = schemaProblem(schema, 'requested schema');
  if (problem !== undefined)
    throw new InvalidAnswerError(
      `Inbox item "${id}": the server's requested schema cannot be checked (${problem}); decline or cancel it.`,
    );
  const validate = compiledSchema(schema);
  if (!validate(filled)) {
    const first = validate.errors?.[0];
    const field = first === undefined ? '' : fieldOf(first.instancePath, first.params as Record<string, unknown>);
    throw new InvalidAnswerError(
      `Inbox item "${id}": the content does not fit what MCP server "${detail.server}" asked for${field === '' ? '' : ` (field "${field}")`}: ${toolsAjv().errorsText(validate.errors)}. Nothing was sent; answer again.`,
    );
  }
  return { action: 'accept', content: filled };
}

/** The content with each top-level field the person left out set to its schema's `default` (SEP-1034). */
function withDefaults(schema: Record<string, unknown>, content: Record<string, unknown>): Record<string, unknown> {
  const properties = schema.properties;
  if (properties === null || typeof properties !== 'object') return content;
  for (const [key, property] of Object.entries(properties as Record<string, unknown>)) {
    if (content[key] !== undefined || property === null || typeof property !== 'object') continue;
    if (Object.prototype.hasOwnProperty.call(property, 'default'))
      content[key] = (property as { default: unknown }).default;
  }
  return content;
}

function fieldOf(instancePath: string, params: Record<string, unknown>): string {
  if (typeof params.missingProperty === 'string') return params.missingProperty;
  if (typeof params.additionalProperty === 'string') return params.additionalProperty;
  return instancePath.replace(/^\//, '').replace(/\//g, '.');
}

/** The `question` detail of an inbox item, or `undefined` when it is not one. */
export function questionOf(detail: unknown): QuestionDetail | undefined {
  if (detail === null || typeof detail !== 'object') return undefined;
  const d = detail as Record<string, unknown>;
  if (typeof d.server !== 'string' || typeof d.message !== 'string' || (d.mode !== 'form' && d.mode !== 'url'))
    return undefined;
  return detail as QuestionDetail;
}
