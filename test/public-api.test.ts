import 'reflect-metadata';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as api from '../src/index.js';

describe('The public API', () => {
  it('exports exactly these runtime names: adding or removing one is a visible act', () => {
    assert.deepEqual(Object.keys(api).sort(), [
      'ARGUMENT_LIMITS',
      'ConfigurationError',
      'ConflictError',
      'Describe',
      'Destructive',
      'EventBus',
      'Idempotent',
      'Inbox',
      'InvalidArgumentsError',
      'Labels',
      'MemoryStore',
      'NotFoundError',
      'OpenWorld',
      'ParkRequest',
      'Policy',
      'PostgresStore',
      'RUNNER_DEFAULTS',
      'ReadOnly',
      'Resources',
      'SqliteStore',
      'StoreError',
      'Timeout',
      'Tokens',
      'Tool',
      'ToolCatalog',
      'ToolNotFoundError',
      'ToolResult',
      'ToolRunner',
      'ToolTimeoutError',
      'Toolset',
      'Unavailable',
      'Wardrik',
      'WardrikError',
      'annotate',
      'annotation',
      'answerText',
      'argumentsDigest',
      'callTool',
      'defineTool',
      'getPrivate',
      'isRepeatable',
      'isTransient',
      'openStore',
      'park',
      'putPrivate',
      'updatePrivate',
    ]);
  });
});
