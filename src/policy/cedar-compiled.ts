import { compileExpression, type Compiled, type CompiledRequest } from './cedar-compile.js';
import { CedarEvalError, Unsupported, Uid } from './cedar-values.js';

/** A policy in Cedar's JSON form (the EST), as `policyToJson` gives it. */
export interface PolicyJson {
  readonly effect: 'permit' | 'forbid';
  readonly principal: ScopeJson;
  readonly action: ScopeJson;
  readonly resource: ScopeJson;
  readonly conditions: readonly { readonly kind: 'when' | 'unless'; readonly body: unknown }[];
}

interface ScopeJson {
  readonly op: string;
  readonly entity?: { readonly type: string; readonly id: string };
  readonly entities?: readonly { readonly type: string; readonly id: string }[];
  readonly entity_type?: string;
  readonly in?: { readonly entity?: { readonly type: string; readonly id: string } };
}

/** Cedar's answer in the shape cedar-wasm gives it: the effect, the determining policies, the failed ones. */
export interface CedarResponse {
  readonly decision: 'allow' | 'deny';
  readonly diagnostics: {
    readonly reason: readonly string[];
    readonly errors: readonly { readonly policyId: string; readonly error: { readonly message: string } }[];
  };
}

interface CompiledPolicy {
  /** Cedar's id, `policy0` … in the order written. */
  readonly id: string;
  readonly forbid: boolean;
  readonly principal: (r: CompiledRequest) => boolean;
  readonly action: (r: CompiledRequest) => boolean;
  readonly resource: (r: CompiledRequest) => boolean;
  /** Every condition folded into one: `when` bodies must be true, `unless` bodies false. */
  readonly condition: Compiled | undefined;
}

const MAX_INDEXED_ACTIONS = 10_000;

/**
 * Cedar policies compiled into JavaScript closures: the same decision as cedar-wasm's authorizer
 * (forbid overrides permit, an evaluation error skips the policy and is reported) without crossing into
 * WebAssembly. Policies are indexed by action, so a call evaluates only those whose action scope fits.
 */
export class CompiledCedar {
  private readonly policies: readonly CompiledPolicy[];
  private readonly byAction = new Map<string, readonly CompiledPolicy[]>();

  /** Throws `Unsupported` when any policy uses what the compiler does not cover. */
  constructor(policies: readonly { readonly id: string; readonly json: PolicyJson }[]) {
    this.policies = policies.map(({ id, json }) => compilePolicy(id, json));
  }

  /**
   * Cedar's answer to a request. Throws `Unsupported` when a value met on the way cannot be held exactly
   * (a long beyond 2^53, `<` on a non-long): the caller asks cedar-wasm then.
   */
  authorize(request: CompiledRequest): CedarResponse {
    let forbids: string[] | undefined;
    let permits: string[] | undefined;
    let errors: { policyId: string; error: { message: string } }[] | undefined;
    for (const policy of this.forAction(request)) {
      let applies: boolean;
      try {
        applies = policy.principal(request) && policy.resource(request) && satisfied(policy, request);
      } catch (error) {
        if (!(error instanceof CedarEvalError)) throw error;
        (errors ??= []).push({ policyId: policy.id, error: { message: error.message } });
        continue;
      }
      if (!applies) continue;
      if (policy.forbid) (forbids ??= []).push(policy.id);
      else (permits ??= []).push(policy.id);
    }
    const decision = forbids === undefined && permits !== undefined ? 'allow' : 'deny';
    return { decision, diagnostics: { reason: forbids ?? permits ?? [], errors: errors ?? [] } };
  }

  /** The policies whose action scope admits this action: worked out once per action, then looked up. */
  private forAction(request: CompiledRequest): readonly CompiledPolicy[] {
    const key = request.action.key;
    let found = this.byAction.get(key);
    if (found === undefined) {
      found = this.policies.filter((policy) => policy.action(request));
      // Tools added at run time come and go: the index is a cache, dropped rather than grown without end.
      if (this.byAction.size >= MAX_INDEXED_ACTIONS) this.byAction.clear();
      this.byAction.set(key, found);
    }
    return found;
  }
}

function satisfied(policy: CompiledPolicy, request: CompiledRequest): boolean {
  if (policy.condition === undefined) return true;
  const value = policy.condition(request);
  if (typeof value !== 'boolean') throw new CedarEvalError('a condition must be a bool');
  return value;
}

function compilePolicy(id: string, json: PolicyJson): CompiledPolicy {
  const conditions = json.conditions.map(({ kind, body }) => {
    const compiled = compileExpression(body);
    if (kind === 'when') return compiled;
    if (kind === 'unless') return ((r) => !asCondition(compiled(r))) as Compiled;
    throw new Unsupported(`the condition kind ${JSON.stringify(kind)}`);
  });
  // Conditions are evaluated in order; the first false one settles the policy, as `&&` does in Cedar.
  const condition =
    conditions.length === 0
      ? undefined
      : conditions.length === 1 && json.conditions[0]!.kind === 'when'
        ? conditions[0]
        : (((r) => conditions.every((c) => asCondition(c(r)))) as Compiled);
  return {
    id,
    forbid: effect(json.effect),
    principal: scope(json.principal, (r) => r.principal),
    action: scope(json.action, (r) => r.action),
    resource: scope(json.resource, (r) => r.resource),
    condition,
  };
}

function asCondition(value: unknown): boolean {
  if (typeof value !== 'boolean') throw new CedarEvalError('a condition must be a bool');
  return value;
}

function effect(value: string): boolean {
  if (value === 'forbid') return true;
  if (value === 'permit') return false;
  throw new Unsupported(`the effect ${JSON.stringify(value)}`);
}

/** A scope constraint (`principal == …`, `action in [...]`, `resource is T in …`) as a test on the request. */
function scope(json: ScopeJson, of: (r: CompiledRequest) => Uid): (r: CompiledRequest) => boolean {
  const uid = (e: { type: string; id: string } | undefined) => {
    if (e === undefined || typeof e.type !== 'string' || typeof e.id !== 'string')
      throw new Unsupported(`the scope ${JSON.stringify(json)} (a template slot?)`);
    return new Uid(e.type, e.id).key;
  };
  const within = (r: CompiledRequest, keys: readonly string[]) => {
    const self = of(r);
    if (keys.includes(self.key)) return true;
    const ancestors = r.entities.get(self.key)?.ancestors;
    return ancestors !== undefined && ancestors.some((a) => keys.includes(a));
  };
  switch (json.op) {
    case 'All':
      return () => true;
    case '==': {
      const key = uid(json.entity);
      return (r) => of(r).key === key;
    }
    case 'in': {
      const keys = json.entities !== undefined ? json.entities.map(uid) : [uid(json.entity)];
      return (r) => within(r, keys);
    }
    case 'is': {
      const type = json.entity_type;
      if (typeof type !== 'string') throw new Unsupported(`the scope ${JSON.stringify(json)}`);
      const keys = json.in === undefined ? undefined : [uid(json.in.entity)];
      return (r) => of(r).type === type && (keys === undefined || within(r, keys));
    }
    default:
      throw new Unsupported(`the scope ${JSON.stringify(json)}`);
  }
}
