// docs/durable-runs.md: the Store contract on your own store, as a test file (node --test).
import { settableClock, storeContract } from '../../src/testing/index.js';
import { CoreStore } from './core-store.js';

const time = settableClock();
storeContract('CoreStore', async () => new CoreStore(time.clock), {
  durable: false,
  synchronous: false,
  clock: time.contract,
  capabilities: [],
});
