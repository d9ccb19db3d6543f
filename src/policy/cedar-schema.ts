import type { JsonSchema, ToolDefinition } from '../tools/tool.js';

/**
 * The Cedar schema Wardrik generates from the registered toolsets (`wardrik policy schema`), in Cedar's
 * JSON schema format, and the shape of each tool's arguments as Cedar sees them (to turn a call's
 * arguments into a Cedar record). Everything lives in the `Wardrik` namespace:
 *
 * - principal `Wardrik::Agent::"<agent id>"`, a member of `Wardrik::Person::"<who it acts for>"`
 *   (`onBehalfOf`, the MCP caller), also its optional `onBehalfOf` attribute;
 * - action `Wardrik::Action::"<toolset>/<tool>"`, a member of `Wardrik::Action::"<toolset>"`;
 * - resource `Wardrik::Resource::"<what @Resources returned>"` (attribute `name`), or, for a tool
 *   without `@Resources`, `Wardrik::Tool::"<toolset>/<tool>"`;
 * - context `{ run, labels, annotations, arguments, budget? }`.
 */
export const CEDAR_NAMESPACE = 'Wardrik';

/** A Cedar type, as the JSON schema writes it. */
export type CedarType =
  | { readonly type: 'String' | 'Long' | 'Boolean' }
  | { readonly type: 'Extension'; readonly name: 'decimal' }
  | { readonly type: 'Set'; readonly element: CedarType }
  | { readonly type: 'Record'; readonly attributes: Readonly<Record<string, CedarAttribute>> };

export type CedarAttribute = CedarType & { readonly required?: boolean };

/** A tool as the schema sees it. */
export interface CedarTool {
  /** `toolset/tool` */
  readonly ref: string;
  readonly toolset: string;
  readonly tool: Pick<ToolDefinition, 'inputSchema' | 'annotations'>;
}

export interface CedarSchema {
  /** Cedar's JSON schema format, ready for the validator (and for `wardrik policy schema`). */
  readonly json: Readonly<Record<string, unknown>>;
  /** Each tool's arguments as a Cedar record type, by `toolset/tool`: what a call's arguments are cut down to. */
  readonly argumentTypes: ReadonlyMap<string, CedarRecordType>;
}

export type CedarRecordType = Extract<CedarType, { readonly type: 'Record' }>;

const STRING = { type: 'String' } as const;
const BOOLEAN = { type: 'Boolean' } as const;
const DECIMAL = { type: 'Extension', name: 'decimal' } as const;
/** Nesting deeper than this is left out of the schema: a hostile or generated schema cannot blow the stack. */
const MAX_DEPTH = 8;

const ANNOTATIONS: CedarRecordType = {
  type: 'Record',
  attributes: {
    readOnly: BOOLEAN,
    destructive: BOOLEAN,
    idempotent: BOOLEAN,
    openWorld: BOOLEAN,
    gated: { ...BOOLEAN, required: false },
  },
};

const BUDGET: CedarAttribute = {
  type: 'Record',
  attributes: { spentUsd: DECIMAL, limitUsd: DECIMAL },
  required: false,
};

/** The schema for these tools, sorted by ref so the output is the same whatever the registration order. */
export function cedarSchema(tools: readonly CedarTool[]): CedarSchema {
  const sorted = [...tools].sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  const actions: Record<string, unknown> = {};
  const argumentTypes = new Map<string, CedarRecordType>();
  for (const toolset of new Set(sorted.map((tool) => tool.toolset))) actions[toolset] = {};
  for (const { ref, toolset, tool } of sorted) {
    const args = recordOf(tool.inputSchema, 0);
    argumentTypes.set(ref, args);
    actions[ref] = {
      memberOf: [{ id: toolset }],
      appliesTo: {
        principalTypes: ['Agent'],
        resourceTypes: [tool.annotations.resources === undefined ? 'Tool' : 'Resource'],
        context: {
          type: 'Record',
          attributes: {
            run: STRING,
            labels: { type: 'Set', element: STRING },
            annotations: ANNOTATIONS,
            arguments: args,
            budget: BUDGET,
          },
        },
      },
    };
  }
  const json = {
    [CEDAR_NAMESPACE]: {
      entityTypes: {
        Person: {},
        Agent: {
          memberOfTypes: ['Person'],
          shape: { type: 'Record', attributes: { onBehalfOf: { ...STRING, required: false } } },
        },
        Resource: { shape: { type: 'Record', attributes: { name: STRING } } },
        Tool: {},
      },
      actions,
    },
  };
  return { json, argumentTypes };
}

/** A JSON Schema object as a Cedar record: properties Cedar cannot type are left out (policies cannot test them). */
function recordOf(schema: JsonSchema | undefined, depth: number): CedarRecordType {
  const attributes: Record<string, CedarAttribute> = {};
  const properties = (schema as { properties?: Record<string, JsonSchema> } | undefined)?.properties;
  const required = new Set((schema as { required?: unknown } | undefined)?.required as string[] | undefined);
  if (properties !== undefined && typeof properties === 'object') {
    for (const name of Object.keys(properties).sort()) {
      // `__entity` and `__extn` mean something else to Cedar's JSON.
      if (name.startsWith('__')) continue;
      const type = typeOf(properties[name], depth + 1);
      if (type !== undefined) attributes[name] = required.has(name) ? type : { ...type, required: false };
    }
  }
  return { type: 'Record', attributes };
}

function typeOf(schema: JsonSchema | undefined, depth: number): CedarType | undefined {
  if (schema === undefined || schema === null || typeof schema !== 'object' || depth > MAX_DEPTH) return undefined;
  const type = (schema as { type?: unknown }).type;
  switch (type) {
    case 'string':
      return STRING;
    case 'integer':
      return { type: 'Long' };
    case 'number':
      return DECIMAL;
    case 'boolean':
      return BOOLEAN;
    case 'array': {
      const element = typeOf((schema as { items?: JsonSchema }).items, depth + 1);
      return element === undefined ? undefined : { type: 'Set', element };
    }
    case 'object':
      return recordOf(schema, depth);
    default:
      return undefined;
  }
}
