import { existsSync, readFileSync } from 'node:fs';
import { ConfigurationError } from '../errors.js';
import { cedarSchema, CEDAR_NAMESPACE, type CedarRecordType, type CedarTool, type CedarType } from './cedar-schema.js';
import { CompiledCedar, type CedarResponse, type PolicyJson } from './cedar-compiled.js';
import type { CedarEntityData, CompiledRequest } from './cedar-compile.js';
import { decimalOf, Uid, Unsupported, type CedarRecord } from './cedar-values.js';
import { loadCedar, type CedarError, type CedarUid, type CedarWasm } from './cedar-wasm.js';
import type { Decision, PolicyInput } from './decision.js';

/** `policy.cedar`: policies written in Cedar, beside (or instead of) `rules`. */
export interface CedarPolicyOptions {
  /**
   * The policies: Cedar text, or the path of a `.cedar` file read at start-up. Name each with
   * `@id("refund-small")`: decisions, the inbox and the journal say which policy decided by it
   * (`policy0`, `policy1` … in the order written, when unnamed).
   */
  readonly policies: string;
}

/** Cedar policies, parsed, validated against the toolsets' schema and cached in the engine once, at start-up. */
export class CedarPolicies {
  private readonly cedar: CedarWasm;
  private readonly setId: string;
  /** Cedar's own ids (`policy0` …) to the names the policies give themselves. */
  private readonly ids: ReadonlyMap<string, string>;
  private readonly argumentTypes: ReadonlyMap<string, CedarRecordType>;
  private readonly noPermit: Decision;
  /** Each known tool's group (`orders/refund` is in `Action::"orders"`), as the schema declares it. */
  private readonly groups: ReadonlyMap<string, string>;
  /**
   * The policies compiled to JavaScript, when every one of them is in the subset the compiler covers;
   * otherwise undefined, and cedar-wasm decides every call.
   */
  readonly compiled: CompiledCedar | undefined;
  /** Why the policies are not compiled, when they are not (for the docs' "fallback" and the tests). */
  readonly notCompiled: string | undefined;

  constructor(options: CedarPolicyOptions, tools: readonly CedarTool[]) {
    const text = policyText(options);
    this.cedar = loadCedar();
    const schema = cedarSchema(tools);
    this.argumentTypes = schema.argumentTypes;
    const parts = policyParts(this.cedar, text);
    this.ids = new Map(parts.map((part) => [part.cedarId, part.id]));
    this.groups = new Map(tools.map((tool) => [tool.ref, tool.toolset]));
    const checked = this.cedar.validate({
      schema: schema.json,
      policies: { staticPolicies: text },
      validationSettings: { mode: 'strict' },
    });
    if (checked.type === 'failure') throw invalid(text, checked.errors[0], undefined, this.ids);
    const wrong = checked.validationErrors[0];
    if (wrong !== undefined) throw invalid(text, wrong.error, wrong.policyId, this.ids);
    this.setId = `wardrik-${++sets}`;
    const parsed = this.cedar.preparsePolicySet(this.setId, { staticPolicies: text });
    if (parsed.type === 'failure') throw invalid(text, parsed.errors[0], undefined, this.ids);
    // The schema holds the actions' groups (`action in Wardrik::Action::"orders"`): parsed once, like the policies.
    const preparsed = this.cedar.preparseSchema(this.setId, schema.json);
    if (preparsed.type === 'failure')
      throw new ConfigurationError(
        `The Cedar schema Wardrik made from the toolsets was refused: ${preparsed.errors[0]?.message}.`,
      );
    this.noPermit = decision('ask', 'cedar: no policy permits this call, so it asks a person');
    [this.compiled, this.notCompiled] = compiledOrWhy(parts);
  }

  /** Cedar's decision on a call, once per resource it touches: a forbid denies, all permitted allows, else it asks. */
  decide(input: PolicyInput): Decision {
    let allowed: Decision | undefined;
    let asked: Decision | undefined;
    for (const response of this.responses(input)) {
      const one = this.decisionOf(response);
      if (one.action === 'deny') return one;
      if (one.action === 'ask') asked ??= one;
      else allowed ??= one;
    }
    return asked ?? allowed!;
  }

