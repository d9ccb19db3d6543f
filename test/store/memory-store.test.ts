import { MemoryStore } from '../../src/store/memory-store.js';
import { settableClock, storeContract } from './store-contract.js';

const time = settableClock();
storeContract('MemoryStore', async () => new MemoryStore(time.clock), {
  durable: false,
  synchronous: true,
  clock: time.contract,
});
