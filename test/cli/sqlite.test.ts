import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { cliSuite } from './cli-suite.js';

const dir = mkdtempSync(join(tmpdir(), 'wardrik-cli-'));
let n = 0;
after(() => rmSync(dir, { recursive: true, force: true }));

cliSuite('SQLite', async () => `sqlite:${join(dir, `store-${++n}`, 'wardrik.db')}`);
