import { ConfigurationError } from '../errors.js';
import { classValidator, targetConstructorToSchema, transformerMetadata } from './dto-libraries.js';
import { deepFreeze } from './freeze.js';
import { getDescription } from './metadata.js';
import type { DtoClass, JsonSchema } from './tool-shapes.js';

/**
 * A DTO's JSON Schema, built once per class and frozen: types, integers, required, enums, formats,
 * bounds, `@Describe` texts, nested DTOs and arrays of them inlined, unknown properties refused
 * (`additionalProperties: false`, as the checker refuses them). A DTO that refers to itself keeps that
 * part under `$defs`, so the schema never points outside itself.
 */
export function dtoSchema(dto: DtoClass): JsonSchema {
  let schema = schemas.get(dto);
  if (schema === undefined) {
    schema = deepFreeze(new SchemaBuilder().build(dto));
    schemas.set(dto, schema);
  }
  return schema;
}

const schemas = new WeakMap<Function, JsonSchema>();
const REF = '#/$defs/';
type Mutable = Record<string, unknown>;

class SchemaBuilder {
  private readonly names = new Map<Function, string>();
  private readonly raw = new Map<string, Mutable>();

  build(dto: DtoClass): JsonSchema {
    const root = this.define(dto);
    const needed = new Set<string>();
    const schema = this.inline(this.raw.get(root), [root], needed) as Mutable;
    if (needed.size > 0) {
      const defs: Mutable = {};
      for (const name of needed) defs[name] = this.inline(this.raw.get(name), [name], needed);
      schema.$defs = defs;
    }
    return schema as JsonSchema;
  }

  /** Converts one class (and, through the nested converter, the classes it refers to) into raw schemas. */
  private define(dto: Function): string {
    const known = this.names.get(dto);
    if (known !== undefined) return known;
    let name = dto.name || 'Anonymous';
    for (let n = 2; [...this.names.values()].includes(name); n++) name = `${dto.name}_${n}`;
    this.names.set(dto, name);
    const { IS_DATE_STRING, ValidationTypes } = classValidator();
    const defaultMetadataStorage = transformerMetadata();
    const schema = targetConstructorToSchema(dto, {
      classTransformerMetadataStorage: defaultMetadataStorage,
      refPointerPrefix: REF,
      additionalConverters: {
        // class-validator-jsonschema 5.2 gives @IsDateString an unanchored pattern that demands
        // fractional seconds, so a model would avoid "2024-05-01T10:00:00Z", which the check accepts.
        [IS_DATE_STRING]: { type: 'string', format: 'date-time' },
        [ValidationTypes.NESTED_VALIDATION]: (meta) => {
          const child = defaultMetadataStorage
            .findTypeMetadata(meta.target as Function, meta.propertyName)
            ?.typeFunction();
          if (typeof child !== 'function') {
            throw new ConfigurationError(
              `DTO "${dto.name}", property "${meta.propertyName}": @ValidateNested needs the nested class. ` +
                `Add @Type(() => ItsClass) from class-transformer.`,
            );
          }
          return { $ref: REF + this.define(child) };
        },
      },
    }) as Mutable;
    if (schema.properties === undefined) {
      throw new ConfigurationError(
        `DTO "${dto.name}" has no class-validator decorators, so every argument would be refused as unknown. ` +
          `Decorate each property (such as @IsString()); for a tool that takes no arguments, declare the parameter as NoArguments (refresh(_args: NoArguments, ctx: ToolContext)).`,
      );
    }
    const properties = schema.properties as Record<string, Mutable>;
    for (const [property, propertySchema] of Object.entries(properties)) {
      const description = getDescription(dto.prototype as object, property);
      if (description !== undefined) propertySchema.description = description;
    }
    schema.additionalProperties = false;
    this.raw.set(name, schema);
    return name;
  }

  private inline(node: unknown, stack: readonly string[], needed: Set<string>): unknown {
    if (Array.isArray(node)) return node.map((item) => this.inline(item, stack, needed));
    if (node === null || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Mutable;
    const out: Mutable = {};
    if (typeof $ref === 'string' && $ref.startsWith(REF)) {
      const name = $ref.slice(REF.length);
      if (stack.includes(name)) {
        needed.add(name);
        out.$ref = $ref;
      } else {
        Object.assign(out, this.inline(this.raw.get(name), [...stack, name], needed));
      }
    }
    for (const [key, value] of Object.entries(rest)) out[key] = this.inline(value, stack, needed);
    return out;
  }
}
