import { injectable } from 'tsyringe';
import { ConfigurationError } from '../errors.js';
import type { Annotations } from './tool.js';
import {
  mergeToolMethod,
  setDescription,
  setToolsetName,
  setToolsetOptions,
  type ToolDecoratorOptions,
  type ToolsetDecoratorOptions,
} from './metadata.js';

/**
 * The decorators only record facts; `Wardrik.create` reads and checks them once, when it registers
 * the toolset. Their order on a method never matters.
 */

/**
 * Names a class's tools (the `orders` of `orders/find_order`) and makes the class injectable. With
 * `{ buildDependencies: true }`, tsyringe may build constructor dependencies nobody registered (docs/di.md).
 */
export function Toolset(name: string, options: ToolsetDecoratorOptions = {}): ClassDecorator {
  return (target) => {
    setToolsetName(target, name);
    setToolsetOptions(target, options);
    // tsyringe reads constructor parameter types from here; nothing is registered globally.
    injectable()(target as unknown as new (...args: never[]) => unknown);
  };
}

/** Makes a method a tool. The name defaults to the method name in snake_case. */
export function Tool(options: ToolDecoratorOptions): MethodDecorator {
  return (target, key) => mergeToolMethod(target, methodName(key, '@Tool'), { tool: options });
}

function annotationDecorator(decorator: string, annotations: Annotations): MethodDecorator {
  return (target, key) => mergeToolMethod(target, methodName(key, decorator), { annotations });
}

/** It changes nothing: runs without approval unless a rule says otherwise, and is safe to retry. */
export function ReadOnly(): MethodDecorator {
  return annotationDecorator('@ReadOnly', { readOnly: true });
}

/**
 * A repeat with the same `ctx.idempotencyKey` does not repeat the effect, so failed calls are retried.
 * `{ remember: true }` stores each result under its key and answers a repeat from it, for APIs without keys.
 */
export function Idempotent(options: { readonly remember?: boolean } = {}): MethodDecorator {
  return annotationDecorator(
    '@Idempotent',
    options.remember === true ? { idempotent: true, remember: true } : { idempotent: true },
  );
}

/** What it changes cannot be undone. */
export function Destructive(): MethodDecorator {
  return annotationDecorator('@Destructive', { destructive: true });
}

/** It reaches things outside the agent's own systems, such as the web. */
export function OpenWorld(): MethodDecorator {
  return annotationDecorator('@OpenWorld', { openWorld: true });
}

/** How long one attempt may run, in milliseconds, instead of the runner's default (60 s). */
export function Timeout(ms: number): MethodDecorator {
  return annotationDecorator('@Timeout', { timeout: ms });
}

/**
 * The most one call of this tool may cost, in US dollars. An agent with a budget holds that much of it
 * while the call runs, so calls started together cannot spend past the budget.
 */
export function Cost(options: { readonly maxUsd: number }): MethodDecorator {
  return annotationDecorator('@Cost', { maxCostUsd: options?.maxUsd });
}

/** What a call acts on, from its checked arguments, such as `args => [args.path]`; policies test these. */
export function Resources<Args>(resources: (args: Args) => readonly string[]): MethodDecorator {
  return annotationDecorator('@Resources', { resources: resources as Annotations['resources'] });
}

/** Labels every answer of this tool carries, such as `@Labels('outside')` for web text. */
export function Labels(...labels: string[]): MethodDecorator {
  return annotationDecorator('@Labels', { labels: Object.freeze([...labels]) });
}

/**
 * The fields of this tool's answers that hold text outsiders write, such as
 * `@OutsideFields('transactions[].subject')` (dot-separated names, `[]` for every element of a list). With
 * `labels: 'values'`, only the values at these paths are held as handles; the rest of an `outside` answer is
 * shown to the model in clear. Without it, the whole answer is held. Name every field an outsider can write.
 */
export function OutsideFields(...paths: string[]): MethodDecorator {
  return annotationDecorator('@OutsideFields', { outsideFields: Object.freeze([...paths]) });
}

/** Documents a DTO property for the model; it becomes the property's `description` in the JSON Schema. */
export function Describe(text: string): PropertyDecorator {
  return (target, key) => setDescription(target, methodName(key, '@Describe'), text);
}

function methodName(key: string | symbol, decorator: string): string {
  if (typeof key === 'symbol') {
    throw new ConfigurationError(
      `${decorator} cannot be used on the symbol-named member ${String(key)}: tools and argument fields are named by their member's name (saved runs refer to it), which a symbol cannot be. Give the member a string name.`,
    );
  }
  return key;
}
