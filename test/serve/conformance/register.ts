// Loaded with `node --import` before the conformance suite: registers resolve-hook.ts.
import { register } from 'node:module';

register('./resolve-hook.js', import.meta.url);
