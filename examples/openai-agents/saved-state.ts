// An approval that takes hours: the app saves the SDK's RunState while the refund waits, and resumes it
// later, in any process. The Wardrik run comes from the run's own context, so the restored state is the
// same Wardrik run: the call it parked is approved there, and runs once.
import 'reflect-metadata';
import { Agent, RunState, type Runner } from '@openai/agents';
import type { Wardrik } from '../../src/index.js';
import { openAiAgentsTools } from '../../src/openai-agents/index.js';

export interface Conversation {
  readonly conversationId: string;
  readonly user: string;
}

export function orderDesk(wardrik: Wardrik): Agent<Conversation> {
  return new Agent<Conversation>({
    name: 'Order desk',
    instructions: 'You help customers with their orders. Refund when asked; be brief.',
    model: 'gpt-5-mini',
    tools: openAiAgentsTools<Conversation>(wardrik, {
      agent: 'order-desk',
      tools: ['orders/*'],
      run: (runContext) => runContext.context.conversationId,
      by: (runContext) => runContext.context.user,
    }),
  });
}

export async function startRefund(runner: Runner, agent: Agent<Conversation>, conversation: Conversation) {
  const result = await runner.run(agent, 'Please refund ord_1001.', { context: conversation });
  // Keep this string (in your database) until a person decides; the call waits in Wardrik's inbox meanwhile.
  return result.interruptions.length > 0 ? result.state.toString() : undefined;
}

export async function decideLater(runner: Runner, agent: Agent<Conversation>, saved: string, approved: boolean) {
  const state = await RunState.fromString(agent, saved);
  for (const item of state.getInterruptions()) {
    if (approved) state.approve(item);
    else state.reject(item, { message: 'The manager declined this refund.' });
  }
  return runner.run(agent, state);
}
