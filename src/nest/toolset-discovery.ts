import type { DiscoveryService } from '@nestjs/core';
import { STATIC_CONTEXT } from '@nestjs/core/injector/constants.js';
import { Wardrik } from '../di/wardrik.js';
import { ConfigurationError } from '../errors.js';
import { getConstructorTypes, getToolsetName } from '../tools/metadata.js';
import { WARDRIK_INBOX, WARDRIK_MCP_SERVER } from './tokens.js';

/** What Nest's DiscoveryService hands out, as far as it is read here. */
type ProviderWrapper = ReturnType<DiscoveryService['getProviders']>[number];

/**
 * The `@Toolset` providers of the Nest application, as Nest built them: their dependencies,
 * configuration and scope are Nest's, and Wardrik calls these very instances. Nest builds the providers
 * of all modules at once, so a toolset may still be under construction when Wardrik's factory runs:
 * its construction is awaited. A toolset that needs Wardrik itself would wait for ever, so it is refused.
 */
export async function discoverToolsets(discovery: DiscoveryService): Promise<object[]> {
  const found: object[] = [];
  for (const wrapper of discovery.getProviders()) {
    const toolsetClass = classOf(wrapper);
    if (toolsetClass === undefined) continue;
    const where = `Toolset "${getToolsetName(toolsetClass)}" (Nest provider ${toolsetClass.name})`;
    if (!wrapper.isDependencyTreeStatic()) {
      throw new ConfigurationError(
        `${where} is request-scoped or transient (or depends on such a provider), but a tool call has no Nest ` +
          'request: it may run after the request that asked for it, when a person approves it, or after a crash. ' +
          'Make the toolset a singleton and read who called from ctx.caller; resolve a request-scoped provider ' +
          'inside the tool with ModuleRef.resolve(Provider, ContextIdFactory.create()) if it needs one (docs/nest.md).',
      );
    }
    if (needsWardrik(toolsetClass)) {
      throw new ConfigurationError(
        `${where} injects Wardrik (or its MCP server or inbox), which is built from the toolsets, so neither could ` +
          'be built first. Inject it in another provider, or take what the tool needs from its ToolContext.',
      );
    }
    const host = wrapper.getInstanceByContextId(STATIC_CONTEXT);
    if (host.isResolved !== true && host.donePromise !== undefined) await host.donePromise;
    const instance = wrapper.instance as object | null | undefined;
    if (instance === null || instance === undefined || !(instance instanceof toolsetClass)) {
      throw new ConfigurationError(`${where} was not built by Nest; check the module that provides it.`);
    }
    if (!found.includes(instance)) found.push(instance);
  }
  return found;
}

/** The `@Toolset` class a provider is an instance of, or `undefined`. */
function classOf(wrapper: ProviderWrapper): Function | undefined {
  // A class provider's metatype is the class; a factory's is its function; a value provider has none.
  const candidates = [wrapper.inject === undefined || wrapper.inject === null ? wrapper.metatype : undefined];
  const value =
    wrapper.getInstanceByContextId(STATIC_CONTEXT).isResolved === true
      ? (wrapper.instance as object | null | undefined)
      : undefined;
  if (value !== null && value !== undefined && typeof value === 'object') candidates.push(value.constructor);
  return candidates.find(
    (candidate): candidate is Function => typeof candidate === 'function' && getToolsetName(candidate) !== undefined,
  );
}

function needsWardrik(toolsetClass: Function): boolean {
  const tokens: unknown[] = [...(getConstructorTypes(toolsetClass) ?? [])];
  // Nest's @Inject(token) parameters, recorded under its own key.
  const injected = Reflect.getMetadata('self:paramtypes', toolsetClass) as { param: unknown }[] | undefined;
  for (const { param } of injected ?? []) tokens.push(param);
  return tokens.some((token) => token === Wardrik || token === WARDRIK_MCP_SERVER || token === WARDRIK_INBOX);
}
