/**
 * `@opentelemetry/api`, an optional peer dependency: loaded once, when spans, metrics or trace context
 * are first needed, and shared by all of them. A no-op until the app installs an SDK.
 */
export type OtelApi = typeof import('@opentelemetry/api');

let loaded: OtelApi | undefined;
let loading: Promise<OtelApi | undefined> | undefined;

/** Loads the API once; `undefined` when the app does not have the package. */
export function loadOtelApi(): Promise<OtelApi | undefined> {
  loading ??= import('@opentelemetry/api').then(
    (api) => (loaded = api),
    () => undefined,
  );
  return loading;
}

/** The API once `loadOtelApi` has loaded it, for code on a path that must not wait. */
export function loadedOtelApi(): OtelApi | undefined {
  return loaded;
}
