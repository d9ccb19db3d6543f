// Docs "Tools": a tool that takes no arguments but needs its context.
import 'reflect-metadata';
import { NoArguments, ReadOnly, Tool, Toolset, Wardrik, type ToolContext } from '../../src/index.js';

@Toolset('cache')
class CacheTools {
  @Tool({ description: 'Refresh the cache of the calling agent.' })
  @ReadOnly()
  refresh(_args: NoArguments, ctx: ToolContext) {
    return `refreshed for ${ctx.agent}`;
  }
}

const wardrik = await Wardrik.create({ toolsets: [CacheTools], store: 'memory:' });
console.log(wardrik.tools(['cache/*'])[0]?.inputSchema); // { type: 'object', properties: {}, additionalProperties: false }
await wardrik.close();