  /**
   * Cedar's answers for a call, one per resource (one for the tool when it names none): from the compiled
   * policies, or from cedar-wasm when they are not compiled or meet a value they cannot hold exactly.
   */
  responses(input: PolicyInput): CedarResponse[] {
    if (this.compiled !== undefined) {
      try {
        return this.compiledResponses(input, this.compiled);
      } catch (error) {
        if (!(error instanceof Unsupported)) throw error;
      }
    }
    return this.wasmResponses(input);
  }

  /** The compiled evaluator's answers (throws `Unsupported` when it would have to guess). */
  compiledResponses(input: PolicyInput, compiled: CompiledCedar): CedarResponse[] {
    const principal = new Uid(`${CEDAR_NAMESPACE}::Agent`, input.agent);
    const action = new Uid(`${CEDAR_NAMESPACE}::Action`, input.tool);
    const context = this.context(input, decimalOf) as CedarRecord;
    const entities = new Map<string, CedarEntityData>();
    entities.set(
      principal.key,
      input.onBehalfOf === undefined
        ? { attrs: {}, ancestors: [] }
        : {
            attrs: { onBehalfOf: input.onBehalfOf },
            ancestors: [new Uid(`${CEDAR_NAMESPACE}::Person`, input.onBehalfOf).key],
          },
    );
    // Actions are entities only through the schema, which knows the tools registered at start-up.
    const group = this.groups.get(input.tool);
    if (group !== undefined && this.argumentTypes.has(input.tool))
      entities.set(action.key, { attrs: {}, ancestors: [new Uid(`${CEDAR_NAMESPACE}::Action`, group).key] });
    if (input.resources.length === 0) {
      const resource = new Uid(`${CEDAR_NAMESPACE}::Tool`, input.tool);
      return [compiled.authorize({ principal, action, resource, context, entities })];
    }
    return input.resources.map((name) => {
      const resource = new Uid(`${CEDAR_NAMESPACE}::Resource`, name);
      const request: CompiledRequest = {
        principal,
        action,
        resource,
        context,
        entities: new Map(entities).set(resource.key, { attrs: { name }, ancestors: [] }),
      };
      return compiled.authorize(request);
    });
  }

  /** cedar-wasm's answers: the request serialised across the WebAssembly boundary, once per resource. */
  wasmResponses(input: PolicyInput): CedarResponse[] {
    const principal: CedarUid = { type: `${CEDAR_NAMESPACE}::Agent`, id: input.agent };
    const action: CedarUid = { type: `${CEDAR_NAMESPACE}::Action`, id: input.tool };
    const context = this.context(input, decimal);
    const agent = {
      uid: principal,
      attrs: input.onBehalfOf === undefined ? {} : { onBehalfOf: input.onBehalfOf },
      parents: input.onBehalfOf === undefined ? [] : [{ type: `${CEDAR_NAMESPACE}::Person`, id: input.onBehalfOf }],
    };
    if (input.resources.length === 0) {
      const resource = { type: `${CEDAR_NAMESPACE}::Tool`, id: input.tool };
      return [this.authorize(principal, action, resource, context, [agent])];
    }
    return input.resources.map((name) => {
      const resource = { type: `${CEDAR_NAMESPACE}::Resource`, id: name };
      return this.authorize(principal, action, resource, context, [
        agent,
        { uid: resource, attrs: { name }, parents: [] },
      ]);
    });
  }

  private authorize(
    principal: CedarUid,
    action: CedarUid,
    resource: CedarUid,
    context: Readonly<Record<string, unknown>>,
    entities: readonly { uid: CedarUid; attrs: Readonly<Record<string, unknown>>; parents: readonly CedarUid[] }[],
  ): CedarResponse {
    const answer = this.cedar.statefulIsAuthorized({
      principal,
      action,
      resource,
      context,
      entities,
      preparsedPolicySetId: this.setId,
      // A tool the schema does not know (an MCP server's, one added at run time) is decided without it.
      ...(this.argumentTypes.has(action.id) ? { preparsedSchemaName: this.setId } : {}),
      validateRequest: false,
    });
    if (answer.type === 'failure')
      throw new Error(`Cedar could not decide: ${answer.errors[0]?.message ?? 'no reason given'}`);
    return answer.response;
  }

