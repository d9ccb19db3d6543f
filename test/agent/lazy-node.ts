// For test/agent/lazy.test.ts: records which provider packages get loaded while a scripted turn runs,
// then while an anthropic: model is resolved. Prints one JSON line.
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const seen: string[] = [];
const { port1, port2 } = new MessageChannel();
port1.on('message', (specifier: string) => seen.push(specifier));
port1.unref();
const hooks = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@ai-sdk/') || specifier.startsWith('@opentelemetry/')) port.postMessage(specifier);
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
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
