import { existsSync, readFileSync } from 'node:fs';
import { ConfigurationError } from '../errors.js';
import { cedarSchema, CEDAR_NAMESPACE, type CedarRecordType, type CedarTool, type CedarType } from './cedar-schema.js';
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

  constructor(options: CedarPolicyOptions, tools: readonly CedarTool[]) {
    const text = policyText(options);
    this.cedar = loadCedar();
    const schema = cedarSchema(tools);
    this.argumentTypes = schema.argumentTypes;
    this.ids = policyIds(this.cedar, text);
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
  }

  /** Cedar's decision on a call, once per resource it touches: a forbid denies, all permitted allows, else it asks. */
  decide(input: PolicyInput): Decision {
    const principal: CedarUid = { type: `${CEDAR_NAMESPACE}::Agent`, id: input.agent };
    const action: CedarUid = { type: `${CEDAR_NAMESPACE}::Action`, id: input.tool };
    const context = this.context(input);
    const agent = {
      uid: principal,
      attrs: input.onBehalfOf === undefined ? {} : { onBehalfOf: input.onBehalfOf },
      parents: input.onBehalfOf === undefined ? [] : [{ type: `${CEDAR_NAMESPACE}::Person`, id: input.onBehalfOf }],
    };
    if (input.resources.length === 0) {
      const resource = { type: `${CEDAR_NAMESPACE}::Tool`, id: input.tool };
      return this.authorize(principal, action, resource, context, [agent]);
    }
    let allowed: Decision | undefined;
    let asked: Decision | undefined;
    for (const name of input.resources) {
      const resource = { type: `${CEDAR_NAMESPACE}::Resource`, id: name };
      const one = this.authorize(principal, action, resource, context, [
        agent,
        { uid: resource, attrs: { name }, parents: [] },
      ]);
      if (one.action === 'deny') return one;
      if (one.action === 'ask') asked ??= one;
      else allowed ??= one;
    }
    return asked ?? allowed!;
  }

  private authorize(
    principal: CedarUid,
    action: CedarUid,
    resource: CedarUid,
    context: Readonly<Record<string, unknown>>,
    entities: readonly { uid: CedarUid; attrs: Readonly<Record<string, unknown>>; parents: readonly CedarUid[] }[],
  ): Decision {
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
    const { decision: effect, diagnostics } = answer.response;
    const reason = diagnostics.reason.map((id) => this.ids.get(id) ?? id);
    if (effect === 'deny' && reason.length > 0) return decision('deny', `cedar policy "${reason[0]}"`);
    // A policy that fails on this call (an attribute it reads is absent) is skipped by Cedar: a forbid among
    // them might have denied, so the call asks a person rather than run on the others' permit.
    const failed = diagnostics.errors[0];
    if (failed !== undefined) {
      const id = this.ids.get(failed.policyId) ?? failed.policyId;
      return decision(
        'ask',
        `cedar policy "${id}" could not be evaluated (${failed.error.message}), so the call asks a person`,
      );
    }
    return effect === 'allow' ? decision('allow', `cedar policy "${reason[0]}"`) : this.noPermit;
  }

  private context(input: PolicyInput): Record<string, unknown> {
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
      arguments: types === undefined ? {} : (valueOf(input.arguments, types) ?? {}),
      ...(input.budget === undefined
        ? {}
        : { budget: { spentUsd: decimal(input.budget.spentUsd), limitUsd: decimal(input.budget.limitUsd) } }),
    };
  }
}

let sets = 0;

/** A call's value as Cedar's JSON writes it, cut to `type`; `undefined` when it does not fit (left out). */
function valueOf(value: unknown, type: CedarType): unknown {
  switch (type.type) {
    case 'String':
      return typeof value === 'string' ? value : undefined;
    case 'Boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'Long':
      return Number.isSafeInteger(value) ? value : undefined;
    case 'Extension':
      return typeof value === 'number' ? decimal(value) : undefined;
    case 'Set': {
      if (!Array.isArray(value)) return undefined;
      const items = value.map((item) => valueOf(item, type.element));
      return items.includes(undefined) ? undefined : items;
    }
    case 'Record': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      const record: Record<string, unknown> = {};
      for (const name of Object.keys(type.attributes)) {
        const item = valueOf((value as Record<string, unknown>)[name], type.attributes[name]!);
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

/** Cedar's ids (`policy0`, in the order written) to each policy's `@id("…")`, or its Cedar id when unnamed. */
function policyIds(cedar: CedarWasm, text: string): ReadonlyMap<string, string> {
  const parts = cedar.policySetTextToParts(text);
  if (parts.type === 'failure') throw invalid(text, parts.errors[0], undefined, new Map());
  const ids = new Map<string, string>();
  const seen = new Set<string>();
  parts.policies.forEach((policy, index) => {
    const json = cedar.policyToJson(policy);
    const named = json.type === 'success' ? json.json.annotations?.id : undefined;
    const id = named ?? `policy${index}`;
    if (seen.has(id))
      throw new ConfigurationError(
        `Cedar policy ids must be unique: @id("${id}") is given twice. Fix: rename one of them.`,
      );
    seen.add(id);
    ids.set(`policy${index}`, id);
  });
  return ids;
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
