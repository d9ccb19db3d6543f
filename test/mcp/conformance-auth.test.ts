import 'reflect-metadata';
import { describe } from 'node:test';
import { clientScenarios } from './conformance/client-scenarios.js';

describe('MCP conformance: OAuth client registration and token endpoints', () =>
  clientScenarios([
    'auth/basic-cimd',
    'auth/token-endpoint-auth-basic',
    'auth/token-endpoint-auth-post',
    'auth/token-endpoint-auth-none',
    'auth/pre-registration',
    'auth/client-credentials-basic',
  ]));
