import type { Tool as McpTool } from '@modelcontextprotocol/client';
import type { Clock } from '../clock.js';
import type { McpServerRecords, Store } from '../store/store.js';
import type { EventBus } from '../telemetry/event-bus.js';
import { ParkRequest } from '../tools/result.js';
import {
  definitionDigest,
  definitionOf,
  describeChanges,
  pinHub,
  pinName,
  pinOf,
  pinRecord,
  type PinRecord,
  type ToolChangeDetail,
} from './pin-records.js';

/**
 * One tool's gate: set while its server offers a definition other than the pinned one and nobody
 * has accepted it. Read on every call of the tool, so it is a field, not a store read.
 */
export interface ToolGate {
  change: ToolChangeDetail | undefined;
}

/**
 * Keeps each MCP tool's definition pinned in the store (a "rug pull" guard). The first definition seen
 * is pinned. A later listing with another definition is a change: a trusted server's is pinned at once;
 * any other server's is gated, and each call of the tool parks with an inbox item of kind `tool_change`
 * showing what changed, until a person approves one (which pins the new definition, for every node).
 * Every change is a `tool.changed` event.
 */
export class DefinitionPins {
  constructor(
    private readonly hub: string,
    private readonly store: Store & McpServerRecords,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  /**
   * Compares a listing's tools with their pins: pins the new ones (and a trusted server's changes), and
   * sets the gate of every tool whose definition changed unaccepted (clears it where the pin matches).
   * Throws when the store cannot be read or written: the listing is then not offered (fail closed).
   */
  async review(
    server: string,
    trust: { readonly trusted: boolean; readonly reviewed: boolean },
    tools: readonly McpTool[],
    gateOf: (tool: string) => ToolGate,
  ): Promise<void> {
    const { trusted } = trust;
    const pins = await this.pinsOf(server);
    // Guard (reviewed-tool-added): a reviewed server's tools as a person read them are its first listing's;
    // one it adds later is new to that person, so it waits for one like a change.
    const addsToReviewed = trust.reviewed && !trusted && pins.size > 0;
    for (const tool of tools) {
      const definition = definitionOf(tool);
      const digest = definitionDigest(definition);
      const pin = pins.get(tool.name);
      const gate = gateOf(tool.name);
      if (pin?.digest === digest) {
        gate.change = undefined;
        continue;
      }
      if (pin === undefined && addsToReviewed) {
        if (gate.change?.digest === digest) continue; // already gated and reported
        const changes = ['tool added since the tool list was reviewed'];
        gate.change = { hub: this.hub, server, tool: tool.name, digest, before: null, after: definition, changes };
        this.emit(server, tool.name, changes, false);
        continue;
      }
      if (pin === undefined || trusted) {
        await this.store.putMcpServer(pinRecord(this.hub, server, tool.name, definition, this.clock.now()));
        gate.change = undefined;
        if (pin !== undefined) this.emit(server, tool.name, describeChanges(pin.definition, definition), true);
        continue;
      }
      if (gate.change?.digest === digest) continue; // already gated and reported
      const changes = describeChanges(pin.definition, definition);
      gate.change = {
        hub: this.hub,
        server,
        tool: tool.name,
        digest,
        before: pin.definition,
        after: definition,
        changes,
      };
      this.emit(server, tool.name, changes, false);
    }
  }

  /**
   * A call of a tool whose gate is set: it goes on when the pin now matches the offered definition (a
   * person accepted it, maybe on another node), else it parks for a person with what changed.
   */
  async gated<T>(gate: ToolGate, call: () => Promise<T>): Promise<T | ParkRequest> {
    const change = gate.change;
    if (change === undefined) return call();
    const pin = (await this.pinsOf(change.server)).get(change.tool);
    if (pin?.digest === change.digest) {
      if (gate.change === change) gate.change = undefined;
      return call();
    }
    const what =
      change.before === null
        ? `Tool "${change.tool}" of MCP server "${change.server}" was added since its tool list was reviewed.`
        : `The definition of tool "${change.tool}" of MCP server "${change.server}" changed since it was accepted (${change.changes.join('; ')}).`;
    const reason =
      `${what} ` + 'Approve to accept the new definition and run this call; deny to refuse it (the tool stays gated).';
    return new ParkRequest(reason, 'tool_change', change);
  }

  private async pinsOf(server: string): Promise<Map<string, PinRecord>> {
    const prefix = pinName(server, '');
    const pins = new Map<string, PinRecord>();
    for (const record of await this.store.listMcpServers(pinHub(this.hub))) {
      if (!record.name.startsWith(prefix)) continue;
      const pin = pinOf(record.options);
      if (pin !== undefined) pins.set(record.name.slice(prefix.length), pin);
    }
    return pins;
  }

  private emit(server: string, tool: string, changes: readonly string[], accepted: boolean): void {
    this.events.emit({ type: 'tool.changed', mcp: this.hub, server, tool, changes, accepted });
  }
}
