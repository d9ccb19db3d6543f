import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDateString,
  IsEmail,
  IsEnum,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import fc from 'fast-check';
import { FindOrderArgs, RefundArgs } from '../../examples/orders/order-tools.js';
import { ShipArgs } from '../../examples/readme/dtos.js';
import { defineTool, type JsonSchema, type ToolDefinition } from '../../src/index.js';
import { checkArguments } from '../../src/tools/call-tool.js';

/**
 * Property: whatever a model sends, arguments the checker lets through pass the tool's own published
 * JSON Schema, checked independently by a strict ajv (its own instance, strict mode, `strictNumbers`).
 * The arguments come from each schema, mostly valid, with the mutations that got through before: an
 * array where an object is required, `[[]]` for a list of objects, keys named like `Object.prototype`
 * members, a date where `date-time` is required, `Infinity` (what JSON reads `1e309` as), `null` for an
 * optional value, strings for numbers, missing and extra keys.
 */

class Contact {
  @IsEmail()
  email!: string;

  @IsOptional()
  @IsString()
  @MaxLength(20)
  name?: string;
}

enum Room {
  Single = 'single',
  Double = 'double',
}

class BookingArgs {
  @IsDateString()
  arrival!: string;

  @IsEnum(Room)
  room!: Room;

  @IsNumber()
  nightlyPrice!: number;

  @IsOptional()
  @IsBoolean()
  breakfast?: boolean;

  @IsOptional()
  @IsIn(['card', 'cash'])
  payment?: string;

  @ValidateNested()
  @Type(() => Contact)
  contact!: Contact;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => Contact)
  guests?: Contact[];
}

const schemaTool = defineTool({
  name: 'schedule',
  description: 'A JSON Schema tool.',
  input: {
    type: 'object',
    properties: {
      at: { type: 'string', format: 'date-time' },
      repeat: { type: 'integer', minimum: 1, maximum: 10 },
      weight: { type: 'number', exclusiveMinimum: 0 },
      kind: { enum: ['call', 'meeting'] },
      place: {
        type: 'object',
        properties: { city: { type: 'string', minLength: 1 } },
        required: ['city'],
        additionalProperties: false,
      },
      people: {
        type: 'array',
        maxItems: 3,
        items: {
          type: 'object',
          properties: { email: { type: 'string', format: 'email' } },
          required: ['email'],
          additionalProperties: false,
        },
      },
    },
    required: ['at', 'kind', 'place'],
    additionalProperties: false,
  },
  run: () => 'scheduled',
});

const tools: readonly ToolDefinition[] = [
  defineTool({ name: 'ship', description: 'd', input: ShipArgs, run: () => 1 }),
  defineTool({ name: 'find', description: 'd', input: FindOrderArgs, run: () => 1 }),
  defineTool({ name: 'refund', description: 'd', input: RefundArgs, run: () => 1 }),
  defineTool({ name: 'book', description: 'd', input: BookingArgs, run: () => 1 }),
  schemaTool,
];

const PROTOTYPE_KEYS = [
  'toString',
  'isPrototypeOf',
  'hasOwnProperty',
  'valueOf',
  'propertyIsEnumerable',
  '__defineGetter__',
  'toLocaleString',
];

/** Values that are wrong almost anywhere, and got through some check before. */
const hostile = fc.constantFrom<unknown>(
  [],
  [[]],
  {},
  null,
  '',
  'x',
  0,
  -1,
  1.5,
  Infinity,
  -Infinity,
  NaN,
  true,
  '2024-05-01',
  '1e309',
  [{}],
);

function stringFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  if (schema.format === 'date-time') {
    return mostly(
      fc.constantFrom('2024-05-01T10:00:00Z', '2024-05-01T10:00:00.123+02:00'),
      fc.constantFrom('2024-05-01', '2024-13-01T10:00:00Z', 'tomorrow', '2024-05-01 10:00'),
    );
  }
  if (schema.format === 'email') return mostly(fc.emailAddress(), fc.constantFrom('not-an-email', 'a@b', ''));
  if (typeof schema.pattern === 'string') {
    const prefix = /^\^([a-z_]+)/.exec(schema.pattern)?.[1] ?? '';
    return mostly(
      fc.string({ maxLength: 8 }).map((s) => prefix + s),
      fc.string({ maxLength: 8 }),
    );
  }
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 12;
  return fc.string({ maxLength: max + 3 });
}

