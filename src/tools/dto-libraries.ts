import { createRequire } from 'node:module';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage.js';

/**
 * class-validator, class-transformer and class-validator-jsonschema, loaded the first time a DTO is
 * checked or described. Together they are some 400 files (validator and libphonenumber-js among them)
 * and most of a cold start's import time, which a server whose tools take JSON Schema or Zod never needs
 * (startup.bench.ts). All three are CommonJS, and ESM's `import` of them reads the same `require` cache,
 * so the app's decorators and these checks share one metadata storage.
 */
const load = createRequire(import.meta.url);

let validator: typeof import('class-validator') | undefined;
let transformer: typeof import('class-transformer') | undefined;
let storage: MetadataStorage | undefined;
let toSchema: (typeof import('class-validator-jsonschema'))['targetConstructorToSchema'] | undefined;

export function classValidator(): typeof import('class-validator') {
  return (validator ??= load('class-validator') as typeof import('class-validator'));
}

export function classTransformer(): typeof import('class-transformer') {
  return (transformer ??= load('class-transformer') as typeof import('class-transformer'));
}

/** class-transformer's metadata (`@Type`), which class-validator-jsonschema needs for nested DTOs. */
export function transformerMetadata(): MetadataStorage {
  return (storage ??= (load('class-transformer/cjs/storage.js') as { defaultMetadataStorage: MetadataStorage })
    .defaultMetadataStorage);
}

export function targetConstructorToSchema(
  ...args: Parameters<(typeof import('class-validator-jsonschema'))['targetConstructorToSchema']>
): ReturnType<(typeof import('class-validator-jsonschema'))['targetConstructorToSchema']> {
  toSchema ??= (load('class-validator-jsonschema') as typeof import('class-validator-jsonschema'))
    .targetConstructorToSchema;
  return toSchema(...args);
}
