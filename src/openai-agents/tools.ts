import { tool, type FunctionTool, type RunContext } from '@openai/agents';
import { ConfigurationError } from '../errors.js';
import { checkOptions, type OpenAiAgentsToolsOptions, type WardrikForOpenAiAgents } from './options.js';
import { SdkCalls } from './sdk-calls.js';

/** A Wardrik tool's JSON Schema as the SDK types one it sends without strict mode. */
type Parameters = Extract<FunctionTool['parameters'], { additionalProperties: true }>;

/**
 * Wardrik's tools matching `options.tools`, as `@openai/agents` function tools for an `Agent`'s `tools`.
 * Every call goes through Wardrik's runner (arguments checked, policy, labels, budget, journal), under the
 * SDK's call id in the run, so it runs once whatever the app retries or resumes. A call that waits for a
 * person's approval becomes the SDK's interruption (`result.interruptions`); `state.approve(item)` or
 * `state.reject(item)` then `run(agent, state)` is recorded in Wardrik's inbox as the person's answer, and an
 * answer given in Wardrik's inbox instead is honoured when the run resumes.
 *
 * The SDK names the tools as Wardrik's own agents do (`orders__refund_order`): saved runs refer to them.
 * The tools are those registered when this is called (an MCP server that connects later adds none).
 */
export function openAiAgentsTools<TContext = unknown>(
  wardrik: WardrikForOpenAiAgents,
  options: OpenAiAgentsToolsOptions<TContext>,
): FunctionTool<TContext, Parameters, string>[] {
  checkOptions(options as OpenAiAgentsToolsOptions<never>);
  const infos = wardrik.tools(options.tools);
  if (infos.length === 0)
    throw new ConfigurationError(
      `openAiAgentsTools: no tool matches ${JSON.stringify(options.tools)}; wardrik.tools() lists the registered ones (patterns such as "orders/*").`,
    );
  const calls = new SdkCalls<TContext>(
    wardrik,
    { ...options, tools: [...options.tools] },
    infos.map((info) => info.name),
  );
  return infos.map(({ name, description, inputSchema }) =>
    tool<Parameters, TContext, string>({
      name,
      description,
      // Wardrik checks the arguments itself (every failing field back to the model), so the schema is sent as
      // it is: OpenAI's strict mode would need every property required and no other keywords.
      parameters: inputSchema as unknown as Parameters,
      strict: false,
      needsApproval: (runContext: RunContext, input: unknown, callId?: string) =>
        calls.needsApproval(runContext as RunContext<TContext>, name, input, callId),
      execute: (input: unknown, runContext?: RunContext<TContext>, details?: { toolCall?: { callId?: string } }) =>
        calls.execute(runContext!, name, input, details?.toolCall?.callId),
      isEnabled: async ({ runContext }) => {
        await calls.recordRejections(runContext);
        return true;
      },
      // A store failure is the developer's to see, not the model's: it fails the run.
      errorFunction: null,
    }),
  );
}