  /** Wardrik's decision from Cedar's answer, naming the policy that decided by its `@id`. */
  private decisionOf({ decision: effect, diagnostics }: CedarResponse): Decision {
    // Cedar reports the determining policies as a set, in no fixed order: the first written names the decision.
    const reason = (
      diagnostics.reason.length > 1 ? [...diagnostics.reason].sort(byWrittenOrder) : diagnostics.reason
    ).map((id) => this.ids.get(id) ?? id);
    if (effect === 'deny' && reason.length > 0) return decision('deny', `cedar policy "${reason[0]}"`);
    // A policy that fails on this call (an attribute it reads is absent) is skipped by Cedar: a forbid among
    // them might have denied, so the call asks a person rather than run on the others' permit.
    const failed =
      diagnostics.errors.length > 1
        ? [...diagnostics.errors].sort((a, b) => byWrittenOrder(a.policyId, b.policyId))[0]
        : diagnostics.errors[0];
    if (failed !== undefined) {
      const id = this.ids.get(failed.policyId) ?? failed.policyId;
      return decision(
        'ask',
        `cedar policy "${id}" could not be evaluated (${failed.error.message}), so the call asks a person`,
      );
    }
    return effect === 'allow' ? decision('allow', `cedar policy "${reason[0]}"`) : this.noPermit;
  }

  /** The request's context; `dec` writes a decimal (Cedar's JSON for cedar-wasm, a `Decimal` when compiled). */
  private context(input: PolicyInput, dec: (value: number) => unknown): Record<string, unknown> {
    const a = input.annotations;
    const types = this.argumentTypes.get(input.tool);
    return {
      run: input.run,
      labels: input.labels,
      annotations: {
        readOnly: a.readOnly === true,
        destructive: a.destructive === true,
        idempotent: a.idempotent === true,
        openWorld: a.openWorld === true,
        ...(typeof a.gated === 'boolean' ? { gated: a.gated } : {}),
      },
      // A tool the schema does not know (an MCP server's) passes no arguments: there is no type to cut them to.
      arguments: types === undefined ? {} : (valueOf(input.arguments, types, dec) ?? {}),
      ...(input.budget === undefined
        ? {}
        : { budget: { spentUsd: dec(input.budget.spentUsd), limitUsd: dec(input.budget.limitUsd) } }),
    };
  }
}

let sets = 0;

/** Cedar's ids (`policy2` before `policy10`) in the order the policies are written. */
function byWrittenOrder(a: string, b: string): number {
  return Number(a.slice(6)) - Number(b.slice(6));
}

/** A call's value as Cedar's JSON writes it, cut to `type`; `undefined` when it does not fit (left out). */
function valueOf(value: unknown, type: CedarType, dec: (value: number) => unknown): unknown {
  switch (type.type) {
    case 'String':
      return typeof value === 'string' ? value : undefined;
    case 'Boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'Long':
      return Number.isSafeInteger(value) ? value : undefined;
    case 'Extension':
      return typeof value === 'number' ? dec(value) : undefined;
    case 'Set': {
      if (!Array.isArray(value)) return undefined;
      const items = value.map((item) => valueOf(item, type.element, dec));
      return items.includes(undefined) ? undefined : items;
    }
    case 'Record': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      const record: Record<string, unknown> = {};
      for (const name of Object.keys(type.attributes)) {
        const item = valueOf((value as Record<string, unknown>)[name], type.attributes[name]!, dec);
        if (item !== undefined) record[name] = item;
      }
      return record;
    }
  }
}

/** Cedar's decimal holds four places and about ±9.2e14; a number beyond it is left out. */
function decimal(value: number): unknown {
  if (!Number.isFinite(value) || Math.abs(value) >= 9e14) return undefined;
  return { __extn: { fn: 'decimal', arg: value.toFixed(4) } };
}

function decision(action: Decision['action'], rule: string): Decision {
  return Object.freeze({ action, rule });
}

