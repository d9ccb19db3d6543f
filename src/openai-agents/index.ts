// `wardrik/openai-agents`: Wardrik's tools as `@openai/agents` tools. Loaded only when imported, so the SDK
// is an optional peer dependency: an app that never imports this entry point never needs it.
export { openAiAgentsTools } from './tools.js';
export type { OpenAiAgentsToolsOptions, WardrikForOpenAiAgents } from './options.js';
