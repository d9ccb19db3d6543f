import type { CatalogEntry } from './catalog.js';
import type { Annotations, JsonSchema } from './tool.js';

/** A tool as a model sees it. */
export interface ToolInfo {
  /** `toolset__tool` */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  /** The tool's annotations that are plain data (functions such as `resources` are left out). */
  readonly annotations: Annotations;
}

/** A catalog entry as a model sees it (also what `wardrik tools` prints). */
export function toolInfo({ name, tool }: CatalogEntry): ToolInfo {
  return {
    name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: Object.fromEntries(
      Object.entries(tool.annotations).filter(([, value]) => typeof value !== 'function'),
    ) as Annotations,
  };
}
