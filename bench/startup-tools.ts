// The module startup.bench.ts serves with `wardrik serve`: the same `echo` tool as its bare SDK server.
import { defineTool } from '../src/index.js';

export const echo = defineTool({
  name: 'echo',
  description: 'Echoes its text.',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  annotations: { readOnly: true },
  run: ({ text }: { text: string }) => text,
});
