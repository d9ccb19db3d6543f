import 'reflect-metadata';
import { describe } from 'node:test';
import { clientScenarios } from './conformance/client-scenarios.js';

describe('MCP conformance: OAuth scopes and 2025-03-26 back-compatibility', () =>
  clientScenarios([
    'auth/scope-from-www-authenticate',
    'auth/scope-from-scopes-supported',
    'auth/scope-omitted-when-undefined',
    'auth/scope-step-up',
    'auth/scope-retry-limit',
    'auth/2025-03-26-oauth-metadata-backcompat',
    'auth/2025-03-26-oauth-endpoint-fallback',
  ]));
