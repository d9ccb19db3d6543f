import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import { validate } from './meta-schema-validator.generated.js';
import { unsafePatternReason } from './regex-safety.js';

/**
 * JSON Schemas that tools bring (MCP servers' input and output schemas, `defineTool` schemas), checked
 * cheaply when a tool is registered and compiled only when first used. A server listing 20,000 tools
 * once cost an ajv compile each (10.7 s with the process frozen); now registration only reads each
 * schema against the JSON Schema meta-schema and checks its regular expressions, and a compiled schema
 * is kept by digest, so equal schemas (the same tool listed again) compile once.
 */

/** Schemas nested deeper than this are refused at registration (a hostile one would overflow the stack). */
export const MAX_SCHEMA_DEPTH = 64;
/** How many compiled schemas are kept; the least recently used go first. */
const CACHE_SIZE = 2_000;

/**
 * The options of the one ajv instance for tools' schemas: draft-07, every error reported, `strictNumbers`
 * on (so a model's `1e309`, which JSON reads as `Infinity`, is not a number) and `addUsedSchema` off (two
 * tools whose schemas share an `$id`, two MCP servers say, must not clash: "schema with key or id ...
 * already exists" skipped the second).
 */
export const TOOLS_AJV_OPTIONS: Options = { allErrors: true, strict: false, strictNumbers: true, addUsedSchema: false };

/** The meta-schema a schema without `$schema` is read against. */
export const DRAFT_07 = 'http://json-schema.org/draft-07/schema';
const draft07 = validate as unknown as ValidateFunction;

/**
 * The drafts a tool's schema is compiled in: draft-07, and the two later ones servers declare (zod 4's
 * default is 2020-12, MCP's since 2025-11-25), each by its own ajv class, so a keyword that changed meaning
 * (`items`, `prefixItems`, `unevaluatedProperties`, `dependentRequired`, `$anchor`) checks what it says.
 */
type Draft = 'draft-07' | '2019-09' | '2020-12';
const LATER_DRAFTS: Readonly<Record<string, Draft>> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
};

