import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { metaSchemaValidatorSource } from '../../scripts/meta-schema-validator.js';
import { schemaProblem, TOOLS_AJV_OPTIONS } from '../../src/tools/json-schema.js';

const GENERATED = fileURLToPath(new URL('../../../src/tools/meta-schema-validator.generated.ts', import.meta.url));

/** What ajv itself says of `schema`, compiling the meta-schema as `schemaProblem` once did. */
function ajvSays(schema: object): string | undefined {
  const ajv = new Ajv(TOOLS_AJV_OPTIONS);
  addFormats.default(ajv);
  return ajv.validateSchema(schema) === true ? undefined : ajv.errorsText(ajv.errors);
}

function problemSays(schema: object): string | undefined {
  const problem = schemaProblem(schema, 'meta test schema', false);
  return problem?.replace(/^its meta test schema is not a valid JSON Schema: /, '');
}

const KEYWORDS = [
  'type',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'enum',
  'const',
  'minLength',
  'maximum',
  'format',
  'anyOf',
  'allOf',
  'not',
  'dependencies',
  'propertyNames',
  'definitions',
  '$ref',
  '$id',
  'uniqueItems',
  'multipleOf',
  'description',
] as const;

/** Objects made of JSON Schema keywords with values of every JSON kind, as JSON.parse makes them: valid schemas and invalid ones. */
const schemaLike: fc.Arbitrary<object> = fc.letrec<{ schema: object }>((tie) => ({
  schema: fc.dictionary(
    fc.constantFrom(...KEYWORDS),
    fc.oneof(
      { depthSize: 'small' },
      fc.constantFrom('string', 'object', 'integer', 'strin', ['string', 'null'], ['number', 'number']),
      fc.integer({ min: -2, max: 3 }),
      fc.double({ noNaN: true }),
      fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
      fc.boolean(),
      fc.constant(null),
      tie('schema'),
      fc.array(tie('schema'), { maxLength: 2 }),
      fc.dictionary(fc.string({ maxLength: 3 }), tie('schema'), { maxKeys: 2, noNullPrototype: true }),
    ),
    { maxKeys: 4, noNullPrototype: true },
  ),
})).schema;

describe('The generated draft-07 meta-schema validator', () => {
  it('is what scripts/meta-schema-validator.ts writes for the ajv installed (rerun it after an upgrade)', () => {
    assert.equal(readFileSync(GENERATED, 'utf8'), metaSchemaValidatorSource());
  });

  it('says what ajv says of hand-picked schemas, valid and invalid', () => {
    const schemas: object[] = [
      {},
      { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },
      { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' },
      { type: 'strin' },
      { type: 'object', properties: { a: { type: 'number', minimum: 'one' } }, required: 'a' },
      { type: 'array', items: [{ type: 'string' }, 5] },
      { type: 'object', required: ['a', 'a'] },
      { type: 'string', minLength: -1, maxLength: 1.5 },
      { anyOf: [] },
      { enum: 'red' },
      { definitions: { x: { type: 7 } }, $ref: '#/definitions/x' },
    ];
    for (const schema of schemas) assert.equal(problemSays(schema), ajvSays(schema), `for ${JSON.stringify(schema)}`);
    assert.ok(
      schemas.some((schema) => ajvSays(schema) === undefined) &&
        schemas.some((schema) => ajvSays(schema) !== undefined),
    );
  });

  it('says what ajv says of generated schemas', () => {
    fc.assert(
      fc.property(schemaLike, (schema) => {
        assert.equal(problemSays(schema), ajvSays(schema));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a schema of another draft against draft-07, without its $schema: registering loads no ajv', () => {
    for (const draft of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2019-09/schema#',
      'http://json-schema.org/draft-04/schema#',
    ]) {
      assert.equal(schemaProblem({ $schema: draft, type: 'object', prefixItems: [] }), undefined, draft);
      assert.equal(
        schemaProblem({ $schema: draft, type: 'strin' }),
        schemaProblem({ type: 'strin' }),
        `${draft}: the same problem as without it`,
      );
      assert.notEqual(schemaProblem({ $schema: draft, type: 'strin' }), undefined);
    }
  });
});
