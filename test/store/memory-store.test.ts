import { MemoryStore } from '../../src/store/memory-store.js';
import { settableClock, storeContract } from '../../src/testing/index.js';

const time = settableClock();
storeContract('MemoryStore', async () => new MemoryStore(time.clock), {
  durable: false,
  synchronous: true,
  clock: time.contract,
});
