import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/client';
import { CallContext } from '../runner/call-context.js';
import { argumentChecker } from '../tools/arguments.js';
import { defineTool, type ToolDefinition } from '../tools/tool.js';
import { markServerTool } from '../tools/tool-origin.js';
import { annotationsOf, describeTool, inputSchemaOf, labelled, outputOf } from './adapt.js';
import type { ServerConnection } from './connection.js';
import type { DefinitionPins, ToolGate } from './definition-pins.js';
import type { CallInFlight } from './call-links.js';
import type { McpServerOptions } from './options.js';
import { scanParamHeaders } from './param-headers.js';
import { outputSchemaProblem, structuredOutput } from './tool-listing.js';

/** How many tools are adapted between two turns of the event loop. */
const SLICE = 500;

export interface ServerToolsSettings {
  readonly server: string;
  readonly options: McpServerOptions;
  readonly connection: ServerConnection;
  readonly maxResultChars: number;
  readonly maxTools: number;
  readonly pins: DefinitionPins;
  /** Whether each call is named to the connection, so a question the server asks meanwhile can name its call. */
  readonly asks: boolean;
}

/** A listing's tools as Wardrik tools, those that could not be adapted, and how many were listed past the cap. */
export interface AdaptedListing {
  readonly definitions: readonly ToolDefinition[];
  readonly skipped: readonly { readonly tool: string; readonly reason: string }[];
  /** How many tools the server listed (after `only`) when that is more than `maxTools`; else undefined. */
  readonly overCap: number | undefined;
  /** The server's tools this listing offers (after `only` and `maxTools`), as listed: their definitions are pinned. */
  readonly listed: readonly McpTool[];
}

/**
 * One server's tools, adapted from each `tools/list`. Listings come again on every `list_changed` (a
 * server may send one every 500 ms), so the work is kept off that path: a listing the same as the last
 * is ignored, and a tool listed the same as before keeps its definition (and with it its compiled
 * argument checker). At most `maxTools` are offered.
 *
 * Gating is sticky for untrusted servers: a tool that was gated once stays gated whatever its hints
 * say later, for as long as the server is known.
 */
export class ServerTools {
  private readonly everGated = new Set<string>();
  /** Each tool's gate, kept across listings: set while its definition changed unaccepted. */
  private readonly gates = new Map<string, ToolGate>();
  private previous = new Map<string, { readonly json: string; readonly definition: ToolDefinition }>();
  private fingerprint: string | undefined;
  /** Increases with each listing adapted and on forget(): a slower adaptation that sees it changed stops. */
  private version = 0;

  constructor(private readonly settings: ServerToolsSettings) {}

  /** Forgets the last listing (the server went down): the next one is adapted even if it is the same. */
  forget(): void {
    this.fingerprint = undefined;
    this.version++; // a listing being adapted is dropped
  }

  /**
   * The listing adapted, or `undefined` when it is the same as the last (or a newer listing, or the
   * server going down, overtook it). Up to `SLICE` tools are adapted at once; a longer listing is
   * adapted `SLICE` at a time, with the event loop free between slices, and comes as a promise.
   */
  adapt(tools: readonly McpTool[]): AdaptedListing | undefined | Promise<AdaptedListing | undefined> {
    const { options, maxTools } = this.settings;
    const only = options.only === undefined ? undefined : new Set(options.only);
    const offered = only === undefined ? tools : tools.filter((tool) => only.has(tool.name));
    const kept = offered.length > maxTools ? offered.slice(0, maxTools) : offered;
    const jsons = kept.map((tool) => JSON.stringify(tool));
    const fingerprint = `${offered.length}\n${jsons.join('\n')}`;
    if (fingerprint === this.fingerprint) return undefined;
    this.fingerprint = fingerprint;
    const version = ++this.version;
    const listing: AdaptedListing & { definitions: ToolDefinition[]; skipped: { tool: string; reason: string }[] } = {
      definitions: [],
      skipped: [],
      overCap: offered.length > maxTools ? offered.length : undefined,
      listed: kept,
    };
    const next = new Map<string, { readonly json: string; readonly definition: ToolDefinition }>();
    const adaptSlice = (from: number): void => {
      for (let i = from; i < Math.min(from + SLICE, kept.length); i++) {
        const tool = kept[i]!;
        const json = jsons[i]!;
        const before = this.previous.get(tool.name);
        try {
          const definition = before !== undefined && before.json === json ? before.definition : this.define(tool);
          listing.definitions.push(definition);
          next.set(tool.name, { json, definition });
        } catch (error) {
          listing.skipped.push({ tool: String(tool.name), reason: (error as Error).message });
        }
      }
    };
    const done = (): AdaptedListing => {
      this.previous = next;
      return listing;
    };
    if (kept.length <= SLICE) {
      adaptSlice(0);
      return done();
    }
    return (async () => {
      for (let from = 0; from < kept.length; from += SLICE) {
        if (from > 0) await new Promise((resolve) => setImmediate(resolve));
        if (version !== this.version) return undefined;
        adaptSlice(from);
      }
      return done();
    })();
  }

