// For test/agent/lazy.test.ts: records which provider packages get loaded while a scripted turn runs,
// then while an anthropic: model is resolved. Prints one JSON line.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const seen: string[] = [];
const { port1, port2 } = new MessageChannel();
/** Probes on their way back, by specifier (see `settle`). */
const probes = new Map<string, () => void>();
port1.on('message', (specifier: string) => {
  const back = probes.get(specifier);
  if (back === undefined) return void seen.push(specifier);
  probes.delete(specifier);
  back();
});
port1.unref();
const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@ai-sdk/') || specifier.startsWith('@opentelemetry/') || specifier.startsWith('data:text/javascript,//probe-')) port.postMessage(specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });

let probe = 0;
/**
 * Resolves once every specifier resolved so far has been reported: a probe module is resolved after them,
 * and the port delivers its report after theirs.
 */
const settle = async (): Promise<void> => {
  const specifier = `data:text/javascript,//probe-${++probe}`;
  const back = new Promise<void>((resolve) => probes.set(specifier, resolve));
  port1.ref();
  await import(specifier);
  await back;
  port1.unref();
};
const { Wardrik } = await import('../../src/index.js');
const { scriptedModel } = await import('../../src/testing/index.js');
const wardrik = await Wardrik.create({ store: 'memory:', recoverMs: Infinity });
await wardrik.startAgent({ id: 'a', model: scriptedModel([{ text: 'hi' }]), tools: [] }).send('hi');
await settle();
const scripted = [...new Set(seen)].filter((s) => s === '@ai-sdk/anthropic' || s === '@ai-sdk/openai');
await wardrik.models.resolve('anthropic:claude-haiku-4-5');
await settle();
const afterAnthropic = [...new Set(seen)].filter((s) => s === '@ai-sdk/anthropic' || s === '@ai-sdk/openai');
await wardrik.close();
console.log(JSON.stringify({ scripted, afterAnthropic }));
