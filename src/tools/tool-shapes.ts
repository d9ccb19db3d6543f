// The plain shapes a tool is described with. They import nothing, so the files that read tool metadata
// and build schemas can use them without importing the tool module that uses those files.

/** A JSON Schema object, as a model or an MCP peer reads it. */
export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly properties?: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly description?: string;
  readonly [keyword: string]: unknown;
}

/** A class whose instances are a tool's checked arguments. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a DTO may take any constructor arguments
export type DtoClass<T = object> = new (...args: any[]) => T;

/**
 * A Standard Schema (standardschema.dev), such as a Zod object: Wardrik checks a call's arguments with
 * its `validate`, and shows the model the JSON Schema of its input from `jsonSchema` (the Standard JSON
 * Schema interface; Zod 4, Valibot and ArkType have both). Only the parts Wardrik reads are typed here.
 */
export interface StandardSchema<Output = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    /** Absent on a schema that only describes (Standard JSON Schema alone): its JSON Schema checks the arguments. */
    readonly validate?: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: unknown; readonly output: Output } | undefined;
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
  };
}

/** What a Standard Schema's `validate` answers: the checked value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | {
      readonly issues: readonly {
        readonly message: string;
        readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
      }[];
    };

/**
 * Facts about a tool that any code can read with `annotation(tool, key, fallback)`. The first four are
 * MCP's tool annotations. A tool that sets none has none: a fact not given is absent, not `false`.
 */
export interface Annotations {
  /** It changes nothing. Read-only calls run without approval unless a rule says otherwise. */
  readonly readOnly?: boolean;
  /** What it changes cannot be undone. */
  readonly destructive?: boolean;
  /** A repeat with the same idempotency key does not repeat the effect. */
  readonly idempotent?: boolean;
  /** It reaches things outside the agent's own systems, such as the web. */
  readonly openWorld?: boolean;
  /** How long a call may take, in milliseconds. */
  readonly timeout?: number;
  /** What a call acts on, from its arguments, such as `args => [args.path]`; policies test these. */
  readonly resources?: (args: never) => readonly string[];
  /** Labels every answer carries, such as `['outside']` for a web search. */
  readonly labels?: readonly string[];
  /**
   * Where in an `outside` answer outsiders write free text (`@OutsideFields('transactions[].subject')`): with
   * `labels: 'values'` only the values at these paths are held as handles, the rest shown in clear.
   */
  readonly outsideFields?: readonly string[];
  /** Store each result under its idempotency key and answer a repeat from it (`@Idempotent({ remember: true })`). */
  readonly remember?: boolean;
  /**
   * Whether a call waits for a person when no rule decides: `true` always asks, `false` never does;
   * absent, a tool that is not read-only asks. MCP servers set it from their `gated` option.
   */
  readonly gated?: boolean;
  /**
   * The most one call may cost, in US dollars (`@Cost({ maxUsd })`). An agent with a budget holds this
   * much of it while the call runs, so concurrent calls cannot overspend; without it, the most the tool
   * has cost so far is held.
   */
  readonly maxCostUsd?: number;
  readonly [key: string]: unknown;
}
