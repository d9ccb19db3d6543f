// docs/di.md: a toolset's dependencies from the app's container, and a replaced service.
import 'reflect-metadata';
import { container } from 'tsyringe';
import { Tokens, Wardrik, type Clock } from '../../src/index.js';
import { OrderService, OrderTools } from '../orders/order-tools.js';

const app = container.createChildContainer();
app.registerSingleton(OrderService); // OrderTools gets this one
const fixedClock: Clock = { now: () => Date.parse('2026-01-01T00:00:00Z') };
app.register(Tokens.Clock, { useValue: fixedClock }); // Wardrik uses it instead of its own

const wardrik = await Wardrik.create({ container: app, toolsets: [OrderTools], store: 'memory:' });
const runner = wardrik.container.resolve(Tokens.Runner); // every service by its token
console.log(runner === wardrik.runner, app.resolve(OrderService).refunds.size);
await wardrik.close();
