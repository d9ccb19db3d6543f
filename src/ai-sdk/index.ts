// `wardrik/ai-sdk`: Wardrik's gate around the tools of an AI SDK 7 agent loop (`generateText`, `streamText`,
// `ToolLoopAgent`). Only this entry imports `ai`, an optional peer dependency.
export { aiSdkTools } from './tools.js';
export type { AiSdkToolsOptions } from './gate.js';
export { inboxApprovals } from './approvals.js';
