import { createRequire } from 'node:module';
import { ConfigurationError } from '../errors.js';

/** The part of `@cedar-policy/cedar-wasm` Wardrik uses, typed here so the optional package's types never leak. */
export interface CedarWasm {
  validate(call: {
    readonly schema: object;
    readonly policies: { readonly staticPolicies: string };
    readonly validationSettings?: { readonly mode: 'strict' };
  }): CedarValidationAnswer;
  policySetTextToParts(text: string): CedarPartsAnswer;
  policyToJson(policy: string): { type: 'success'; json: { annotations?: Record<string, string> } } | CedarFailure;
  preparseSchema(name: string, schema: object): { type: 'success' } | CedarFailure;
  preparsePolicySet(id: string, policies: { readonly staticPolicies: string }): { type: 'success' } | CedarFailure;
  statefulIsAuthorized(call: CedarRequest): CedarAnswer;
}

export interface CedarUid {
  readonly type: string;
  readonly id: string;
}

export interface CedarEntity {
  readonly uid: CedarUid;
  readonly attrs: Readonly<Record<string, unknown>>;
  readonly parents: readonly CedarUid[];
}

export interface CedarRequest {
  readonly principal: CedarUid;
  readonly action: CedarUid;
  readonly resource: CedarUid;
  readonly context: Readonly<Record<string, unknown>>;
  readonly entities: readonly CedarEntity[];
  readonly preparsedPolicySetId: string;
  readonly preparsedSchemaName?: string;
  readonly validateRequest: boolean;
}

export interface CedarError {
  readonly message: string;
  readonly help: string | null;
  readonly sourceLocations?: readonly { readonly start: number; readonly end: number }[];
}

export interface CedarFailure {
  readonly type: 'failure';
  readonly errors: readonly CedarError[];
}

export type CedarValidationAnswer =
  | CedarFailure
  | {
      readonly type: 'success';
      readonly validationErrors: readonly { readonly policyId: string; readonly error: CedarError }[];
    };

export type CedarPartsAnswer = { readonly type: 'success'; readonly policies: readonly string[] } | CedarFailure;

export type CedarAnswer =
  | CedarFailure
  | {
      readonly type: 'success';
      readonly response: {
        readonly decision: 'allow' | 'deny';
        readonly diagnostics: {
          readonly reason: readonly string[];
          readonly errors: readonly { readonly policyId: string; readonly error: CedarError }[];
        };
      };
    };

let loaded: CedarWasm | undefined;

/**
 * Loads `@cedar-policy/cedar-wasm` (an optional peer dependency) the first time a Cedar policy is
 * configured: its CommonJS build for Node, which instantiates the WebAssembly synchronously on load.
 */
export function loadCedar(): CedarWasm {
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  try {
    loaded = require('@cedar-policy/cedar-wasm/nodejs') as CedarWasm;
  } catch (error) {
    throw new ConfigurationError(
      `policy.cedar needs the package @cedar-policy/cedar-wasm, which could not be loaded (${(error as Error).message.split('\n')[0]}). Fix: npm install @cedar-policy/cedar-wasm, or leave policy.cedar out.`,
      { cause: error },
    );
  }
  return loaded;
}
