import 'reflect-metadata';
import { after } from 'node:test';
import { cliSuite } from './cli-suite.js';
import { postgresSchemas } from './helpers.js';

// A schema per test, all dropped at the end (never skipped: PostgreSQL must be there, as for the store tests).
const schemas = postgresSchemas();
after(() => schemas.dropAll());

cliSuite('PostgreSQL', async () => schemas.url());