/** The draft `schema` names in `$schema`; draft-07 when it names none, or one ajv has no class for. */
function draftOf(schema: object): Draft {
  const declared = (schema as { $schema?: unknown }).$schema;
  return typeof declared === 'string' ? (LATER_DRAFTS[declared.replace(/#$/, '')] ?? 'draft-07') : 'draft-07';
}

/**
 * The schema as draft-07 reads it: without its `$schema` when that names another draft (04, 06, 2020-12,
 * an unknown URI), which draft-07's instance and meta-schema cannot load; the keywords tool inputs use read
 * the same.
 */
function asDraft07(schema: object): object {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared === undefined || (typeof declared === 'string' && declared.replace(/#$/, '') === DRAFT_07))
    return schema;
  const { $schema: _other, ...rest } = schema as Record<string, unknown>;
  return rest;
}

const instances = new Map<Draft, Ajv>();

/** The ajv instance for tools' schemas of `draft`, loaded when a schema is first compiled, not at start-up. */
export function toolsAjv(draft: Draft = 'draft-07'): Ajv {
  let ajv = instances.get(draft);
  if (ajv === undefined) {
    const require = createRequire(import.meta.url);
    const addFormats = require('ajv-formats') as typeof import('ajv-formats');
    ajv =
      draft === '2020-12'
        ? new (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020(TOOLS_AJV_OPTIONS)
        : draft === '2019-09'
          ? new (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019(TOOLS_AJV_OPTIONS)
          : new (require('ajv') as typeof import('ajv')).Ajv(TOOLS_AJV_OPTIONS);
    addFormats.default(ajv);
    instances.set(draft, ajv);
  }
  return ajv;
}

/**
 * Whether `schema` is a valid JSON Schema, and if not why, as ajv's `validateSchema` and `errorsText` say.
 * Read against draft-07's meta-schema by ajv's own validator, generated ahead of time, so registering tools
 * loads and compiles nothing: a later draft's schema too (its new keywords are unknown to draft-07's
 * meta-schema, which allows them), and its own draft's rules apply when it is compiled, on its first call.
 */
function metaSchemaErrors(schema: object): string | undefined {
  const read = asDraft07(schema);
  return draft07(read) ? undefined : errorsText(draft07.errors!);
}

/** ajv's `errorsText`, without loading ajv. */
function errorsText(errors: readonly ErrorObject[]): string {
  return errors.map((error) => `data${error.instancePath} ${error.message}`).join(', ');
}

/**
 * What is wrong with a schema, found without compiling it: not a valid JSON Schema, nested too deeply,
 * or a regular expression that is not safe (see `unsafePatternReason`). `undefined` when nothing is.
 * `patterns: false` leaves the expressions to whoever runs them: a Standard Schema's library checks the
 * arguments itself (Zod's `z.email()` pattern nests repeats), and ajv never runs this schema's patterns.
 */
export function schemaProblem(schema: object, what = 'input schema', patterns = true): string | undefined {
  // Many tools of a server share a schema (no arguments, one string): each is read once.
  const key = `${what}\n${patterns ? '' : 'no patterns\n'}${JSON.stringify(schema)}`;
  if (problems.has(key)) return problems.get(key);
  let problem = patterns ? patternProblem(schema, what, 0) : depthProblem(schema, what, 0);
  if (problem === undefined) {
    const errors = metaSchemaErrors(schema);
    if (errors !== undefined) problem = `its ${what} is not a valid JSON Schema: ${errors}`;
  }
  if (problems.size >= CACHE_SIZE) problems.delete(problems.keys().next().value!);
  problems.set(key, problem);
  return problem;
}

/** What `schemaProblem` found, by schema. */
const problems = new Map<string, string | undefined>();

const compiled = new Map<string, ValidateFunction>();

/**
 * The compiled validator of `schema`, in the draft its `$schema` names, from the cache when an equal schema
 * was compiled before. Throws when ajv cannot compile it (a `$ref` that leads nowhere, say).
 */
export function compiledSchema(schema: object): ValidateFunction {
  const digest = createHash('sha256').update(JSON.stringify(schema)).digest('base64');
  let validator = compiled.get(digest);
  if (validator !== undefined) {
    compiled.delete(digest); // to the back: recently used
  } else {
    const draft = draftOf(schema);
    validator = toolsAjv(draft).compile(draft === 'draft-07' ? asDraft07(schema) : schema);
    if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
  }
  compiled.set(digest, validator);
  return validator;
}

/** Keywords whose values are data, not schemas: a `pattern` key inside them is not a regular expression. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

function patternProblem(node: unknown, what: string, depth: number): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  if (depth > MAX_SCHEMA_DEPTH) return `its ${what} is nested deeper than ${MAX_SCHEMA_DEPTH} levels`;
  if (Array.isArray(node)) {
    for (const item of node) {
      const problem = patternProblem(item, what, depth + 1);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    if (key === 'pattern' && typeof value === 'string') {
      const why = unsafePatternReason(value);
      if (why !== undefined) return `its ${what}'s pattern ${JSON.stringify(value.slice(0, 80))} is refused: ${why}`;
    }
    if (key === 'patternProperties' && value !== null && typeof value === 'object') {
      for (const pattern of Object.keys(value as object)) {
        const why = unsafePatternReason(pattern);
        if (why !== undefined)
          return `its ${what}'s patternProperties key ${JSON.stringify(pattern.slice(0, 80))} is refused: ${why}`;
      }
    }
    const problem = patternProblem(value, what, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Deeper than `MAX_SCHEMA_DEPTH` is refused before ajv reads a schema (a hostile one would overflow the stack). */
function depthProblem(node: unknown, what: string, depth: number): string | undefined {
  if (node === null || typeof node !== 'object') return undefined;
  if (depth > MAX_SCHEMA_DEPTH) return `its ${what} is nested deeper than ${MAX_SCHEMA_DEPTH} levels`;
  for (const value of Object.values(node)) {
    const problem = depthProblem(value, what, depth + 1);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
