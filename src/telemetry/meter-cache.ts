import type { Meter, MeterProvider } from '@opentelemetry/api';
import { registeredMeterProvider } from './metrics.js';
import { loadedOtelApi } from './otel-api.js';

/**
 * Instruments made on demand from the MeterProvider registered now (an app or a test may replace it):
 * the returned function gives them, built once per provider, or `undefined` when no MeterProvider is
 * registered or `@opentelemetry/api` is not loaded, so a path that records them costs a lookup, no more.
 */
export function instrumentsOfProvider<T>(build: (meter: Meter) => T): () => T | undefined {
  let current: { readonly provider: MeterProvider; readonly instruments: T } | undefined;
  return () => {
    if (!registeredMeterProvider()) return undefined;
    const api = loadedOtelApi();
    if (api === undefined) return undefined;
    const provider = api.metrics.getMeterProvider();
    if (current?.provider !== provider) current = { provider, instruments: build(provider.getMeter('wardrik')) };
    return current.instruments;
  };
}
