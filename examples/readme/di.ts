// docs/di.md: a toolset's dependencies from the app's container, and each seam an app may replace.
import 'reflect-metadata';
import { container } from 'tsyringe';
import {
  ConfigurationError,
  EventBus,
  MemoryStore,
  ModelRegistry,
  Policy,
  Tokens,
  Wardrik,
  type Clock,
  type CredentialProvider,
  type Decision,
  type EventInput,
  type PolicyInput,
  type PolicyRule,
} from '../../src/index.js';
import { manualTime, scriptedModel } from '../../src/testing/index.js';
import { OrderService, OrderTools } from '../orders/order-tools.js';

const app = container.createChildContainer();
app.registerSingleton(OrderService); // OrderTools gets this one
const fixedClock: Clock = { now: () => Date.parse('2026-01-01T00:00:00Z') };
app.register(Tokens.Clock, { useValue: fixedClock }); // Wardrik uses it instead of its own

const wardrik = await Wardrik.create({ container: app, toolsets: [OrderTools], store: 'memory:' });
const runner = wardrik.container.resolve(Tokens.Runner); // every service by its token
console.log(runner === wardrik.runner, app.resolve(OrderService).refunds.size);
await wardrik.close();

// Each seam, replaced in one container.
const seams = container.createChildContainer();

// Clock and Timers: time that moves only when told, for tests (`wardrik/testing`).
const time = manualTime(Date.parse('2026-01-01T00:00:00Z'));
seams.register(Tokens.Clock, { useValue: time });
seams.register(Tokens.Timers, { useValue: time }); // every timer Wardrik sets waits on these

// Events: a bus that also counts what goes through it.
class CountingBus extends EventBus {
  readonly counts = new Map<string, number>();

  override emit(input: EventInput): void {
    this.counts.set(input.type, (this.counts.get(input.type) ?? 0) + 1);
    super.emit(input);
  }
}
const bus = new CountingBus(time);
seams.register(Tokens.Events, { useValue: bus });

// Store: one the app opened, and closes (instead of the store option).
const store = new MemoryStore();
seams.register(Tokens.Store, { useValue: store });

// Policy: the rules as configured, and never a payment without a person.
class HouseRules extends Policy {
  override async decide(input: PolicyInput, agentRules?: readonly PolicyRule[]): Promise<Decision> {
    const decision = await super.decide(input, agentRules);
    const payment = input.tool.startsWith('payments/') && decision.action === 'allow';
    return payment ? { action: 'ask', rule: 'house rules: payments' } : decision;
  }
}
seams.register(Tokens.Policy, { useValue: new HouseRules({ rules: [{ match: 'orders/*', action: 'allow' }] }) });

// Credentials: MCP servers' secrets from the app's vault, asked at each connect.
const vault = new Map([['mcp/github/GITHUB_TOKEN', 'ghp_example']]);
const credentials: CredentialProvider = {
  resolve: (name, { hub, server }) => vault.get(`${hub}/${server}/${name}`),
};
seams.register(Tokens.Credentials, { useValue: credentials });

// Models: a registry with the app's own provider, made before Wardrik starts.
const models = new ModelRegistry({ anthropic: { baseURL: 'http://127.0.0.1:8080' } });
models.register('house', (modelId) => scriptedModel([{ text: `${modelId} says hello.` }]));
seams.register(Tokens.Models, { useValue: models });

const replaced = await Wardrik.create({ container: seams, recoverMs: Infinity });
const turn = await replaced.startAgent({ id: 'greeter', model: 'house:small', tools: [] }).send('Hello');
console.log(turn.text, [...bus.counts.keys()], replaced.models === models);
await replaced.close();
await store.close(); // the app's store: Wardrik leaves it open

// What Wardrik builds itself (Catalog, Runner, Inbox, Agents, Capabilities, Mcp) is not replaced.
const wrong = container.createChildContainer();
wrong.register(Tokens.Runner, { useValue: runner });
try {
  await Wardrik.create({ container: wrong, store: 'memory:' });
} catch (error) {
  console.log(error instanceof ConfigurationError); // "Tokens.Runner is registered in the container … Remove the registration; …"
}