function numberFor(schema: JsonSchema, integer: boolean): fc.Arbitrary<unknown> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : -5;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 50;
  const edges = fc.constantFrom(min - 1, max + 1, 0.5, Infinity, -Infinity, NaN, -0, 1e308);
  return mostly(fc.integer({ min, max: Math.min(max, min + 1_000) }), integer ? edges : fc.oneof(edges, fc.double()));
}

/** `valid` four times in five, else `invalid`. */
function mostly(valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: invalid });
}

/** Mostly valid values for `schema`, often with a mutation. */
function valueFor(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
  const plain = baseFor(schema, depth);
  return fc.oneof(
    { weight: 24, arbitrary: plain },
    { weight: 1, arbitrary: hostile },
    { weight: 1, arbitrary: plain.map((v) => [v]) },
  );
}

function baseFor(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum))
    return mostly(fc.constantFrom(...(schema.enum as unknown[])), fc.string({ maxLength: 6 }));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0)
      return fc.oneof(...(options as JsonSchema[]).map((option) => baseFor(option, depth)));
  }
  switch (schema.type) {
    case 'object':
      return objectFor(schema, depth);
    case 'array':
      return fc.array(depth > 4 ? hostile : valueFor(schema.items ?? {}, depth + 1), { maxLength: 4 });
    case 'string':
      return stringFor(schema);
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return mostly(fc.boolean(), fc.constant('true'));
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectFor(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries(properties))
    shape[name] = depth > 4 ? hostile : valueFor(property, depth + 1);
  const keys = Object.keys(shape);
  // Optional keys are there half the time; sometimes a required one is left out, or a key added.
  const record = fc.record(shape, { requiredKeys: keys.filter((k) => required.has(k)) });
  const sometimes = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
    fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
  const drop = required.size === 0 ? fc.constant(null) : sometimes(fc.constantFrom(...required));
  const extra = sometimes(
    fc.tuple(fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ minLength: 1, maxLength: 6 })), hostile),
  );
  return fc.tuple(record, drop, extra).map(([value, dropped, more]) => {
    const out: Record<string, unknown> = { ...value };
    if (dropped !== null) delete out[dropped];
    // defineProperty: a key such as "__proto__" stays an own key, as JSON.parse makes it.
    if (more !== null)
      Object.defineProperty(out, more[0], { value: more[1], enumerable: true, writable: true, configurable: true });
    return out;
  });
}

/** The independent check: its own ajv, strict, and finite numbers only. */
function strictValidator(schema: JsonSchema): ValidateFunction {
  const ajv = new Ajv({
    strict: true,
    strictNumbers: true,
    allErrors: true,
    strictRequired: false,
    strictTypes: false,
  });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

describe('Argument fuzz: what passes the check always passes the published schema', () => {
  for (const tool of tools) {
    it(`holds for tool "${tool.name}" over 1,000 generated calls`, async (t) => {
      const independent = strictValidator(tool.inputSchema);
      let passed = 0;
      let refused = 0;
      const wrong: unknown[] = [];
      await fc.assert(
        fc.asyncProperty(objectFor(tool.inputSchema, 0), async (args) => {
          const checked = await checkArguments(tool, args);
          if (!checked.ok) {
            refused++;
            return;
          }
          passed++;
          if (!independent(args)) wrong.push(args);
        }),
        { numRuns: 1_000 },
      );
      t.diagnostic(`${passed} passed the check, ${refused} were refused, ${wrong.length} passed but fail the schema`);
      assert.deepEqual(wrong, [], `${wrong.length} of ${passed} passing calls fail the tool's own JSON Schema`);
      // The fuzz means something only if it reaches both sides of the check.
      assert.ok(passed >= 20 && refused >= 20, `passed ${passed}, refused ${refused}`);
    });
  }
});
