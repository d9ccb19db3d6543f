/** Every metadata key Wardrik uses, in one place. Only `metadata.ts` reads or writes them. */
export const TOOLSET_KEY = Symbol.for('wardrik:toolset');
export const TOOL_METHODS_KEY = Symbol.for('wardrik:tool-methods');
export const TOOL_METHOD_KEY = Symbol.for('wardrik:tool-method');
export const DESCRIBE_KEY = Symbol.for('wardrik:describe');
export const TOOLSET_OPTIONS_KEY = Symbol.for('wardrik:toolset-options');