  /** The gate of the tool named `tool` (made on first use). */
  gate(tool: string): ToolGate {
    let gate = this.gates.get(tool);
    if (gate === undefined) this.gates.set(tool, (gate = { change: undefined }));
    return gate;
  }

  private define(tool: McpTool): ToolDefinition {
    const { server, options, connection, maxResultChars, pins, asks } = this.settings;
    const { trusted = false, gated, timeoutMs } = options;
    const annotations = annotationsOf(tool, { trusted, gated, wasGated: this.everGated.has(tool.name), timeoutMs });
    if (!trusted && gated === undefined && annotations.gated === true) this.everGated.add(tool.name);
    const where = `Tool "${tool.name}" of MCP server "${server}"`;
    let read = (result: CallToolResult): unknown => labelled(result, outputOf(result, maxResultChars, where));
    if (tool.outputSchema !== undefined) {
      // Results are checked against it (compiled on the first); a schema that cannot be used skips the tool.
      const problem = outputSchemaProblem(tool.outputSchema);
      if (problem !== undefined) throw new Error(problem);
      const check = structuredOutput(tool.outputSchema, where);
      read = (result) => {
        check(result);
        return labelled(result, outputOf(result, maxResultChars, where));
      };
    }
    // A tool whose x-mcp-header declarations the protocol does not allow must not be called (SEP-2243).
    const scan = scanParamHeaders(tool.inputSchema);
    if (!scan.ok) throw new Error(`its input schema's x-mcp-header declarations are invalid: ${scan.reason}`);
    const headers = scan.headers.length === 0 ? undefined : scan.headers;
    const title = tool.title ?? tool.annotations?.title;
    const repeatable = annotations.readOnly === true || annotations.idempotent === true;
    const gate = this.gate(tool.name);
    const definition = defineTool({
      name: tool.name,
      description: describeTool(tool, server),
      input: inputSchemaOf(tool),
      ...(typeof title === 'string' && title !== '' ? { title } : {}),
      annotations,
      // Under the runner, the SDK gets the attempt's light signal: a real one costs more than the call.
      run: (args, ctx) => {
        const runner = ctx instanceof CallContext ? ctx : undefined;
        const signal = runner?.lightSignal ?? ctx.signal;
        const during: CallInFlight | undefined = asks
          ? {
              agent: ctx.agent,
              run: ctx.run,
              call: ctx.call,
              tool: `${server}/${tool.name}`,
              arguments: args as unknown,
              context: runner,
            }
          : undefined;
        const call = (): Promise<unknown> =>
          connection.callTool(tool.name, args, signal, read, repeatable, during, headers, ctx);
        return gate.change !== undefined ? pins.gated(gate, call) : call();
      },
    });
    // Guard (reviewed-rug-pull): a reviewed server's definition is not reviewed while it differs from its pin, unaccepted.
    markServerTool(definition, options.reviewed === true ? () => gate.change === undefined : undefined);
    argumentChecker(definition); // its schema is read here, a slice at a time, not all at once in the catalog
    return definition;
  }
}
