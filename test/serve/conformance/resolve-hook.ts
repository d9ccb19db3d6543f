// A module-resolution hook: hands the conformance suite an `fs` with a `globSync` stand-in (see fs-with-glob.ts).
interface ResolveContext {
  readonly parentURL?: string;
}
type NextResolve = (specifier: string, context: ResolveContext) => Promise<{ url: string }>;

export async function resolve(
  specifier: string,
  context: ResolveContext,
  next: NextResolve,
): Promise<{ url: string; shortCircuit?: boolean }> {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL?.includes('/@modelcontextprotocol/conformance/') === true
  ) {
    return { url: new URL('./fs-with-glob.js', import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}
