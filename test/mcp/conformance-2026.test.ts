import 'reflect-metadata';
import { describe } from 'node:test';
import { clientScenarios } from './conformance/client-scenarios.js';

/** The client scenarios of protocol revision 2026-07-28 in @modelcontextprotocol/conformance 0.2.0-alpha.12. */
describe('MCP conformance: 2026-07-28 client scenarios', () =>
  clientScenarios([
    'request-metadata',
    'sep-2322-client-request-state',
    'http-standard-headers',
    'http-custom-headers',
    'http-invalid-tool-headers',
    'json-schema-ref-no-deref',
    'json-schema-2020-12-preservation',
  ]));

describe('MCP conformance: 2026-07-28 authorization (resource, offline access, issuer checks, a moved authorization server)', () =>
  clientScenarios([
    'auth/resource-mismatch',
    'auth/offline-access-scope',
    'auth/offline-access-not-supported',
    'auth/iss-supported',
    'auth/iss-not-advertised',
    'auth/iss-supported-missing',
    'auth/iss-wrong-issuer',
    'auth/iss-unexpected',
    'auth/iss-normalized',
    'auth/metadata-issuer-mismatch',
    'auth/authorization-server-migration',
  ]));
