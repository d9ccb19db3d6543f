import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsDateString,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { defineTool, Describe, type JsonSchema } from '../../src/index.js';

enum Priority {
  Low = 'low',
  High = 'high',
}

class Address {
  @Describe('City name, such as Lyon')
  @IsString()
  city!: string;

  @IsOptional()
  @IsString()
  @MaxLength(10)
  zip?: string;
}

class Item {
  @IsString()
  @MinLength(2)
  sku!: string;

  @IsInt()
  @Min(1)
  @Max(99)
  quantity!: number;
}

class OrderArgs {
  @Describe('Customer email')
  @IsEmail()
  email!: string;

  @IsUUID()
  id!: string;

  @IsDateString()
  placedAt!: string;

  @IsNumber()
  total!: number;

  @IsEnum(Priority)
  priority!: Priority;

  @IsIn(['web', 'phone'])
  channel!: string;

  @IsOptional()
  @IsString()
  note?: string;

  @ValidateNested()
  @Type(() => Address)
  address!: Address;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => Item)
  items!: Item[];
}

class TreeNode {
  @IsString()
  label!: string;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => TreeNode)
  children?: TreeNode[];
}

// An interface, not the class: the emitted design:type would read Pet before it is defined.
interface PetShape {
  name: string;
}

class Person {
  @IsString()
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Pet)
  pet?: PetShape;
}

class Pet {
  @IsString()
  name!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => Person)
  owner?: Person;
}

const schemaOf = (input: new () => object): JsonSchema =>
  defineTool({ name: 't', description: 'A test tool.', input, run: () => null }).inputSchema;

/** Every `$ref` in the schema, with the path where it sits. */
function refs(node: unknown, path = '', out: { path: string; ref: string }[] = []): { path: string; ref: string }[] {
  if (node === null || typeof node !== 'object') return out;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out.push({ path, ref: value });
    else refs(value, `${path}/${key}`, out);
  }
  return out;
}

/** Follows a local JSON pointer such as `#/$defs/TreeNode` inside `root`. */
function resolvePointer(root: unknown, ref: string): unknown {
  assert.ok(ref.startsWith('#/'), `${ref} points outside the schema`);
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (node, part) => (node === null || typeof node !== 'object' ? undefined : (node as Record<string, unknown>)[part]),
      root,
    );
}

describe('DTO JSON Schema', () => {
  it('generates the full schema for a DTO with every kind of property', () => {
    assert.deepEqual(schemaOf(OrderArgs), {
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', description: 'Customer email' },
        id: { type: 'string', format: 'uuid' },
        placedAt: { type: 'string', format: 'date-time' },
        total: { type: 'number' },
        priority: { type: 'string', enum: ['low', 'high'] },
        channel: { type: 'string', enum: ['web', 'phone'] },
        note: { type: 'string' },
        address: {
          type: 'object',
          properties: {
            city: { type: 'string', description: 'City name, such as Lyon' },
            zip: { type: 'string', maxLength: 10 },
          },
          required: ['city'],
          additionalProperties: false,
        },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              sku: { type: 'string', minLength: 2 },
              quantity: { type: 'integer', minimum: 1, maximum: 99 },
            },
            required: ['sku', 'quantity'],
            additionalProperties: false,
          },
        },
      },
      required: ['email', 'id', 'placedAt', 'total', 'priority', 'channel', 'address', 'items'],
      additionalProperties: false,
    });
  });

  it('maps @IsInt to integer and @IsNumber to number', () => {
    const schema = schemaOf(OrderArgs);
    assert.equal((schema.properties!.items!.items!.properties!.quantity as JsonSchema).type, 'integer');
    assert.equal(schema.properties!.total!.type, 'number');
  });

  it('leaves optional properties out of required', () => {
    const schema = schemaOf(OrderArgs);
    assert.ok(!schema.required!.includes('note'));
    assert.ok(!schema.properties!.address!.required!.includes('zip'));
  });

  it('gives @IsDateString a date-time format rather than a pattern that refuses valid dates', () => {
    assert.deepEqual(schemaOf(OrderArgs).properties!.placedAt, { type: 'string', format: 'date-time' });
  });

  it('has no $ref at all for a DTO that does not refer to itself', () => {
    assert.deepEqual(refs(schemaOf(OrderArgs)), []);
    assert.equal(schemaOf(OrderArgs).$defs, undefined);
  });

  it('keeps a self-referencing DTO under $defs, each $ref resolving inside the schema', () => {
    const schema = schemaOf(TreeNode);
    const found = refs(schema);
    assert.ok(found.length > 0);
    for (const { ref } of found) {
      assert.match(ref, /^#\/\$defs\//);
      const target = resolvePointer(schema, ref) as JsonSchema | undefined;
      assert.equal(target?.type, 'object', `${ref} resolves`);
    }
    assert.deepEqual(schema.properties!.children, { type: 'array', items: { $ref: '#/$defs/TreeNode' } });
  });

  it('resolves every $ref of mutually referring DTOs inside the schema', () => {
    const schema = schemaOf(Person);
    const found = refs(schema);
    assert.ok(found.length > 0);
    for (const { ref } of found) {
      assert.match(ref, /^#\/\$defs\//);
      assert.equal((resolvePointer(schema, ref) as JsonSchema | undefined)?.type, 'object', `${ref} resolves`);
    }
    assert.equal((schema.properties!.pet as JsonSchema).type, 'object', 'the first level is inlined');
  });

  it('is frozen, so no caller can change what the model sees', () => {
    const schema = schemaOf(OrderArgs);
    assert.ok(Object.isFrozen(schema));
    assert.ok(Object.isFrozen(schema.properties!.address));
    assert.throws(() => {
      (schema as { type: string }).type = 'string';
    }, TypeError);
  });

  it('refuses a DTO without class-validator decorators, naming it and the fix', () => {
    class Bare {
      name!: string;
    }
    assert.throws(
      () => schemaOf(Bare),
      (error: Error) =>
        error.name === 'ConfigurationError' && /DTO "Bare"/.test(error.message) && /@IsString\(\)/.test(error.message),
    );
  });
});
