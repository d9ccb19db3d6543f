import type { ValidateFunction } from 'ajv';
import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { compiledSchema, schemaProblem, toolsAjv } from '../tools/json-schema.js';

/**
 * What the SDK's `Client` checks tools' structured results with. The SDK's own compiles every listed
 * tool's `outputSchema` as the list arrives (on the event loop, thousands at a time for a hostile
 * server) and runs whatever regular expressions it holds; this one reads a schema only when a call of
 * that tool returns, compiles it once per digest, and refuses one with an unsafe pattern.
 */
export const LAZY_OUTPUT_SCHEMAS: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let validate: ValidateFunction | undefined;
    let refused: string | undefined;
    return (input) => {
      if (validate === undefined && refused === undefined) {
        refused = schemaProblem(schema as object, 'output schema');
        if (refused === undefined) {
          try {
            validate = compiledSchema(schema as object);
          } catch (error) {
            refused = `its output schema cannot be compiled: ${(error as Error).message}`;
          }
        }
      }
      if (validate === undefined) return { valid: false, data: undefined, errorMessage: `the tool's result cannot be checked: ${refused ?? 'no schema'}` };
      if (validate(input)) return { valid: true, data: input as T, errorMessage: undefined };
      return { valid: false, data: undefined, errorMessage: toolsAjv().errorsText(validate.errors) };
    };
  },
};
