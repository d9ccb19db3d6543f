/**
 * The argument type of a tool that takes no arguments but needs its context:
 * `refresh(_args: NoArguments, ctx: ToolContext)`, or `input: NoArguments` in `@Tool` and `defineTool`.
 * The model sees an object with no properties; a call that sends any is refused as unknown, and the
 * tool receives an empty object.
 *
 * An empty DTO class of your own is refused instead: a class whose properties have no class-validator
 * decorators looks the same at runtime, and would refuse every argument the model sends.
 */
export class NoArguments {}
