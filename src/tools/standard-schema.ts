import { ConfigurationError } from '../errors.js';
import { deepFreeze } from './freeze.js';
import type { JsonSchema, StandardSchema } from './tool-shapes.js';

/**
 * Standard Schemas as tool inputs: a Zod object, a Valibot or ArkType schema. The schema itself checks
 * the arguments (`~standard.validate`); the JSON Schema the model sees comes from the library itself,
 * through Standard JSON Schema (`~standard.jsonSchema.input`), so `.describe()` texts, bounds and
 * optional fields read as the library means them.
 */

/**
 * Whether `value` carries the Standard Schema interface: `~standard` with a `validate` or a JSON Schema
 * converter function. JSON holds no functions, so a JSON Schema from an MCP server that happens to have
 * a `~standard` key is still read as a JSON Schema. ArkType's schemas are functions themselves.
 */
export function isStandardSchema(value: unknown): value is StandardSchema {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: { validate?: unknown; jsonSchema?: { input?: unknown } } })['~standard'];
  if (typeof props !== 'object' || props === null) return false;
  return typeof props.validate === 'function' || typeof props.jsonSchema?.input === 'function';
}

/**
 * The JSON Schema of a Standard Schema's input, draft-07 (the draft Wardrik's own checks read) or else
 * 2020-12, copied and frozen, without `$schema`. Throws a `ConfigurationError` naming the tool when the
 * library cannot give one: the model could not be told the arguments.
 */
export function standardJsonSchema(label: string, schema: StandardSchema): JsonSchema {
  const props = schema['~standard'];
  const vendor = typeof props.vendor === 'string' ? props.vendor : 'unknown';
  const input = props.jsonSchema?.input;
  let made: unknown;
  try {
    if (typeof input !== 'function') {
      throw new ConfigurationError(
        `${label}: its input is a Standard Schema of "${vendor}" that cannot give a JSON Schema (it has no ~standard.jsonSchema), so the model could not be shown the arguments. ` +
          'Use a version of the library that implements Standard JSON Schema (Zod 4.2 or later, for one), or pass a JSON Schema object.',
      );
    }
    // Copied as JSON: what the model and MCP clients get is data, never the library's objects.
    made = JSON.parse(JSON.stringify(inTarget(input)) ?? 'null');
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw new ConfigurationError(
      `${label}: ${vendor} could not make the JSON Schema of its input: ${(error as Error)?.message ?? String(error)}. Use only types JSON can carry in a tool's input (no dates, maps or functions).`,
      { cause: error },
    );
  }
  if (made === null || typeof made !== 'object' || Array.isArray(made)) {
    throw new ConfigurationError(
      `${label}: ${vendor} gave its input's JSON Schema as ${Array.isArray(made) ? 'an array' : typeof made}, not an object.`,
    );
  }
  const { $schema: _draft, ...rest } = made as Record<string, unknown>;
  return deepFreeze(rest as JsonSchema);
}

/** A library should throw for a target it does not support: draft-07 first, then 2020-12. */
function inTarget(input: (options: { readonly target: string }) => Record<string, unknown>): unknown {
  try {
    return input({ target: 'draft-07' });
  } catch {
    return input({ target: 'draft-2020-12' });
  }
}