/** The policies' text: given, or read from the `.cedar` file named. */
function policyText(options: CedarPolicyOptions): string {
  const policies = (options as { policies?: unknown } | undefined)?.policies;
  if (typeof policies !== 'string' || policies.trim() === '')
    throw new ConfigurationError(
      'policy.cedar.policies must be Cedar policy text, or the path of a .cedar file, such as { cedar: { policies: "./policies.cedar" } }.',
    );
  if (!/^[^\n();{}]+\.cedar$/.test(policies.trim())) return policies;
  const path = policies.trim();
  if (!existsSync(path))
    throw new ConfigurationError(
      `policy.cedar.policies names ${path}, which does not exist. Fix: give the path of your .cedar file (relative to ${process.cwd()}), or the policy text itself.`,
    );
  return readFileSync(path, 'utf8');
}

interface PolicyPart {
  /** Cedar's id: `policy0` … in the order written. */
  readonly cedarId: string;
  /** The policy's `@id("…")`, or its Cedar id when unnamed. */
  readonly id: string;
  /** The policy in Cedar's JSON form, or undefined when Cedar would not give it. */
  readonly json: PolicyJson | undefined;
}

/** Each policy's ids and JSON form, in the order written; a duplicate `@id` is a start-up error. */
function policyParts(cedar: CedarWasm, text: string): PolicyPart[] {
  const parts = cedar.policySetTextToParts(text);
  if (parts.type === 'failure') throw invalid(text, parts.errors[0], undefined, new Map());
  const seen = new Set<string>();
  // Cedar names the policies policy0, policy1 … in the order written, but gives their parts back sorted
  // by that name as text (policy0, policy1, policy10, policy11 …, policy2): the k-th part is the k-th name.
  // Guard (cedar-ids-as-parsed): with eleven policies or more, each @id must name the policy Cedar means.
  const cedarIds = parts.policies.map((_, index) => `policy${index}`).sort();
  return parts.policies.map((policy, index) => {
    const json = cedar.policyToJson(policy);
    const named = json.type === 'success' ? json.json.annotations?.id : undefined;
    const cedarId = cedarIds[index]!;
    const id = named ?? cedarId;
    if (seen.has(id))
      throw new ConfigurationError(
        `Cedar policy ids must be unique: @id("${id}") is given twice. Fix: rename one of them.`,
      );
    seen.add(id);
    return {
      cedarId,
      id,
      json: json.type === 'success' ? (json.json as unknown as PolicyJson) : undefined,
    };
  });
}

/** The policies compiled, or why not: one outside the compiler's subset sends them all to cedar-wasm. */
function compiledOrWhy(parts: readonly PolicyPart[]): [CompiledCedar | undefined, string | undefined] {
  try {
    const policies = parts.map(({ cedarId, json }) => {
      if (json === undefined) throw new Unsupported(`policy ${cedarId} has no JSON form`);
      return { id: cedarId, json };
    });
    return [new CompiledCedar(policies), undefined];
  } catch (error) {
    // Whatever the compiler cannot take, cedar-wasm still decides: slower, never a guess.
    return [undefined, (error as Error).message];
  }
}

/** A Cedar error as a start-up error naming the line (and the policy, when Cedar says which). */
function invalid(
  text: string,
  error: CedarError | undefined,
  cedarId: string | undefined,
  ids: ReadonlyMap<string, string>,
): ConfigurationError {
  const start = error?.sourceLocations?.[0]?.start;
  const line =
    start === undefined ? undefined : Buffer.from(text, 'utf8').subarray(0, start).toString('utf8').split('\n').length;
  const id = cedarId === undefined ? undefined : (ids.get(cedarId) ?? cedarId);
  let message = error?.message ?? 'Cedar refused the policies without saying why';
  for (const [from, to] of ids) message = message.replaceAll(`\`${from}\``, `"${to}"`);
  const where = [line === undefined ? undefined : `line ${line}`, id === undefined ? undefined : `policy "${id}"`]
    .filter(Boolean)
    .join(', ');
  return new ConfigurationError(
    `policy.cedar: ${where === '' ? 'the policies' : where} ${cedarId === undefined ? 'do not parse' : "do not fit the toolsets' schema"}: ${message}${error?.help ? ` (${error.help})` : ''}. Fix the policy; \`wardrik policy schema\` prints the schema the policies are checked against.`,
  );
}
