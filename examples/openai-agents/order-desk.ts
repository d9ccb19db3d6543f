// An OpenAI Agents SDK agent whose tools are Wardrik's orders toolset: every call goes through Wardrik's
// runner, and the refund, which asks a person, comes back as the SDK's own interruption. It needs
// OPENAI_API_KEY (OPENAI_BASE_URL points it elsewhere, as the test does at a loopback fake of the API).
import 'reflect-metadata';
import { Agent, OpenAIProvider, Runner } from '@openai/agents';
import { Wardrik } from '../../src/index.js';
import { openAiAgentsTools } from '../../src/openai-agents/index.js';
import { OrderTools } from '../orders/order-tools.js';

const wardrik = await Wardrik.create({ toolsets: [OrderTools], store: 'memory:' });
wardrik.events$.subscribe((event) => {
  if (event.type === 'tool.answered') console.log(`Inbox: ${event.tool} ${event.answer} by ${event.by ?? 'nobody'}`);
});

const agent = new Agent({
  name: 'Order desk',
  instructions: 'You help customers with their orders. Refund when asked; be brief.',
  model: 'gpt-5-mini',
  tools: openAiAgentsTools(wardrik, { agent: 'order-desk', tools: ['orders/*'], by: 'dana@example.com' }),
});

const runner = new Runner({
  modelProvider: new OpenAIProvider({
    apiKey: process.env.OPENAI_API_KEY,
    ...(process.env.OPENAI_BASE_URL === undefined ? {} : { baseURL: process.env.OPENAI_BASE_URL }),
  }),
  tracingDisabled: true,
});

let result = await runner.run(agent, 'Where is the order for pi_123? Please refund it.');
while (result.interruptions.length > 0) {
  for (const item of result.interruptions) {
    console.log(`The run waits for a person: ${item.name} ${item.arguments}. Dana approves it.`);
    result.state.approve(item); // recorded in Wardrik's inbox as Dana's approval; the refund runs once
  }
  result = await runner.run(agent, result.state);
}
console.log(`Agent: ${result.finalOutput}`);

await wardrik.close();
